"""Fit the chance of passing on the tune split, measure it on the holdout split, and write the
model's calibration file.

    .venv/bin/python -m benchmarks.chance.fit_chance [--write] [--plot results/chance-of-passing/reliability.png]

Reads what ``benchmarks/assessment/assess_quality.py --axes all`` measured (``benchmarks/out/assess-quality-
{tune,holdout}-all.jsonl``): every signal of both functions of each right/wrong pair, assessed with
the editor's default settings. Then:

1. prints the single fits' cross-validation on the tune pairs (for the record), then chooses the
   chain of fits (one per pattern of available signals, ``CHAIN_CANDIDATES``) by 5-fold
   cross-validation, folds by problem (a problem's functions never sit on both sides), by log-loss
   (the fewest signals within one standard error of the lowest, the error of the paired difference
   on the same functions, then the lowest): the headline is
   a probability, so how well calibrated it is decides, not only how well it ranks. With
   ``--tune-generated`` (the model's greedy code of tune problems, ``generated_chance.py``) the
   chains are cross-validated over both kinds together and judged by the mean of the two kinds'
   log-losses;
2. fits the chosen chain on the whole tune split, both kinds (``qualm.fitting.chance_fit``: it refuses
   MBPP 11-510);
3. on the holdout split, never used for a choice: AUROC right-vs-wrong of every axis and of the
   headline, the Brier score and ECE, and the reliability diagram (``--plot``);
4. ``--write``: the model's calibration file in ``server/qualm/calibration/`` becomes the tune
   split's functions as the percentile reference (each axis's raw scores, with these settings) and
   the fitted pass model with its holdout quality.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from dataclasses import replace
from pathlib import Path

from benchmarks.chance.generated_chance import greedy_function
from benchmarks.common.paths import OUT, ROOT
from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.chance import LEXICAL_SIGNALS, PassModel, signals_of
from qualm.evaluation import datasets
from qualm.fitting.chain import CANDIDATE_FEATURES, choose_chain, choose_features, pairs_calibration
from qualm.fitting.chance_fit import Example, reliability
from qualm.fitting.fit_inputs import FitInputs
from qualm.fitting.pairs import PAIRS_FILE, describe_split
from qualm.fitting.validation import auroc_fails, pair_doubts, pairs_auroc_interval
from qualm.lang import PYTHON, SourceError
from qualm.model.files import DEFAULT_MODEL
from qualm.settings import Settings
from qualm.signals.agreement import ProbeOutcome, weighted_functional
from qualm.signals.examples import check_examples
from qualm.signals.functional import calling_only, parse_tests
from qualm.signals.lexical import lexical_report
from qualm.trace import Trace
from qualm_sandbox import SandboxConfig

DATA = ROOT / PAIRS_FILE


# The signals beside the lexical ones, reported for both splits.
OTHER_SIGNALS = ("algorithmic", "candidate_distance", "functional", "functional_weighted", "agreement", "differential", "swap_gain", "examples_failed")


def plot_reliability(path: Path, rel, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 4.5), dpi=120)
    ax.plot([0, 1], [0, 1], color="#999", lw=1, ls="--", label="perfectly calibrated")
    xs = [b[3] for b in rel.bins]
    ys = [b[4] for b in rel.bins]
    ax.plot(xs, ys, marker="o", color="#2a6fdb", label="holdout functions")
    for b in rel.bins:
        ax.annotate(str(b[2]), (b[3], b[4]), textcoords="offset points", xytext=(4, -10), fontsize=7, color="#555")
    ax.set_xlabel("chance it passes (predicted)")
    ax.set_ylabel("share that passed")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)


def _verdicts(tests: list[str], passed: dict[str, bool]) -> list[ProbeOutcome]:
    """Cached pass/fail of a program on ``tests``, as the outcomes ``weighted_functional`` reads."""
    return [ProbeOutcome(i, t, "passed" if passed.get(t, False) else "failed") for i, t in enumerate(tests)]


def generated(model: PassModel, folder: Path, settings: Settings) -> None:
    """The chance of passing on the model's own greedy solutions of the evaluation's test split,
    against the official labels, from the evaluation's cache (no model run): the lexical signals
    from the greedy trace (every generated token, not only the body, unlike an assessment), the
    functional axis from the cached self-test runs with the editor's rule (asserts that never call
    the function dropped); the docstring's example (MBPP's prompt states one as an ``assert``: the
    first official test) run on the code in the sandbox, as the editor runs it; the candidate plan
    was never made there, so it takes its mean. The chance is also given without the example, as
    for a docstring that states none."""

    problems = {p.task_id: p for p in datasets.mbpp(split="test")}
    config = SandboxConfig(timeout=settings.functional.timeout, mode=settings.functional.sandbox_mode)
    examples, chances, without, entropy, func_paper = [], [], [], [], []
    for problem in sorted(folder.iterdir()):
        try:
            greedy = json.loads((problem / "greedy.json").read_text())
            label = json.loads((problem / "label.json").read_text())
            tests = json.loads((problem / "tests.json").read_text())
            runs = json.loads((problem / "selftests.json").read_text())
        except (OSError, ValueError):
            continue
        task_id = problem.name.replace("_", "/")
        number = int(task_id.split("/")[1])
        if not 11 <= number <= 510:
            continue
        trace = Trace.from_dict(greedy["trace"])
        lexical = lexical_report(trace, settings.lexical.top_k)
        row = (runs.get("matrix") or [None])[0]
        entry = label.get("entry_point") or _entry_point(tests["tests"])
        func = weighted = None
        if row is not None and entry:
            kept = calling_only(parse_tests(json.dumps(tests["tests"]), limit=settings.functional.n_tests, function_name=entry), entry).tests
            outcome = dict(zip(tests["tests"], row))
            ran = [t for t in kept if t in outcome]
            func = 1 - sum(outcome[t] for t in ran) / len(ran) if ran else None
            # The editor's functional_weighted, with the evaluation's own samples as the solutions
            # (10 at temperature 0.8, not the editor's 6 at 0.6): each test weighted by the share of
            # them that pass it.
            try:
                sample_rows = [dict(zip(tests["tests"], r)) for r in json.loads((problem / "sampletests.json").read_text())["matrix"] if r is not None]
            except (OSError, ValueError, KeyError):
                sample_rows = []
            weighted = weighted_functional(_verdicts(ran, outcome), [_verdicts(ran, r) for r in sample_rows]).uncertainty
        failed = None
        if settings.functional.docstring_examples and task_id in problems:
            problem = problems[task_id]
            try:
                fn = greedy_function(trace.text, problem)
                failed = check_examples(fn.program, PYTHON.docstring(fn.source, problem.entry_point), problem.entry_point, config).failed
            except SourceError:
                pass  # no such function in the code: nothing to run the example on
        signals = signals_of(lexical, None, None, func, weighted, None, examples_failed=failed)
        examples.append(Example(task_id, signals, bool(label.get("passed"))))
        chances.append(model.probability(signals))
        without.append(model.probability({**signals, "examples_failed": None}))
        entropy.append(lexical.all.top_k_entropy)
        func_paper.append(runs.get("greedy", {}).get("uncertainty"))
    if not examples:
        print(f"\nno cached problems in {folder}")
        return
    passing = sum(e.passed for e in examples)
    print(f"\nthe model's greedy solutions of MBPP 11-510 (the evaluation's test split, never tuned on): {len(examples)} problems, {passing} pass the official tests")
    for name, doubt in (("Top-5 entropy (the paper's lexical)", entropy), ("functional, the paper's count", func_paper), (f"lexical.all.{settings.lexical.assess_signal}", [e.signals.get(f"lexical.all.{settings.lexical.assess_signal}") for e in examples]), ("functional, calling asserts only", [e.signals.get("functional") for e in examples]), ("functional_weighted (the 10 samples as solutions)", [e.signals.get("functional_weighted") for e in examples]), ("examples_failed (the docstring's assert)", [e.signals.get("examples_failed") for e in examples])):
        auc, n = auroc_fails(examples, doubt)
        print(f"  {name:40} AUROC {auc:.3f} ({n} problems)")
    for name, given in (("headline: 1 - chance of passing", chances), ("  the same without the docstring's example", without)):
        auc, n = auroc_fails(examples, [None if p is None else 1 - p for p in given])
        present = [(p, e.passed) for p, e in zip(given, examples) if p is not None]
        rel = reliability([p for p, _ in present], [y for _, y in present])
        print(f"  {name:40} AUROC {auc:.3f} ({n} problems); Brier {rel.brier:.4f}, ECE {rel.ece:.4f}; mean chance {sum(p for p, _ in present) / len(present):.3f} against {passing / len(examples):.3f} passing")


def _entry_point(tests: list[str]) -> str | None:
    """The function a cached test list calls (the label files of older caches do not name it)."""
    for t in tests:
        m = re.match(r"assert\s+(?:not\s+)?\(?\s*([A-Za-z_]\w*)\s*\(", t)
        if m:
            return m.group(1)
    return None


def fit_inputs(args: argparse.Namespace) -> FitInputs:
    """The manifest (``--inputs``) with the files given on the command line added to it, or the
    command line alone (the defaults in ``benchmarks/out/`` where it names no tune or holdout file)."""
    base = FitInputs.read(args.inputs) if args.inputs else FitInputs()
    return replace(
        base,
        model_key=args.model_key or base.model_key or DEFAULT_MODEL.key,
        tune=(*base.tune, *(args.tune or [])) or (OUT / "assess-quality-tune-all.jsonl",),
        holdout=(*base.holdout, *(args.holdout or [])) or (OUT / "assess-quality-holdout-all.jsonl",),
        tune_lexical=args.tune_lexical or base.tune_lexical,
        holdout_lexical=args.holdout_lexical or base.holdout_lexical,
        lexical_replaces=args.lexical_replaces or base.lexical_replaces,
        tune_extra=(*base.tune_extra, *(args.tune_extra or [])),
        holdout_extra=(*base.holdout_extra, *(args.holdout_extra or [])),
        tune_generated=(*base.tune_generated, *(args.tune_generated or [])),
        tune_generated_extra=(*base.tune_generated_extra, *(args.tune_generated_extra or [])),
        tune_undecided_pairs=args.tune_undecided_pairs or base.tune_undecided_pairs,
        tune_undecided=(*base.tune_undecided, *(args.tune_undecided or [])),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", type=Path, default=None, help="a manifest of the results files to fit and check on (results/chance-of-passing/fit-inputs.json, results/qwen2.5-coder-1.5b/calibration/fit-inputs.json); the options below add to it")
    ap.add_argument("--tune", type=Path, action="append", help="full-run results of tune pairs (default benchmarks/out/assess-quality-tune-all.jsonl); may be given more than once: the files' pairs together (--tune-lexical applies to the first)")
    ap.add_argument("--holdout", type=Path, action="append", help="full-run results of holdout pairs (default benchmarks/out/assess-quality-holdout-all.jsonl); may be given more than once, as --tune (--holdout-lexical applies to the first)")
    ap.add_argument("--tune-lexical", type=Path, default=None, help="a lexical-only results file of the same pairs: lexical signals the full run lacks are taken from it")
    ap.add_argument("--holdout-lexical", type=Path, default=None)
    ap.add_argument("--lexical-replaces", action="store_true", help="the lexical-only files scored another way (model.score_batch): their lexical signals replace the full runs'")
    ap.add_argument("--tune-extra", type=Path, action="append", help="signals measured later for the same functions (solution_signals.py, swap_signals.py), merged in; may be given more than once")
    ap.add_argument("--holdout-extra", type=Path, action="append")
    ap.add_argument("--tune-generated", type=Path, action="append", help="the model's greedy code of tune problems with every signal (benchmarks/chance/generated_chance.py; several: each): fitted on with the tune pairs")
    ap.add_argument("--tune-generated-extra", type=Path, action="append", help="signals measured later for that code, by task_id (docstring_examples.py --generated-out)")
    ap.add_argument("--tune-undecided-pairs", type=Path, default=None, help="tune pairs that no docstring example decides (undecided_pairs.py --split tune): judged on apart")
    ap.add_argument("--tune-undecided", type=Path, action="append", help="the full runs of those pairs (assess_quality.py --split tune --pairs)")
    ap.add_argument("--model-key", default=None, help="the shipped calibration file to rewrite (default: the manifest's, else the default model's)")
    ap.add_argument("--write", action="store_true", help="write the model's calibration file")
    ap.add_argument("--pass-model-only", action="store_true", help="with --write: replace only the shipped file's pass model, keeping its percentile reference")
    ap.add_argument("--plot", type=Path, default=None, help="the reliability diagram (PNG) of the holdout split")
    ap.add_argument("--generated", type=Path, default=None, help="an evaluation cache folder (<cache>/<model key>/<settings key>/mbpp): the model's greedy solutions of MBPP 11-510 with their official labels")
    args = ap.parse_args()
    settings = Settings()
    inputs = fit_inputs(args)
    tune = inputs.tune_pairs(DATA)
    holdout = inputs.holdout_pairs(DATA)
    print(f"tune: {describe_split(tune, 'tune')}")

    print("\nlexical signals on the tune split (AUROC for 'fails'):")
    for name in LEXICAL_SIGNALS:
        auc, n = auroc_fails(tune, [e.signals.get(f"lexical.all.{name}") for e in tune])
        print(f"  {name:20} {auc if auc is not None else float('nan'):.3f}  ({n} functions)")
    print(f"  the setting lexical.assess_signal is {settings.lexical.assess_signal}")
    for name in OTHER_SIGNALS:
        auc, n = auroc_fails(tune, [e.signals.get(name) for e in tune])
        print(f"  {name:20} {auc if auc is not None else float('nan'):.3f}  ({n} functions)")

    generated_tune = inputs.generated()
    if generated_tune:
        print(f"\nthe model's greedy code of tune problems ({', '.join(os.path.relpath(p) for p in inputs.tune_generated)}): {len(generated_tune)} functions, {sum(e.passed for e in generated_tune)} pass the official tests")
        for name in ("lexical.all.blended_surprisal", *OTHER_SIGNALS):
            auc, n = auroc_fails(generated_tune, [e.signals.get(name) for e in generated_tune])
            print(f"  {name:36} {auc if auc is not None else float('nan'):.3f}  ({n} functions)")

    print("\nsingle fits (every function, a missing signal at its mean), 5-fold cross-validation by problem on the tune pairs, for the record:")
    print(f"  {'signals':80} {'logloss':>8} {'± SE':>6} {'AUROC':>6} {'Brier':>6} {'ECE':>6}")
    for cv in choose_features(tune, CANDIDATE_FEATURES)[1]:
        print(f"  {', '.join(cv.features):80} {cv.logloss:8.4f} {cv.logloss_se:6.4f} {cv.auroc or float('nan'):6.3f} {cv.brier:6.3f} {cv.ece:6.3f}")

    undecided_tune = inputs.undecided()
    if undecided_tune:
        print(f"\ntune pairs that no docstring example decides ({os.path.relpath(inputs.tune_undecided_pairs)}): {describe_split(undecided_tune, 'tune')}")
        for name in ("lexical.all.blended_surprisal", "departure_suspect", "departure_fix_gain", *OTHER_SIGNALS):
            auc, n = auroc_fails(undecided_tune, [e.signals.get(name) for e in undecided_tune])
            print(f"  {name:36} {auc if auc is not None else float('nan'):.3f}  ({n} functions)")

    kinds = ["pairs"] + (["code"] if generated_tune else []) + (["undecided"] if undecided_tune else [])
    print("\nchains of fits (the first whose signals all have a value gives the chance), 5-fold cross-validation by problem")
    print(f"over {', '.join(kinds)} together, log-loss and AUROC on each kind, judged by their mean:")
    print(f"  {'chain':62} {'pairs':>6} {'AUROC':>6} {'code':>6} {'AUROC':>6} {'undec.':>6} {'AUROC':>6} {'mean':>6} {'± SE':>6} {'above the lowest ± SE (paired)':>31}")
    levels, chains = choose_chain([*tune, *generated_tune, *undecided_tune])
    lowest = min(chains, key=lambda cv: cv.logloss)
    nan = float("nan")
    for cv in chains:
        own, und = cv.generated, cv.undecided
        gap, gap_se = cv.worse_than(lowest)
        print(
            f"  {cv.describe():62} {cv.pairs.logloss:6.3f} {cv.pairs.auroc or nan:6.3f} {own.logloss if own else nan:6.3f} {(own.auroc if own else None) or nan:6.3f}"
            f" {und.logloss if und else nan:6.3f} {(und.auroc if und else None) or nan:6.3f} {cv.logloss:6.3f} {cv.logloss_se:6.3f} {gap:+21.3f} ± {gap_se:.3f}"
        )
    chosen = next(cv for cv in chains if cv.levels == levels)
    print(f"  chosen (the fewest signals among the chains above the lowest mean log-loss by at most one standard error of the paired difference, then the lowest): {chosen.describe()}")

    old = Calibration.load(SHIPPED_DIR / f"{inputs.model_key}.json")
    cal, quality = pairs_calibration(old.model, old.model_sha256, settings, tune, holdout, levels, generated_tune, undecided_tune)
    model = cal.pass_model
    print("\nfitted on the whole tune split:")
    for link in model.chain():
        print("  ", json.dumps({"features": link.features, "coef": [round(c, 3) for c in link.coef], "intercept": round(link.intercept, 3), "functions": link.n_fitted}))

    if quality is not None:
        print(f"\nholdout: {quality.description}")
        print(f"  {'signal':40} {'AUROC fails':>11} {'functions':>9}")
        for name in ["lexical.all.top_k_entropy", f"lexical.all.{settings.lexical.assess_signal}", *OTHER_SIGNALS]:
            auc, n = auroc_fails(holdout, [e.signals.get(name) for e in holdout])
            print(f"  {name:40} {auc if auc is not None else float('nan'):11.3f} {n:9d}")
        auc, rel = quality.auroc, quality.reliability
        present = [p for p in quality.chances if p is not None]
        print(f"  {'headline: 1 - chance of passing':40} {auc:11.3f} {len(present):9d}")
        ci = pairs_auroc_interval(pair_doubts(holdout, [None if p is None else 1 - p for p in quality.chances]))
        print(f"  {'  95 % bootstrap interval over the pairs':40} {ci or '- (fewer than two pairs)'}")
        # The docstring's example decides most pairs (a mutant that fails it gets a chance near 0; on
        # MBPP it is the first of the official tests): the headline also where it does not.
        undecided = {w.task_id for w in holdout[1::2] if not w.signals.get("examples_failed")}
        subsets = [(f"{data_set} functions", lambda e, d=data_set: e.task_id.startswith(d + "/")) for data_set in ("HumanEval", "MBPP")]
        subsets.append(("pairs whose wrong function fails no example of its docstring", lambda e: e.task_id in undecided))
        for label, member in subsets:
            kind = [(e, p) for e, p in zip(holdout, quality.chances) if member(e)]
            sub, n = auroc_fails([e for e, _ in kind], [None if p is None else 1 - p for _, p in kind])
            print(f"  {'  of it, ' + label:40} {sub if sub is not None else float('nan'):11.3f} {n:9d}")
        # which fit of the chain gave each function's chance
        for link in model.chain():
            served = [model.used_for(e.signals) is link for e in holdout]
            sub, n = auroc_fails(holdout, [1 - p if used and p is not None else None for used, p in zip(served, quality.chances)])
            alone = f"; alone on {link.evaluated_on}: AUROC {link.quality.get('auroc', float('nan')):.3f}" if link is not model and link.quality else ""
            print(f"  {'  of it, from ' + ', '.join(f.removeprefix('lexical.all.') for f in link.features):40} {sub if sub is not None else float('nan'):11.3f} {sum(served):9d}{alone}")
        print(f"  Brier {rel.brier:.4f} · ECE {rel.ece:.4f} (10 bins) · mean chance {sum(present) / len(present):.3f} against 0.500 passing")
        for lo, hi, count, conf, acc in rel.bins:
            print(f"    [{lo:.1f}, {hi:.1f}) {count:4d} functions: predicted {conf:.2f}, passed {acc:.2f}")
        if args.plot:
            plot_reliability(args.plot, rel, f"chance of passing, {len(present)} holdout functions\nBrier {rel.brier:.3f} · ECE {rel.ece:.3f} · AUROC {auc:.3f}")
            print(f"  reliability diagram: {args.plot}")

    if args.generated:
        generated(model, args.generated, settings)

    if args.write:
        path = SHIPPED_DIR / f"{inputs.model_key}.json"
        (replace(old, pass_model=cal.pass_model) if args.pass_model_only else cal).save(path)
        print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
