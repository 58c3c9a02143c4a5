"""The headline of an assessment: a calibrated chance that the function passes its hidden tests.

A percentile says where a score sits among the model's reference scores; it is not a probability,
and a user cannot act on "0.61". The chance of passing is a logistic model of pass/fail on the
assessment's signals, fitted offline on a calibration split only (right and wrong functions of
HumanEval and MBPP task_ids 511-974: ``qualm calibrate --pairs``, ``benchmarks/chance/fit_chance.py``) and shipped in the
model's calibration file as plain numbers, so the server needs no fitting library:

    z_i = (x_i - mean_i) / scale_i
    P(pass) = 1 / (1 + exp(-(intercept + sum_i coef_i * z_i)))

The model is a chain of such fits, one per pattern of available signals (pattern submodels): the
first fit whose signals all have a value gives the chance, so a function without a swap to try or
without a test that ran is scored by a fit made for functions like it.

``signals_of`` names every signal an assessment has, in one place: the fit reads the same names
from the benchmark's rows that the engine computes for a user's function.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from .signals.lexical import SIGNAL_NAMES, blended
from .trace import surprisal

if TYPE_CHECKING:
    from .signals.lexical import LexicalReport

# The lexical scores that are signals, declared in qualm.signals.lexical.SIGNALS.
LEXICAL_SIGNALS = SIGNAL_NAMES


# Code with a token the model gave under e^-4 (1.8 %) is code it would not have written itself: only
# there does the blended surprisal tell right from wrong (qualm.chance.with_derived). Chosen on the
# tune split: the model's greedy code of the first 74 tune problems stayed under it (at most 3.92
# nats; 3 of the 222 measured by now are over it), 96 % of the tune pairs' functions (edited code)
# are over it, and 4.0-4.5 cross-validated best of 2.3-6.
DEPARTURE_NATS = 4.0

# Why an assessment has no value for a signal, in the words the chance's note uses.
MISSING_WHY = {
    "lexical.all.departure_surprisal": "every token is one the model gives at least 1.8 %",
    "examples_failed": "the docstring gives no example",
    "swap_gain": "no swap to try",
    "functional_weighted": "no solution of the model passed a test",
    "functional": "no test ran",
    "agreement": "no solution of the model answered",
    "differential": "no varied input was answered",
    "plan_agreement": "no plan's program answered",
    "fix_gain": "no check ran to try a fix on",
    "suspect_unexpected": "no code token in the body",
    "departure_fix_gain": "every token is one the model gives at least 1.8 %, or no check ran",
    "departure_suspect": "every token is one the model gives at least 1.8 %",
    "consistent_weighted": "no solution of the model passes the docstring's examples and a test",
    "consistent_differential": "the solutions that pass the docstring's examples agree on no varied input",
    "undecided_weighted": "the code fails a docstring example, or no solution passes them and a test",
    "undecided_differential": "the code fails a docstring example, or its solutions agree on no varied input",
}

# The repair's signals enter the chance only for code that departs from the model, as the departure
# surprisal does: they were measured on the tune pairs (edited code) and not on the model's own
# greedy code, so a fit on them is not used on code the model could have written itself.
DEPARTING = {"fix_gain": "departure_fix_gain", "suspect_unexpected": "departure_suspect"}

# The signals of the solutions consistent with the docstring's examples enter the chance only where
# the examples do not decide (the code passes them all, or the docstring gives none): they were
# measured on pairs of that kind alone (issue 55, third round), and where the code fails an example
# the example says more than any solution.
UNDECIDED = {"consistent_weighted": "undecided_weighted", "consistent_differential": "undecided_differential"}


def with_derived(signals: Mapping[str, float | None]) -> dict[str, float | None]:
    """The signals plus ``lexical.<scope>.max_surprisal`` = −log(1 − max_probability), the surprisal
    of the least likely token: the same order as ``max_probability``, but on a scale a logistic
    model can use (1 − p_min crowds against 1: over the tune pairs its mean was 0.9991 with a
    standard deviation of 0.0028, so a generated function at 0.9 lay 35 deviations out), and
    ``blended_surprisal`` from the two it blends where a row was measured before it existed, and
    ``departure_surprisal``: the blended surprisal of code with a token the model would rarely write
    (its least likely token over ``DEPARTURE_NATS``), none for code the model could have written
    itself. On the model's own greedy code the surprisals are low whether it passes or not, so a fit
    that read them there took low surprisal for a pass; a fit on this one is made on code that
    departs from the model and is not used on code that does not. The repair's signals are gated the
    same way (``DEPARTING``)."""
    out = dict(signals)
    departed: dict[str, bool] = {}
    for scope in ("all", "code"):
        q = signals.get(f"lexical.{scope}.max_probability")
        top = out.setdefault(f"lexical.{scope}.max_surprisal", None if q is None else surprisal(1.0 - q))
        # rows measured before the blended score was one of the signals: the same number from the two it blends
        mean = signals.get(f"lexical.{scope}.mean_surprisal")
        if out.get(f"lexical.{scope}.blended_surprisal") is None and top is not None and mean is not None:
            out[f"lexical.{scope}.blended_surprisal"] = blended(top, mean)
        departed[scope] = top is not None and top >= DEPARTURE_NATS
        out[f"lexical.{scope}.departure_surprisal"] = out.get(f"lexical.{scope}.blended_surprisal") if departed[scope] else None
    for raw, gated in DEPARTING.items():
        out[gated] = out.get(raw) if departed["all"] else None
    failed = signals.get("examples_failed")
    for raw, gated in UNDECIDED.items():
        out[gated] = out.get(raw) if failed is None or failed == 0 else None
    return out


def signals_of(
    lexical: LexicalReport,
    algorithmic: float | None,
    candidate_distance: float | None,
    functional: float | None,
    functional_weighted: float | None = None,
    agreement: float | None = None,
    differential: float | None = None,
    swap_gain: float | None = None,
    plan_agreement: float | None = None,
    plan_weighted: float | None = None,
    examples_failed: float | None = None,
    fix_gain: float | None = None,
    suspect_unexpected: float | None = None,
    consistent_weighted: float | None = None,
    consistent_differential: float | None = None,
) -> dict[str, float | None]:
    """Every signal of an assessment by name, each oriented so that larger = more doubt:
    ``lexical.<scope>.<score>`` for the scopes all and code, then the other axes, then the three
    signals of the model's own solutions (``qualm.engine.solutions``), the token swaps'
    (``qualm.signals.swaps``) and the plans' programs' (``qualm.engine.plan_programs``), and the share
    of the docstring's examples the code fails (``qualm.signals.examples``), the share of the checks a
    likely fix makes pass (``qualm.engine.fix``), the suspect line's score
    (``qualm.signals.suspicion``: −log p − H of its least expected token), and the weighted tests and
    the differential from the solutions that pass the docstring's examples."""
    out: dict[str, float | None] = {}
    for scope in ("all", "code"):
        report = getattr(lexical, scope)
        for name in LEXICAL_SIGNALS:
            value = getattr(report, name)
            out[f"lexical.{scope}.{name}"] = None if value is None else float(value)
    out["algorithmic"] = algorithmic
    out["candidate_distance"] = candidate_distance
    out["functional"] = functional
    out["functional_weighted"] = functional_weighted
    out["agreement"] = agreement
    out["differential"] = differential
    out["swap_gain"] = swap_gain
    out["plan_agreement"] = plan_agreement
    out["plan_weighted"] = plan_weighted
    out["examples_failed"] = examples_failed
    out["fix_gain"] = fix_gain
    out["suspect_unexpected"] = suspect_unexpected
    out["consistent_weighted"] = consistent_weighted
    out["consistent_differential"] = consistent_differential
    return with_derived(out)


