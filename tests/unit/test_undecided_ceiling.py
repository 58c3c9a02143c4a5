"""benchmarks.chance.undecided_ceiling: a missing signal becomes its median and an indicator, a signal
that separates gives a cross-validated AUROC of 1 and a constant one 0.5, and a row measured before
the consistent signals existed gains them only where the docstring gives no example. Synthetic
functions, no model."""

from __future__ import annotations

import numpy as np

from benchmarks.chance.undecided_ceiling import Design, cross_validated, fitted_chance, with_consistent
from qualm.fitting.chance_fit import Example


def functions(n: int) -> list[Example]:
    # each problem's wrong function has the higher "doubt"; "flat" says nothing
    out = []
    for i in range(n):
        out.append(Example(f"p{i}", {"doubt": 0.1 + 0.01 * i, "flat": 1.0}, True, undecided=True))
        out.append(Example(f"p{i}", {"doubt": 0.9 - 0.01 * i, "flat": 1.0}, False, undecided=True))
    return out


def test_a_missing_signal_is_its_median_with_an_indicator_column() -> None:
    tune = [Example("a", {"s": 1.0}, True), Example("b", {"s": 3.0}, False), Example("c", {"s": None}, False)]
    design = Design.of(["s"], tune)
    assert design.medians == (2.0,) and design.flagged == (True,)
    assert design.matrix(tune).tolist() == [[1.0, 0.0], [3.0, 0.0], [2.0, 1.0]]
    # a signal no tune function misses gets no indicator column
    assert Design.of(["s"], tune[:2]).matrix(tune).shape == (3, 1)


def test_a_signal_that_separates_ranks_perfectly_across_folds_and_a_constant_one_not_at_all() -> None:
    tune = functions(20)
    cv, inside = cross_validated(tune, ["doubt"], 1.0)
    assert cv == 1.0 and inside == 1.0
    flat_cv, flat_inside = cross_validated(tune, ["flat"], 1.0)
    assert flat_inside == 0.5 and flat_cv == 0.5
    chance = fitted_chance(tune, ["doubt"], 1.0)
    assert chance(tune[0]) > 0.5 > chance(tune[1])


def test_the_consistent_signals_are_derived_only_where_the_docstring_gives_no_example() -> None:
    no_example = Example("p", {"functional_weighted": 0.3, "differential": 0.2, "examples_failed": None}, False, undecided=True)
    derived = with_consistent(no_example)
    assert derived.signals["consistent_weighted"] == 0.3 and derived.signals["undecided_weighted"] == 0.3
    assert derived.signals["undecided_differential"] == 0.2
    passes = Example("q", {"functional_weighted": 0.3, "differential": 0.2, "examples_failed": 0.0}, False, undecided=True)
    assert with_consistent(passes) is passes
    measured = Example("r", {"consistent_weighted": None, "functional_weighted": 0.3, "examples_failed": None}, False)
    assert with_consistent(measured) is measured
    # a signal every tune function misses: a median of 0, so the matrix has no NaN
    assert not np.isnan(Design.of(["consistent_weighted"], [measured]).matrix([measured])).any()
