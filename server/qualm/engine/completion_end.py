"""Where a completion at a cursor stops, decided from the document around the cursor and its syntax.

The rules (asked after every token by ``model.text_stream.TextStream``; each cut names its rule,
which the completion reports as ``end_rule``):

* In the middle of a line, or at the end of a line with code before the cursor: one line, except

  - ``statement-end``: at a line's end inside brackets the statement opened before the cursor (the
    rest of a call's arguments), the lines up to the one whose end closes them (``block-end`` where
    a line as little indented as the statement's first begins while they are still open;
    ``resumes`` where a line equals the first non-empty line after the cursor's).

  - ``line-end``: what the model writes after the line's end is dropped, and so is a tail that
    repeats the rest of the line (the model writes ``x):`` where ``):`` already follows the cursor);
  - ``closes-rest``: a bracket that closes one opened before the cursor, where the rest of the line
    already closes it, ends the completion (``compute(x, |)`` and the model's ``y)  # note``: ``y``).
* On an empty line (or when the model starts with a line break at the end of a line): several
  lines, until

  - ``resumes``: a line equals the first non-empty line of the code after the cursor (or, where
    that line only closes the cursor's block, the line after it), outside any bracket the
    completion opened (a ``}`` that closes the completion's own block is not the suffix's ``}``):
    the suffix resumes there, and nothing of it is written twice;
  - ``block-end``: a line outside the completion's brackets is less indented than the block the
    completion is in (the lesser of the first written line's indentation, or the cursor's column,
    and the next line's after the cursor), and never less than the body of the function or class the
    cursor is in (at a method's end, the next method's indentation is the class body's), its first
    line included (after a line break the model may begin at the class's indentation);
  - ``next-definition``: in a class body or at a module's top level, a second definition begins
    (a completion writes one method or one function at a time; a decorator goes with its ``def``);
  - ``decorated``: after a decorator, a line that is not a decorator where the decorated ``def``
    already follows (it would be written twice), or a second line where the ``def`` line is missing;
  - ``fence``: a Markdown code fence (the model writing prose about code, not code);
  - ``repeats-above``: the completion begins by writing again the lines just above the cursor, up
    to the one right above it (two or more lines, or one that opens a block): the model started
    over from the enclosing statement, and would write the code after the cursor again too. It is
    cut to nothing (and then begins with the model's second choice of first token);
  - the model ends the middle itself, or the token limit.
* When the text is final (after any of these, the model's end or the token limit):

  - ``unclosed``: a completion that leaves a bracket of its own open, or ends on a block's header
    with no body, or has a header whose next line is no deeper than it, is cut back to its last
    line that does not; on the empty line under a header that has no body in the file (an empty
    method), a completion whose first line is not indented under the header (the model writing
    the next method instead of this one's body) is cut to nothing, and asked again from the cursor;
  - ``syntax``: a completion after which the file does not parse (tree-sitter's parse,
    ``qualm.engine.completion_syntax``) is cut back to its longest start (at a line's end, or on one
    line at the end of an expression) that leaves fewer errors, or to nothing; a file broken elsewhere
    keeps its errors whatever the completion does, and then the completion is kept whole.

Characters that a rule may still cut (the start of a line that could equal the next line, blank
lines, a tail that could repeat the rest of the line) are held back from the stream until decided,
so the ghost text does not show what a streaming rule will take back. The two final rules are the
exception: they can take back lines already shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice

from .completion_syntax import (
    NO_BLOCK,
    TAB_WIDTH,
    CursorBlock,
    bracket_depths,
    cursor_syntax,
    first_unmatched_closer,
    indent_width,
    starts_js_definition,
    starts_python_definition,
    statement_openers,
    syntax_errors,
)

CLOSERS = ")]};, \t"  # a line of these alone closes a block and says nothing else


@dataclass(frozen=True)
class EndCut:
    """Keep ``at`` characters of the text; ``rule`` says why."""

    at: int
    rule: str


@dataclass(frozen=True)
class CompletionEnd:
    """The rules for one cursor; the model's text starts at ``column`` of the cursor's line."""

    multiline: bool  # the cursor's line is empty: several lines may come
    rest_of_line: str  # the text after the cursor on its line, stripped
    next_line: str  # the first non-empty line after the cursor's line, stripped ("" at the end)
    next_indent: int | None  # that line's indentation (None at the end of the text)
    column: int  # where the model's text starts on the cursor's line (after whitespace healing)
    language: str = "python"
    block: CursorBlock = NO_BLOCK
    cursor_column: int = 0  # the cursor's column in the document: the model's healed whitespace is not inserted twice
    open_brackets: int = 0  # brackets open at the cursor (strings and comments skipped): the statement goes on below
    statement_indent: int = 0  # the indentation of the line that opened the outermost of them
    # the document before and after the cursor (whole statements around it), and the healed
    # whitespace, for the final parse check
    before: str = field(default="", repr=False, compare=False)
    after: str = field(default="", repr=False, compare=False)
    heal: str = field(default="", repr=False, compare=False)
    # Python: the indentation of the block header just above the cursor's empty line when that
    # header has no body in the document (an empty method): the completion is that body
    body_of: int | None = None
    # where the next line only closes the cursor's block (`}`): the first non-empty line after it,
    # stripped, code that is there too ("" otherwise)
    beyond_line: str = ""
    # on an empty line: the non-empty lines just above it, stripped, the nearest last (a completion
    # that writes them again started over from the enclosing statement)
    above: tuple[str, ...] = ()

    @classmethod
    def at(cls, text: str, offset: int, heal: str = "", language: str = "python") -> CompletionEnd:
        """The rules at ``offset`` of ``text``; ``heal`` is the whitespace before the cursor that the
        prompt leaves out (the model writes it again)."""
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = text.find("\n", offset)
        line_end = len(text) if line_end < 0 else line_end
        before, after = text[line_start:offset], text[offset:line_end]
        # the first two non-empty lines after the cursor's (not the whole rest of a long file)
        below = list(islice((line for line in (text[line_end + 1 :].split("\n") if line_end < len(text) else ()) if line.strip()), 2))
        next_line, next_indent = (below[0].strip(), indent_width(below[0])) if below else ("", None)
        beyond_line = below[1].strip() if len(below) > 1 and not next_line.strip(CLOSERS) else ""
        written = before[: len(before) - len(heal)]  # what the model's text follows on the line
        column = len(written.expandtabs(TAB_WIDTH))
        syntax = cursor_syntax(text, offset, language)
        start, end = syntax.window
        body_of = empty_body_at(text, offset, language)
        openers = statement_openers(text[start:offset], language)
        multiline = not before.strip() and not after.strip()
        above = _lines_above(text, line_start) if multiline else ()
        return cls(
            multiline,
            after.strip(),
            next_line,
            next_indent,
            column,
            language,
            syntax.block,
            len(before.expandtabs(TAB_WIDTH)),
            len(openers),
            indent_width(text[text.rfind("\n", 0, start + openers[0]) + 1 : offset]) if openers else 0,
            text[start:offset],
            text[offset:end],
            heal,
            body_of,
            beyond_line,
            above,
        )

    # -- the protocol of model.text_stream.Ending -------------------------------------------------

    def cut(self, text: str) -> EndCut | None:
        if not self.multiline and self.open_brackets > 0 and not self.rest_of_line:
            return self._statement_cut(text)
        if not self.multiline:
            closing = self._closes_rest(text)
            newline = text.find("\n")
            if closing is not None and (newline < 0 or closing < newline):
                return EndCut(len(text[:closing].rstrip()), "closes-rest")
            if newline < 0:
                return None
            if not self.rest_of_line and not text[:newline].strip():
                return self._lines_cut(text, newline + 1)  # at a line's end, the model went on below
            return EndCut(self._line_cut(text[:newline]), "line-end")
        if self._repeats_above(text) is True:
            return EndCut(0, "repeats-above")
        return self._lines_cut(text, 0)

    def held(self, text: str) -> int:
        if not self.multiline:
            if "\n" in text:
                below = not text[: text.find("\n")].strip() or self.open_brackets > 0  # the lines below may resume the code after the cursor
                return self._lines_held(text) if not self.rest_of_line and below else 0
            if not text.strip() and not self.rest_of_line:
                return len(text)  # the model may be going on below: whitespace says nothing yet
            return _overlap(text, self.rest_of_line)
        if self._repeats_above(text) is None:
            return len(text)  # it may yet be the lines above written again: nothing of it is shown
        return self._lines_held(text)

    def final(self, text: str) -> EndCut | None:
        """Where the finished text is cut back so that it closes what it opens and the file parses
        no worse than without it (the ``unclosed`` and ``syntax`` rules); None: keep it whole."""
        kept, rule = len(text), None
        first = next(((i, line) for i, line in enumerate(text.split("\n")) if line.strip()), None)
        if self.body_of is not None and first is not None:
            i, line = first
            if self._width(line, first=i == 0) <= self.body_of:  # not the header's body: the model wrote past it (the next method)
                return EndCut(0, "unclosed")
        if self.multiline or "\n" in text:
            closed = self._closed_length(text)
            if closed < len(text.rstrip(" \t\n")):
                kept, rule = closed, "unclosed"
        if not text[:kept].strip() or not self.before + self.after:
            return EndCut(kept, rule) if rule else None
        whole = syntax_errors(self.inserted(text[:kept]), self.language)
        if not whole:  # None: no grammar for the language; 0: the file parses
            return EndCut(kept, rule) if rule else None
        # The file has errors with the completion: the longest start of it (or nothing) that leaves
        # the fewest. A file broken elsewhere keeps its errors whatever the completion does, and
        # then the whole completion is kept.
        best, fewest = kept, whole
        for point in [*self._cut_points(text[:kept]), 0]:
            errors = syntax_errors(self.inserted(text[:point]), self.language)
            if errors is not None and errors < fewest:
                best, fewest = point, errors
        return EndCut(best, "syntax") if best < kept else (EndCut(kept, rule) if rule else None)

    def inserted(self, text: str) -> str:
        """The document with the model's ``text`` inserted as the editor inserts it: without what it
        wrote again of the healed whitespace (``qualm.engine.placement.PrefixTrimmer``)."""
        n = 0
        while n < len(text) and n < len(self.heal) and text[n] == self.heal[n]:
            n += 1
        return self.before + text[n:] + self.after

    # -- one line ---------------------------------------------------------------------------------

    def _line_cut(self, line: str) -> int:
        """The length of the first line to keep: without what repeats the rest of the line."""
        kept = line.rstrip()
        if self.rest_of_line and kept.endswith(self.rest_of_line):
            kept = kept[: len(kept) - len(self.rest_of_line)]
        return len(kept)

    def _closes_rest(self, text: str) -> int | None:
        """Where the model's line closes a bracket opened before the cursor that the rest of the
        line already closes (None: it does not)."""
        if not self.rest_of_line or self.rest_of_line[0] not in ")]}":
            return None
        return first_unmatched_closer(text.split("\n", 1)[0], self.language)

    def _statement_cut(self, text: str) -> EndCut | None:
        """At a line's end inside brackets the statement opened before the cursor (the rest of a
        call's arguments): the lines up to the one whose end closes them."""
        depths = bracket_depths(text, self.language)
        pos = 0
        for i, line in enumerate(text.split("\n")[:-1]):  # the complete lines
            content = line.strip()
            if i > 0 and content.startswith("```"):
                return EndCut(_trimmed(text, pos), "fence")
            if i > 0 and self.next_line and content == self.next_line:
                return EndCut(_trimmed(text, pos), "resumes")  # the code after the cursor goes on from this line
            if i > 0 and content and depths[i] > -self.open_brackets and indent_width(line) <= self.statement_indent and content[0] not in ")]}":
                return EndCut(_trimmed(text, pos), "block-end")  # a new statement while the brackets are still open
            if depths[i + 1] <= -self.open_brackets:
                return EndCut(len(text[: pos + len(line)].rstrip()), "statement-end")
            pos += len(line) + 1
        return None

    # -- several lines ----------------------------------------------------------------------------

    def _floor(self, first_indent: int) -> int:
        base = first_indent if self.column == 0 else min(first_indent, self.column)
        floor = base if self.next_indent is None else min(base, self.next_indent)
        if self.block.floor is not None:
            # inside a function or class: never past its body (a method's end is not the class's);
            # a first line already below it (after a line break: `\n    def other(self):` from a
            # method's end) is cut by _lines_cut
            return max(floor, self.block.floor)
        # Indented code never goes on at column 0: when the code after the cursor resumes there (the
        # next function), a line at column 0 would be new top-level code, not the end of this block.
        return max(floor, 1) if base > 0 else floor

    def _lines_cut(self, text: str, start: int) -> EndCut | None:
        """Several lines from ``start`` of ``text``: where the first line that must not be written
        begins (the kept text without trailing blank lines), else None."""
        floor: int | None = None
        depths = bracket_depths(text[start:], self.language)
        pos, index = start, 0
        first = True
        definitions = 0  # definitions begun at the floor (one at a time where the block holds them)
        decorated = False  # the last line at the floor was a decorator: its def goes with it
        while pos <= len(text):
            newline = text.find("\n", pos)
            complete = newline >= 0
            line = text[pos : newline if complete else len(text)]
            content = line.strip()
            depth = depths[index] if index < len(depths) else depths[-1]
            if content:
                # what the model writes of the healed whitespace is not inserted again: its first
                # line stands at the cursor or, with more whitespace, further right
                width = self._width(line, first=first and start == 0)
                if content.startswith("```"):
                    return EndCut(_trimmed(text, pos), "fence")
                if complete and depth <= 0 and content and content in (self.next_line, self.beyond_line):
                    return EndCut(_trimmed(text, pos), "resumes")  # (beyond the next line's `}`: written before it, it runs on all the same)
                if floor is None:
                    floor = self._floor(width)
                    if depth <= 0 and width < floor:
                        return EndCut(_trimmed(text, pos), "block-end")  # its first line already leaves the function
                elif depth <= 0 and width < floor and (complete or not self.next_line.startswith(content)):
                    return EndCut(_trimmed(text, pos), "block-end")  # (a line that may yet be the next line waits to be told apart)
                if depth <= 0 and self._decorated(content, index):
                    return EndCut(_trimmed(text, pos), "decorated")
                if depth <= 0 and width == floor:
                    if self.block.definitions and self._begins_definition(content, depth):
                        if definitions and not decorated:
                            return EndCut(_trimmed(text, pos), "next-definition")
                        definitions += 1
                    decorated = content.startswith("@")
            if not complete:
                return None
            pos = newline + 1
            index += 1
            first = False
        return None

    def _repeats_above(self, text: str) -> bool | None:
        """Whether the completion so far writes again the lines just above the cursor, up to the one
        right above it: True; it may yet (every line so far, the unfinished one too, follows some
        run of those lines that ends there): None; it does not: False."""
        if not self.above:
            return False
        *complete, partial = text.split("\n")
        lines = [line.strip() for line in complete if line.strip()]
        partial = partial.strip()
        n, m = len(self.above), len(lines)
        undecided = False
        for k in range(max(m, 1), n + 1):  # the run: the last k lines above the cursor
            run = self.above[n - k :]
            if list(run[:m]) != lines:
                continue
            if k == m and (m >= 2 or _opens_block(lines[0], self.language)):
                return True
            if k > m and (not partial or run[m].startswith(partial)):
                undecided = True
        return None if undecided else False

    def _decorated(self, content: str, index: int) -> bool:
        """After a decorator (Python), whether this line must not be written: where the decorated
        ``def`` follows, anything but another decorator (a second ``def`` would stand between the
        decorator and its own); where the ``def`` line is missing (its body follows), any line after the first."""
        if not self.block.decorator_above:
            return False
        if self.next_line and (starts_python_definition(self.next_line) or self.next_line.startswith("@")):
            return not content.startswith("@")
        return index > 0 and self.next_indent is not None and self.next_indent > self.block.indent

    def _begins_definition(self, content: str, depth: int) -> bool:
        if self.language == "python":
            return starts_python_definition(content) or content.startswith("@")
        if self.block.kind == "class":  # every member at the class body's indentation
            return depth == 0 and not content.startswith(("}", "@", "//", "/*", "*"))
        return starts_js_definition(content)

    def _lines_held(self, text: str) -> int:
        """Trailing blank lines (cut if what follows ends the completion) and a line that so far
        could still equal the next line after the cursor."""
        last = text.rfind("\n") + 1
        partial = text[last:]
        if partial.strip() and not any(line and line.startswith(partial.lstrip()) for line in (self.next_line, self.beyond_line)):
            return 0
        keep = len(text[:last].rstrip(" \t\n"))
        return len(text) - keep

    # -- the final checks ---------------------------------------------------------------------------

    def _closed_length(self, text: str) -> int:
        """The longest start of ``text`` ending at a line's end with every bracket it opened closed
        and, in Python, not on a block's header whose body is missing (the code after the cursor
        may hold the body: a line indented deeper than the header)."""
        depths = bracket_depths(text, self.language)
        ends, pos = [], 0
        for i, line in enumerate(text.split("\n")):
            pos += len(line)
            if line.strip():
                ends.append((pos, depths[i + 1], line))
            pos += 1
        limit = self._headless_header(text, depths)
        for end, depth, line in reversed(ends):
            if depth > 0 or end > limit:
                continue
            header = line.split("#", 1)[0].rstrip().endswith(":")
            width = self._width(line, first=end == len(line))
            body_follows = self.next_indent is not None and self.next_indent > width
            if self.language == "python" and header and not body_follows:
                continue
            return end
        return 0

    def _width(self, line: str, first: bool) -> int:
        """A line's indentation in the document: the completion's first line sits at the cursor, or
        further right where the model wrote more whitespace than was healed."""
        return max(self.cursor_column, indent_width(line) + self.column) if first else indent_width(line)

    def _headless_header(self, text: str, depths: list[int]) -> int:
        """Python: where the completion's first block header whose next line is no deeper than it
        begins (a ``def`` with no body: the model writing the next method where the cursor is an
        empty method's body, the ``def`` landing at the body's indentation); the text's length
        where there is none. The last line's header is ``_closed_length``'s (the code after the
        cursor may hold its body)."""
        if self.language != "python":
            return len(text)
        lines = text.split("\n")
        starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
        filled = [i for i, line in enumerate(lines) if line.strip()]
        for here, after in zip(filled, filled[1:]):
            header = lines[here].split("#", 1)[0].rstrip().endswith(":")
            if header and depths[here + 1] <= 0 and self._width(lines[after], after == 0) <= self._width(lines[here], here == 0):
                return starts[here]
        return len(text)

    def _cut_points(self, text: str) -> list[int]:
        """Shorter starts of ``text`` to try, longest first: each line's end; on one line, each
        point outside brackets before a space or punctuation."""
        if "\n" in text.strip("\n"):
            points = [len(text[:i].rstrip(" \t\n")) for i in range(len(text)) if text[i] == "\n"]
        else:
            # the ends of expressions: after a closing bracket or before a separator, outside the
            # completion's own brackets (a bracket it closes was opened before the cursor)
            points = [i + 1 for i in range(len(text)) if text[i] in ")]}" and bracket_depths(text[: i + 1], self.language)[-1] <= 0]
            points += [i for i in range(1, len(text)) if text[i] in ",; " and bracket_depths(text[:i], self.language)[-1] <= 0]
        return sorted({p for p in points if 0 < p < len(text.rstrip())}, reverse=True)[:16]


