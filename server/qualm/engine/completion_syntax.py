"""What the syntax around a cursor says about where a completion there may end, and whether a text parses.

``qualm.engine.completion_end`` asks this module three things, all from tree-sitter's grammars
(error tolerant, so a file the user is still typing gets an answer too):

* :func:`cursor_block`: the block the cursor stands in. A completion inside a function never writes
  past that function's body (at the end of a method, the next method's indentation is the class
  body's, which column counts alone would allow); in a class body or at a module's top level it
  writes one definition at a time; the line above may be a decorator.
* :func:`bracket_depths`: how deep in brackets each line of a completion starts, strings and comments
  skipped, so that a ``}`` or ``)`` that closes what the completion itself opened is not taken for
  the code after the cursor, and an unclosed bracket is seen.
* :func:`syntax_errors`: how many ERROR and MISSING nodes a text has, so that a completion that would
  leave the file less parseable than it was can be trimmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_python

from ..lang.javascript.syntax import grammar as js_grammar
from ..lang.python.source import parses as python_parses

TAB_WIDTH = 4
PYTHON_DEFINITION = re.compile(r"(async\s+def|def|class)\b")
JS_DEFINITION = re.compile(r"(export\s+(default\s+)?)?(declare\s+)?(abstract\s+)?(async\s+)?(function\b|class\b|interface\b|type\s+\w+\s*=|enum\b|(const|let|var)\s+\w+\s*=\s*(async\s*)?(\(|function\b|\w+\s*=>))")
FUNCTION_NODES = frozenset(
    {
        "function_definition",  # Python
        "function_declaration", "generator_function_declaration", "function_expression", "function",
        "generator_function", "arrow_function", "method_definition",
    }
)
CLASS_NODES = frozenset({"class_definition", "class_body", "class_declaration", "abstract_class_declaration", "class"})
OPENERS, CLOSERS = "([{", ")]}"


def indent_width(line: str) -> int:
    expanded = line.expandtabs(TAB_WIDTH)
    return len(expanded) - len(expanded.lstrip(" "))


@cache
def _grammar(language: str) -> tree_sitter.Language | None:
    if language == "python":
        return tree_sitter.Language(tree_sitter_python.language())
    if language in ("javascript", "typescript", "tsx"):
        return js_grammar(language)  # type: ignore[arg-type]
    return None


def _parse(text: str, language: str) -> tree_sitter.Tree | None:
    grammar = _grammar(language)
    return None if grammar is None else tree_sitter.Parser(grammar).parse(text.encode("utf-8"))


def syntax_errors(text: str, language: str) -> int | None:
    """ERROR and MISSING nodes in ``text``'s parse (None: no grammar for the language), and for
    Python one more where Python's own parser refuses the text: tree-sitter's grammar does not check
    indentation (a body indented under nothing, a header with no body), which ``ast`` does."""
    tree = _parse(text, language)
    if tree is None:
        return None
    return _error_nodes(tree) + (1 if language == "python" and not python_parses(text) else 0)


def _error_nodes(tree: tree_sitter.Tree) -> int:
    count = 0
    cursor = tree.walk()
    visited_children = False
    while True:  # a walk without recursion: deep expressions would exceed Python's stack
        node = cursor.node
        if not visited_children:
            if node.is_error or node.is_missing:
                count += 1
            if node.has_error and cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
            continue
        if not cursor.goto_parent():
            return count
        visited_children = True


@dataclass(frozen=True)
class CursorBlock:
    """The block a cursor stands in, and what the syntax allows a completion there."""

    floor: int | None  # never write a line less indented than this (the enclosing function's or class's body); None: no such bound
    kind: str  # of the innermost block: "function", "class", "module", "statement", or "unknown" (no grammar)
    indent: int = 0  # the cursor's line's indentation
    decorator_above: bool = False  # the code line above the cursor is a decorator at the cursor's indentation (Python)

    @property
    def definitions(self) -> bool:
        """The block holds definitions (a class body, a module's top level): one at a time."""
        return self.kind in ("class", "module")


NO_BLOCK = CursorBlock(None, "unknown")


@dataclass(frozen=True)
class CursorSyntax:
    block: CursorBlock
    # character offsets of the whole top-level statements around the cursor (some lines either side):
    # where a completion's parse check looks, so that it parses a window, not a long file each time
    window: tuple[int, int]


WINDOW_LINES = (150, 60)  # lines before and after the cursor that the window's statements cover at least


def cursor_syntax(text: str, offset: int, language: str) -> CursorSyntax:
    """The block at ``offset`` and the window of the parse check, from one parse."""
    if _grammar(language) is None:
        return CursorSyntax(NO_BLOCK, (0, len(text)))
    tree = _parse(text, language)
    assert tree is not None
    return CursorSyntax(_block(text, offset, language, tree), _window(text, offset, tree))


def cursor_block(text: str, offset: int, language: str) -> CursorBlock:
    """The block at ``offset`` (see the module docstring); :data:`NO_BLOCK` where no grammar is known."""
    return cursor_syntax(text, offset, language).block


def _window(text: str, offset: int, tree: tree_sitter.Tree) -> tuple[int, int]:
    """From the first top-level statement that reaches the line ``WINDOW_LINES[0]`` above the cursor
    to the last that starts by the line ``WINDOW_LINES[1]`` below it (whole statements, so the window
    parses as the file does)."""
    row = text.count("\n", 0, offset)
    top, bottom = row - WINDOW_LINES[0], row + WINDOW_LINES[1]
    start_byte, end_byte = 0, None
    for node in tree.root_node.children:
        if node.end_point[0] < top:
            start_byte = node.end_byte
        elif node.start_point[0] > bottom and node.start_byte > len(text[:offset].encode("utf-8")):
            end_byte = node.start_byte
            break
    data = text.encode("utf-8")
    start = len(data[:start_byte].decode("utf-8", errors="ignore"))
    end = len(text) if end_byte is None else len(data[:end_byte].decode("utf-8", errors="ignore"))
    return min(start, offset), max(end, offset)


def _block(text: str, offset: int, language: str, tree: tree_sitter.Tree) -> CursorBlock:
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    cursor_indent = indent_width(before) if not before.strip() else indent_width(text[line_start : text.find("\n", offset) if "\n" in text[offset:] else len(text)])
    above = [line for line in text[:line_start].split("\n") if line.strip()]
    decorator_above = language == "python" and bool(above) and above[-1].lstrip().startswith("@") and indent_width(above[-1]) == cursor_indent
    if language == "python":
        return _python_block(text, offset, cursor_indent, tree, decorator_above)
    return _brace_block(text, offset, cursor_indent, tree)


def _python_block(text: str, offset: int, cursor_indent: int, tree: tree_sitter.Tree, decorator_above: bool) -> CursorBlock:
    """Python's blocks are its indentation: the cursor is in the body of the nearest enclosing
    compound statement whose body is indented no deeper than the cursor. Found from the last code
    before the cursor, since a blank line at a block's end belongs to no node."""
    anchor = len(text[:offset].rstrip())
    if anchor == 0:
        return CursorBlock(0, "module", cursor_indent)
    data = text[:anchor].encode("utf-8")
    node = tree.root_node.descendant_for_byte_range(len(data) - 1, len(data))
    innermost: str | None = None
    while node is not None:
        body = next((c for c in node.children if c.type == "block"), None) if node.type != "module" else None
        if body is not None:
            # an empty body is the cursor's own line: a header just written, its body to come
            body_indent = body.named_children[0].start_point[1] if body.named_child_count else cursor_indent
            if node.start_point[1] < body_indent <= cursor_indent:
                kind = "function" if node.type in FUNCTION_NODES else "class" if node.type in CLASS_NODES else "statement"
                innermost = innermost or kind
                if kind in ("function", "class"):
                    return CursorBlock(body_indent, innermost, cursor_indent, decorator_above)
        node = node.parent
    return CursorBlock(None, innermost or ("module" if cursor_indent == 0 else "statement"), cursor_indent, decorator_above)


def _brace_block(text: str, offset: int, cursor_indent: int, tree: tree_sitter.Tree) -> CursorBlock:
    """JavaScript and TypeScript: the nearest enclosing function body or class body by its braces;
    its statements' indentation is the floor (the cursor's own where the body is empty)."""
    at = len(text[:offset].encode("utf-8"))
    node = tree.root_node.descendant_for_byte_range(at, at)
    innermost: str | None = None
    while node is not None:
        if node.type in ("statement_block", "class_body") and node.start_byte < at < node.end_byte:
            owner = node.parent
            kind = "class" if node.type == "class_body" else "function" if owner is not None and owner.type in FUNCTION_NODES else "statement"
            innermost = innermost or kind
            if kind in ("function", "class"):
                inner = [c for c in node.named_children if c.type != "comment"]
                floor = min((c.start_point[1] for c in inner), default=cursor_indent)
                return CursorBlock(min(floor, cursor_indent) if cursor_indent else floor, innermost, cursor_indent)
        node = node.parent
    return CursorBlock(None, innermost or ("module" if cursor_indent == 0 else "statement"), cursor_indent)


def _code_events(text: str, language: str) -> Iterator[tuple[int, str]]:
    """The line breaks and brackets of ``text`` outside strings and comments, as (index, character);
    a line break inside a string or comment comes too (lines are counted the same)."""
    i, n = 0, len(text)
    python = language == "python"
    while i < n:
        ch = text[i]
        if ch == "\n" or ch in OPENERS or ch in CLOSERS:
            yield i, ch
        elif (python and ch == "#") or (not python and text.startswith("//", i)):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif not python and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            stop = n if end < 0 else end
            yield from ((k, "\n") for k in range(i, stop) if text[k] == "\n")
            i = n if end < 0 else end + 2
            continue
        elif ch in "'\"" or (not python and ch == "`"):
            quote = text[i : i + 3] if python and text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and len(quote) == 1 and ch != "`":
                    break  # an unclosed one-line string ends at the line's end
                j += 1
            yield from ((k, "\n") for k in range(i, min(j, n)) if text[k] == "\n")
            i = j + len(quote) if j < n and text.startswith(quote, j) else j
            continue
        i += 1


def bracket_depths(text: str, language: str) -> list[int]:
    """The bracket depth at the start of each line of ``text`` and, last, at its end, counted from 0
    at its start (negative: it closed brackets opened before it); strings and comments skipped."""
    depths = [0]
    depth = 0
    for _, ch in _code_events(text, language):
        if ch == "\n":
            depths.append(depth)
        elif ch in OPENERS:
            depth += 1
        else:
            depth -= 1
    depths.append(depth)
    return depths


def unclosed_openers(text: str, language: str) -> list[int]:
    """The indices of the brackets of ``text`` still open at its end, outermost first."""
    stack: list[int] = []
    for i, ch in _code_events(text, language):
        if ch in OPENERS:
            stack.append(i)
        elif ch in CLOSERS and stack:
            stack.pop()
    return stack


# What stands before an object literal's `{` in JavaScript (a block's `{` follows `)`, `=>`, `else`...)
_VALUE_BEFORE = re.compile(r"(?:[=:(,\[?!&|]|\breturn|\byield|\bawait|\?\?)\s*$")


def statement_openers(text: str, language: str) -> list[int]:
    """The brackets of ``text`` still open at its end that belong to the statement being written:
    every one in Python (its blocks are not brackets); in JavaScript and TypeScript those inside the
    innermost block's ``{`` (a ``{`` after ``=``, ``:``, ``(``, ``,``, ``return``... is an object
    literal and counts)."""
    openers = unclosed_openers(text, language)
    if language == "python":
        return openers
    kept: list[int] = []
    for i in reversed(openers):
        if text[i] == "{" and not _VALUE_BEFORE.search(text[max(0, i - 40) : i]):
            break
        kept.append(i)
    return kept[::-1]


def starts_python_definition(content: str) -> bool:
    return bool(PYTHON_DEFINITION.match(content))


def starts_js_definition(content: str) -> bool:
    return bool(JS_DEFINITION.match(content))


def first_unmatched_closer(line: str, language: str) -> int | None:
    """The index of the first bracket in ``line`` that closes one opened before it (strings and
    comments skipped), else None."""
    depth = 0
    for i, ch in _code_events(line, language):
        if ch in OPENERS:
            depth += 1
        elif ch in CLOSERS:
            depth -= 1
            if depth < 0:
                return i
    return None
