"""Every method's uncertainty per problem, from the pipeline's cached outputs.

A method is a name, a family (the paper's table groups) and, per problem, an uncertainty (higher =
less trustworthy; None = unavailable) and the wall time it needs: the steps it depends on (its cost
in the paper's sense: generation, execution, comparison).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..settings import Settings
from ..signals.algorithmic import StepRouge, algorithmic_uncertainty
from ..signals.lexical import lexical_report, top_k_mean
from ..trace import Trace
from .consistency import consistency_bleu, consistency_vr, consistency_vro
from .metrics import weighted_ensemble
from .pass_pattern import pass_pattern_disagreement
from .pipeline import ProblemCache
from .results import ALGO, AXES, CODE_ONLY, COMMENTS_ONLY, ENSEMBLE, FUNC, LEX, PAPER_K, MethodResult, top_k_name
from .symbolic import SymbolicConfig, symbolic_clustering

K_SWEEP = range(1, 11)


@dataclass(frozen=True)
class ProblemData:
    task_id: str
    label: bool  # the official hidden tests' verdict on the greedy solution
    steps: dict[str, dict]  # the pipeline's cached steps
    entry_point: str | None = None
    cache: ProblemCache | None = None  # where slow derived results (symbolic clustering) are kept


# A step file carrying this key was computed on another machine and merged into the cache (e.g. a
# GPU's samples beside a CPU's greedy solutions): its output is valid, its wall time is not this run's.
COMPUTED_ON = "computed_on"


def _seconds(p: ProblemData, *steps: str) -> float | None:
    """The wall time of these steps, or None when one of them was computed on another machine."""
    if any(COMPUTED_ON in p.steps.get(s, {}) for s in steps):
        return None
    return sum(float(p.steps.get(s, {}).get("seconds", 0.0)) for s in steps)


def total_seconds(costs: Iterable[float | None]) -> float | None:
    """A combined method's cost: the sum of its parts', unknown if one of them is."""
    costs = list(costs)
    return None if any(c is None for c in costs) else sum(costs)


def _plus(seconds: float | None, more: float) -> float | None:
    return None if seconds is None else seconds + more


class _Column:
    """One method's values and costs, filled problem by problem."""

    def __init__(self, name: str, family: str) -> None:
        self.name, self.family = name, family
        self.values: list[float | None] = []
        self.seconds: list[float] = []

    def add(self, value: float | None, seconds: float | None) -> None:
        """``seconds`` None: computed elsewhere, so the problem counts for the value, not the cost."""
        self.values.append(value)
        if seconds is not None:
            self.seconds.append(seconds)

    def result(self) -> MethodResult:
        mean = sum(self.seconds) / len(self.seconds) if self.seconds else None
        return MethodResult(self.name, self.family, list(self.values), mean)


def lexical_methods(problems: list[ProblemData], top_k: int = PAPER_K) -> list[MethodResult]:
    """Single-pass methods over the greedy trace: the paper's baselines, Top-K (with a K sweep) and scopes.

    The rows named Top-5 are the paper's method and use K = 5 whatever the settings say, so a title
    never names another K than the one computed; a configured ``lexical.top_k`` outside the sweep
    gets a sweep row of its own."""
    cols = {
        name: _Column(name, "single-pass")
        for name in ("Mean Entropy", "Max Entropy", "Mean Probability", "Max Probability")
    }
    cols[LEX] = _Column(LEX, "ours")
    cols[CODE_ONLY] = _Column(CODE_ONLY, "beyond the paper")
    cols[COMMENTS_ONLY] = _Column(COMMENTS_ONLY, "beyond the paper")
    sweep = K_SWEEP if top_k in K_SWEEP else (*K_SWEEP, top_k)
    for k in sweep:
        cols[top_k_name(k)] = _Column(top_k_name(k), "k-sweep")
    for p in problems:
        cost = _seconds(p, "greedy")
        trace = Trace.from_dict(p.steps["greedy"]["trace"]) if "greedy" in p.steps else None
        report = lexical_report(trace, PAPER_K) if trace is not None else None
        a = report.all if report else None
        cols["Mean Entropy"].add(a.mean_entropy if a else None, cost)
        cols["Max Entropy"].add(a.max_entropy if a else None, cost)
        cols["Mean Probability"].add(a.mean_probability if a else None, cost)  # 1 − mean p
        cols["Max Probability"].add(a.max_probability if a else None, cost)  # max (1 − p)
        cols[LEX].add(a.top_k_entropy if a else None, cost)
        cols[CODE_ONLY].add(report.code.top_k_entropy if report else None, cost)
        cols[COMMENTS_ONLY].add(report.comment.top_k_entropy if report else None, cost)
        entropies = np.array(trace.entropies()) if trace is not None else np.array([])
        for k in sweep:  # the same tokens as the report's "all" scope, one array for every K
            cols[top_k_name(k)].add(top_k_mean(entropies, k) if entropies.size else None, cost)
    return [c.result() for c in cols.values()]


