"""The chance of passing: the shipped logistic model's arithmetic, the fit's split guard, and the
calibration measures (Brier, ECE), each against hand-computed values."""

import math
from dataclasses import replace

import pytest

from qualm.calibration_file import Calibration, new_calibration
from qualm.chance import PassModel, signals_of, with_derived
from qualm.fitting.chance_fit import Example, SplitError, check_fit_split, fit_pass_model, reliability
from qualm.signals.lexical import lexical_report
from qualm.trace import TokenRecord, Trace
from qualm.wording import chance_words

MODEL = PassModel(
    features=["functional", "lexical.all.top_k_surprisal"],
    mean=[0.4, 2.0],
    scale=[0.2, 0.5],
    coef=[-2.0, -1.0],
    intercept=0.5,
    fitted_on="10 functions",
    n_fitted=10,
)


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_probability_by_hand():
    # z = 0.5 - 2 * (0.8 - 0.4) / 0.2 - 1 * (3.0 - 2.0) / 0.5 = 0.5 - 4 - 2 = -5.5
    assert MODEL.probability({"functional": 0.8, "lexical.all.top_k_surprisal": 3.0}) == pytest.approx(sigmoid(-5.5))
    # every test passed and an ordinary surprisal: z = 0.5 + 4 = 4.5
    assert MODEL.probability({"functional": 0.0, "lexical.all.top_k_surprisal": 2.0}) == pytest.approx(sigmoid(4.5))


def test_a_missing_signal_takes_its_training_mean_and_none_at_all_gives_none():
    assert MODEL.probability({"functional": 0.4, "lexical.all.top_k_surprisal": None}) == pytest.approx(sigmoid(0.5))
    assert MODEL.missing({"functional": 0.4}) == ["lexical.all.top_k_surprisal"]
    assert MODEL.probability({"functional": None}) is None


def test_the_model_survives_a_round_trip_and_bad_numbers_are_refused():
    assert PassModel.from_dict(MODEL.to_dict()) == MODEL
    bad = MODEL.to_dict() | {"scale": [0.2, 0.0]}
    with pytest.raises(ValueError):
        PassModel.from_dict(bad)
    with pytest.raises(ValueError):
        PassModel.from_dict(MODEL.to_dict() | {"coef": [1.0]})


def test_a_calibration_file_carries_its_pass_model(tmp_path):
    cal = new_calibration("m", "abc", "test", [{"lexical": 1.0, "algorithmic": 0.5, "functional": 0.1}], {"lexical_signal": "top_k_surprisal"})
    path = tmp_path / "c.json"
    Calibration(**{**cal.__dict__, "pass_model": MODEL}).save(path)
    loaded = Calibration.load(path)
    assert loaded.pass_model == MODEL and loaded.lexical_signal == "top_k_surprisal"
    cal.save(path)  # a file without one, as every file before issue 23
    old = Calibration.load(path)
    assert old.pass_model is None
    assert new_calibration("m", "abc", "t", [], {}).lexical_signal == "top_k_entropy"


def test_the_fit_refuses_the_test_split():
    check_fit_split(["HumanEval/3", "MBPP/511", "MBPP/974"])
    for bad in ("MBPP/11", "MBPP/510", "MBPP/5", "APPS/1"):
        with pytest.raises(SplitError):
            check_fit_split([bad])
    examples = [Example("MBPP/100", {"functional": 0.0}, True), Example("MBPP/600", {"functional": 1.0}, False)]
    with pytest.raises(SplitError):
        fit_pass_model(examples, ["functional"], "x")


def test_the_fit_orders_functions_by_their_signals():
    examples = [Example(f"HumanEval/{i}", {"functional": f, "x": None if i % 3 else 1.0}, f < 0.5) for i, f in enumerate([0.0, 0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9, 0.15, 0.75])]
    model = fit_pass_model(examples, ["functional", "x"], "ten functions")
    assert model.mean[0] == pytest.approx(0.45) and model.n_fitted == 10
    assert model.coef[0] < 0  # more failed self-tests, less chance
    assert model.probability({"functional": 0.0}) > 0.5 > model.probability({"functional": 1.0})


