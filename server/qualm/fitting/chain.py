"""The chance of passing as a chain of logistic fits (one per pattern of available signals), chosen
and fitted on the right/wrong pairs, and the calibration file made from them.

The chain is chosen among ``CHAIN_CANDIDATES`` by cross-validation on the tune split (folds by
problem, the fewest signals within one standard error of the lowest log-loss; with the model's
greedy code of tune problems or pairs that the docstring's examples do not decide beside the pairs,
the mean of the kinds' log-losses, each kind weighing the same), fitted on the
whole tune split, and its AUROC, Brier score and ECE are measured on the holdout split
(``qualm.fitting.validation``); the tune split's raw scores per axis become the percentile reference.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..calibration_file import Calibration, new_calibration
from ..chance import PassModel
from ..engine.calibration import calibration_settings
from ..settings import Settings
from .chance_fit import Example, fit_pass_model, reliability
from .pairs import describe_split
from .validation import HoldoutQuality, auroc_fails, mean_and_se, with_chain_quality

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
_DF, _DU, _D = "departure_fix_gain", "departure_suspect", "differential"
_UW, _UD = "undecided_weighted", "undecided_differential"
Chain = tuple[tuple[str, ...], ...]


def _before(chain: Chain, where: Callable[[tuple[str, ...]], bool], extra: tuple[str, ...]) -> Chain:
    """``chain`` with, before each fit that ``where`` picks, a copy of it with ``extra`` added: a
    function with those signals too is scored by the copy, one without them by the fit as it was."""
    out: list[tuple[str, ...]] = []
    for level in chain:
        if where(level):
            out.append((*level, *extra))
        out.append(level)
    return tuple(out)


def _with_copies(chain: Chain, where: Callable[[tuple[str, ...]], bool], copy: Callable[[tuple[str, ...]], tuple[str, ...]]) -> Chain:
    """``chain`` with, before each fit that ``where`` picks, ``copy`` of it (when that differs)."""
    out: list[tuple[str, ...]] = []
    for level in chain:
        if where(level) and (made := copy(level)) != level:
            out.append(made)
        out.append(level)
    return tuple(out)


# The chain shipped for the default model from 2026-11-28 (results/chance-refit-2026-11-28).
_SHIPPED_0_5B: Chain = (
    (_E, _FW, _S, _DS), (_E, _FW, _S), (_E, _FW, _F, _DS), (_E, _FW, _F), (_E, _F), (_FW, _S, _DS), (_FW, _S), (_FW, _F, _DS), (_FW, _F), (_F, _S, _DS), (_F, _S), (_F,), (_E,), (_BS,),
)
# The chain shipped from 2026-11-30 (results/chance-undecided-2): the suspect line's score first.
_SHIPPED_2026_11_30: Chain = _before(_SHIPPED_0_5B, lambda level: _DS in level, (_DU,))
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
    _SHIPPED_0_5B,
    # The repair's signals (issue 55, part 4), gated by departure as _DS is (qualm.chance.DEPARTING):
    # each fit with _DS gets a copy before it with the likely fix's gain, the suspect line's score or
    # both; agreement with the model's solutions on varied inputs (differential) where they ran.
    _before(_SHIPPED_0_5B, lambda level: _DS in level, (_DF,)),
    _before(_SHIPPED_0_5B, lambda level: _DS in level, (_DU,)),
    _before(_SHIPPED_0_5B, lambda level: _DS in level, (_DF, _DU)),
    _before(_SHIPPED_0_5B, lambda level: _FW in level, (_D,)),
    _before(_before(_SHIPPED_0_5B, lambda level: _FW in level, (_D,)), lambda level: _DS in level, (_DF,)),
    _before(_before(_SHIPPED_0_5B, lambda level: _FW in level, (_D,)), lambda level: _DS in level, (_DF, _DU)),
    _SHIPPED_2026_11_30,
    # The solutions that pass the docstring's examples (issue 55, third round), only where the
    # examples do not decide (qualm.chance.UNDECIDED): before each fit with the suspect line's score,
    # a copy with their weighted tests, their differential or both, or with their weighted tests in
    # place of all the solutions'.
    _before(_SHIPPED_2026_11_30, lambda level: _DU in level, (_UD,)),
    _before(_SHIPPED_2026_11_30, lambda level: _DU in level, (_UW,)),
    _before(_SHIPPED_2026_11_30, lambda level: _DU in level, (_UW, _UD)),
    _with_copies(_SHIPPED_2026_11_30, lambda level: _DU in level, lambda level: tuple(_UW if f == _FW else f for f in level) + (_UD,)),
)
MIN_FIT_FUNCTIONS = 8  # fewer functions with a pattern than this: the next fit of the chain takes them


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
    pairs = sum(e.kind == "pairs" for e in examples)
    own = sum(e.generated for e in examples)
    undecided = sum(e.undecided for e in examples)
    text = f"{len(examples)} functions of the {name} split: {pairs} of right/wrong pairs"
    text += f", {undecided} of pairs that no docstring example decides" if undecided else ""
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
    pairs: CrossValidation  # on the right/wrong pairs' functions (those the examples decide, mostly)
    generated: CrossValidation | None  # on the model's greedy code (None: none given)
    undecided: CrossValidation | None = None  # on pairs the docstring's examples do not decide (None: none given)

    @property
    def kinds(self) -> tuple[CrossValidation, ...]:
        return tuple(cv for cv in (self.pairs, self.generated, self.undecided) if cv is not None)

    @property
    def logloss(self) -> float:
        """The mean of the kinds' log-losses: code a person edited, code the model wrote and pairs
        that no example decides weigh the same, however many functions each has."""
        return sum(cv.logloss for cv in self.kinds) / len(self.kinds)

    @property
    def logloss_se(self) -> float:
        return math.sqrt(sum(cv.logloss_se**2 for cv in self.kinds)) / len(self.kinds)

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
        both = zip((self.pairs, self.generated, self.undecided), (other.pairs, other.generated, other.undecided))
        kinds = [(mine.losses, theirs.losses) for mine, theirs in both if mine is not None and theirs is not None]
        stats = [mean_and_se([a - b for a, b in zip(mine, theirs)]) for mine, theirs in kinds]
        return sum(m for m, _ in stats) / len(stats), math.sqrt(sum(se**2 for _, se in stats)) / len(stats)


def cross_validate_chain(examples: Sequence[Example], levels: Sequence[Sequence[str]], k: int = 5) -> ChainValidation:
    """The chain cross-validated by problem over every kind of function together (a problem's pairs
    and its greedy code share a fold), measured on each kind apart."""
    chances = cross_validated_chances(examples, lambda train: fit_chain(train, levels, "cross-validation"), k)
    key = tuple(tuple(level) for level in levels)

    def of(kind: str) -> CrossValidation | None:
        mine = [(e, p) for e, p in zip(examples, chances) if e.kind == kind]
        return validation([e for e, _ in mine], [p for _, p in mine], key[0]) if mine else None

    pairs = of("pairs")
    if pairs is None:
        raise ValueError("no right/wrong pair among the functions")
    return ChainValidation(key, pairs, of("generated"), of("undecided"))


def choose_chain(examples: Sequence[Example], candidates: Sequence[Sequence[Sequence[str]]] = CHAIN_CANDIDATES) -> tuple[tuple[tuple[str, ...], ...], list[ChainValidation]]:
    """The one-standard-error rule on the mean of the kinds' log-losses, paired: among the
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


