"""Where a completion at a cursor stops, decided from the document around the cursor.

The rules (asked after every token, by ``model.text_stream.TextStream``):

* In the middle of a line, or at the end of a line with code before the cursor: one line. What the
  model writes after the line's end is dropped, and so is a tail that repeats the rest of the line
  (the model writes ``x):`` where ``):`` already follows the cursor).
* On an empty line (or when the model starts with a line break at the end of a line): several
  lines, until

  - a line equals the first non-empty line of the code after the cursor: the suffix resumes there,
    and nothing of it is written twice;
  - a line is less indented than the block the completion is in (the lesser of the first written
    line's indentation, or the cursor's column, and the next line's after the cursor): the block
    ended; an indented completion never writes a line at column 0 (new top-level code);
  - the model ends the middle itself, or the token limit.

Characters that a rule may still cut (the start of a line that could equal the next line, blank
lines, a tail that could repeat the rest of the line) are held back from the stream until decided,
so the ghost text never shows what it will take back.
"""

from __future__ import annotations

from dataclasses import dataclass

TAB_WIDTH = 4


def indent_width(line: str) -> int:
    expanded = line.expandtabs(TAB_WIDTH)
    return len(expanded) - len(expanded.lstrip(" "))


@dataclass(frozen=True)
class CompletionEnd:
    """The rules for one cursor; the model's text starts at ``column`` of the cursor's line."""

    multiline: bool  # the cursor's line is empty: several lines may come
    rest_of_line: str  # the text after the cursor on its line, stripped
    next_line: str  # the first non-empty line after the cursor's line, stripped ("" at the end)
    next_indent: int | None  # that line's indentation (None at the end of the text)
    column: int  # where the model's text starts on the cursor's line (after whitespace healing)

    @classmethod
    def at(cls, text: str, offset: int, heal: str = "") -> CompletionEnd:
        """The rules at ``offset`` of ``text``; ``heal`` is the whitespace before the cursor that the
        prompt leaves out (the model writes it again)."""
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = text.find("\n", offset)
        line_end = len(text) if line_end < 0 else line_end
        before, after = text[line_start:offset], text[offset:line_end]
        next_line, next_indent = "", None
        for line in text[line_end + 1 :].split("\n") if line_end < len(text) else ():
            if line.strip():
                next_line, next_indent = line.strip(), indent_width(line)
                break
        written = before[: len(before) - len(heal)]  # what the model's text follows on the line
        column = len(written.expandtabs(TAB_WIDTH))
        return cls(not before.strip() and not after.strip(), after.strip(), next_line, next_indent, column)

    # -- the protocol of model.text_stream.Ending -------------------------------------------------

    def cut(self, text: str) -> int | None:
        if not self.multiline:
            newline = text.find("\n")
            if newline < 0:
                return None
            if not self.rest_of_line and not text[:newline].strip():
                return self._lines_cut(text, newline + 1)  # at a line's end, the model went on below
            return self._line_cut(text[:newline])
        return self._lines_cut(text, 0)

    def held(self, text: str) -> int:
        if not self.multiline:
            if "\n" in text:
                return self._lines_held(text) if not self.rest_of_line and not text[: text.find("\n")].strip() else 0
            if not text.strip() and not self.rest_of_line:
                return len(text)  # the model may be going on below: whitespace says nothing yet
            return _overlap(text, self.rest_of_line)
        return self._lines_held(text)

    # -- one line ---------------------------------------------------------------------------------

    def _line_cut(self, line: str) -> int:
        """The length of the first line to keep: without what repeats the rest of the line."""
        kept = line.rstrip()
        if self.rest_of_line and kept.endswith(self.rest_of_line):
            kept = kept[: len(kept) - len(self.rest_of_line)]
        return len(kept)

    # -- several lines ----------------------------------------------------------------------------

    def _floor(self, first_indent: int) -> int:
        base = first_indent if self.column == 0 else min(first_indent, self.column)
        floor = base if self.next_indent is None else min(base, self.next_indent)
        # Indented code never goes on at column 0: when the code after the cursor resumes there (the
        # next function), a line at column 0 would be new top-level code, not the end of this block.
        return max(floor, 1) if base > 0 else floor

    def _lines_cut(self, text: str, start: int) -> int | None:
        """Several lines from ``start`` of ``text``: where the first line that must not be written
        begins (the kept text without trailing blank lines), else None."""
        floor: int | None = None
        pos = start
        first = True
        while pos <= len(text):
            newline = text.find("\n", pos)
            complete = newline >= 0
            line = text[pos : newline if complete else len(text)]
            content = line.strip()
            if content:
                width = indent_width(line) + (self.column if first and start == 0 else 0)
                if floor is None:
                    floor = self._floor(width)
                elif width < floor:
                    return _trimmed(text, pos)
                if complete and self.next_line and content == self.next_line:
                    return _trimmed(text, pos)
            if not complete:
                return None
            pos = newline + 1
            first = False
        return None

    def _lines_held(self, text: str) -> int:
        """Trailing blank lines (cut if what follows ends the completion) and a line that so far
        could still equal the next line after the cursor."""
        last = text.rfind("\n") + 1
        partial = text[last:]
        if partial.strip() and not (self.next_line and self.next_line.startswith(partial.lstrip())):
            return 0
        keep = len(text[:last].rstrip(" \t\n"))
        return len(text) - keep


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
