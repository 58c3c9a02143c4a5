"""A model's calibration from right and wrong functions: the percentile reference and the chance of
passing, measured as a user's function is assessed.

The pairs (``benchmarks/data/mutant-pairs.jsonl``, built by ``benchmarks/assessment/build_mutants.py``) hold a
reference solution of HumanEval or MBPP 511-974 and a one-edit mutant that fails the official
tests; each problem is on the tune or the holdout side. Both functions of a pair are assessed with
the current settings (the pair shares its plans and tests: ``SampleCache``); every result is
appended to a JSONL file as it finishes, so a run resumes. Then, offline:

* the chance of passing, a chain of logistic fits (one per pattern of available signals), is chosen
  among ``CHAIN_CANDIDATES`` by cross-validation on the tune split (folds by problem, the fewest
  signals within one standard error of the lowest log-loss; with the model's greedy code of tune
  problems beside the pairs, the mean of the two kinds' log-losses), fitted on the whole tune split,
  and its AUROC, Brier score and ECE are measured on the holdout split, which no choice has seen;
* the tune split's raw scores per axis become the percentile reference.

``qualm calibrate --pairs`` runs all of it for any model; ``benchmarks/assessment/assess_quality.py`` and
``benchmarks/chance/fit_chance.py`` print the measurements behind the shipped file.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from qualm_sandbox import SandboxConfig

from .chance import PassModel, signals_of, with_derived
from .chance_fit import Example, Reliability, check_fit_split, fit_pass_model, reliability
from .engine import SampleCache, assess_function, score_function
from .engine.calibration import calibration_settings
from .engine.plan_programs import checked_programs, programs_among, solutions_of
from .engine.solutions import check_against_solutions
from .ensemble import Calibration, new_calibration
from .lang import PYTHON
from .lang.python.source import with_docstring
from .model import CancelToken, ModelBackend
from .settings import Settings
from .signals.agreement import run_probes

# The right/wrong pairs, relative to a checkout's root: benchmarks and tests join it to theirs.
PAIRS_FILE = Path("benchmarks") / "data" / "mutant-pairs.jsonl"

# The candidate inputs of the chance of passing: the functional axis alone, with each kind of
# lexical signal for code in the file, then with the plan signals, then the signals of the model's
# own solutions.
CANDIDATE_FEATURES: tuple[tuple[str, ...], ...] = (
    ("functional",),
    ("functional", "lexical.all.top_k_surprisal"),
    ("functional", "lexical.all.mean_surprisal"),
    # 1 − p_min enters as its surprisal, -log p_min (qualm.chance.with_derived): the same order, but
    # 1 − p_min crowds against 1 and a logistic fit on it extrapolated to certainty off the pairs.
    ("functional", "lexical.all.max_surprisal"),
    ("functional", "lexical.all.max_surprisal", "lexical.all.top_k_surprisal"),
    ("functional", "lexical.all.top_k_entropy"),
    ("functional", "lexical.all.top_k_surprisal", "candidate_distance"),
    ("functional", "lexical.all.mean_surprisal", "candidate_distance"),
    ("functional", "lexical.all.top_k_surprisal", "candidate_distance", "algorithmic"),
    ("functional", "lexical.all.top_k_surprisal", "lexical.all.mean_surprisal"),
    ("functional", "lexical.all.top_k_unexpected"),
    ("functional", "lexical.all.top_k_unexpected", "lexical.all.top_k_surprisal"),
    ("functional", "lexical.all.top_k_unexpected", "candidate_distance"),
    # The model's own solutions (qualm.engine.solutions): the tests weighted by them, and agreement.
    ("functional_weighted",),
    ("functional_weighted", "lexical.all.max_surprisal"),
    ("functional_weighted", "lexical.all.top_k_surprisal"),
    ("functional_weighted", "agreement"),
    ("functional_weighted", "agreement", "lexical.all.max_surprisal"),
    ("functional", "functional_weighted", "lexical.all.max_surprisal"),
    ("functional_weighted", "lexical.all.max_surprisal", "candidate_distance"),
    ("agreement", "lexical.all.max_surprisal"),
    # Differential testing on varied inputs (qualm.signals.differential).
    ("functional_weighted", "differential"),
    ("functional_weighted", "differential", "lexical.all.max_surprisal"),
    ("functional", "differential", "lexical.all.max_surprisal"),
    ("differential", "lexical.all.max_surprisal"),
    # Token swaps (qualm.signals.swaps): the model's likelier token at the code's least likely places.
    ("functional_weighted", "swap_gain"),
    ("swap_gain", "lexical.all.max_surprisal"),
    ("functional_weighted", "swap_gain", "lexical.all.max_surprisal"),
    ("functional", "swap_gain", "lexical.all.max_surprisal"),
)
# The chance of passing is a chain of fits, one per pattern of available signals (PassModel.fallback):
# the first fit whose signals all have a value gives the chance. The model's own greedy code has no
# swap to try (every token is its likeliest), a function whose tests no solution passes has no
# weighted count, one whose tests cannot run has only the lexical signal. Candidates, chosen by
# cross-validation on the right/wrong pairs and the model's greedy code of tune problems together.
_F, _FW, _S = "functional", "functional_weighted", "swap_gain"
_BS, _MS = "lexical.all.blended_surprisal", "lexical.all.max_surprisal"
_E = "examples_failed"
_DS = "lexical.all.departure_surprisal"
CHAIN_CANDIDATES: tuple[tuple[tuple[str, ...], ...], ...] = (
    ((_FW, _S), (_FW,), (_F, _S), (_F,), (_BS,)),
    ((_FW, _S), (_FW, _F), (_F, _S), (_F,), (_BS,)),
    ((_FW, _S, _F), (_FW, _F), (_F, _S), (_F,), (_BS,)),
    ((_FW, _S, _BS), (_FW, _BS), (_F, _S, _BS), (_F, _BS), (_BS,)),
    ((_FW, _S), (_FW, _F, _BS), (_F, _S), (_F, _BS), (_BS,)),
    ((_FW, _S, _MS), (_FW, _F, _MS), (_F, _S, _MS), (_F, _MS), (_BS,)),
    ((_FW, _S), (_F,), (_BS,)),
    ((_FW, _S), (_F, _BS), (_BS,)),
    ((_FW, _S, _MS), (_F, _BS), (_BS,)),
    # The docstring's examples (qualm.signals.examples), where the docstring has one, before the same chain.
    ((_E, _FW, _S), (_E, _F), (_FW, _S), (_FW, _F), (_F, _S), (_F,), (_E,), (_BS,)),
    ((_E, _FW, _S), (_E, _FW, _F), (_E, _F), (_FW, _S), (_FW, _F), (_F, _S), (_F,), (_E,), (_BS,)),
    ((_E, _S), (_E, _F), (_FW, _S), (_FW, _F), (_F, _S), (_F,), (_E,), (_BS,)),
    ((_E, _F), (_FW, _S), (_FW, _F), (_F, _S), (_F,), (_E,), (_BS,)),
    ((_E,), (_FW, _S), (_FW, _F), (_F, _S), (_F,), (_BS,)),
    # The same with the code's least likely token where a swap was tried (code in the file, which the
    # model did not write): on the tune pairs alone functional_weighted, swap_gain and max_surprisal
    # was the best single fit.
    ((_E, _FW, _S, _MS), (_E, _F), (_FW, _S, _MS), (_FW, _F), (_F, _S, _MS), (_F,), (_E,), (_BS,)),
    ((_E, _FW, _S), (_E, _F), (_FW, _S, _MS), (_FW, _F), (_F, _S, _MS), (_F,), (_E,), (_BS,)),
    ((_E, _FW, _S, _BS), (_E, _F), (_FW, _S, _BS), (_FW, _F), (_F, _S, _BS), (_F,), (_E,), (_BS,)),
    ((_E, _FW, _S, _BS), (_E, _F, _BS), (_FW, _S, _BS), (_FW, _F, _BS), (_F, _S, _BS), (_F, _BS), (_E, _BS), (_BS,)),
    # The surprisal only of code that departs from the model (qualm.chance.with_derived): the model's
    # own code, whose low surprisal told nothing, goes on to the fit without it.
    ((_E, _FW, _S, _DS), (_E, _FW, _S), (_E, _FW, _F), (_E, _F), (_FW, _S, _DS), (_FW, _S), (_FW, _F), (_F, _S), (_F,), (_E,), (_BS,)),
    ((_E, _FW, _S), (_E, _FW, _F), (_E, _F), (_FW, _S, _DS), (_FW, _S), (_FW, _F), (_F, _S), (_F,), (_E,), (_BS,)),
    ((_E, _FW, _S, _DS), (_E, _FW, _S), (_E, _FW, _F, _DS), (_E, _FW, _F), (_E, _F), (_FW, _S, _DS), (_FW, _S), (_FW, _F, _DS), (_FW, _F), (_F, _S, _DS), (_F, _S), (_F,), (_E,), (_BS,)),
)
MIN_FIT_FUNCTIONS = 8  # fewer functions with a pattern than this: the next fit of the chain takes them
SIDES = ("original", "mutant")


def read_pairs(path: Path, split: str, stride: int = 1, limit: int | None = None) -> list[dict]:
    """Every ``stride``-th pair of ``split`` (tune or holdout); refuses a file with a pair outside
    the calibration splits."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    check_fit_split([r["task_id"] for r in rows])
    return [r for r in rows if r["split"] == split][::stride][:limit]