def pairs_calibration(
    model_name: str,
    model_digest: str,
    settings: Settings,
    tune: Sequence[Example],
    holdout: Sequence[Example],
    levels: Sequence[Sequence[str]] | None = None,
    generated: Sequence[Example] = (),
    undecided: Sequence[Example] = (),
) -> tuple[Calibration, HoldoutQuality | None]:
    """The calibration file: the tune split's raw scores as the percentile reference, and the pass
    model, a chain of pattern submodels chosen (``choose_chain``) and fitted (``fit_chain``) on the
    tune split's pairs and, where given, the model's greedy code of tune problems (``generated``) and
    tune pairs that no docstring example decides (``undecided``; not in the percentile reference);
    its quality is measured on the holdout split."""
    fit_on = [*tune, *generated, *undecided]
    chosen = tuple(levels) if levels else choose_chain(fit_on)[0]
    model = fit_chain(fit_on, chosen, "tune", calibration_settings(settings))
    model, quality = with_chain_quality(model, holdout)
    signal = settings.lexical.assess_signal
    rows = [{"lexical": e.signals.get(f"lexical.all.{signal}"), "algorithmic": e.signals.get("algorithmic"), "functional": e.signals.get("functional")} for e in tune]
    cal = new_calibration(model_name, model_digest, f"right and wrong functions, {describe_split(tune, 'tune')}", rows, calibration_settings(settings))
    return replace(cal, pass_model=model), quality