def test_no_signal_of_doubt_raises_the_chance():
    # "x" grows with passing here (as failed self-tests did where other signals already counted
    # them): an unconstrained fit gives it a positive weight on passing; this one gives it none.
    examples = [Example(f"HumanEval/{i}", {"functional": f, "x": 1.0 - f + 0.05 * (i % 3)}, f < 0.5) for i, f in enumerate([0.0, 0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9, 0.15, 0.75, 0.05, 0.95])]
    model = fit_pass_model(examples, ["functional", "x"], "twelve functions")
    assert model.coef[0] < 0 and model.coef[1] == 0.0
    assert all(w <= 0 for w in model.coef)


def test_brier_and_ece_by_hand():
    r = reliability([0.05, 0.15, 0.9, 0.95], [False, True, True, True], n_bins=10)
    assert r.brier == pytest.approx((0.05**2 + 0.85**2 + 0.1**2 + 0.05**2) / 4)
    # bins [0, .1): 0.05 vs 0 · [.1, .2): 0.15 vs 1 · [.9, 1]: 0.925 vs 1
    assert r.ece == pytest.approx(0.25 * 0.05 + 0.25 * 0.85 + 0.5 * 0.075)
    assert [b[2] for b in r.bins] == [1, 1, 2]


def test_signals_are_named_once_for_the_engine_and_the_fit():
    tokens = tuple(TokenRecord(index=i, token_id=i, text=t, start=i, end=i + 1, entropy=0.5, prob=p, alternatives=(), scope="code") for i, (t, p) in enumerate([("a", 0.5), ("b", 0.25)]))
    s = signals_of(lexical_report(Trace(text="ab", tokens=tokens, model="m", mode="scored", prompt="")), 0.3, None, 0.1)
    assert s["lexical.all.mean_surprisal"] == pytest.approx((math.log(2) + math.log(4)) / 2)
    assert s["lexical.code.max_probability"] == pytest.approx(0.75)
    assert s["lexical.all.blended_surprisal"] == pytest.approx(math.log(4) + 3 * (math.log(2) + math.log(4)) / 2)
    assert (s["algorithmic"], s["candidate_distance"], s["functional"]) == (0.3, None, 0.1)


def test_rows_measured_before_the_blend_get_it_from_the_two_it_blends():
    old = {"lexical.all.max_probability": 0.75, "lexical.all.mean_surprisal": 0.9}
    s = with_derived(old)
    assert s["lexical.all.max_surprisal"] == pytest.approx(math.log(4))
    assert s["lexical.all.blended_surprisal"] == pytest.approx(math.log(4) + 3 * 0.9)
    # a row that has it keeps its own number; a row without the parts gets none
    assert with_derived({**old, "lexical.all.blended_surprisal": 1.0})["lexical.all.blended_surprisal"] == 1.0
    assert with_derived({"lexical.all.max_probability": 0.75}).get("lexical.all.blended_surprisal") is None


def test_the_surprisal_of_code_the_model_would_not_write_is_there_only_past_the_threshold():
    # p_min = 0.02 → −log 0.02 = 3.912 nats, under DEPARTURE_NATS = 4; p_min = 0.015 → 4.200, over it
    near = with_derived({"lexical.all.max_probability": 0.98, "lexical.all.mean_surprisal": 0.5})
    assert near["lexical.all.max_surprisal"] == pytest.approx(3.912, abs=1e-3)
    assert near["lexical.all.blended_surprisal"] == pytest.approx(3.912 + 1.5, abs=1e-3)
    assert near["lexical.all.departure_surprisal"] is None
    far = with_derived({"lexical.all.max_probability": 0.985, "lexical.all.mean_surprisal": 0.5})
    assert far["lexical.all.departure_surprisal"] == pytest.approx(4.200 + 1.5, abs=1e-3)
    assert far["lexical.all.departure_surprisal"] == far["lexical.all.blended_surprisal"]
    # each scope on its own; none without a least likely token
    both = with_derived({"lexical.all.max_probability": 0.985, "lexical.code.max_probability": 0.5, "lexical.all.blended_surprisal": 7.0, "lexical.code.blended_surprisal": 2.0})
    assert (both["lexical.all.departure_surprisal"], both["lexical.code.departure_surprisal"]) == (7.0, None)
    assert with_derived({})["lexical.all.departure_surprisal"] is None


