"""The constraint that keeps a completion's healed indentation (qualm.model.lead), on a small
vocabulary written out here; tests/model/test_lead_model.py runs it in the real model."""

from __future__ import annotations

import numpy as np
import pytest

from qualm.model.lead import LeadIndex, constrained

PIECES = [b"a", b" ", b"  ", b"    ", b"\t", b"  x", b"    return", b"      y", b"\n", b" \n", b"<end>", b"\tpass", b"     "]
END = PIECES.index(b"<end>")


@pytest.fixture(scope="module")
def index() -> LeadIndex:
    return LeadIndex.of(PIECES, [END])


def allowed(index: LeadIndex, lead: bytes, written: bytes) -> set[bytes] | None:
    mask = index.allowed(lead, written)
    return None if mask is None else {PIECES[i] for i in np.flatnonzero(mask)}


def test_the_first_token_is_a_start_of_the_indentation_or_ends_it_and_goes_on(index):
    # not "  x" (too little indentation: the block was closed), not "      y" or five spaces (too
    # much), and not all four spaces alone: the tokenizer writes "    x" as "   " + " x"
    assert allowed(index, b"    ", b"") == {b" ", b"  ", b"    return", b"<end>"}


def test_after_part_of_it_the_rest_of_it(index):
    assert allowed(index, b"    ", b"  ") == {b" ", b"  x", b"<end>"}


def test_the_last_space_goes_with_the_word(index):
    assert allowed(index, b"  ", b"") == {b" ", b"  x", b"<end>"}


def test_a_whole_indentation_is_written_then_what_follows(index):
    # only where a token of all of it was chosen (a tab: tabs are not joined to the word)
    assert allowed(index, b"    ", b"    ") == {b"a", b"\n", b"<end>"}


def test_a_line_ending_right_after_the_indentation_is_allowed(index):
    # " \n": the indentation then the line's end (a blank first line); the stop rules judge what follows
    assert b" \n" in allowed(index, b" ", b"")


def test_tabs_are_kept_as_tabs(index):
    assert allowed(index, b"\t", b"") == {b"\t", b"\tpass", b"<end>"}
    assert allowed(index, b"\t", b"\t") == {b"a", b"\n", b"<end>"}


@pytest.mark.parametrize("written", [b"    r", b"  y", b"x"])
def test_nothing_is_constrained_once_past_the_indentation_or_off_it(index, written):
    assert index.allowed(b"    ", written) is None


def test_no_lead_constrains_nothing(index):
    assert index.allowed(b"", b"") is None


def test_constrained_logits_make_the_rest_impossible():
    logits = np.arange(4, dtype=np.float32)
    mask = np.array([True, False, True, False])
    out = constrained(logits, mask)
    assert out.dtype == np.float32
    assert out[0] == 0 and out[2] == 2
    assert np.isneginf(out[1]) and np.isneginf(out[3])
    assert logits[3] == 3  # a copy: the model's own buffer is untouched
    assert constrained(logits, None) is logits
