"""The paper's claims, each judged on one run's per-problem results (``claims.md``).

Every claim is one or more differences, each of which the claim says is above zero: a difference
of AUROC between two methods (``AUROC(A) − AUROC(B)``), or for claim (e) chance minus a method's
AUROC. Each difference carries a paired bootstrap 95 % interval over problems (``bootstrap``:
:data:`~.bootstrap.RESAMPLES` resamples of the problems with replacement, seed
:data:`~.bootstrap.SEED`, the same resample for both methods, percentile interval). A difference is

* "held" when its interval lies entirely above zero,
* "not held" when it lies entirely below zero,
* "inconclusive" when it holds zero (a tie: the problems cannot tell the two apart),
* "not tested" when a method it names was not run or has no AUROC (one class, or no scores).

A claim that is a conjunction ("A beats each of B, C, D") gives every part's interval, and its
verdict is: "not held" if any part is not held; otherwise "inconclusive" if any part is
inconclusive; otherwise "not tested" if any part could not be tested; otherwise (every part held)
"held". Each interval is a marginal 95 % one, not widened for the number of parts: "held" needs
every part to hold on its own, which keeps the claim's error rate at 5 % (an intersection-union
test); "not held" from one part of many is the less guarded direction.

P(pass), calibrated is a logistic fit over the three axes, so it counts as an ensemble wherever a
claim opposes the ensemble to single signals (:func:`is_ensemble`), whatever family the table
lists it under.

Claim (f) is about cost, and the results keep only each method's mean time per problem, not the
time of each problem: it has no interval and is judged on the measured means.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .bootstrap import LEVEL, RESAMPLES, SEED, PairedAurocBootstrap
from .formatting import fmt, points
from .metrics import MethodMetrics
from .results import (
    ALGO,
    COMMENTS_ONLY,
    CONSISTENCY_VR,
    CONSISTENCY_VRO,
    DROP_ONE,
    ENSEMBLE,
    ENSEMBLE_FAMILY,
    FUNC,
    LEX,
    MEAN_ENTROPY,
    MULTI_PASS_BASELINES,
    P_PASS,
    SINGLE_PASS_BASELINES,
    EvalRun,
    measured,
)

HELD = "held"
NOT_HELD = "not held"
INCONCLUSIVE = "inconclusive"
NOT_TESTED = "not tested"
VERDICTS = (HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED)

CHANCE = 0.5
# Methods fitted over the three axes: ensembles whatever their family, never a "single signal".
FITTED_OVER_AXES = (P_PASS,)


def is_ensemble(method: MethodMetrics) -> bool:
    return method.family == ENSEMBLE_FAMILY or method.name in FITTED_OVER_AXES


@dataclass(frozen=True)
class Comparison:
    """One difference a claim says is above zero, on all problems and its bootstrap interval."""

    difference: str  # what is judged, e.g. "Top-5 Entropy − Mean Entropy" (AUROC)
    verdict: str  # HELD, NOT_HELD, INCONCLUSIVE or NOT_TESTED
    estimate: float | None  # on all problems; None when not tested
    low: float | None  # the 95 % interval; None when not tested (or no interval, claim (f))
    high: float | None
    detail: str


@dataclass(frozen=True)
class Claim:
    key: str
    statement: str
    verdict: str  # HELD, NOT_HELD, INCONCLUSIVE or NOT_TESTED
    detail: str
    comparisons: tuple[Comparison, ...] = ()


def combine(verdicts: Sequence[str]) -> str:
    """A conjunction's verdict from its parts' (the rule in the module docstring)."""
    if not verdicts:
        return NOT_TESTED
    for verdict in (NOT_HELD, INCONCLUSIVE, NOT_TESTED):
        if verdict in verdicts:
            return verdict
    return HELD


def interval_verdict(low: float, high: float) -> str:
    """HELD above zero, NOT_HELD below, INCONCLUSIVE when the interval holds zero."""
    if low > 0:
        return HELD
    if high < 0:
        return NOT_HELD
    return INCONCLUSIVE


def _interval_text(low: float, high: float) -> str:
    return f"{int(LEVEL * 100)} % CI [{low * 100:+.1f}, {high * 100:+.1f}]"


class _Judge:
    """One run's metrics and the resamples of its problems, shared by every claim."""

    def __init__(self, run: EvalRun, metrics: dict[str, MethodMetrics]) -> None:
        self.metrics = metrics
        self._scores = {m.name: m.uncertainty for m in run.methods}
        self._labels = run.labels
        self._boot: PairedAurocBootstrap | None = None
        self._resampled: dict[str, np.ndarray | None] = {}

    def auroc(self, name: str) -> tuple[float | None, str]:
        """A method's AUROC on all problems, or None and why it is unavailable."""
        if name not in self.metrics:
            return None, f"{name} was not run"
        value = self.metrics[name].auroc
        if value is None:
            return None, f"{name}'s AUROC is undefined (one class, or no scores)"
        return value, ""

    def resampled(self, name: str) -> np.ndarray:
        """A method's AUROC on every resample (called only for a method with an AUROC)."""
        if self._boot is None:
            self._boot = PairedAurocBootstrap(self._labels, RESAMPLES, SEED)
        if name not in self._resampled:
            self._resampled[name] = self._boot.aurocs(self._scores[name])
        values = self._resampled[name]
        assert values is not None  # an AUROC on all problems means there are scores
        return values

    def _judged(self, difference: str, estimate: float, resampled: np.ndarray, shown: str) -> Comparison:
        assert self._boot is not None
        low, high = self._boot.interval(resampled)
        verdict = interval_verdict(low, high)
        detail = f"{shown}: {points(estimate)}, {_interval_text(low, high)} ({verdict})"
        return Comparison(difference, verdict, estimate, low, high, detail)

    def beats(self, winner: str, rival: str) -> Comparison:
        """AUROC(winner) − AUROC(rival), the claim being that it is above zero."""
        difference = f"{winner} − {rival}"
        (a, why_a), (b, why_b) = self.auroc(winner), self.auroc(rival)
        if a is None or b is None:
            why = why_a or why_b
            return Comparison(difference, NOT_TESTED, None, None, None, f"{rival}: not tested, {why}")
        resampled = self.resampled(winner) - self.resampled(rival)
        return self._judged(difference, a - b, resampled, f"{winner} {fmt(a)} vs {rival} {fmt(b)}")

    def below_chance(self, name: str) -> Comparison:
        """Chance − AUROC(name), the claim being that it is above zero (the method points the
        wrong way)."""
        difference = f"chance − {name}"
        value, why = self.auroc(name)
        if value is None:
            return Comparison(difference, NOT_TESTED, None, None, None, f"not tested, {why}")
        resampled = CHANCE - self.resampled(name)
        return self._judged(difference, CHANCE - value, resampled,
                            f"chance {fmt(CHANCE)} − {name} AUROC {fmt(value)}")