def algorithmic_method(problems: list[ProblemData]) -> MethodResult:
    col = _Column(ALGO, "ours")
    rouge = StepRouge()
    for p in problems:
        plans = p.steps.get("plans", {}).get("plans")
        t0 = time.perf_counter()
        value = algorithmic_uncertainty(plans, rouge).uncertainty if plans else None
        col.add(value, _plus(_seconds(p, "plans"), time.perf_counter() - t0))
    return col.result()


def functional_method(problems: list[ProblemData]) -> MethodResult:
    col = _Column(FUNC, "ours")
    for p in problems:
        own = p.steps.get("selftests", {}).get("greedy", {})
        col.add(own.get("uncertainty"), _plus(_seconds(p, "greedy", "tests"), float(own.get("seconds", 0.0))))
    return col.result()


def _samples(p: ProblemData) -> list[str]:
    return list(p.steps.get("samples", {}).get("codes", []))


def consistency_methods(problems: list[ProblemData]) -> list[MethodResult]:
    """The code-consistency baselines over the N samples (and the greedy output for VRO).

    Cached per problem like the model's outputs: CodeBLEU's syntax and data-flow matches vary
    slightly from one Python process to the next (measured: VR 0.3309 vs 0.3320 on the same samples),
    so a rerun reads the stored values and reports the same numbers."""
    names = ("Consistency (BLEU)", "Consistency (VR)", "Consistency (VRO)")
    cols = {n: _Column(n, "multi-pass") for n in names}
    for p in problems:
        samples, greedy = _samples(p), p.steps.get("greedy", {}).get("code", "")
        base = _seconds(p, "greedy", "samples")
        if not samples:
            for n in names:
                cols[n].add(None, base)
            continue

        def compute(samples: list[str] = samples, greedy: str = greedy) -> dict:
            out: dict = {}
            for name, fn in zip(names, (lambda: consistency_bleu(samples), lambda: consistency_vr(samples), lambda: consistency_vro(greedy, samples))):
                t0 = time.perf_counter()
                out[name] = {"uncertainty": fn().uncertainty, "seconds": time.perf_counter() - t0}
            return out

        data = p.cache.step("consistency", compute) if p.cache is not None else compute()
        for n in names:
            cols[n].add(data[n]["uncertainty"], _plus(base, data[n]["seconds"]))
    return [c.result() for c in cols.values()]


def symbolic_method(
    problems: list[ProblemData],
    config: SymbolicConfig | None = None,
    on_progress: Callable[[int, int, str, str], None] | None = None,
    jobs: int = 1,
) -> MethodResult:
    """Symbolic Clustering; each problem's clustering is cached (CrossHair takes minutes, so a
    long run reports each finished problem through ``on_progress``: done, total, task id, "done").

    ``jobs`` problems are clustered at once. One clustering is a chain of single-threaded CrossHair
    processes (each comparison depends on the clusters so far), so on a machine with spare cores
    problems in parallel are the only speed-up; keep ``jobs`` at most the free cores, since
    CrossHair's per-comparison budget is CPU time and the whole-problem budget is wall time."""
    config = config or SymbolicConfig()
    col = _Column("Symbolic Clustering", "multi-pass")
    key = f"symbolic-{config.per_condition_timeout:g}"
    done = 0
    lock = threading.Lock()

    def one(p: ProblemData) -> tuple[float | None, float | None]:
        nonlocal done
        try:
            return _symbolic_one(p, config, key)
        finally:
            with lock:  # the count stays in order whichever problem finishes first
                done += 1
                if on_progress is not None:
                    on_progress(done, len(problems), p.task_id, "done")

    # threads suffice: each one waits on CrossHair subprocesses
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for value, seconds in pool.map(one, problems):
            col.add(value, seconds)
    return col.result()


