"""From a JavaScript or TypeScript document and a cursor to the model's prompt for a completion.

As for Python: the enclosing function's JSDoc and signature with the file's imports are the
problem, and the reply is pre-filled with the imports and the function's code up to the cursor.
The enclosing function is found in the whole document's tree: tree-sitter recovers from a local
error, and an editor closes the braces the user opens, so the function around the cursor usually
parses. Else in the tree of the text before the cursor, where a function still being written ends
in a missing ``}``. Where neither finds one (top-level code, or a tree the recovery tore apart),
the context is the lines before the cursor, as outside a Python function.
"""

from __future__ import annotations

import re

from ... import prompts
from ..base import CompletionContext
from .source import FoundFunction, find_functions, first_line_node, header_end, jsdoc_above, line_start
from .syntax import Dialect, Parsed, module_imports, parse

_INDENT = re.compile(r"[ \t]*")
_CONTEXT_LINES = 60  # outside any function: this many lines before the cursor


def completion_context(text: str, offset: int, *, dialect: Dialect, display_name: str, fence: str) -> CompletionContext:
    parsed = parse(text, dialect)
    imports = module_imports(parsed)
    found = _enclosing(parsed, offset, open_only=False)
    if found is None:
        parsed = parse(text[:offset], dialect)
        found = _enclosing(parsed, offset, open_only=True)
    if found is None:
        written = "\n".join(text[:offset].split("\n")[-_CONTEXT_LINES:])
        kept, heal = _split_trailing_space(written)
        return CompletionContext(_prompt(imports + written, imports, kept, display_name, fence), None, "", written, heal)
    start = line_start(text, parsed.start(first_line_node(found.statement)))
    indent = _INDENT.match(text, start).group()  # type: ignore[union-attr]  # [ \t]* always matches
    written = _strip_indent(text[start:offset], indent)
    doc = jsdoc_above(parsed, found.statement)
    header_from = line_start(text, parsed.start(doc)) if doc is not None else start
    header = _strip_indent(text[header_from : min(offset, header_end(parsed, found.function))], indent)
    problem = (imports + "\n" if imports else "") + header.rstrip() + "\n"
    kept, heal = _split_trailing_space(written)
    return CompletionContext(_prompt(problem, imports, kept, display_name, fence), found.name, indent, written, heal)


def _enclosing(parsed: Parsed, offset: int, open_only: bool) -> FoundFunction | None:
    """The innermost function whose signature or body holds the cursor (before its closing brace);
    ``open_only``: in the text before the cursor, one whose body's ``}`` is missing there."""
    inside = None
    for found in find_functions(parsed):
        body = found.function.child_by_field_name("body")
        assert body is not None
        end = parsed.end(body)
        closed = body.type == "statement_block" and body.children and body.children[-1].type == "}" and not body.children[-1].is_missing
        if open_only:
            holds = body.type == "statement_block" and not closed and not parsed.text[end:offset].strip()
        else:
            holds = parsed.start(found.statement) < offset <= (end - 1 if closed else end)
        if holds:
            inside = found  # functions come outer before inner: the last one holding the cursor is innermost
    return inside


def _strip_indent(text: str, indent: str) -> str:
    """Each line without the function's own indentation (the cursor's blank line keeps the rest)."""
    if not indent:
        return text
    return "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in text.split("\n"))


def _split_trailing_space(written: str) -> tuple[str, str]:
    """The text without the spaces and tabs that end it (not line breaks), and those."""
    kept = written.rstrip(" \t")
    return kept, written[len(kept) :]


def _prompt(problem: str, imports: str, written: str, display_name: str, fence: str) -> prompts.ChatPrompt:
    base = prompts.code_generation(problem, display_name, fence)
    # The reply starts like a complete answer would: the imports, then the code so far.
    prefix = "" if not imports or written.startswith(imports) else imports + "\n"
    return prompts.ChatPrompt(user=base.user, assistant_prefix=base.assistant_prefix + prefix + written, stop=base.stop, name="completion")