Check = Callable[[_Judge], tuple[str, str, tuple[Comparison, ...]]]


def _beats_each(winner: str, rivals: Sequence[str]) -> Check:
    """The claim "winner has a higher AUROC than every rival": one comparison per rival."""

    def check(judge: _Judge) -> tuple[str, str, tuple[Comparison, ...]]:
        value, why = judge.auroc(winner)
        if value is None:
            return NOT_TESTED, why, ()
        parts = tuple(judge.beats(winner, rival) for rival in rivals)
        return combine([p.verdict for p in parts]), "; ".join(p.detail for p in parts), parts

    return check


def _claim_ensemble_beats_every_single(judge: _Judge) -> tuple[str, str, tuple[Comparison, ...]]:
    value, why = judge.auroc(ENSEMBLE)
    if value is None:
        return NOT_TESTED, why, ()
    singles = sorted((m for m in judge.metrics.values() if not is_ensemble(m) and m.auroc is not None),
                     key=lambda m: -m.auroc)
    if not singles:
        return NOT_TESTED, "no single signal has an AUROC in this run", ()
    parts = tuple(judge.beats(ENSEMBLE, m.name) for m in singles)
    detail = f"best single signal: {parts[0].detail}. Against all {len(parts)} single signals: " + ", ".join(
        f"{sum(p.verdict == v for p in parts)} {v}" for v in (HELD, INCONCLUSIVE, NOT_HELD)
    )
    for verdict in (NOT_HELD, INCONCLUSIVE):  # the parts that keep the claim from holding
        against = [f"{m.name} {fmt(m.auroc)} ({p.estimate * 100:+.1f}, {_interval_text(p.low, p.high)})"
                   for m, p in zip(singles, parts) if p.verdict == verdict]
        if against:
            detail += f"; {verdict} against " + ", ".join(against)
    return combine([p.verdict for p in parts]), detail, parts


def _claim_comments_worse_than_random(judge: _Judge) -> tuple[str, str, tuple[Comparison, ...]]:
    part = judge.below_chance(COMMENTS_ONLY)
    return part.verdict, part.detail, (part,)


def _claim_lexical_cheaper(judge: _Judge) -> tuple[str, str, tuple[Comparison, ...]]:
    lex, vr = judge.metrics.get(LEX), judge.metrics.get(CONSISTENCY_VR)
    if lex is None or vr is None:
        return NOT_TESTED, f"{LEX if lex is None else CONSISTENCY_VR} was not run", ()
    if not (measured(lex.seconds_per_problem) and measured(vr.seconds_per_problem)):
        return NOT_TESTED, "no wall time on this machine (the steps were computed on another one)", ()
    ratio = vr.seconds_per_problem / lex.seconds_per_problem
    detail = (
        f"{LEX} {lex.seconds_per_problem:.2f} s vs {CONSISTENCY_VR} {vr.seconds_per_problem:.2f} s "
        f"per problem ({ratio:.1f}× cheaper; no interval: only the mean time per problem is kept)"
    )
    return (HELD if ratio > 3 else NOT_HELD), detail, ()


