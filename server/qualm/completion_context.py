"""From a document and a cursor to the model's prompt for an in-editor completion.

The paper's code prompt gets the enclosing function's signature and docstring with the file's
imports as the problem; the model's reply is pre-filled with the imports and the function's code
up to the cursor, so what it writes next is exactly the continuation at the cursor. Works on code
that does not parse (the user is typing): everything here is line-based.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from . import prompts

_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)")
_IMPORT = re.compile(r"^(?:import|from)[ \t]+\S")
_CONTEXT_LINES = 60  # outside any function: this many lines before the cursor


@dataclass(frozen=True)
class CompletionContext:
    prompt: prompts.ChatPrompt
    function: str | None  # the enclosing function's name, if any
    indent: str  # the function's own indentation, removed in the prompt; put back on insertion
    written: str  # the code before the cursor (dedented)
    # Whitespace right before the cursor, left out of the prompt: a prompt that ends in spaces makes
    # the model start with an odd token (" #" after four spaces instead of "    #"). The model writes
    # it again and the completion drops it (see PrefixTrimmer).
    heal: str = ""


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
    base = prompts.code_generation(problem)
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


class PrefixTrimmer:
    """Drops the healed whitespace (:attr:`CompletionContext.heal`) from the start of the stream, as far
    as the model wrote it again; the document already has it before the cursor."""

    def __init__(self, prefix: str) -> None:
        self.rest = prefix

    def feed(self, text: str) -> str:
        if not self.rest:
            return text
        n = 0
        while n < len(text) and n < len(self.rest) and text[n] == self.rest[n]:
            n += 1
        # Either the whole token was prefix (more may follow), or the prefix is used up, or the model
        # went another way: in the last two cases trimming stops here.
        self.rest = self.rest[n:] if n == len(text) else ""
        return text[n:]


class Reindenter:
    """Puts the function's indentation back on each line the model starts, token by token.

    The model writes a dedented function; a method's completion must be indented again. Fed the
    tokens in order, it indents the first character of every line after a line break (blank lines
    stay blank, with no trailing whitespace), so a streamed prefix and the final text agree.
    """

    def __init__(self, indent: str) -> None:
        self.indent = indent
        self._at_line_start = False

    def feed(self, text: str) -> str:
        if not self.indent:
            return text
        out: list[str] = []
        for ch in text:
            if ch == "\n":
                self._at_line_start = True
            elif self._at_line_start:
                out.append(self.indent)
                self._at_line_start = False
            out.append(ch)
        return "".join(out)


def reindent(continuation: str, indent: str) -> str:
    """The whole continuation re-indented at once (the first line continues the cursor's line)."""
    return Reindenter(indent).feed(continuation)
