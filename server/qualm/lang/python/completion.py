"""From a document and a cursor to the model's prompt for an in-editor completion.

The paper's code prompt gets the enclosing function's signature and docstring with the file's
imports as the problem; the model's reply is pre-filled with the imports and the function's code
up to the cursor, so what it writes next is exactly the continuation at the cursor. Works on code
that does not parse (the user is typing): everything here is line-based.
"""

from __future__ import annotations

import re
import textwrap

from ... import prompts
from ..base import CompletionContext

_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)")
_IMPORT = re.compile(r"^(?:import|from)[ \t]+\S")
_CONTEXT_LINES = 60  # outside any function: this many lines before the cursor
DISPLAY_NAME, FENCE = "Python", "python"  # the words of the paper's prompt for this language


def completion_context(text: str, offset: int) -> CompletionContext:
    lines = text[:offset].split("\n")
    imports = "".join(line + "\n" for line in text.split("\n") if _IMPORT.match(line))
    def_index = _enclosing_def(lines)
    if def_index is None:
        written = "\n".join(lines[-_CONTEXT_LINES:])
        kept, heal = _split_trailing_space(written)
        return CompletionContext(_prompt(imports + written, imports, kept), None, "", written, heal)
    m = _DEF.match(lines[def_index])
    assert m is not None
    indent = m.group("indent")
    written = _dedent("\n".join(lines[def_index:]), indent)
    problem = (imports + "\n" if imports else "") + _header(written)
    kept, heal = _split_trailing_space(written)
    return CompletionContext(_prompt(problem, imports, kept), m.group("name"), indent, written, heal)


def _split_trailing_space(written: str) -> tuple[str, str]:
    """The text without the spaces and tabs that end it (not line breaks), and those."""
    kept = written.rstrip(" \t")
    return kept, written[len(kept) :]


def _enclosing_def(lines: list[str]) -> int | None:
    """Index of the def whose signature or body holds the cursor (on the last line), if any."""
    if _DEF.match(lines[-1]):
        return len(lines) - 1
    limit = _indent_width(lines[-1])
    for i in range(len(lines) - 2, -1, -1):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        width = _indent_width(line)
        if width >= limit:
            continue
        if _DEF.match(line):
            return i
        if width == 0:
            return None  # top-level code or a class body: not inside a function
        limit = width
    return None


def _prompt(problem: str, imports: str, written: str) -> prompts.ChatPrompt:
    base = prompts.code_generation(problem, DISPLAY_NAME, FENCE)
    # The reply starts like a complete answer would: the imports, then the code so far.
    prefix = "" if not imports or written.startswith(imports) else imports + "\n"
    return prompts.ChatPrompt(
        user=base.user,
        assistant_prefix=base.assistant_prefix + prefix + written,
        stop=base.stop,
        name="completion",
    )


def _indent_width(line: str) -> int:
    """Width of the leading whitespace (a blank line's whole width: the cursor's column)."""
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def _dedent(body: str, indent: str) -> str:
    if not indent:
        return body
    out = []
    for line in body.split("\n"):
        out.append(line[len(indent) :] if line.startswith(indent) else line)
    return "\n".join(out)


def _header(written: str) -> str:
    """The signature and, if it is there complete, the docstring of a (dedented) function text."""
    lines = written.split("\n")
    depth = 0
    end = len(lines)
    for i, line in enumerate(lines):
        depth += line.count("(") + line.count("[") - line.count(")") - line.count("]")
        if depth <= 0 and line.rstrip().endswith(":"):
            end = i + 1
            break
    header = lines[:end]
    rest = "\n".join(lines[end:])
    doc = re.match(r'^(\s*)("""|\'\'\')(.*?)\2', rest, re.DOTALL)
    if doc:
        header += rest[: doc.end()].split("\n")
    return textwrap.dedent("\n".join(header)).rstrip() + "\n"