# (key, statement, check). The statements say how each claim of the paper was read.
CLAIMS: tuple[tuple[str, str, Check], ...] = (
    ("a", f"{LEX} beats {MEAN_ENTROPY} (AUROC): Top-K filtering beats plain mean entropy.",
     _beats_each(LEX, (MEAN_ENTROPY,))),
    ("b-lex", f"Lexical axis: {LEX} beats every single-pass baseline ({', '.join(SINGLE_PASS_BASELINES)}).",
     _beats_each(LEX, SINGLE_PASS_BASELINES)),
    ("b-algo", f"Algorithmic axis: {ALGO} beats every multi-pass consistency baseline "
               f"({', '.join(MULTI_PASS_BASELINES)}).",
     _beats_each(ALGO, MULTI_PASS_BASELINES)),
    ("b-func", f"Functional axis: {FUNC} beats every multi-pass consistency baseline "
               f"({', '.join(MULTI_PASS_BASELINES)}).",
     _beats_each(FUNC, MULTI_PASS_BASELINES)),
    ("c", f"The ensemble ({ENSEMBLE}) beats every single signal (every method that is not an ensemble).",
     _claim_ensemble_beats_every_single),
    ("d", f"Removing any axis degrades the ensemble: {ENSEMBLE} beats each of {', '.join(DROP_ONE)}.",
     _beats_each(ENSEMBLE, DROP_ONE)),
    ("e", f"Comment-only entropy is worse than random: {COMMENTS_ONLY} has AUROC below 0.5.",
     _claim_comments_worse_than_random),
    ("f", f"{LEX} costs over 3× less per problem than {CONSISTENCY_VR}.",
     _claim_lexical_cheaper),
)

CLAIMS_INTERPRETATION = f"""\
How the paper's claims were read and judged:

* All comparisons use AUROC, the paper's headline metric. Each difference is given on all problems
  in AUROC points (hundredths of AUROC; "-0.0" is below zero by less than 0.05 of a point) with a
  paired bootstrap {int(LEVEL * 100)} % interval over problems: {RESAMPLES:,} resamples of the problems with
  replacement (seed {SEED}), both methods scored on the same resample, percentile interval. A
  resample holding only correct or only incorrect problems (no AUROC) is drawn again.
* A difference is "{HELD}" when its interval lies entirely on the claimed side of zero, "{NOT_HELD}"
  when entirely on the other side, and "{INCONCLUSIVE}" when it holds zero (a tie on these
  problems). A claim over several comparisons is "{NOT_HELD}" if any part is not held, otherwise
  "{INCONCLUSIVE}" if any part is inconclusive, otherwise "{NOT_TESTED}" if any part could not be
  tested, otherwise "{HELD}" (every part held).
* (b) The paper says each axis "outperforms NL-derived baselines" on the property it targets. The
  lexical axis is single-pass, so it is compared with the single-pass baselines
  ({', '.join(SINGLE_PASS_BASELINES)}); the algorithmic and functional axes cost several
  generations, so each is compared with the multi-pass consistency baselines
  ({', '.join(MULTI_PASS_BASELINES)}). {CONSISTENCY_VRO} is not one of the paper's baselines and
  is left out.
* (c) "Single signal" is every method in the run with an AUROC that is not an ensemble, including
  the K-sweep, token-scope and beyond-the-paper rows. {', '.join(FITTED_OVER_AXES)} is a logistic
  fit over the three axes and counts as an ensemble, not as a single signal.
* (d)-(f) are further claims of the paper's analysis section (drop-one ablation, code vs comment
  entropy, cost), checked where the run measured them. (f) has no interval: the results keep only
  each method's mean time per problem.
* A claim that names a method the run did not measure, or whose AUROC is undefined (all labels of
  one class), is "{NOT_TESTED}", unless a comparison that could be made already decides
  "{NOT_HELD}" or "{INCONCLUSIVE}".
"""


def check_claims(run: EvalRun, metrics: dict[str, MethodMetrics]) -> list[Claim]:
    """Every claim of :data:`CLAIMS` judged on a run and its metrics (``summary.summarise``)."""
    judge = _Judge(run, metrics)
    out = []
    for key, statement, check in CLAIMS:
        verdict, detail, parts = check(judge)
        out.append(Claim(key=key, statement=statement, verdict=verdict, detail=detail, comparisons=parts))
    return out


def render_claims(runs: Sequence[tuple[EvalRun, Sequence[Claim]]]) -> str:
    """``claims.md`` from each run and its claims' verdicts."""
    lines = ["# The paper's claims, checked on this evaluation", "", CLAIMS_INTERPRETATION]
    for run, claims in runs:
        counts = ", ".join(f"{sum(c.verdict == v for c in claims)} {v}" for v in VERDICTS)
        lines += [f"## {run.dataset} · {run.model}", "", f"{len(run.labels)} problems; {counts}.", ""]
        for c in claims:
            lines.append(f"- ({c.key}) {c.statement} — **{c.verdict}**: {c.detail}.")
        lines.append("")
    return "\n".join(lines)
