"""Which part of Python source a token belongs to: code, comment or docstring.

Uses the standard ``tokenize`` module, which keeps working on code that does not parse as a
whole (a truncated generation): everything up to a tokenizer error is classified, the rest is
treated as code.
"""

from __future__ import annotations

import io
import tokenize

from ...trace import Scope

_HEADER_KEYWORDS = {"def", "class", "async"}


def scope_spans(source: str) -> list[tuple[int, int, Scope]]:
    """Character spans of comments and docstrings in ``source``, in order."""
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def offset(row: int, col: int) -> int:
        return line_starts[min(row - 1, len(line_starts) - 1)] + col

    spans: list[tuple[int, int, Scope]] = []
    previous_line: list[tokenize.TokenInfo] = []  # the last complete logical line
    current: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                spans.append((offset(*tok.start), offset(*tok.end), "comment"))
                continue
            if tok.type in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
                continue
            if tok.type == tokenize.NEWLINE or tok.type == tokenize.ENDMARKER:
                if current:
                    previous_line = current
                current = []
                continue
            if not current and tok.type == tokenize.STRING and _opens_docstring(previous_line):
                spans.append((offset(*tok.start), offset(*tok.end), "docstring"))
            current.append(tok)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return sorted(spans)


def _opens_docstring(previous_line: list[tokenize.TokenInfo]) -> bool:
    """A string starting a logical line is a docstring at module start or right after a def/class header."""
    if not previous_line:
        return True
    first = previous_line[0].string
    return first in _HEADER_KEYWORDS and previous_line[-1].string == ":"
