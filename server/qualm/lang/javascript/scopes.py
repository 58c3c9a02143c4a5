"""Which part of JavaScript or TypeScript source a token belongs to: code, comment or docstring.

The grammar's own ``comment`` nodes (tree-sitter keeps lexing comments inside the parts it could
not parse, so a truncated generation still gets its comments): a ``/** … */`` JSDoc comment is
JavaScript's docstring, every other comment (``//``, ``/* … */``, a ``#!`` line) a comment.
Strings are code, as Python's strings other than docstrings are.
"""

from __future__ import annotations

from ...trace import Scope
from .syntax import Dialect, parse, walk

_COMMENTS = frozenset({"comment", "hash_bang_line"})


def scope_spans(source: str, *, dialect: Dialect) -> list[tuple[int, int, Scope]]:
    """Character spans of comments and JSDoc comments in ``source``, in order."""
    parsed = parse(source, dialect)
    spans: list[tuple[int, int, Scope]] = []
    for node in walk(parsed.root):
        if node.type in _COMMENTS:
            text = parsed.text_of(node)
            scope: Scope = "docstring" if text.startswith("/**") and text != "/**/" else "comment"
            spans.append((parsed.start(node), parsed.end(node), scope))
    return sorted(spans)
