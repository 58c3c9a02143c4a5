"""How much of a batch's different prompts is evaluated once (``llama_cpp_backend.shared_prefix``)."""

from __future__ import annotations

from qualm.model.llama_cpp_backend import SHARED_PREFIX_MIN, shared_prefix


def test_the_common_opening_of_different_prompts_when_long_enough():
    opening = list(range(100))
    assert shared_prefix([opening + [1, 2], opening + [3], opening + [1, 4, 5]]) == 100
    # shorter than the least worth sharing: every prompt is evaluated whole, as before
    assert shared_prefix([opening[:10] + [1], opening[:10] + [2]]) == 0
    assert shared_prefix([opening[:10] + [1], opening[:10] + [2]], least=5) == 10
    assert SHARED_PREFIX_MIN > 30  # the plans' and the tests' prompts share about 25 tokens


def test_each_prompt_keeps_a_token_of_its_own_and_one_prompt_shares_nothing():
    opening = list(range(100))
    # a prompt that is the opening of another keeps its last token: its logits start its sample
    assert shared_prefix([opening, opening + [7, 8]]) == 99
    assert shared_prefix([opening]) == 0
    assert shared_prefix([[1] + opening, [2] + opening]) == 0