def test_the_model_s_own_code_goes_on_to_the_fit_without_the_departure_surprisal():
    from qualm.engine.assessment import _chance

    with_ds = PassModel(["functional_weighted", "lexical.all.departure_surprisal"], [0.0, 10.0], [1.0, 2.0], [-1.0, -0.5], 0.2, "20 functions", 20)
    chain = replace(with_ds, fallback=PassModel(["functional_weighted"], [0.0], [1.0], [-1.0], 0.4, "30 functions", 30))
    cal = Calibration(**{**new_calibration("m", "abc", "test", [], {}).__dict__, "pass_model": chain})
    edited = {"functional_weighted": 0.5, **with_derived({"lexical.all.max_probability": 0.999, "lexical.all.blended_surprisal": 14.0})}
    p, note = _chance(cal, edited, "m")
    assert p == pytest.approx(sigmoid(0.2 - 0.5 - 0.5 * (14.0 - 10.0) / 2.0))
    own = {"functional_weighted": 0.5, **with_derived({"lexical.all.max_probability": 0.9, "lexical.all.blended_surprisal": 3.0})}
    p, note = _chance(cal, own, "m")
    assert p == pytest.approx(sigmoid(0.4 - 0.5))
    assert "lexical.all.departure_surprisal had no value (every token is one the model gives at least 1.8 %)" in note


def test_words_for_a_chance():
    assert [chance_words(p) for p in (0.9, 0.6, 0.3, 0.1)] == ["likely passes", "may pass: check the failing self-tests", "doubtful: read it closely", "likely wrong"]
    # the advice points at something that exists: no failing test, or no test at all (JS/TS, a method)
    assert chance_words(0.6, 0) == "may pass: its self-tests pass, but read it closely"
    assert chance_words(0.6, None) == "may pass: no self-test ran, so read it closely"
    assert chance_words(0.9, None) == "likely passes" and chance_words(0.3, None) == "doubtful: read it closely"


def test_the_chance_keeps_a_signal_out_unless_it_helps_beyond_one_standard_error():
    from qualm.fitting.chain import CrossValidation, one_standard_error_choice

    def cv(features, logloss, se):
        return CrossValidation(tuple(features), logloss, None, 0.0, 0.0, se)

    two = cv(["functional_weighted", "lexical.all.max_surprisal"], 0.5004, 0.068)
    three = cv(["functional_weighted", "lexical.all.max_surprisal", "candidate_distance"], 0.4873, 0.067)
    one = cv(["functional_weighted"], 0.5697, 0.060)
    # the tune split's figures: the third signal's gain (0.013) is a fifth of a standard error
    assert one_standard_error_choice([one, two, three]) is two
    # a gain beyond one standard error keeps it
    assert one_standard_error_choice([one, cv(two.features, 0.60, 0.05), three]) is three


FALLBACK = PassModel(features=["lexical.all.blended_surprisal"], mean=[10.0], scale=[4.0], coef=[-1.0], intercept=0.2, fitted_on="10 functions", n_fitted=10)
NO_SWAP = PassModel(features=["functional_weighted"], mean=[0.2], scale=[0.5], coef=[-2.0], intercept=0.3, fitted_on="12 functions", n_fitted=12, fallback=FALLBACK)
WITH_FALLBACK = PassModel(
    features=["functional_weighted", "swap_gain"], mean=[0.3, -0.2], scale=[0.3, 0.4], coef=[-1.0, -2.0], intercept=0.1,
    fitted_on="10 functions", n_fitted=10, fallback=NO_SWAP,
)