def empty_body_at(text: str, offset: int, language: str) -> int | None:
    """Python: the indentation of the block header just above the cursor's empty line, where that
    header has no body in the document (an empty method): what is written there is its body. None
    elsewhere."""
    if language != "python":
        return None
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if line.strip() or not line_start:
        return None
    above = next((x for x in reversed(text[: line_start - 1].split("\n")) if x.strip()), "")
    if not above.split("#", 1)[0].rstrip().endswith(":"):
        return None
    below = next((x for x in text[line_end + 1 :].split("\n") if x.strip()), None) if line_end >= 0 else None
    header = indent_width(above)
    return header if below is None or indent_width(below) <= header else None


ECHO_LINES = 12  # how far above the cursor a completion that starts over is looked for


def _lines_above(text: str, line_start: int) -> tuple[str, ...]:
    """The last ECHO_LINES non-empty lines before the cursor's line, stripped, the nearest last."""
    lines: list[str] = []
    end = line_start - 1  # the newline that ends the line above
    while end > 0 and len(lines) < ECHO_LINES:
        start = text.rfind("\n", 0, end) + 1
        if text[start:end].strip():
            lines.append(text[start:end].strip())
        end = start - 1
    return tuple(reversed(lines))


def _opens_block(line: str, language: str) -> bool:
    """A header whose block follows (``if x:``, ``} else {``): written again, it nests the block in itself."""
    return line.endswith(":") if language == "python" else line.endswith("{")


def _trimmed(text: str, pos: int) -> int:
    """The text before ``pos`` without the blank lines and spaces that end it."""
    return len(text[:pos].rstrip(" \t\n"))


def _overlap(text: str, rest: str) -> int:
    """How many characters end ``text`` that could begin a repeat of ``rest`` (hold them back)."""
    if not rest:
        return 0
    stripped = text.rstrip()
    trailing = len(text) - len(stripped)
    if stripped.endswith(rest):
        return len(rest) + trailing
    for n in range(min(len(rest) - 1, len(stripped)), 0, -1):
        if stripped.endswith(rest[:n]):
            return n + trailing
    return trailing
