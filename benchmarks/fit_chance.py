"""Fit the chance of passing on the tune split, measure it on the holdout split, and write the
model's calibration file.

    .venv/bin/python benchmarks/fit_chance.py [--write] [--plot results/assess-quality/reliability.png]

Reads what ``benchmarks/assess_quality.py --axes all`` measured (``benchmarks/out/assess-quality-
{tune,holdout}-all.jsonl``): every signal of both functions of each right/wrong pair, assessed with
the editor's default settings. Then:

1. chooses the signals of the logistic model by 5-fold cross-validation on the tune split, folds
   by problem (a problem's functions never sit on both sides), by log-loss: the headline is a
   probability, so how well calibrated it is decides, not only how well it ranks;
2. fits the chosen model on the whole tune split (``qualm.chance_fit``: it refuses MBPP 11-510);
3. on the holdout split, never used for a choice: AUROC right-vs-wrong of every axis and of the
   headline, the Brier score and ECE, and the reliability diagram (``--plot``);
4. ``--write``: the model's calibration file in ``server/qualm/calibration/`` becomes the tune
   split's functions as the percentile reference (each axis's raw scores, with these settings) and
   the fitted pass model with its holdout quality.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import defaultdict
from pathlib import Path

from sklearn.metrics import roc_auc_score

from qualm.calibrate import calibration_settings
from qualm.chance import LEXICAL_SIGNALS, PassModel, signals_of
from qualm.chance_fit import Example, fit_pass_model, reliability
from qualm.ensemble import SHIPPED_DIR, Calibration, new_calibration
from qualm.model.files import DEFAULT_MODEL
from qualm.settings import Settings
from qualm.signals.functional import calling_only, parse_tests
from qualm.signals.lexical import lexical_report
from qualm.trace import Trace

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "mutant-pairs.jsonl"
OUT = HERE / "out"

# The model's candidate inputs: the functional axis (the one the issue measured at 0.85) alone,
# then with each kind of lexical signal for code in the file, then with the algorithmic signals.
CANDIDATES: list[list[str]] = [
    ["functional"],
    ["functional", "lexical.all.top_k_surprisal"],
    ["functional", "lexical.all.mean_surprisal"],
    ["functional", "lexical.all.max_probability"],
    ["functional", "lexical.all.top_k_entropy"],
    ["functional", "lexical.all.top_k_surprisal", "candidate_distance"],
    ["functional", "lexical.all.mean_surprisal", "candidate_distance"],
    ["functional", "lexical.all.top_k_surprisal", "candidate_distance", "algorithmic"],
    ["functional", "lexical.all.top_k_surprisal", "lexical.all.mean_surprisal"],
]


def load(path: Path, pairs: dict[str, dict]) -> list[tuple[Example, dict]]:
    """Both functions of every pair measured in ``path``: (example, the row's detail)."""
    by_pair: dict[str, dict[str, dict]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        v = json.loads(line)
        by_pair[v["pair_id"]][v["side"]] = v
    out = []
    for pair_id, sides in by_pair.items():
        if set(sides) != {"original", "mutant"}:
            continue  # an interrupted pair
        for side, v in sides.items():
            out.append((Example(pairs[pair_id]["task_id"], v["values"], side == "original"), v))
    return out


def auroc_fail(examples: list[Example], doubt: list[float | None]) -> tuple[float | None, int]:
    """AUROC of a doubt score for "this function fails", over the functions that have it."""
    ys, us = [], []
    for e, u in zip(examples, doubt):
        if u is not None:
            ys.append(0 if e.passed else 1)
            us.append(u)
    if len(set(ys)) < 2:
        return None, len(ys)
    return float(roc_auc_score(ys, us)), len(ys)


def folds(examples: list[Example], k: int = 5) -> list[list[int]]:
    """k folds by problem, problems dealt in sorted order (deterministic)."""
    problems = sorted({e.task_id for e in examples})
    fold_of = {p: i % k for i, p in enumerate(problems)}
    return [[j for j, e in enumerate(examples) if fold_of[e.task_id] == f] for f in range(k)]


def cross_validate(examples: list[Example], features: list[str]) -> dict[str, float]:
    chances: list[float] = [0.0] * len(examples)
    for held in folds(examples):
        held_set = set(held)
        train = [e for j, e in enumerate(examples) if j not in held_set]
        model = fit_pass_model(train, features, "cv")
        for j in held:
            chances[j] = model.probability(examples[j].signals) or 0.5
    eps = 1e-6
    logloss = -sum(math.log(max(eps, p if e.passed else 1 - p)) for e, p in zip(examples, chances)) / len(examples)
    auc, _ = auroc_fail(examples, [1 - p for p in chances])
    rel = reliability(chances, [e.passed for e in examples])
    return {"logloss": logloss, "auroc": auc or float("nan"), "brier": rel.brier, "ece": rel.ece}


def describe_split(examples: list[Example], name: str) -> str:
    he = len({e.task_id for e in examples if e.task_id.startswith("HumanEval")})
    mb = len({e.task_id for e in examples if e.task_id.startswith("MBPP")})
    return f"{len(examples) // 2} right/wrong pairs of the {name} split ({len(examples)} functions; {he} HumanEval and {mb} MBPP 511-974 problems)"


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


def generated(model: PassModel, folder: Path, settings: Settings) -> None:
    """The chance of passing on the model's own greedy solutions of the evaluation's test split,
    against the official labels, from the evaluation's cache (no model run): the lexical signals
    from the greedy trace (every generated token, not only the body, unlike an assessment), the
    functional axis from the cached self-test runs with the editor's rule (asserts that never call
    the function dropped); the candidate plan was never made there, so it takes its mean."""

    examples, chances, entropy, func_paper = [], [], [], []
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
        func = None
        if row is not None and entry:
            kept = calling_only(parse_tests(json.dumps(tests["tests"]), limit=settings.functional.n_tests, function_name=entry), entry).tests
            outcome = dict(zip(tests["tests"], row))
            ran = [outcome[t] for t in kept if t in outcome]
            func = 1 - sum(ran) / len(ran) if ran else None
        signals = signals_of(lexical, None, None, func)
        examples.append(Example(task_id, signals, bool(label.get("passed"))))
        chances.append(model.probability(signals))
        entropy.append(lexical.all.top_k_entropy)
        func_paper.append(runs.get("greedy", {}).get("uncertainty"))
    if not examples:
        print(f"\nno cached problems in {folder}")
        return
    passing = sum(e.passed for e in examples)
    print(f"\nthe model's greedy solutions of MBPP 11-510 (the evaluation's test split, never tuned on): {len(examples)} problems, {passing} pass the official tests")
    for name, doubt in (("Top-5 entropy (the paper's lexical)", entropy), ("functional, the paper's count", func_paper), (f"lexical.all.{settings.lexical.assess_signal}", [e.signals.get(f"lexical.all.{settings.lexical.assess_signal}") for e in examples]), ("functional, calling asserts only", [e.signals.get("functional") for e in examples])):
        auc, n = auroc_fail(examples, doubt)
        print(f"  {name:40} AUROC {auc:.3f} ({n} problems)")
    auc, n = auroc_fail(examples, [None if p is None else 1 - p for p in chances])
    present = [(p, e.passed) for p, e in zip(chances, examples) if p is not None]
    rel = reliability([p for p, _ in present], [y for _, y in present])
    print(f"  {'headline: 1 - chance of passing':40} AUROC {auc:.3f} ({n} problems); Brier {rel.brier:.4f}, ECE {rel.ece:.4f}; mean chance {sum(p for p, _ in present) / len(present):.3f} against {passing / len(examples):.3f} passing")


def _entry_point(tests: list[str]) -> str | None:
    """The function a cached test list calls (the label files of older caches do not name it)."""
    for t in tests:
        m = re.match(r"assert\s+(?:not\s+)?\(?\s*([A-Za-z_]\w*)\s*\(", t)
        if m:
            return m.group(1)
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tune", type=Path, default=OUT / "assess-quality-tune-all.jsonl")
    ap.add_argument("--holdout", type=Path, default=OUT / "assess-quality-holdout-all.jsonl")
    ap.add_argument("--write", action="store_true", help="write the default model's calibration file")
    ap.add_argument("--plot", type=Path, default=None, help="the reliability diagram (PNG) of the holdout split")
    ap.add_argument("--generated", type=Path, default=None, help="an evaluation cache folder (<cache>/<model key>/<settings key>/mbpp): the model's greedy solutions of MBPP 11-510 with their official labels")
    args = ap.parse_args()
    settings = Settings()
    pairs = {r["pair_id"]: r for r in map(json.loads, DATA.read_text().splitlines())}
    tune_rows = load(args.tune, pairs)
    tune = [e for e, _ in tune_rows]
    assert all(pairs[v["pair_id"]]["split"] == "tune" for _, v in tune_rows), "the tune file holds holdout pairs"
    print(f"tune: {describe_split(tune, 'tune')}")

    print("\nlexical signals on the tune split (AUROC for 'fails'):")
    best_lex = None
    for name in LEXICAL_SIGNALS:
        auc, n = auroc_fail(tune, [e.signals.get(f"lexical.all.{name}") for e in tune])
        print(f"  {name:20} {auc:.3f}  ({n} functions)")
        if name != "improbable_tokens" and auc is not None and (best_lex is None or auc > best_lex[1]):
            best_lex = (name, auc)
    print(f"  best: {best_lex[0]}; the setting lexical.assess_signal is {settings.lexical.assess_signal}")

    print("\ncandidate models, 5-fold cross-validation by problem on the tune split:")
    print(f"  {'signals':80} {'logloss':>8} {'AUROC':>6} {'Brier':>6} {'ECE':>6}")
    results = []
    for features in CANDIDATES:
        cv = cross_validate(tune, features)
        results.append((cv["logloss"], len(features), features, cv))
        print(f"  {', '.join(features):80} {cv['logloss']:8.4f} {cv['auroc']:6.3f} {cv['brier']:6.3f} {cv['ece']:6.3f}")
    _, _, features, _ = min(results, key=lambda r: (round(r[0], 3), r[1]))
    print(f"  chosen (lowest log-loss, then fewest signals): {', '.join(features)}")

    model = fit_pass_model(tune, features, describe_split(tune, "tune"), settings=calibration_settings(settings))
    print("\nfitted on the whole tune split:", json.dumps({"features": model.features, "coef": [round(c, 3) for c in model.coef], "intercept": round(model.intercept, 3)}))

    holdout_rows = load(args.holdout, pairs) if args.holdout.exists() else []
    holdout = [e for e, _ in holdout_rows]
    if holdout:
        assert all(pairs[v["pair_id"]]["split"] == "holdout" for _, v in holdout_rows), "the holdout file holds tune pairs"
        chances = [model.probability(e.signals) for e in holdout]
        print(f"\nholdout: {describe_split(holdout, 'holdout')}")
        print(f"  {'signal':34} {'AUROC fails':>11} {'functions':>9}")
        for name in ["lexical.all.top_k_entropy", f"lexical.all.{settings.lexical.assess_signal}", "algorithmic", "candidate_distance", "functional", "ensemble"]:
            auc, n = auroc_fail(holdout, [e.signals.get(name) for e in holdout])
            print(f"  {name:34} {auc if auc is not None else float('nan'):11.3f} {n:9d}")
        auc, n = auroc_fail(holdout, [None if p is None else 1 - p for p in chances])
        print(f"  {'headline: 1 - chance of passing':34} {auc:11.3f} {n:9d}")
        present = [(p, e.passed) for p, e in zip(chances, holdout) if p is not None]
        rel = reliability([p for p, _ in present], [y for _, y in present])
        print(f"  Brier {rel.brier:.4f} · ECE {rel.ece:.4f} (10 bins) · mean chance {sum(p for p, _ in present) / len(present):.3f} against {sum(y for _, y in present) / len(present):.3f} passing")
        for lo, hi, count, conf, acc in rel.bins:
            print(f"    [{lo:.1f}, {hi:.1f}) {count:4d} functions: predicted {conf:.2f}, passed {acc:.2f}")
        model = PassModel(**{**model.__dict__, "evaluated_on": describe_split(holdout, "holdout"), "quality": {"brier": rel.brier, "ece": rel.ece, "auroc": auc}})
        if args.plot:
            plot_reliability(args.plot, rel, f"chance of passing, {len(present)} holdout functions\nBrier {rel.brier:.3f} · ECE {rel.ece:.3f} · AUROC {auc:.3f}")
            print(f"  reliability diagram: {args.plot}")

    if args.generated:
        generated(model, args.generated, settings)

    if args.write:
        signal = settings.lexical.assess_signal
        rows = [{"lexical": e.signals.get(f"lexical.all.{signal}"), "algorithmic": e.signals.get("algorithmic"), "functional": e.signals.get("functional")} for e in tune]
        path = SHIPPED_DIR / f"{DEFAULT_MODEL.key}.json"
        old = Calibration.load(path)
        cal = new_calibration(old.model, old.model_sha256, f"right and wrong functions, {describe_split(tune, 'tune')}", rows, calibration_settings(settings))
        Calibration(**{**cal.__dict__, "pass_model": model}).save(path)
        print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