def test_the_first_fit_of_the_chain_with_every_one_of_its_signals_gives_the_chance():
    # both signals: the first fit; z = 0.1 - 1 * (0.6 - 0.3) / 0.3 - 2 * (0.2 + 0.2) / 0.4 = -2.9
    both = {"functional_weighted": 0.6, "swap_gain": 0.2, "lexical.all.blended_surprisal": 30.0}
    assert WITH_FALLBACK.used_for(both) is WITH_FALLBACK
    assert WITH_FALLBACK.probability(both) == pytest.approx(sigmoid(-2.9))
    # no swap to try (the model's own code): the fit for functions without one, not the first fit
    # with swap_gain made up at its mean; z = 0.3 - 2 * (0.6 - 0.2) / 0.5 = -1.3
    no_swap = {"functional_weighted": 0.6, "swap_gain": None, "lexical.all.blended_surprisal": 30.0}
    assert WITH_FALLBACK.used_for(no_swap) is NO_SWAP
    assert WITH_FALLBACK.probability(no_swap) == pytest.approx(sigmoid(-1.3))
    # no test ran: the lexical fit; z = 0.2 - (18 - 10) / 4 = -1.8
    no_tests = {"functional_weighted": None, "swap_gain": None, "lexical.all.blended_surprisal": 18.0}
    assert WITH_FALLBACK.used_for(no_tests) is FALLBACK
    assert WITH_FALLBACK.probability(no_tests) == pytest.approx(sigmoid(-1.8))
    # nothing at all: no chance
    assert WITH_FALLBACK.used_for({}) is None and WITH_FALLBACK.probability({}) is None
    assert WITH_FALLBACK.chain() == [WITH_FALLBACK, NO_SWAP, FALLBACK]
    assert PassModel.from_dict(WITH_FALLBACK.to_dict()) == WITH_FALLBACK
    assert "fallback" not in MODEL.to_dict()  # files without one stay as they were


def test_a_single_fit_from_before_the_chain_still_takes_a_missing_signal_at_its_mean():
    single = PassModel(features=["functional_weighted", "swap_gain"], mean=[0.3, -0.2], scale=[0.3, 0.4], coef=[-1.0, -2.0], intercept=0.1, fitted_on="10 functions", n_fitted=10)
    assert single.used_for({"functional_weighted": 0.6}) is single
    assert single.probability({"functional_weighted": 0.6}) == pytest.approx(sigmoid(-0.9))


def test_a_calibration_file_carries_the_fallback(tmp_path):
    cal = new_calibration("m", "abc", "test", [{"lexical": 1.0, "algorithmic": 0.5, "functional": 0.1}], {})
    path = tmp_path / "c.json"
    Calibration(**{**cal.__dict__, "pass_model": WITH_FALLBACK}).save(path)
    assert Calibration.load(path).pass_model == WITH_FALLBACK


def test_each_fit_of_the_chain_is_fitted_on_the_functions_with_all_its_signals():
    from qualm.fitting.chain import fit_chain, pairs_calibration
    from qualm.settings import Settings

    # the tests' signal decides here; the swaps exist for the first half only, the lexical signal roughly
    rows = [(0.0, 0.1, 8.0, True), (0.1, -0.2, 12.0, True), (0.0, 0.0, 15.0, True), (0.9, 0.5, 14.0, False), (0.8, 0.4, 20.0, False), (1.0, 0.6, 9.0, False)]
    tune = [
        Example(f"HumanEval/{i}", {"functional_weighted": w, "swap_gain": g if i < 18 else None, "lexical.all.blended_surprisal": s}, passed)
        for i, (w, g, s, passed) in enumerate(rows * 6)
    ]
    levels = [("functional_weighted", "swap_gain"), ("functional_weighted",), ("lexical.all.blended_surprisal",)]
    chain = fit_chain(tune, levels).chain()
    assert [m.features for m in chain] == [list(level) for level in levels]
    assert [m.n_fitted for m in chain] == [18, 36, 36]  # each on the functions that have all its signals
    assert chain[0].fitted_on == "18 functions of the tune split: 18 of right/wrong pairs"
    # a pattern with too few functions is left out: its functions go to the next fit
    assert [m.features for m in fit_chain(tune[:30], levels).chain()] == [list(level) for level in levels]
    assert [m.features for m in fit_chain(tune[18:30], levels).chain()] == [["functional_weighted"], ["lexical.all.blended_surprisal"]]
    # greedy code of the model is fitted on with the pairs, and said so
    own = [Example("HumanEval/99", {"functional_weighted": 0.0, "lexical.all.blended_surprisal": 5.0}, True, generated=True)] * 4
    cal, quality = pairs_calibration("m", "abc", Settings(), tune, tune[:6], levels, own)
    pm = cal.pass_model
    assert pm.chain()[1].fitted_on == "40 functions of the tune split: 36 of right/wrong pairs and 4 greedy solutions of the model"
    assert quality is not None and pm.quality  # the whole chain on the holdout functions given
    assert pm.fallback.quality and pm.fallback.evaluated_on == "the 6 holdout functions with its signals"


