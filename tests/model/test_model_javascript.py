"""The real default model scoring JavaScript and TypeScript functions (teacher forcing), through the
language seam: the tokens rebuild the function, comments carry the comment scope, and the body's
scores are finite. Kept small: two functions of a few lines."""

from __future__ import annotations

import math

import pytest

from qualm.engine import Document, score_document
from qualm.lang import JAVASCRIPT, TYPESCRIPT

pytestmark = pytest.mark.model

JS = """/** The largest of a list of numbers. */
function largest(xs) {
  // start from the first
  let best = xs[0];
  for (const x of xs) if (x > best) best = x;
  return best;
}
"""

TS = """export const mean = (xs: number[]): number => {
  /* an empty list has no mean */
  if (xs.length === 0) return NaN;
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
"""


@pytest.mark.parametrize(("text", "language", "name"), [(JS, JAVASCRIPT, "largest"), (TS, TYPESCRIPT, "mean")])
def test_scoring_a_function(backend, settings, text, language, name):
    result = score_document(backend, Document(text, f"x{language.file_suffixes[0]}", language), settings)
    (fn,) = result.functions
    assert fn.function == name
    trace = fn.trace
    assert "".join(t.text for t in trace.tokens) == trace.text == language.find_function(text, name).source
    assert all(math.isfinite(t.entropy) and 0 <= t.entropy <= math.log(backend.info.vocab_size) + 1e-6 for t in trace.tokens)
    comment = next(t for t in trace.tokens if "empty" in t.text or "first" in t.text)
    assert comment.scope == "comment"
    assert any(t.scope == "code" and "return" in t.text for t in trace.tokens)
    # the body's scores: all tokens, code and comment each measured
    assert fn.lexical.all.n_tokens > 10 and fn.lexical.comment.n_tokens > 0 and fn.lexical.code.n_tokens > 0
    assert math.isfinite(fn.lexical.all.top_k_entropy)
    # placed in the document: every mark describes the text under it
    assert result.tokens and all(text[t.start : t.end] == t.text for t in result.tokens)