def _symbolic_one(p: ProblemData, config: SymbolicConfig, key: str) -> tuple[float | None, float | None]:
    """One problem's (uncertainty, seconds)."""
    samples = _samples(p)
    if not samples or not p.entry_point:
        return None, _seconds(p, "samples")  # stdin programs have no function to compare

    def compute() -> dict:
        r = symbolic_clustering(samples, p.entry_point, config)
        return {"uncertainty": r.uncertainty, "clusters": [list(c) for c in r.clusters], "calls": r.crosshair_calls, "note": r.note}

    data = p.cache.step(key, compute) if p.cache is not None else {**compute(), "seconds": 0.0}
    return data.get("uncertainty"), _plus(_seconds(p, "samples"), float(data.get("seconds", 0.0)))


def multi_candidate_method(problems: list[ProblemData]) -> MethodResult:
    """Disagreement of the samples' pass/fail patterns on the model's own tests (beyond the paper)."""
    col = _Column("Multi-candidate Tests", "beyond the paper")
    for p in problems:
        rows = [r for r in p.steps.get("sampletests", {}).get("matrix", []) if r is not None]
        value = pass_pattern_disagreement(rows).uncertainty if len(rows) >= 2 else None
        col.add(value, _seconds(p, "greedy", "samples", "tests", "sampletests"))
    return col.result()


def ensemble_methods(axes: dict[str, MethodResult], weights: tuple[float, float, float]) -> list[MethodResult]:
    """The paper's ensemble (each axis rank-normalised over the evaluation set, weighted) and its
    drop-one ablations (the remaining weights renormalised)."""
    order = list(AXES)
    short = {LEX: "LEX", ALGO: "ALGO", FUNC: "FUNC"}
    out = []
    variants = [(ENSEMBLE, order)] + [(f"Ensemble − {short[d]}", [a for a in order if a != d]) for d in order]
    for name, used in variants:
        values = weighted_ensemble([axes[a].uncertainty for a in used], [weights[order.index(a)] for a in used])
        seconds = total_seconds(axes[a].seconds for a in used)
        out.append(MethodResult(name, "ensemble", values, seconds))
    return out


def calibrated_probability(
    train_axes: list[list[float | None]], train_labels: list[bool], test_axes: list[list[float | None]]
) -> list[float | None]:
    """P(pass) from a logistic fit of pass/fail on the three axes' raw scores, fitted on a calibration
    split and applied to the test split; returned as an uncertainty, 1 − P(pass).

    Missing axis values are imputed with the training mean of that axis (neutral), so a problem with
    an unavailable axis still gets a probability."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - the eval extra

    if len(set(train_labels)) < 2:
        return [None] * len(test_axes[0])
    means = []
    for axis in train_axes:
        present = [v for v in axis if v is not None]
        means.append(sum(present) / len(present) if present else 0.0)

    def rows(axes: list[list[float | None]]) -> list[list[float]]:
        return [[axes[a][i] if axes[a][i] is not None else means[a] for a in range(len(axes))] for i in range(len(axes[0]))]

    model = LogisticRegression().fit(rows(train_axes), train_labels)
    passed_index = list(model.classes_).index(True)
    return [1.0 - float(p[passed_index]) for p in model.predict_proba(rows(test_axes))]


def core_methods(problems: list[ProblemData], settings: Settings, extra: Iterable[Callable[[list[ProblemData]], list[MethodResult]]] = ()) -> list[MethodResult]:
    """Everything computed from the cache: lexical family, the two other axes, the ensembles, and
    whatever ``extra`` adds (the multi-sample baselines)."""
    methods = lexical_methods(problems, settings.lexical.top_k)
    by_name = {m.name: m for m in methods}
    methods += [algorithmic_method(problems), functional_method(problems)]
    by_name.update({m.name: m for m in methods})
    methods += ensemble_methods({a: by_name[a] for a in AXES}, settings.ensemble.weights.as_tuple())
    for add in extra:
        methods += add(problems)
    return methods


__all__ = ["ProblemData", "core_methods", "calibrated_probability"]
