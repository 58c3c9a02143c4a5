"""What the three peer clients share: the context and result types, JavaScript's string semantics
(``trim``, ``\\s``, ``\\W``), Levenshtein distance, and a port of the word diff (jsdiff) that Continue
uses to place a one-line completion.

Every peer module exposes ``finish(raw, ctx) -> PeerResult`` and ``own_prompt(prefix, suffix,
filename, language) -> (prefix, suffix)``; see ``benchmarks.completion.peers`` for the overview.

Sources of the ports in this file:

* ``diff_words``: kpdecker/jsdiff at tag v8.0.3 (commit 13576bfbcc444ce48f71cfd1e08529bd13962411),
  ``src/diff/base.ts`` (Myers' diff as jsdiff walks it), ``src/diff/word.ts`` (``WordDiff``: its
  tokenizer, ``equals``, ``join`` and the whitespace clean-up ``dedupeWhitespaceInChangeObjects``)
  and ``src/util/string.ts`` (the whitespace helpers). Continue pins ``"diff": "^8.0.3"`` in
  ``core/package.json``; the 8.x line is what it runs.
* ``levenshtein``: the plain edit distance that both ``fastest-levenshtein`` (Continue) and
  ``fast-levenshtein`` (Tabby) compute, in UTF-16 code units there and in code points here (the same
  for text without characters outside the Basic Multilingual Plane).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class PeerContext:
    prefix: str  # the document text before the cursor
    suffix: str  # the document text after the cursor
    language: str  # "python" | "javascript" | "typescript" (a module may accept more, see its docstring)


@dataclass(frozen=True)
class PeerResult:
    text: str  # what the client would insert at the cursor ("" = no suggestion shown)
    rule: str | None  # the rule that cut or dropped it (None: kept whole); see RuleTracker
    # characters right after the cursor that the client's edit replaces (the end of the VS Code range
    # it returns, counted from the cursor); 0 for a pure insertion. The document after accepting is
    # prefix + text + suffix[replaced:].
    replaced: int = 0


# JavaScript's WhiteSpace and LineTerminator code points: what String.prototype.trim removes and
# what the regular expression class \s matches (ECMA-262, 22.1.3.32 and 22.2.2.9).
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_S = "[" + re.escape(JS_WHITESPACE) + "]"  # JavaScript's \s, for use inside Python patterns
JS_NOT_S = "[^" + re.escape(JS_WHITESPACE) + "]"  # JavaScript's \S


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    return text.lstrip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    return text.rstrip(JS_WHITESPACE)


def js_is_space(char: str) -> bool:
    return char != "" and char in JS_WHITESPACE


def leading_ws(text: str) -> str:
    return text[: len(text) - len(js_trim_start(text))]


def trailing_ws(text: str) -> str:
    return text[len(js_trim_end(text)) :]


def levenshtein(a: str, b: str) -> int:
    """The edit distance (insertions, deletions, substitutions of one character each)."""
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# --- jsdiff's diffWords (v8.0.3) ------------------------------------------------------------------


@dataclass
class Change:
    value: str
    added: bool
    removed: bool
    count: int


# src/diff/word.ts: the characters a "word" is made of (ASCII letters, digits, underscore and the
# Latin letters of the listed Unicode ranges); every other non-space character is a token of its own.
_EXTENDED_WORD_CHARS = "a-zA-Z0-9_\u00ad\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02c6\u02c8-\u02d7\u02de-\u02ff\u1e00-\u1eff"
_TOKEN = re.compile(f"[{_EXTENDED_WORD_CHARS}]+|{JS_S}+|[^{_EXTENDED_WORD_CHARS}]")


def _word_tokens(value: str) -> list[str]:
    """WordDiff.tokenize: words and punctuation, each with the whitespace around it attached (a run of
    whitespace goes to both neighbours), pure whitespace only when the text is nothing else."""
    parts = _TOKEN.findall(value)
    tokens: list[str] = []
    previous: str | None = None
    for part in parts:
        if re.fullmatch(f"{JS_S}+", part):
            if previous is None:
                tokens.append(part)
            else:
                tokens.append(tokens.pop() + part)
        elif previous is not None and re.fullmatch(f"{JS_S}+", previous):
            if tokens[-1] == previous:
                tokens.append(tokens.pop() + part)
            else:
                tokens.append(previous + part)
        else:
            tokens.append(part)
        previous = part
    return tokens


def _join_words(tokens: list[str]) -> str:
    return "".join(token if i == 0 else re.sub(f"^{JS_S}+", "", token) for i, token in enumerate(tokens))


@dataclass
class _Component:
    count: int
    added: bool
    removed: bool
    previous: _Component | None


@dataclass
class _Path:
    old_pos: int
    last: _Component | None


def _extract_common(path: _Path, new: list[str], old: list[str], diagonal: int) -> int:
    old_pos = path.old_pos
    new_pos = old_pos - diagonal
    common = 0
    while new_pos + 1 < len(new) and old_pos + 1 < len(old) and js_trim(old[old_pos + 1]) == js_trim(new[new_pos + 1]):
        new_pos += 1
        old_pos += 1
        common += 1
    if common:
        path.last = _Component(common, False, False, path.last)
    path.old_pos = old_pos
    return new_pos


def _add_to_path(path: _Path, added: bool, removed: bool, old_inc: int) -> _Path:
    last = path.last
    if last is not None and last.added == added and last.removed == removed:
        return _Path(path.old_pos + old_inc, _Component(last.count + 1, added, removed, last.previous))
    return _Path(path.old_pos + old_inc, _Component(1, added, removed, last))


def _build_values(last: _Component | None, new: list[str], old: list[str]) -> list[Change]:
    components = []
    while last is not None:
        components.append(last)
        last = last.previous
    components.reverse()
    changes = []
    new_pos = old_pos = 0
    for c in components:
        if not c.removed:
            value = _join_words(new[new_pos : new_pos + c.count])
            new_pos += c.count
            if not c.added:
                old_pos += c.count
        else:
            value = _join_words(old[old_pos : old_pos + c.count])
            old_pos += c.count
        changes.append(Change(value, c.added, c.removed, c.count))
    return changes


def _replace_prefix(text: str, old: str, new: str) -> str:
    assert text.startswith(old), (text, old)
    return new + text[len(old) :]


def _replace_suffix(text: str, old: str, new: str) -> str:
    if not old:
        return text + new
    assert text.endswith(old), (text, old)
    return text[: -len(old)] + new


def _common_prefix(a: str, b: str) -> str:
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    return a[:i]


def _common_suffix(a: str, b: str) -> str:
    i = 0
    while i < len(a) and i < len(b) and a[len(a) - 1 - i] == b[len(b) - 1 - i]:
        i += 1
    return a[len(a) - i :] if i else ""


def _maximum_overlap(a: str, b: str) -> str:
    """The longest suffix of ``a`` that is a prefix of ``b``."""
    for k in range(min(len(a), len(b)), 0, -1):
        if a.endswith(b[:k]):
            return b[:k]
    return ""


def _dedupe_whitespace(start: Change | None, deletion: Change | None, insertion: Change | None, end: Change | None) -> None:
    if deletion is not None and insertion is not None:
        old_prefix, old_suffix = leading_ws(deletion.value), trailing_ws(deletion.value)
        new_prefix, new_suffix = leading_ws(insertion.value), trailing_ws(insertion.value)
        if start is not None:
            common = _common_prefix(old_prefix, new_prefix)
            start.value = _replace_suffix(start.value, new_prefix, common)
            deletion.value = _replace_prefix(deletion.value, common, "")
            insertion.value = _replace_prefix(insertion.value, common, "")
        if end is not None:
            common = _common_suffix(old_suffix, new_suffix)
            end.value = _replace_prefix(end.value, new_suffix, common)
            deletion.value = _replace_suffix(deletion.value, common, "")
            insertion.value = _replace_suffix(insertion.value, common, "")
    elif insertion is not None:
        if start is not None:
            insertion.value = insertion.value[len(leading_ws(insertion.value)) :]
        if end is not None:
            end.value = end.value[len(leading_ws(end.value)) :]
    elif start is not None and end is not None:
        assert deletion is not None
        new_full = leading_ws(end.value)
        del_start, del_end = leading_ws(deletion.value), trailing_ws(deletion.value)
        new_start = _common_prefix(new_full, del_start)
        deletion.value = _replace_prefix(deletion.value, new_start, "")
        new_end = _common_suffix(_replace_prefix(new_full, new_start, ""), del_end)
        deletion.value = _replace_suffix(deletion.value, new_end, "")
        end.value = _replace_prefix(end.value, new_full, new_end)
        start.value = _replace_suffix(start.value, new_full, new_full[: len(new_full) - len(new_end)])
    elif end is not None:
        assert deletion is not None
        overlap = _maximum_overlap(trailing_ws(deletion.value), leading_ws(end.value))
        deletion.value = _replace_suffix(deletion.value, overlap, "")
    elif start is not None:
        assert deletion is not None
        overlap = _maximum_overlap(trailing_ws(start.value), leading_ws(deletion.value))
        deletion.value = _replace_prefix(deletion.value, overlap, "")


def _post_process(changes: list[Change]) -> list[Change]:
    last_keep: Change | None = None
    insertion: Change | None = None
    deletion: Change | None = None
    for change in changes:
        if change.added:
            insertion = change
        elif change.removed:
            deletion = change
        else:
            if insertion is not None or deletion is not None:
                _dedupe_whitespace(last_keep, deletion, insertion, change)
            last_keep, insertion, deletion = change, None, None
    if insertion is not None or deletion is not None:
        _dedupe_whitespace(last_keep, deletion, insertion, None)
    return changes


def diff_words(old_text: str, new_text: str) -> list[Change]:
    """jsdiff's ``diffWords(old, new)``: the change objects (kept, removed, added), in jsdiff's order."""
    old = [t for t in _word_tokens(old_text) if t]
    new = [t for t in _word_tokens(new_text) if t]
    best: dict[int, _Path | None] = {0: _Path(-1, None)}
    start = best[0]
    assert start is not None
    new_pos = _extract_common(start, new, old, 0)
    if start.old_pos + 1 >= len(old) and new_pos + 1 >= len(new):
        return _post_process(_build_values(start.last, new, old))
    min_diagonal, max_diagonal = -(10**9), 10**9
    edit_length = 1
    while edit_length <= len(new) + len(old):
        diagonal = max(min_diagonal, -edit_length)
        while diagonal <= min(max_diagonal, edit_length):
            remove_path = best.get(diagonal - 1)
            add_path = best.get(diagonal + 1)
            if remove_path is not None:
                best[diagonal - 1] = None
            can_add = add_path is not None and 0 <= add_path.old_pos - diagonal < len(new)
            can_remove = remove_path is not None and remove_path.old_pos + 1 < len(old)
            if not can_add and not can_remove:
                best[diagonal] = None
                diagonal += 2
                continue
            if not can_remove or (can_add and remove_path.old_pos < add_path.old_pos):  # type: ignore[union-attr]
                base = _add_to_path(add_path, True, False, 0)  # type: ignore[arg-type]
            else:
                base = _add_to_path(remove_path, False, True, 1)  # type: ignore[arg-type]
            new_pos = _extract_common(base, new, old, diagonal)
            if base.old_pos + 1 >= len(old) and new_pos + 1 >= len(new):
                return _post_process(_build_values(base.last, new, old))
            best[diagonal] = base
            if base.old_pos + 1 >= len(old):
                max_diagonal = min(max_diagonal, diagonal - 1)
            if new_pos + 1 >= len(new):
                min_diagonal = max(min_diagonal, diagonal + 1)
            diagonal += 2
        edit_length += 1
    raise AssertionError("unreachable: the edit script is at most len(old) + len(new) long")


class RuleTracker:
    """Names a result by its rules. A dropped result (blank): the rule that made it blank. A kept one:
    the first rule that removed or changed more than white space (a cut), else the first that changed
    anything (white space only), else None (kept whole)."""

    def __init__(self) -> None:
        self.first_cut: str | None = None
        self.first_change: str | None = None
        self.blanked_by: str | None = None

    def step(self, name: str, before: str, after: str) -> str:
        if after != before:
            if self.first_change is None:
                self.first_change = name
            if self.first_cut is None and re.sub(JS_S, "", after) != re.sub(JS_S, "", before):
                self.first_cut = name
            if self.blanked_by is None and js_trim(after) == "" and js_trim(before) != "":
                self.blanked_by = name
        return after

    def drop(self, name: str, before: str) -> None:
        """A rule rejected the text as a whole (named even when the text was blank already, unless an
        earlier rule made it so)."""
        self.step(name, before, "")
        if self.blanked_by is None:
            self.blanked_by = name

    def rule_for(self, text: str) -> str | None:
        if js_trim(text) == "":
            return self.blanked_by or self.first_cut or self.first_change or "blank"
        return self.first_cut or self.first_change


# --- lines ------------------------------------------------------------------------------------------


def editor_lines(text: str) -> list[str]:
    """The document's lines as an editor numbers them (VS Code's TextDocument.lineAt(i).text): split at
    \\r\\n, \\n or \\r, the line breaks left out, an empty last line after a final break."""
    return re.split(r"\r\n|\r|\n", text)


def cursor_line(ctx: PeerContext) -> int:
    return len(editor_lines(ctx.prefix)) - 1


# --- command line -----------------------------------------------------------------------------------


def run_cli(finish: Callable[[str, PeerContext], PeerResult], own_prompt: Callable[[str, str, str, str], tuple[str, str]], description: str) -> None:
    """What each peer module's ``main()`` does: read one JSON object from stdin,
    ``{"raw": ..., "prefix": ..., "suffix": ..., "language": ..., "filename": ...}``, and print the
    client's result (``finish``) and its own prompt (``own_prompt``) as JSON."""
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        print(" ".join(description.strip().split("\n\n")[0].split()))
        print('stdin: {"raw": str, "prefix": str, "suffix": str, "language": "python"|"javascript"|"typescript", "filename": str}')
        return
    request = json.load(sys.stdin)
    ctx = PeerContext(request["prefix"], request["suffix"], request.get("language", "python"))
    result = finish(request.get("raw", ""), ctx)
    prompt_prefix, prompt_suffix = own_prompt(ctx.prefix, ctx.suffix, request.get("filename", "main.py"), ctx.language)
    json.dump({"result": asdict(result), "own_prompt": {"prefix": prompt_prefix, "suffix": prompt_suffix}}, sys.stdout, ensure_ascii=False)
    print()