@dataclass(frozen=True)
class PassModel:
    features: list[str]
    mean: list[float]  # training mean of each feature: its centre, and the value a missing one takes
    scale: list[float]  # training standard deviation (1 where it was 0)
    coef: list[float]
    intercept: float
    fitted_on: str  # in words, for the hover: which functions, how many
    n_fitted: int
    # How well calibrated it is on functions it was not fitted on (filled by the benchmark).
    evaluated_on: str = ""
    quality: dict[str, float] = field(default_factory=dict)  # brier, ece, auroc
    settings: dict = field(default_factory=dict)  # the assessment settings its signals were made with
    # The next fit of the chain (pattern submodels): fitted on the functions that have all of its
    # signals, for a function that lacks one of this fit's (no swap to try in the model's own code,
    # no solution passing a test, no test run at all: JavaScript, a method). None: the chain ends.
    fallback: PassModel | None = None

    def chain(self) -> list[PassModel]:
        """This fit and every fallback after it, in order."""
        return [self, *(self.fallback.chain() if self.fallback is not None else [])]

    def used_for(self, signals: Mapping[str, float | None]) -> PassModel | None:
        """The fit that gives the chance for these signals: the first of the chain with a value for
        every one of its signals. A signal a function lacks is not made up: a fit that never saw
        the function's pattern of missing signals would otherwise take it at the training mean, and
        on the model's own code (where no swap exists) that mean came from edited code. Where no fit
        has them all (a file from before the chain), the first with any (the missing at their mean)."""
        chain = self.chain()
        for model in chain:
            if all(signals.get(f) is not None for f in model.features):
                return model
        return next((m for m in chain if any(signals.get(f) is not None for f in m.features)), None)

    def probability(self, signals: Mapping[str, float | None]) -> float | None:
        """P(pass), or None when no feature of this model or its fallback is there (nothing to base it on)."""
        model = self.used_for(signals)
        return None if model is None else model.own_probability(signals)

    def own_probability(self, signals: Mapping[str, float | None]) -> float:
        z = self.intercept
        for name, mu, sd, w in zip(self.features, self.mean, self.scale, self.coef):
            x = signals.get(name)
            if x is not None and math.isfinite(x):
                z += w * (x - mu) / sd
        # z is bounded by the coefficients; the guard keeps exp() finite for absurd inputs.
        z = max(-50.0, min(50.0, z))
        return 1.0 / (1.0 + math.exp(-z))

    def missing(self, signals: Mapping[str, float | None]) -> list[str]:
        return [f for f in self.features if signals.get(f) is None]

    def describe(self) -> str:
        # Its quality on benchmark pairs stays in the file (the records, `qualm calibrate`): shown
        # beside a user's function it would read as a figure for their code.
        return f"a logistic fit of pass/fail on {', '.join(self.features)} over {self.fitted_on}"

    def to_dict(self) -> dict:
        data = asdict(self)
        if self.fallback is None:
            data.pop("fallback")
        return data

    @classmethod
    def from_dict(cls, data: Mapping) -> PassModel:
        n = len(data["features"])
        fallback = data.get("fallback")
        model = cls(
            features=[str(f) for f in data["features"]],
            mean=[float(x) for x in data["mean"]],
            scale=[float(x) for x in data["scale"]],
            coef=[float(x) for x in data["coef"]],
            intercept=float(data["intercept"]),
            fitted_on=str(data.get("fitted_on", "")),
            n_fitted=int(data.get("n_fitted", 0)),
            evaluated_on=str(data.get("evaluated_on", "")),
            quality={str(k): float(v) for k, v in dict(data.get("quality", {})).items()},
            settings=dict(data.get("settings", {})),
            fallback=cls.from_dict(fallback) if fallback else None,
        )
        if not (len(model.mean) == len(model.scale) == len(model.coef) == n) or any(s <= 0 for s in model.scale):
            raise ValueError("pass_model: features, mean, scale and coef must have one positive-scale entry per feature")
        return model