def test_the_chain_is_chosen_on_both_kinds_of_code_by_cross_validation():
    from qualm.fitting.chain import choose_chain

    pairs = [
        Example(f"HumanEval/{i}", {"functional_weighted": w, "swap_gain": g, "functional": w, "lexical.all.blended_surprisal": s}, passed)
        for i, (w, g, s, passed) in enumerate([(0.0, 0.0, 8.0, True), (0.2, 0.1, 12.0, True), (0.9, 0.6, 14.0, False), (0.7, 0.5, 20.0, False)] * 5)
    ]
    # the model's own code: no swap; the plain count tells, the weighted one less so
    own = [
        Example(f"HumanEval/{i}", {"functional_weighted": w, "functional": f, "swap_gain": None, "lexical.all.blended_surprisal": 5.0}, passed, generated=True)
        for i, (w, f, passed) in enumerate([(0.1, 0.0, True), (0.1, 0.1, True), (0.2, 0.8, False), (0.0, 0.9, False)] * 5)
    ]
    levels, scored = choose_chain([*pairs, *own])
    assert all(cv.generated is not None and len(cv.generated.features) for cv in scored)
    best = min(scored, key=lambda cv: cv.logloss)
    assert levels in [cv.levels for cv in scored if cv.worse_than(best)[0] <= cv.worse_than(best)[1]]
    # a chain whose fit for code without a swap uses the plain count beats one that ignores it there
    by = {cv.levels: cv for cv in scored}
    fw_f = next(cv for lv, cv in by.items() if lv[1] == ("functional_weighted", "functional"))
    fw = next(cv for lv, cv in by.items() if lv[1] == ("functional_weighted",))
    assert fw_f.generated.logloss < fw.generated.logloss


def test_the_note_says_which_fit_of_the_chain_gave_the_chance():
    from qualm.engine.assessment import _chance

    cal = Calibration(**{**new_calibration("m", "abc", "test", [], {}).__dict__, "pass_model": WITH_FALLBACK})
    p, note = _chance(cal, {"lexical.all.blended_surprisal": 18.0}, "m")
    assert p == pytest.approx(sigmoid(-1.8))
    assert note.startswith("a logistic fit of pass/fail on lexical.all.blended_surprisal") and "functional_weighted, swap_gain had no value" in note
    p, note = _chance(cal, {"functional_weighted": 0.2, "lexical.all.blended_surprisal": 18.0}, "m")
    assert p == pytest.approx(sigmoid(0.3)) and note.startswith("a logistic fit of pass/fail on functional_weighted over 12 functions")
    assert "swap_gain had no value (no swap to try" in note and "average" not in note
    assert _chance(cal, {}, "m")[0] is None


def test_two_chains_are_compared_on_the_same_functions():
    from qualm.fitting.chain import ChainValidation, CrossValidation

    def chain(pairs, code=None):
        cv = lambda losses: CrossValidation(("x",), sum(losses) / len(losses), None, 0.0, 0.0, 0.0, tuple(losses))  # noqa: E731
        return ChainValidation((("x",),), cv(pairs), cv(code) if code else None)

    # by hand: differences 0, 0, 0, 0.2 -> mean 0.05, sample sd 0.1, standard error 0.1 / 2
    gap, se = chain([0.1, 0.5, 0.9, 0.3]).worse_than(chain([0.1, 0.5, 0.9, 0.1]))
    assert gap == pytest.approx(0.05) and se == pytest.approx(0.05)
    # with the model's own code: the mean of the two kinds' gaps, their errors combined as the criterion
    gap, se = chain([0.1, 0.5, 0.9, 0.3], [0.4, 0.4]).worse_than(chain([0.1, 0.5, 0.9, 0.1], [0.2, 0.4]))
    assert gap == pytest.approx((0.05 + 0.1) / 2) and se == pytest.approx((0.05**2 + 0.1**2) ** 0.5 / 2)


