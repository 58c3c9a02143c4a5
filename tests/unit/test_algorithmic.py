import pytest

from qualm.signals.algorithmic import StepRouge, algorithmic_uncertainty, split_steps

PLAN_A = """1. Examine each number in the list.
2. Keep track of the largest value seen so far.
3. Compare each value with the largest one.
4. Return the largest value at the end."""

PLAN_B_REORDERED = """1. Compare each value with the largest one.
2. Return the largest value at the end.
3. Examine each number in the list.
4. Keep track of the largest value seen so far."""

PLAN_DISJOINT = """1. Sort characters alphabetically.
2. Join them into words."""


def test_split_steps_handles_numbering_styles_and_continuations():
    text = "Solution plan:\n1. First do X\n   and also Y.\n2) Then check Z\nStep 3: finally return W\n**4.** Done"
    assert split_steps(text) == ["First do X and also Y.", "Then check Z", "finally return W", "Done"]
    assert split_steps("Just one paragraph without numbers.\nAnd another line.") == ["Just one paragraph without numbers.", "And another line."]
    assert split_steps("") == []


def test_identical_plans_give_zero():
    r = algorithmic_uncertainty([PLAN_A] * 4)
    assert r.uncertainty == pytest.approx(0.0, abs=1e-12)
    assert len(r.pairwise) == 6


def test_plans_with_no_words_in_common_give_one():
    r = algorithmic_uncertainty([PLAN_A, PLAN_DISJOINT])
    assert r.uncertainty == pytest.approx(1.0)


def test_the_same_steps_in_another_order_are_similar():
    rouge = StepRouge()
    assert rouge.plans(split_steps(PLAN_A), split_steps(PLAN_B_REORDERED)) == pytest.approx(1.0)
    # whereas plain ROUGE-L over the whole text punishes the reordering
    whole = rouge.step(PLAN_A, PLAN_B_REORDERED)
    assert whole < 0.8


def test_similarity_is_symmetric_and_bounded():
    rouge = StepRouge()
    a = split_steps(PLAN_A)
    b = split_steps("1. Look at every number.\n2. Remember the biggest.\n3. Give it back.")
    assert rouge.plans(a, b) == pytest.approx(rouge.plans(b, a))
    assert 0.0 < rouge.plans(a, b) < 1.0


def test_formula_by_hand():
    # A = (a1, a2), B = (b1): RL(a1,b1) = 1, RL(a2,b1) = 0 -> forward 1, backward 1, sim = 2 * 1 / 3
    rouge = StepRouge()
    sim = rouge.plans(["keep the largest", "zebra quartz"], ["keep the largest"])
    assert sim == pytest.approx(2 * 1.0 / 3)


def test_too_few_usable_plans_is_unavailable():
    r = algorithmic_uncertainty([PLAN_A, "", "   \n"])
    assert r.uncertainty is None and r.plans_used == 1
    assert algorithmic_uncertainty([]).uncertainty is None


def test_step_rouge_gives_rouge_score_s_own_numbers():
    # StepRouge takes the LCS from rapidfuzz for speed; the F-measure must stay rouge-score's exactly,
    # on plan-like text (punctuation, case, code names, repeated words) and on random word strings
    # where the LCS is long and ambiguous.
    import random

    from rouge_score import rouge_scorer

    reference = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    rouge = StepRouge()
    texts = [
        "Initialize an empty list `result` to store the numbers.",
        "Iterate over each number in the list `numbers`; if it is not in `result`, append it.",
        "Return `result` (the list of unique numbers, in order).",
        "Return the result: the numbers, each one once, in the order of the list.",
        "", "!!!", "x", "x x x x", "Step 2: sort the list in place and return it",
    ]
    rng = random.Random(7)
    words = "the list number sort return each if it a of".split()
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(1, 40))) for _ in range(60)]
    for a in texts:
        for b in texts:
            assert rouge.step(a, b) == reference.score(a, b)["rougeL"].fmeasure, (a, b)


def test_the_candidate_plan_is_measured_against_the_sampled_plans():
    from qualm.signals.algorithmic import candidate_distance

    plans = ["1. Sort the numbers.\n2. Return the first one.", "1. Sort the numbers.\n2. Take the first one and return it."]
    same = candidate_distance("1. Sort the numbers.\n2. Return the first one.", plans)
    other = candidate_distance("1. Reverse text.\n2. Count vowels.", plans)  # no word in common
    assert same.distance is not None and other.distance is not None
    assert same.distance < other.distance and other.distance == pytest.approx(1.0)
    assert len(same.similarities) == 2 and same.similarities[0] == pytest.approx(1.0)
    rouge = StepRouge()
    assert same.similarities[1] == pytest.approx(rouge.plans(split_steps(plans[0]), split_steps(plans[1])))
    assert candidate_distance("no steps here at all", []).distance is None
    assert candidate_distance("", plans).distance is None
