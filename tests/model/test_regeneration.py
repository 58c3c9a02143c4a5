"""Regenerating from a marked token with the real model: the chosen alternative is forced and the
rest is what the model writes after it (the same as a completion of the document with that token
typed in), the forced token keeps the marked token's distribution, nothing outside the rewritten
run changes, and "regenerate from here" samples reproducibly under a seed."""

from __future__ import annotations

import pytest

from qualm import engine
from qualm.engine import Document
from qualm.engine.regeneration import choices, regenerate, rewrite_end, run_end
from qualm.settings import Settings

pytestmark = pytest.mark.model

STUB = 'def largest_gap(values: list[int]) -> int:\n    """Return the largest difference between two neighbouring values."""\n    '
TAIL = "\n\ndef unrelated():\n    return 1\n"
# the paper's prompt, as a rewrite from a token uses: the completion and its rewrites share it
SETTINGS = Settings.from_mapping({"editor": {"completion_max_tokens": 48, "completion_prompt": "chat"}})


@pytest.fixture(scope="module")
def written(backend):
    """The document with the model's greedy body accepted, and that completion."""
    doc = Document(STUB + TAIL)
    done = engine.complete(backend, doc, len(STUB), SETTINGS)
    return Document(STUB + done.text + TAIL), done


def _forking_token(completion):
    """The most uncertain token with an alternative that has no trailing whitespace (see below)."""
    ranked = sorted(completion.tokens, key=lambda t: -t.entropy)
    for t in ranked:
        alts = [a for a in choices(t, 0.02) if a.text == a.text.rstrip() and a.text.strip()]
        if alts:
            return t, alts[0]
    pytest.skip("no token with a usable alternative in this completion")


def test_a_forced_alternative_continues_as_a_completion_after_it_would(backend, written):
    doc, done = written
    token, alt = _forking_token(done)
    spans = [(t.start, t.end) for t in done.tokens if t.text.strip()]
    end = run_end(spans, spans.index((token.start, token.end)), doc.text)
    assert end == len(STUB) + len(done.text.rstrip())  # the rest of the completion, not the next function
    assert rewrite_end(doc, token, end) == end  # the completion is the function's whole body
    seen = []
    result = regenerate(backend, doc, token, end, SETTINGS, choice=alt, on_token=seen.append)
    first = result.completion.tokens[0]
    assert first.text == alt.text and first.prob == pytest.approx(alt.prob) and first.entropy == pytest.approx(token.entropy)
    assert result.replaced == doc.text[token.start : end] and result.text.startswith(alt.text)
    assert "".join(t.text for t in seen).startswith(result.text[: len(seen[0].text)])
    # The same as a completion of the document with the alternative typed in at the token, up to
    # rounding: the rewrite reuses the cached prompt (GenerationOptions.reuse_cache), whose numbers
    # differ from a fresh run's in the last digits, so the two may part only at a near tie.
    typed = doc.text[: token.start] + alt.text
    again = engine.complete(backend, Document(typed + doc.text[end:]), len(typed), SETTINGS)
    ours, fresh = result.completion.tokens[1:], again.tokens
    parted = next((i for i, (a, b) in enumerate(zip(ours, fresh)) if a.text != b.text), None)
    if parted is None:
        assert result.text == alt.text + again.text
    else:
        at = fresh[parted]
        runner_up = next(a.prob for a in at.alternatives if a.text.strip() == ours[parted].text.strip())
        assert at.prob - runner_up < 0.1, (parted, at.text, at.prob, ours[parted].text, runner_up)
    for a, b in zip(ours[:parted], fresh[:parted]):
        assert abs(a.entropy - b.entropy) < 0.1  # as chunked scoring: batch shapes, up to a tenth of a nat
    # the rewrite covers exactly the run: applying it leaves the following function as it was
    rewritten = doc.text[: result.start] + result.text + doc.text[result.end :]
    assert rewritten.endswith(TAIL) and rewritten.startswith(STUB)


def test_regenerate_from_here_samples_reproducibly_under_a_seed(backend, written):
    doc, done = written
    token, _ = _forking_token(done)
    end = token.end + 40
    a = regenerate(backend, doc, token, min(end, len(doc.text) - len(TAIL)), SETTINGS, seed=7)
    b = regenerate(backend, doc, token, min(end, len(doc.text) - len(TAIL)), SETTINGS, seed=7)
    assert a.text == b.text and a.choice is None and a.completion.tokens


def test_an_alternative_after_healed_whitespace_keeps_the_line_s_indentation(backend, written):
    # The completion began after the stub's four spaces: the model wrote its first token with a space
    # the document already had (healed). Its alternatives start where the model's token started.
    doc, done = written
    first = next(t for t in done.tokens if t.text.strip())
    if not first.trimmed:
        pytest.skip("the model's first token carried no healed whitespace this time")
    lead = len(first.trimmed) + len(first.text) - len(first.text.lstrip())  # the model's token's own leading spaces
    alts = [a for a in first.alternatives if a.text.strip() and a.text != first.trimmed + first.text and len(a.text) - len(a.text.lstrip()) == lead]
    if not alts:
        pytest.skip("no alternative with the same leading whitespace")
    line_start = doc.text.rfind("\n", 0, first.start) + 1
    indent = len(doc.text[line_start:first.start])
    result = regenerate(backend, doc, first, first.end, SETTINGS, choice=alts[0])
    assert result.start == first.start - len(first.trimmed)
    rewritten = doc.text[: result.start] + result.text + doc.text[result.end :]
    new_line = rewritten[line_start:].split("\n")[0]
    assert len(new_line) - len(new_line.lstrip()) == indent, repr(new_line)