def test_pairs_that_no_example_decides_are_a_kind_judged_apart():
    """A chain is judged by the mean of its kinds' log-losses: pairs that no docstring example
    decides weigh as much as the many the examples decide, however few they are."""
    from qualm.fitting.chain import ChainValidation, CrossValidation, choose_chain, describe_functions

    def cv(losses):
        return CrossValidation(("x",), sum(losses) / len(losses), None, 0.0, 0.0, 0.1, tuple(losses))

    three = ChainValidation((("x",),), cv([0.1, 0.3]), cv([0.2, 0.2]), cv([0.9, 0.7]))
    assert three.logloss == pytest.approx((0.2 + 0.2 + 0.8) / 3)
    assert three.logloss_se == pytest.approx((3 * 0.1**2) ** 0.5 / 3)
    gap, _ = three.worse_than(ChainValidation((("x",),), cv([0.1, 0.3]), cv([0.2, 0.2]), cv([0.3, 0.1])))
    assert gap == pytest.approx((0 + 0 + 0.6) / 3)
    # the examples decide the ordinary pairs (a wrong function fails them); the undecided pairs'
    # wrong functions pass them, and only the surprisal tells
    decided = [
        Example(f"HumanEval/{i}", {"examples_failed": f, "lexical.all.blended_surprisal": s}, passed)
        for i, (f, s, passed) in enumerate([(0.0, 9.0, True), (0.0, 11.0, True), (1.0, 10.0, False), (1.0, 12.0, False)] * 6)
    ]
    undecided = [
        Example(f"MBPP/{600 + i}", {"examples_failed": 0.0, "lexical.all.blended_surprisal": s}, passed, undecided=True)
        for i, (s, passed) in enumerate([(8.0, True), (9.0, True), (15.0, False), (16.0, False)] * 4)
    ]
    assert {e.kind for e in decided + undecided} == {"pairs", "undecided"}
    candidates = [(("examples_failed",),), (("examples_failed", "lexical.all.blended_surprisal"),)]
    levels, scored = choose_chain([*decided, *undecided], candidates)
    assert all(c.undecided is not None and len(c.undecided.losses) == len(undecided) for c in scored)
    assert levels == candidates[1]  # the examples alone cannot tell the undecided pairs apart
    assert "16 of pairs that no docstring example decides" in describe_functions([*decided, *undecided], "tune")


def test_a_fit_that_serves_few_functions_is_kept_when_it_helps_them():
    """The docstring's examples serve a few functions: against the noise of every function's loss
    their gain is inside one standard error, against the paired difference it is not."""
    import random

    from qualm.fitting.chain import choose_chain

    rng = random.Random(0)
    examples = []
    for i in range(200):
        passed = i % 2 == 0
        noise = rng.random()  # a signal that says nothing
        right = rng.random() < 0.7  # a signal every function has, right 70 % of the time
        signals = {
            "functional": noise,
            "lexical.all.blended_surprisal": float(passed != right),
            "examples_failed": float(not passed) if i < 10 else None,  # 10 functions have examples, and they tell
        }
        examples.append(Example(f"HumanEval/{i}", signals, passed))
    simple = (("lexical.all.blended_surprisal",),)
    with_examples = (("examples_failed", "lexical.all.blended_surprisal"), ("lexical.all.blended_surprisal",))
    levels, scored = choose_chain(examples, [simple, with_examples])
    by = {cv.levels: cv for cv in scored}
    lowest = by[with_examples]
    assert lowest.logloss < by[simple].logloss
    # the unpaired rule would have kept the simpler chain: its mean is within the lowest's error
    assert by[simple].logloss <= lowest.logloss + lowest.logloss_se
    gap, se = by[simple].worse_than(lowest)
    assert gap > se and levels == with_examples