def read_test_pairs(path: Path) -> list[dict]:
    """A test set's pairs (``benchmarks/assessment/build_mutants.py --test-split``), in the file's (the draw's)
    order; refuses a file with any pair that is not of the test split."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    stray = [r["pair_id"] for r in rows if r["split"] != "test"]
    if stray:
        raise ValueError(f"{path}: not a test set: {', '.join(stray[:3])} ... are of another split")
    return rows


def prepared(source: str, row: dict) -> str:
    """The function as a user would have it: LF line ends, its task as the docstring (MBPP)."""
    text = source.replace("\r\n", "\n")
    return with_docstring(text, row["entry_point"], row["task"]) if row["dataset"] == "mbpp" else text


def measure(backend: ModelBackend, settings: Settings, row: dict, side: str, samples: SampleCache, lexical_only: bool = False, cancel: CancelToken | None = None) -> dict:
    """One function of a pair assessed as a user's function: its signals (``qualm.chance``) and
    what they rest on."""
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    t0 = time.perf_counter()
    if lexical_only:
        lex = score_function(backend, fn, settings, cancel=cancel).lexical
        return {"pair_id": row["pair_id"], "side": side, "axes": "lexical", "seconds": time.perf_counter() - t0, "values": signals_of(lex, None, None, None), "detail": {}}
    a = assess_function(backend, fn, settings, None, cancel=cancel, samples=samples)
    detail = {
        "tests": [[t.code, t.status] for t in a.tests],
        "dropped_tests": len(a.dropped_tests),
        "plans": [p.text for p in a.plans],
        "candidate_plan": a.candidate_plan.text if a.candidate_plan else None,
        "axis_seconds": {ax.name: ax.seconds for ax in a.axes()},
        "extra": {k: v for k, v in a.extra.items() if k != "signals"},
    }
    return {"pair_id": row["pair_id"], "side": side, "axes": "all", "seconds": time.perf_counter() - t0, "values": a.extra["signals"], "detail": detail}


def measure_solutions(backend: ModelBackend, settings: Settings, row: dict, side: str, measured: dict, samples: SampleCache) -> dict:
    """The signals of the model's own solutions (``qualm.engine.solutions``) for a function measured
    before without them: its tests are those of ``measured`` (a full run's result), so the plans and
    tests need not be decoded again; the solutions decode in their own batch, as in an assessment,
    so the values are those an assessment computes. Also says whether the candidate's verdicts are
    the full run's (they must be: the probes do not change a verdict)."""
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    short = fn.name.split(".")[-1]
    tests = [t for t, _ in measured["detail"]["tests"]]
    t0 = time.perf_counter()
    values: dict[str, float | None] = {"functional_weighted": None, "agreement": None, "differential": None}
    detail: dict = {"tests": len(tests)}
    if tests:
        f = settings.functional
        config = SandboxConfig(timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode)
        probes = run_probes(fn.program, tests, short, config)
        plans = measured["detail"].get("plans") or []
        jobs = solutions_of(fn.problem_description, plans, settings, PYTHON)
        solved = check_against_solutions(backend, fn.problem_description, short, probes, settings, PYTHON, config, samples, program=fn.program, jobs=jobs)
        values = {"functional_weighted": solved.weighted, "agreement": solved.agreement, "differential": solved.differential}
        if among := programs_among(jobs):
            # the plans' programs among them, as an assessment reads them back (SampleCache)
            programs = check_against_solutions(
                backend, fn.problem_description, short, probes, settings, PYTHON, config, samples,
                jobs=checked_programs(fn.problem_description, plans, settings, PYTHON, among), label="programs of the plans",
            )
            values |= {"plan_agreement": programs.agreement, "plan_weighted": programs.weighted}
        detail.update({
            "verdicts_as_measured": [o.status for o in probes.outcomes] == [st for _, st in measured["detail"]["tests"]],
            "solutions": [[x.tokens, x.passed, x.ran, x.agreement] for x in solved.solutions],
            "disagreements": solved.disagreements,
            "differential": solved.differential_note,
            "differences": solved.differences[:10],
            "solutions_seconds": solved.seconds,
            "weights": solved.test_weights,
        })
    return {"pair_id": row["pair_id"], "side": side, "axes": "solutions", "seconds": time.perf_counter() - t0, "values": values, "detail": detail}


def measure_pairs(
    backend: ModelBackend,
    settings: Settings,
    rows: Sequence[dict],
    results_path: Path,
    lexical_only: bool = False,
    on_function: Callable[[int, dict, dict], None] | None = None,
    cancel: CancelToken | None = None,
) -> dict[tuple[str, str], dict]:
    """Both functions of every pair, read back from ``results_path`` where measured before."""
    results = read_results(results_path)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    samples = SampleCache()
    with open(results_path, "a") as out:
        for i, row in enumerate(rows):
            for side in SIDES:
                if cancel is not None and cancel.cancelled:
                    return results
                if (row["pair_id"], side) not in results:
                    v = measure(backend, settings, row, side, samples, lexical_only, cancel)
                    results[(row["pair_id"], side)] = v
                    out.write(json.dumps(v) + "\n")
                    out.flush()
                if on_function is not None:
                    on_function(i, row, results[(row["pair_id"], side)])
    return results


def measure_again(
    rows: Sequence[dict],
    measured: Mapping[tuple[str, str], dict],
    out: Path,
    measure_one: Callable[[dict, str, dict], dict],
) -> Iterator[tuple[dict, str, dict]]:
    """Signals added later to the functions a full run measured: each side of each pair in ``rows``
    that ``measured`` holds for both sides and ``out`` does not yet, measured by
    ``measure_one(row, side, its full-run result)`` and appended to ``out`` as it finishes (so a
    run resumes); yields (row, side, result) for each new one."""
    done = read_results(out)
    with open(out, "a") as log:
        for row in rows:
            if not all((row["pair_id"], s) in measured for s in SIDES):
                continue
            for side in SIDES:
                key = (row["pair_id"], side)
                if key in done:
                    continue
                result = measure_one(row, side, measured[key])
                log.write(json.dumps(result) + "\n")
                log.flush()
                yield row, side, result


def read_results(path: Path) -> dict[tuple[str, str], dict]:
    results: dict[tuple[str, str], dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                v = json.loads(line)
                results[(v["pair_id"], v["side"])] = v
            except (ValueError, KeyError):
                continue  # a line cut by an interruption
    return results


def examples_of(rows: Sequence[dict], results: Mapping[tuple[str, str], dict]) -> list[Example]:
    """Both functions of every fully measured pair: the original passes, the mutant fails."""
    out = []
    for row in rows:
        if all((row["pair_id"], s) in results for s in SIDES):
            for side in SIDES:
                out.append(Example(row["task_id"], with_derived(results[(row["pair_id"], side)]["values"]), side == "original"))
    return out


def read_generated(path: Path) -> list[Example]:
    """The model's greedy code of tune problems with every signal of its assessment and its official
    label (``benchmarks/chance/generated_chance.py``); a function it could not assess is left out."""
    out = []
    for line in path.read_text().splitlines():
        row = json.loads(line) if line.strip() else None
        if row and row.get("values"):
            out.append(Example(row["task_id"], with_derived(row["values"]), bool(row["passed"]), generated=True))
    check_fit_split([e.task_id for e in out])
    return out


def describe_split(examples: Sequence[Example], name: str) -> str:
    he = len({e.task_id for e in examples if e.task_id.startswith("HumanEval")})
    mb = len({e.task_id for e in examples if e.task_id.startswith("MBPP")})
    return f"{len(examples) // 2} right/wrong pairs of the {name} split ({len(examples)} functions; {he} HumanEval and {mb} MBPP 511-974 problems)"


def auroc_fails(examples: Sequence[Example], doubt: Sequence[float | None]) -> tuple[float | None, int]:
    """AUROC of a doubt score for "this function fails", over the functions that have it
    (scikit-learn's, ties counting half; None without both outcomes)."""
    from sklearn.metrics import roc_auc_score  # noqa: PLC0415 - the eval extra, like the fit

    kept = [(not e.passed, u) for e, u in zip(examples, doubt) if u is not None]
    if len({y for y, _ in kept}) < 2:
        return None, len(kept)
    return float(roc_auc_score([y for y, _ in kept], [u for _, u in kept])), len(kept)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    se: float  # the bootstrap distribution's standard deviation

    def __str__(self) -> str:
        return f"{self.low:.3f} to {self.high:.3f}"


def pair_doubts(examples: Sequence[Example], doubt: Sequence[float | None]) -> list[tuple[float, float]]:
    """(right function's, wrong function's) doubt of each pair, from ``examples_of``'s order (each
    pair's original, then its mutant); a pair with a function without a doubt is left out."""
    if len(examples) % 2 or any(not (r.passed and not w.passed and r.task_id == w.task_id) for r, w in zip(examples[::2], examples[1::2])):
        raise ValueError("the examples are not right/wrong pairs in order (examples_of's order)")
    return [(a, b) for a, b in zip(doubt[::2], doubt[1::2]) if a is not None and b is not None]


def pairs_auroc_interval(doubt: Sequence[tuple[float, float]], against: Sequence[tuple[float, float]] | None = None, resamples: int = 2000, seed: int = 0) -> Interval | None:
    """A 95 % percentile bootstrap interval of the AUROC right-vs-wrong of a doubt score given as
    (right function's, wrong function's) per pair; with ``against`` (the same pairs, in the same
    order, scored another way), of AUROC(doubt) - AUROC(against). The pair is the unit drawn
    (scipy.stats.bootstrap over pair indices): its two functions share a problem, its tests and
    solutions, so drawing functions apart would understate the spread. Only the pairs' sampling is
    in it: a second draw of the same pairs' samples moves a figure too (see README). None for fewer
    than two pairs (nothing to resample)."""
    import numpy as np  # noqa: PLC0415 - the eval extra, like the fit
    from scipy.stats import bootstrap  # noqa: PLC0415
    from sklearn.metrics import roc_auc_score  # noqa: PLC0415

    if against is not None and len(against) != len(doubt):
        raise ValueError(f"{len(doubt)} pairs against {len(against)}: the same pairs are needed")
    if len(doubt) < 2:
        return None

    def auroc(scores: Sequence[tuple[float, float]], idx: np.ndarray) -> float:
        return float(roc_auc_score([0, 1] * len(idx), [u for i in idx for u in scores[i]]))

    def statistic(idx: np.ndarray) -> float:
        return auroc(doubt, idx) - (auroc(against, idx) if against is not None else 0.0)

    res = bootstrap((np.arange(len(doubt)),), statistic, vectorized=False, n_resamples=resamples, method="percentile", random_state=np.random.default_rng(seed))
    return Interval(float(res.confidence_interval.low), float(res.confidence_interval.high), float(res.standard_error))


@dataclass(frozen=True)
class CrossValidation:
    features: tuple[str, ...]
    logloss: float
    auroc: float | None
    brier: float
    ece: float
    logloss_se: float = 0.0  # standard error of the mean log-loss over the examples
    losses: tuple[float, ...] = ()  # each example's log-loss, in the examples' order (for paired comparisons)


def cross_validated_chances(examples: Sequence[Example], fit: Callable[[Sequence[Example]], PassModel], k: int = 5) -> list[float]:
    """Each function's chance from a model fitted without its problem: k folds by problem (problems
    dealt in sorted order), so no problem is on both sides of a fold; 0.5 where none can be given."""
    problems = sorted({e.task_id for e in examples})
    fold_of = {p: i % k for i, p in enumerate(problems)}
    chances = [0.5] * len(examples)
    for f in range(k):
        train = [e for e in examples if fold_of[e.task_id] != f]
        if len({e.passed for e in train}) < 2:
            continue
        try:
            model = fit(train)
        except ValueError:
            continue  # too few functions of this fold's training part for any fit: they keep 0.5
        for j, e in enumerate(examples):
            if fold_of[e.task_id] == f:
                p = model.probability(e.signals)
                chances[j] = 0.5 if p is None else p
    return chances


def cross_validate(examples: Sequence[Example], features: Sequence[str], k: int = 5) -> CrossValidation:
    """One logistic fit on ``features``, cross-validated by problem."""
    chances = cross_validated_chances(examples, lambda train: fit_pass_model(train, features, "cross-validation"), k)
    return validation(examples, chances, tuple(features))


def validation(examples: Sequence[Example], chances: Sequence[float], features: tuple[str, ...]) -> CrossValidation:
    losses = [-math.log(max(1e-6, p if e.passed else 1 - p)) for e, p in zip(examples, chances)]
    logloss, se = mean_and_se(losses)
    rel = reliability(chances, [e.passed for e in examples])
    auc, _ = auroc_fails(examples, [1 - p for p in chances])
    return CrossValidation(tuple(features), logloss, auc, rel.brier, rel.ece, se, tuple(losses))


def mean_and_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error (sample standard deviation / sqrt(n))."""
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((x - mean) ** 2 for x in values) / max(1, len(values) - 1) / len(values))


def choose_features(examples: Sequence[Example], candidates: Sequence[Sequence[str]] = CANDIDATE_FEATURES) -> tuple[tuple[str, ...], list[CrossValidation]]:
    """The one-standard-error rule: among the candidates whose cross-validated log-loss is within one
    standard error of the lowest, the one with the fewest signals, then the lowest log-loss. With a
    few dozen functions the log-losses of most candidates are within noise of each other; the rule
    keeps a signal out unless it measurably helps. A candidate with a signal no example has
    (measured before the signal existed) is left out."""
    present = {name for e in examples for name, v in e.signals.items() if v is not None}
    scored = [cross_validate(examples, c) for c in candidates if set(c) <= present]
    return one_standard_error_choice(scored).features, scored


def one_standard_error_choice(scored: Sequence[CrossValidation]) -> CrossValidation:
    lowest = min(scored, key=lambda cv: cv.logloss)
    near = [cv for cv in scored if cv.logloss <= lowest.logloss + lowest.logloss_se]
    return min(near, key=lambda cv: (len(cv.features), cv.logloss))


def describe_functions(examples: Sequence[Example], name: str) -> str:
    """What a fit of the chain saw, in words: how many functions of each kind."""
    pairs = [e for e in examples if not e.generated]
    own = len(examples) - len(pairs)
    text = f"{len(examples)} functions of the {name} split: {len(pairs)} of right/wrong pairs"
    return text + (f" and {own} greedy solutions of the model" if own else "")


def fit_chain(examples: Sequence[Example], levels: Sequence[Sequence[str]], name: str = "tune", settings: Mapping | None = None) -> PassModel:
    """The chain of pattern submodels: each fit on the functions with a value for every one of its
    signals, the first in ``levels`` first. A pattern with too few functions (or one outcome only)
    is left out, and the next fit takes its functions."""
    model: PassModel | None = None
    for features in reversed(levels):
        rows = [e for e in examples if all(e.signals.get(f) is not None for f in features)]
        if len(rows) < MIN_FIT_FUNCTIONS or len({e.passed for e in rows}) < 2:
            continue
        model = replace(fit_pass_model(rows, features, describe_functions(rows, name), settings=settings), fallback=model)
    if model is None:
        raise ValueError(f"no fit of the chain {levels} has {MIN_FIT_FUNCTIONS} functions with both outcomes")
    return model


@dataclass(frozen=True)
class ChainValidation:
    levels: tuple[tuple[str, ...], ...]
    pairs: CrossValidation  # on the right/wrong pairs' functions
    generated: CrossValidation | None  # on the model's greedy code (None: none given)

    @property
    def logloss(self) -> float:
        """The mean of the two kinds' log-losses: code a person edited and code the model wrote weigh the same."""
        return self.pairs.logloss if self.generated is None else (self.pairs.logloss + self.generated.logloss) / 2

    @property
    def logloss_se(self) -> float:
        if self.generated is None:
            return self.pairs.logloss_se
        return math.sqrt(self.pairs.logloss_se**2 + self.generated.logloss_se**2) / 2

    @property
    def signals(self) -> int:
        return len({f for level in self.levels for f in level})

    def describe(self) -> str:
        return " > ".join(", ".join(f.removeprefix("lexical.all.") for f in level) for level in self.levels)

    def worse_than(self, other: ChainValidation) -> tuple[float, float]:
        """How much higher this chain's criterion is than ``other``'s, and the standard error of that
        difference, from the two chains' log-losses on the same functions (paired, each kind apart,
        combined as the criterion combines them). Most functions get the same chance from two chains
        that differ in one fit, so the paired difference is far less noisy than either mean."""
        kinds = [(self.pairs.losses, other.pairs.losses)]
        if self.generated is not None and other.generated is not None:
            kinds.append((self.generated.losses, other.generated.losses))
        stats = [mean_and_se([a - b for a, b in zip(mine, theirs)]) for mine, theirs in kinds]
        return sum(m for m, _ in stats) / len(stats), math.sqrt(sum(se**2 for _, se in stats)) / len(stats)


def cross_validate_chain(examples: Sequence[Example], levels: Sequence[Sequence[str]], k: int = 5) -> ChainValidation:
    """The chain cross-validated by problem over both kinds of function together (a problem's pair
    and its greedy code share a fold), measured on each kind apart."""
    chances = cross_validated_chances(examples, lambda train: fit_chain(train, levels, "cross-validation"), k)
    key = tuple(tuple(level) for level in levels)
    kind = {own: ([e for e in examples if e.generated == own], [p for e, p in zip(examples, chances) if e.generated == own]) for own in (False, True)}
    own_examples, own_chances = kind[True]
    return ChainValidation(key, validation(*kind[False], key[0]), validation(own_examples, own_chances, key[0]) if own_examples else None)


def choose_chain(examples: Sequence[Example], candidates: Sequence[Sequence[Sequence[str]]] = CHAIN_CANDIDATES) -> tuple[tuple[tuple[str, ...], ...], list[ChainValidation]]:
    """The one-standard-error rule on the mean of the two kinds' log-losses, paired: among the
    chains whose criterion is above the lowest's by no more than one standard error of their paired
    difference (``ChainValidation.worse_than``), the one with the fewest distinct signals, then the
    lowest. Paired because a fit that serves a third of the functions (the docstring's examples)
    changes only their chances: the unpaired rule measured its gain against the noise of every
    function's loss and dropped it once the tune split grew in functions without examples (nested
    cross-validation on the 1.5B model's tune split: 0.038 ± 0.010 lower log-loss paired; the same
    choices for the default model). A chain none of whose fits has its signals in any function is
    left out."""
    present = {name for e in examples for name, v in e.signals.items() if v is not None}
    scored = [cross_validate_chain(examples, c) for c in candidates if any(set(level) <= present for level in c)]
    return paired_choice(scored).levels, scored


def paired_choice(scored: Sequence[ChainValidation]) -> ChainValidation:
    """``choose_chain``'s rule on chains already cross-validated on the same functions."""
    lowest = min(scored, key=lambda cv: cv.logloss)
    near = []
    for cv in scored:
        gap, se = cv.worse_than(lowest)
        if gap <= se:
            near.append(cv)
    return min(near, key=lambda cv: (cv.signals, cv.logloss))


@dataclass(frozen=True)
class HoldoutQuality:
    description: str
    chances: list[float | None]
    auroc: float | None
    reliability: Reliability | None


def holdout_quality(model: PassModel, holdout: Sequence[Example]) -> HoldoutQuality:
    chances = [model.probability(e.signals) for e in holdout]
    auc, _ = auroc_fails(holdout, [None if p is None else 1 - p for p in chances])
    present = [(p, e.passed) for p, e in zip(chances, holdout) if p is not None]
    rel = reliability([p for p, _ in present], [y for _, y in present]) if present else None
    return HoldoutQuality(describe_split(holdout, "holdout"), chances, auc, rel)


def with_quality(model: PassModel, quality: HoldoutQuality | None) -> PassModel:
    if quality is None or quality.reliability is None:
        return model
    return replace(model, evaluated_on=quality.description, quality={"brier": quality.reliability.brier, "ece": quality.reliability.ece, "auroc": quality.auroc if quality.auroc is not None else float("nan")})


def with_chain_quality(model: PassModel, holdout: Sequence[Example]) -> tuple[PassModel, HoldoutQuality | None]:
    """The chain with its quality on the holdout functions: the whole chain's on every one (the
    first fit carries it), and each later fit's alone on the holdout functions with all its signals."""
    if not holdout:
        return model, None
    links = model.chain()
    rebuilt: PassModel | None = None
    for link in reversed(links[1:]):
        alone = replace(link, fallback=None)
        served = [e for e in holdout if not alone.missing(e.signals)]
        quality = holdout_quality(alone, served) if len({e.passed for e in served}) == 2 else None
        if quality is not None:
            quality = replace(quality, description=f"the {len(served)} holdout functions with its signals")
        rebuilt = replace(with_quality(alone, quality), fallback=rebuilt)
    head = replace(model, fallback=rebuilt)
    quality = holdout_quality(head, holdout)
    return with_quality(head, quality), quality


def pairs_calibration(
    model_name: str,
    model_digest: str,
    settings: Settings,
    tune: Sequence[Example],
    holdout: Sequence[Example],
    levels: Sequence[Sequence[str]] | None = None,
    generated: Sequence[Example] = (),
) -> tuple[Calibration, HoldoutQuality | None]:
    """The calibration file: the tune split's raw scores as the percentile reference, and the pass
    model, a chain of pattern submodels chosen (``choose_chain``) and fitted (``fit_chain``) on the
    tune split's pairs and, where given, the model's greedy code of tune problems (``generated``);
    its quality is measured on the holdout split."""
    fit_on = [*tune, *generated]
    chosen = tuple(levels) if levels else choose_chain(fit_on)[0]
    model = fit_chain(fit_on, chosen, "tune", calibration_settings(settings))
    model, quality = with_chain_quality(model, holdout)
    signal = settings.lexical.assess_signal
    rows = [{"lexical": e.signals.get(f"lexical.all.{signal}"), "algorithmic": e.signals.get("algorithmic"), "functional": e.signals.get("functional")} for e in tune]
    cal = new_calibration(model_name, model_digest, f"right and wrong functions, {describe_split(tune, 'tune')}", rows, calibration_settings(settings))
    return replace(cal, pass_model=model), quality