def test_the_bootstrap_interval_of_a_pair_auroc_by_hand():
    from qualm.fitting.validation import pairs_auroc_interval

    # every wrong function doubted more than every right one: AUROC 1 in any draw of the pairs
    apart = [(0.1 * i, 1 + 0.1 * i) for i in range(6)]
    ci = pairs_auroc_interval(apart, resamples=200)
    assert (ci.low, ci.high, ci.se) == pytest.approx((1.0, 1.0, 0.0), abs=1e-12)
    # the same scores against themselves: the paired difference is 0 in every draw
    same = pairs_auroc_interval(apart, against=apart, resamples=200)
    assert (same.low, same.high) == pytest.approx((0.0, 0.0), abs=1e-12)
    # each wrong function is 0.1 above its own right one, so it outranks the right ones of its own
    # pair and of the pairs below it: over 4 distinct pairs 10 of 16 comparisons, the fewest any
    # draw gives (a pair drawn twice adds its own comparisons, which it wins)
    mixed = [(0.2, 0.3), (0.0, 0.1), (0.6, 0.7), (0.4, 0.5)]
    ci = pairs_auroc_interval(mixed, resamples=500)
    assert ci.low == pytest.approx(10 / 16) and 10 / 16 < ci.high <= 1.0 and ci.se > 0
    with pytest.raises(ValueError, match="the same pairs"):
        pairs_auroc_interval(mixed, against=mixed[:3])
    assert pairs_auroc_interval(mixed[:1]) is None  # one pair: nothing to resample


def test_pair_doubts_takes_examples_of_order_and_refuses_another():
    from qualm.fitting.validation import pair_doubts

    right, wrong = Example("HumanEval/1", {}, True), Example("HumanEval/1", {}, False)
    other = Example("HumanEval/2", {}, False)
    assert pair_doubts([right, wrong, right, wrong], [0.1, 0.9, None, 0.5]) == [(0.1, 0.9)]
    for bad in ([wrong, right], [right, other], [right]):
        with pytest.raises(ValueError, match="not right/wrong pairs"):
            pair_doubts(bad, [0.1] * len(bad))


def test_the_repair_s_signals_count_only_for_code_that_departs_from_the_model():
    # the least likely token at 1 - 0.99 (4.6 nats, over DEPARTURE_NATS) or 1 - 0.9 (2.3 nats, under)
    far = with_derived({"lexical.all.max_probability": 0.99, "fix_gain": 0.25, "suspect_unexpected": 6.0})
    near = with_derived({"lexical.all.max_probability": 0.9, "fix_gain": 0.25, "suspect_unexpected": 6.0})
    assert (far["departure_fix_gain"], far["departure_suspect"]) == (0.25, 6.0)
    assert (near["departure_fix_gain"], near["departure_suspect"]) == (None, None)
    assert with_derived({"lexical.all.max_probability": 0.99})["departure_fix_gain"] is None  # no check ran


def test_a_chain_gets_a_copy_with_more_signals_before_the_fits_it_picks():
    from qualm.fitting.chain import _before

    chain = (("a", "b"), ("a",), ("c",))
    assert _before(chain, lambda level: "a" in level, ("x",)) == (("a", "b", "x"), ("a", "b"), ("a", "x"), ("a",), ("c",))
    assert _before(chain, lambda level: False, ("x",)) == chain


def test_the_consistent_solutions_signals_count_only_where_the_examples_do_not_decide():
    from qualm.chance import with_derived

    base = {"consistent_weighted": 0.2, "consistent_differential": 0.5}
    passes = with_derived({**base, "examples_failed": 0.0})
    none = with_derived(base)
    fails = with_derived({**base, "examples_failed": 0.5})
    assert (passes["undecided_weighted"], passes["undecided_differential"]) == (0.2, 0.5)
    assert (none["undecided_weighted"], none["undecided_differential"]) == (0.2, 0.5)
    assert (fails["undecided_weighted"], fails["undecided_differential"]) == (None, None)
