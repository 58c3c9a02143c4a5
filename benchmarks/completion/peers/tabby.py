"""Tabby's code completion (its VS Code agent and server), as a function of the model's whole greedy
output.

Read from TabbyML/tabby at commit 21b29048d7bcf6b94f9f482f2d0fd05efadfd19f:

* ``clients/tabby-agent/src/codeCompletion/contexts.ts`` (``buildCompletionContext``: the line end
  that the completion replaces, prefix and suffix lines), ``codeCompletion/buildRequest.ts`` (the
  segments sent: 20 prefix lines, 20 suffix lines), ``codeCompletion/solution.ts`` (the inline item:
  nothing for a blank text, the range up to ``lineEndReplaceLength``), ``codeCompletion/index.ts``
  (pre-cache then post-cache post-processing), ``config/default.ts`` (``minCompletionChars`` 4),
  ``utils/string.ts`` (``splitLines``, ``isBlank``, ``getIndentationLevel``, ``isBlockOpeningLine``,
  ``isBlockClosingLine``, ``calcDistance``),
* ``clients/tabby-agent/src/codeCompletion/postprocess/``: ``index.ts`` (the two pipelines),
  ``trimMultiLineInSingleLineMode.ts``, ``removeLineEndsWithRepetition.ts``, ``dropDuplicated.ts``,
  ``trimSpace.ts``, ``dropMinimum.ts``, ``removeRepetitiveBlocks.ts``, ``removeRepetitiveLines.ts``,
  ``limitScope.ts``, ``limitScopeByIndentation.ts``, ``removeDuplicatedBlockClosingLine.ts``,
  ``formatIndentation.ts``, ``normalizeIndentation.ts``, ``removeDuplicateSuffixLines.ts``,
* ``crates/tabby-inference/src/decoding.rs`` and ``src/code.rs`` (the server's stop words, checked after
  every token against the prompt and the text so far; ``max_decoding_tokens``; the prompt clipped to
  ``max_input_length`` bytes from its start), ``crates/tabby-common/src/languages.rs`` and
  ``assets/languages.toml`` (stop words: blank lines, the line comment and the top-level keywords
  after a line break), ``crates/tabby-common/src/config.rs`` (max_input_length 1536,
  max_decoding_tokens 64), ``crates/tabby/src/services/completion/completion_prompt.rs`` (the prompt
  template, an empty suffix sent as ``\\n``, snippets as comments),
* ``limitScopeBySyntax`` and its syntax tables from the last version that had them, commit
  7f3d56adcc5b13148e8bd3444980261496b72b39 (the parent of edb23ff99, "clean up experimental
  post-processing features", 2024-04-26): ``clients/tabby-agent/src/postprocess/limitScopeBySyntax.ts``,
  ``postprocess/limitScope.ts`` (syntax first, indentation when it fails), ``postprocess/dropBlank.ts``,
  ``src/syntax/parser.ts`` and ``src/syntax/typeList.ts``;
* the Qwen2.5-Coder prompt template from TabbyML/registry-tabby, ``meta/models.yaml`` at commit
  01bdb3b91dca6b1a9c9d10898b68b38c48c0638a.

``finish`` runs, in order: the server's stop words (``server_stop``), then the agent's pre-cache
filters (``trim_multi_line_in_single_line_mode``, ``remove_line_ends_with_repetition``,
``drop_duplicated``, ``trim_space``, ``drop_minimum``) and post-cache filters
(``remove_repetitive_blocks``, ``remove_repetitive_lines``, ``limit_scope``,
``remove_duplicated_block_closing_line``, ``format_indentation``, ``normalize_indentation``,
``drop_duplicated``, ``trim_space``, ``remove_duplicate_suffix_lines``, ``drop_minimum``). A blank
result shows nothing. The single- versus multi-line choice is the context's ``is_line_end``: when the
rest of the cursor line has a word character, multi-line completions are cut to their first line
(or dropped); when it has none (``)``, ``);``, nothing), the completion replaces it
(``PeerResult.replaced``), and the model was not shown it (``own_prompt``'s suffix starts after it).

``limit_scope`` is the current one (indentation); ``finish(..., syntax=True)`` uses the retired
``limitScopeBySyntax`` first (tree-sitter: Python's grammar, TSX's for JavaScript and TypeScript, as
the source did), falling back to indentation when it fails, as ``limitScope`` did then.

Token-level details: the server checks its stop words after each token, so a stop word matches only
where it ends at a token boundary; without the model's tokens every character boundary is taken (a
stop word glued to more text, ``\\nclasses``, is then cut where a tokenizer might not have). Pass
``tokens`` (the output's token strings) to ``finish`` for the exact rule and for the 64-token cap.

Not modelled: repository context (declarations, snippets from changed and recently opened files, code
search: none here), the cache and its forwarded entries, several choices (``maxItems``), the
editor's indentation setting (``indentation``, default four spaces, as VS Code's default), notebook
cells and selected IntelliSense items.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from benchmarks.completion.peers.common import JS_S, PeerContext, PeerResult, RuleTracker, js_is_space, js_trim, js_trim_end, js_trim_start, leading_ws, levenshtein, run_cli

MAX_PREFIX_LINES = 20
MAX_SUFFIX_LINES = 20
MIN_COMPLETION_CHARS = 4
MAX_DECODING_TOKENS = 64
MAX_INPUT_LENGTH = 1024 + 512  # bytes of the whole prompt, clipped from its start
PROMPT_TEMPLATE = "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"  # Qwen2.5-Coder's in registry-tabby

# languages.rs: DEFAULT stop words (a blank line, with or without indentation, and other models' markers)
DEFAULT_STOP_WORDS = (
    "\n\n", "\n\n  ", "\n\n    ", "\n\n      ", "\n\n        ", "\n\n          ", "\n\n            ", "\n\n              ",
    "\n\n\t", "\n\n\t\t", "\n\n\t\t\t", "\n\n\t\t\t\t", "\n\n\t\t\t\t\t", "\n\n\t\t\t\t\t\t", "\n\n\t\t\t\t\t\t\t",
    "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", " <EOT>",
    "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_separator|>",
    "<|system|>", "<|user|>", "<|end|>", "<|assistant|>",
)  # fmt: skip
# languages.toml: (line comment, top-level keywords)
SERVER_LANGUAGES = {
    "python": ("#", ("def", "from", "class", "import")),
    "javascript-typescript": ("//", ("abstract", "async", "class", "const", "export", "function", "interface", "module", "package", "type", "var", "enum", "let")),
}
_SERVER_NAMES = {
    "python": "python",
    "javascript": "javascript-typescript",
    "typescript": "javascript-typescript",
    "javascriptreact": "javascript-typescript",
    "typescriptreact": "javascript-typescript",
}


def server_stop_words(language: str) -> list[str]:
    """``Language::get_stop_words``: the defaults, then ``\\n`` + the line comment and ``\\n`` + each
    top-level keyword. An unknown language's comment is "" (so ``\\n`` itself stops)."""
    comment, keywords = SERVER_LANGUAGES.get(_SERVER_NAMES.get(language, ""), ("", ()))
    return [*DEFAULT_STOP_WORDS, f"\n{comment}", *(f"\n{k}" for k in keywords)]


def server_stop(text: str, language: str, tokens: Sequence[str] | None = None, prompt_tail: str = "<|fim_middle|>") -> str:
    """``StopCondition::should_stop``: after each token, the longest stop word that the prompt plus the
    text so far ends with cuts that many characters off the text (all of it when it reaches into the
    prompt). Without ``tokens`` every character is taken as a token boundary. With ``tokens`` the
    text is also capped at ``max_decoding_tokens`` (64)."""
    words = server_stop_words(language)
    if tokens is None:
        ends = list(range(1, len(text) + 1))
    else:
        tokens = list(tokens)[:MAX_DECODING_TOKENS]
        text = "".join(tokens)
        ends, total = [], 0
        for token in tokens:
            total += len(token)
            if token:
                ends.append(total)
    for end in ends:
        seen = prompt_tail + text[:end]
        matched = max((len(w) for w in words if seen.endswith(w)), default=0)
        if matched:
            return text[: max(0, end - matched)]
    return text


# --- the context (contexts.ts) and string helpers (utils/string.ts) ---------------------------------------


def split_lines(text: str) -> list[str]:
    """``splitLines``: lines with their line break kept, and an empty last line after a final break.
    (JavaScript's ``.`` stops at \\r, \\u2028 and \\u2029 too; a lone one of those drops the text before it
    on its line, as in the source.)"""
    lines = [m.group(0) for m in re.finditer(r"[^\n\r\u2028\u2029]*(?:\Z|\r?\n)", text) if m.group(0)]
    if lines and lines[-1].endswith("\n"):
        lines.append("")
    return lines


def is_blank(text: str) -> bool:
    return len(js_trim(text)) == 0


def indentation_level(line: str) -> int:
    return len(re.match(r"[ \t]*", line).group(0))  # type: ignore[union-attr]


def is_block_opening_line(lines: list[str], index: int) -> bool:
    if index < 0 or index >= len(lines) - 1:
        return False
    return indentation_level(lines[index]) < indentation_level(lines[index + 1])


def is_block_closing_line(lines: list[str], index: int) -> bool:
    if index <= 0 or index > len(lines) - 1:
        return False
    return indentation_level(lines[index - 1]) > indentation_level(lines[index])


@dataclass(frozen=True)
class TabbyContext:
    language: str
    prefix: str  # the document before the cursor
    suffix: str  # the document after the cursor and after the replaced line end
    prefix_lines: list[str]
    suffix_lines: list[str]
    current_line_prefix: str
    current_line_suffix: str
    is_line_end: bool  # the rest of the line has no word character: multi-line allowed, the rest replaced
    line_end_replace_length: int
    indentation: str | None = "    "  # the editor's indentation (extraContext.editorOptions.indentation)
    document_suffix: str = ""  # the whole document after the cursor (for the syntax scope)


def build_context(prefix: str, suffix: str, language: str, indentation: str | None = "    ") -> TabbyContext:
    """``buildCompletionContext`` for a cursor between ``prefix`` and ``suffix``."""
    line_end = re.search(r"\r\n|\r|\n", suffix)
    rest = suffix if line_end is None else suffix[: line_end.end()]
    is_line_end = re.fullmatch(r"[^A-Za-z0-9_]*", rest) is not None
    replace_length = len(re.sub(r"\r?\n\Z", "", rest)) if is_line_end else 0
    if line_end is not None:
        replace_length = min(replace_length, line_end.start())
    after = suffix[replace_length:]
    prefix_lines, suffix_lines = split_lines(prefix), split_lines(after)
    return TabbyContext(
        language=language,
        prefix=prefix,
        suffix=after,
        prefix_lines=prefix_lines,
        suffix_lines=suffix_lines,
        current_line_prefix=prefix_lines[-1] if prefix_lines else "",
        current_line_suffix=suffix_lines[0] if suffix_lines else "",
        is_line_end=is_line_end,
        line_end_replace_length=replace_length,
        indentation=indentation,
        document_suffix=suffix,
    )


# --- the filters: each maps (text, context) to text, "" being the empty item --------------------------------


def trim_multi_line_in_single_line_mode(text: str, ctx: TabbyContext) -> str:
    """Mid-line (not ``is_line_end``), a multi-line completion keeps its first line with the line's
    rest cut off its end, if it ends with it and something is left; otherwise it is dropped."""
    lines = split_lines(text)
    if not ctx.is_line_end and len(lines) > 1:
        suffix = js_trim_end(ctx.current_line_suffix)
        first = js_trim_end(lines[0])
        if first.endswith(suffix):
            trimmed = first[: len(first) - len(suffix)] if suffix else ""  # JavaScript: slice(0, -0) is ""
            if trimmed:
                return trimmed
        return ""
    return text


# JavaScript's "." stops at any line terminator and "$" (no m flag) is the end of the input only: a line
# that still has its line break never matches, as in the source
_DOT = r"[^\n\r\u2028\u2029]"
_REPETITION_TESTS = (re.compile(rf"({_DOT}{{3,}}?)\1{{5,}}\Z"), re.compile(rf"({_DOT}{{10,}}?)\1{{3,}}\Z"))


def remove_line_ends_with_repetition(text: str, ctx: TabbyContext) -> str:
    """The last non-blank line ending in a pattern of 3+ characters repeated 5+ times, or of 10+
    repeated 3+ times, is removed (the whole item when it is the first line)."""
    lines = split_lines(text)
    index = len(lines) - 1
    while index >= 0 and is_blank(lines[index]):
        index -= 1
    if index < 0:
        return text
    for test in _REPETITION_TESTS:
        if test.search(lines[index]):
            if index < 1:
                return ""
            return js_trim_end("".join(lines[:index]))
    return text


def drop_duplicated(text: str, ctx: TabbyContext) -> str:
    """Dropped when its first (up to 3) non-blank lines are within 5% (at least 1) edit distance of the
    suffix's first lines."""
    lines = split_lines(text)
    i = 0
    while i < len(lines) and is_blank(lines[i]):
        i += 1
    j = 0
    while j < len(ctx.suffix_lines) and is_blank(ctx.suffix_lines[j]):
        j += 1
    count = min(3, len(lines) - i, len(ctx.suffix_lines) - j)
    if count < 1:
        return text
    mine = js_trim("".join(lines[i : i + count]))
    theirs = js_trim("".join(ctx.suffix_lines[j : j + count]))
    threshold = max(1, 0.05 * len(mine), 0.05 * len(theirs))
    if levenshtein(mine, theirs) <= threshold:
        return ""
    return text


def trim_space(text: str, ctx: TabbyContext) -> str:
    """Leading space removed after a line prefix ending in a space; trailing space removed when the line's
    rest is blank or starts with a space."""
    trimmed = text
    if not is_blank(ctx.current_line_prefix) and js_is_space(ctx.current_line_prefix[-1:]):
        trimmed = js_trim_start(trimmed)
    if is_blank(ctx.current_line_suffix) or js_is_space(ctx.current_line_suffix[:1]):
        trimmed = js_trim_end(trimmed)
    return trimmed


def drop_minimum(text: str, ctx: TabbyContext, min_chars: int = MIN_COMPLETION_CHARS) -> str:
    """Fewer than ``minCompletionChars`` (4) characters once trimmed: dropped."""
    return "" if len(js_trim(text)) < min_chars else text


def drop_blank(text: str, ctx: TabbyContext) -> str:
    """The retired ``dropBlank`` (replaced by ``dropMinimum`` in 2024-09): a blank item is dropped."""
    return "" if is_blank(text) else text


def _split_blocks(text: str) -> list[str]:
    """``text.split(/\\n(\\s*)\\n/g)``: JavaScript keeps the captured group between the pieces."""
    return re.split(rf"\n({JS_S}*)\n", text)


def remove_repetitive_blocks(text: str, ctx: TabbyContext) -> str:
    """Blocks (split at blank lines) that repeat the one before within 10% edit distance, twice or more
    counting back from the second to last: everything from the first repetition on is removed."""
    blocks = _split_blocks(text)
    count = 0
    index = len(blocks) - 2
    while index >= 1:
        if is_blank(blocks[index]):
            index -= 1
            continue
        prev = index - 1
        while prev >= 0 and is_blank(blocks[prev]):
            prev -= 1
        if prev < 0:
            break
        current, previous = js_trim(blocks[index]), js_trim(blocks[prev])
        if levenshtein(current, previous) <= max(0.1 * len(current), 0.1 * len(previous)):
            count += 1
            index -= 1
        else:
            break
    if count >= 2:
        return js_trim_end("".join(blocks[: index + 1]))
    return text


def remove_repetitive_lines(text: str, ctx: TabbyContext) -> str:
    """Lines that repeat the one before within 10% edit distance, five times or more counting back from
    the second to last line: everything after the first of them is removed."""
    lines = split_lines(text)
    count = 0
    index = len(lines) - 2
    while index >= 1:
        if is_blank(lines[index]):
            index -= 1
            continue
        prev = index - 1
        while prev >= 0 and is_blank(lines[prev]):
            prev -= 1
        if prev < 0:
            break
        current, previous = js_trim(lines[index]), js_trim(lines[prev])
        if levenshtein(current, previous) <= max(0.1 * len(current), 0.1 * len(previous)):
            count += 1
            index = prev
        else:
            break
    if count >= 5:
        return js_trim_end("".join(lines[: index + 1]))
    return text


def _indentation_context(lines: list[str], detection: list[str], ctx: TabbyContext) -> tuple[int, bool]:
    """``parseIndentationContext``: (indent level limit, closing line allowed)."""
    limit, allow_closing = 0, True
    if not lines or not ctx.prefix_lines:
        return limit, allow_closing
    prefix_blank = is_blank(ctx.current_line_prefix)
    ref = len(ctx.prefix_lines) - 1
    while ref >= 0 and is_blank(ctx.prefix_lines[ref]):
        ref -= 1
    if ref < 0:
        return limit, allow_closing
    prefix_indent = indentation_level(ctx.prefix_lines[ref])
    completion_blank = is_blank(lines[0])
    ref_c = 0
    while ref_c < len(lines) and is_blank(lines[ref_c]):
        ref_c += 1
    if ref_c >= len(lines):
        return limit, allow_closing
    if completion_blank:
        completion_indent = indentation_level(lines[ref_c])
    else:
        completion_indent = indentation_level(ctx.current_line_prefix + lines[ref_c])
    if not completion_blank and not prefix_blank:
        limit = prefix_indent + 1
        allow_closing = allow_closing and is_block_opening_line(detection, 0)
    elif completion_indent > prefix_indent:
        limit = prefix_indent + 1
    else:
        limit = prefix_indent
    first = 1
    while first < len(ctx.suffix_lines) and is_blank(ctx.suffix_lines[first]):
        first += 1
    if first < len(ctx.suffix_lines):
        allow_closing = allow_closing and indentation_level(ctx.suffix_lines[first]) < limit
    return limit, allow_closing


def limit_scope_by_indentation(text: str, ctx: TabbyContext) -> str:
    """Cut at the first line indented less than the block the completion is in, keeping that closing
    line when the context allows it (not in Python after a blank line); ``} else {`` lines go on."""
    lines = split_lines(text)
    detection = [ctx.current_line_prefix + line if i == 0 else line for i, line in enumerate(lines)]
    limit, allow_closing = _indentation_context(lines, detection, ctx)
    index = 1
    while index < len(lines):
        line, prev = lines[index], lines[index - 1]
        if is_blank(line):
            index += 1
            continue
        if indentation_level(line) < limit:
            if is_block_closing_line(detection, index) and is_block_opening_line(detection, index):
                index += 1
                continue
            if allow_closing and (ctx.language != "python" or not is_blank(prev)):
                index += 1
            break
        index += 1
    if index < len(lines):
        return js_trim_end("".join(lines[:index]))
    return text


# --- limitScopeBySyntax (retired; commit 7f3d56ad) ------------------------------------------------------------

# src/syntax/typeList.ts: node types that are a scope, tried list by list from the cursor's node up
SYNTAX_SCOPES = {
    "tsx": [
        [
            "jsx_element", "jsx_self_closing_element",
            "for_statement", "for_in_statement", "if_statement", "while_statement", "do_statement", "switch_statement", "try_statement", "with_statement", "labeled_statement",
            "class_declaration", "abstract_class_declaration", "interface_declaration", "enum_declaration", "type_alias_declaration", "function_declaration",
            "generator_function_declaration", "ambient_declaration",
            "method_definition",
            "import_statement", "export_statement", "module",
        ],
        ["expression_statement", "lexical_declaration"],
    ],
    "python": [
        [
            "for_statement", "if_statement", "while_statement", "match_statement", "try_statement", "with_statement",
            "function_definition", "decorated_definition", "class_definition",
            "import_statement", "import_from_statement",
        ],
    ],
}  # fmt: skip
# src/syntax/parser.ts: languagesConfigs (go, rust and ruby left out: no grammar installed here)
SYNTAX_LANGUAGES = {"javascript": "tsx", "typescript": "tsx", "javascriptreact": "tsx", "typescriptreact": "tsx", "python": "python"}


class SyntaxScopeError(Exception):
    """limitScopeBySyntax throws: language not supported, or the scope is a syntax error."""


@cache
def _grammar(name: str):  # tree_sitter and the grammars are imported only when this rule runs
    import tree_sitter

    if name == "python":
        import tree_sitter_python

        return tree_sitter.Language(tree_sitter_python.language())
    import tree_sitter_typescript

    return tree_sitter.Language(tree_sitter_typescript.language_tsx())


def _line_begin(text: str, position: int) -> int:
    last = position - 1
    while last >= 0 and js_is_space(text[last]):
        last -= 1
    if last < 0:
        return 0
    begin = text.rfind("\n", 0, last + 1)
    if begin < 0:
        return 0
    line = text[begin + 1 : position]
    indentation = next((i for i, c in enumerate(line) if not js_is_space(c)), -1)
    return begin + 1 + indentation


def _line_end(text: str, position: int) -> int:
    first = position
    while first < len(text) and js_is_space(text[first]):
        first += 1
    if first >= len(text):
        return len(text)
    end = text.find("\n", first)
    return len(text) if end < 0 else end


def limit_scope_by_syntax(text: str, ctx: TabbyContext) -> str:
    """The retired ``limitScopeBySyntax``: parse the document with the completion inserted, find the
    innermost scope node (``SYNTAX_SCOPES``) around the cursor's line, and cut the completion where that
    node ends. Raises ``SyntaxScopeError`` where the source threw (unsupported language, error node)."""
    import tree_sitter

    config = SYNTAX_LANGUAGES.get(ctx.language)
    if config is None:
        raise SyntaxScopeError(f"Language {ctx.language} is not supported")
    position = len(ctx.prefix)
    updated = ctx.prefix + text + ctx.document_suffix
    data = updated.encode("utf-8")
    starts = [i for i, b in enumerate(data) if (b & 0xC0) != 0x80]  # byte offset of each character
    byte_of = [*starts, len(data)]
    tree = tree_sitter.Parser(_grammar(config)).parse(data)
    begin, end = _line_begin(updated, position), _line_end(updated, position)
    node = tree.root_node.named_descendant_for_byte_range(byte_of[begin], byte_of[end])
    scope = node
    for types in SYNTAX_SCOPES[config]:
        candidate = node
        while candidate is not None and candidate.type not in types:
            candidate = candidate.parent
        if candidate is not None:
            scope = candidate
            break
    if scope.type == "ERROR":
        raise SyntaxScopeError("Cannot determine syntax scope.")
    scope_end = len(data[: scope.end_byte].decode("utf-8", errors="ignore"))
    if scope_end < position + len(text):
        return text[: max(0, scope_end - position)]
    return text


def limit_scope(text: str, ctx: TabbyContext, syntax: bool = False) -> str:
    """``limitScope``: by indentation; with ``syntax`` (the retired experimental setting) by syntax
    first, by indentation when that fails."""
    if syntax:
        try:
            return limit_scope_by_syntax(text, ctx)
        except SyntaxScopeError:
            pass
    return limit_scope_by_indentation(text, ctx)


def remove_duplicated_block_closing_line(text: str, ctx: TabbyContext) -> str:
    """A last line closing a block that the suffix's next non-blank line also closes (one starting with
    the other) is removed."""
    lines = split_lines(text)
    if len(lines) < 2:
        return text
    detection = [ctx.current_line_prefix + line if i == 0 else line for i, line in enumerate(lines)]
    if not is_block_closing_line(detection, len(lines) - 1):
        return text
    ending = lines[-1]
    index = 1
    while index < len(ctx.suffix_lines) and is_blank(ctx.suffix_lines[index]):
        index += 1
    if index >= len(ctx.suffix_lines):
        return text
    beginning = ctx.suffix_lines[index]
    if ending.startswith(js_trim_end(beginning)) or beginning.startswith(js_trim_end(ending)):
        return js_trim_end("".join(lines[:-1]))
    return text


def _detect_indentation(lines: list[str]) -> str | None:
    tabs = two = four = 0
    for line in lines:
        if line.startswith("\t"):
            tabs += 1
        else:
            spaces = len(line) - len(line.lstrip(" "))
            if spaces > 0:
                if spaces % 4 == 0:
                    four += 1
                if spaces % 2 == 0:
                    two += 1
    if tabs > 0:
        return "\t"
    if two > four:
        return "  "
    if four > 0:
        return "    "
    return None


def _indent_level(line: str, indentation: str) -> float:
    if indentation == "\t":
        return len(line) - len(line.lstrip("\t"))
    return (len(line) - len(line.lstrip(" "))) / len(indentation)


def format_indentation(text: str, ctx: TabbyContext) -> str:
    """When neither the prefix nor the suffix shows an indentation and the completion's differs from the
    editor's, the completion is re-indented to the editor's."""
    indentation = ctx.indentation
    lines = split_lines(text)
    if not indentation:
        return text
    prefix_detection = ctx.prefix_lines[:-1] if is_blank(ctx.current_line_prefix) else ctx.prefix_lines
    if len(ctx.prefix_lines) > 1 and _detect_indentation(prefix_detection) is not None:
        return text
    if len(ctx.suffix_lines) > 1 and _detect_indentation(ctx.suffix_lines[1:]) is not None:
        return text
    detection = [ctx.current_line_prefix + line if i == 0 else line for i, line in enumerate(lines)]
    own = _detect_indentation(detection)
    if own is None or own == indentation:
        return text
    formatted = []
    for index, line in enumerate(detection):
        level = _indent_level(line, own)
        if level == 0:
            formatted.append(lines[index])
            continue
        rest = line[_js_slice_index(len(own) * level) :]
        if index == 0:
            if not is_blank(ctx.current_line_prefix):
                formatted.append(lines[0])
            else:
                formatted.append(_js_repeat(indentation, level)[len(ctx.current_line_prefix) :] + rest)
        else:
            formatted.append(_js_repeat(indentation, level) + rest)
    return "".join(formatted)


def _js_slice_index(value: float) -> int:
    """``String.prototype.slice`` truncates a fractional index toward zero."""
    return int(value)


def _js_repeat(text: str, count: float) -> str:
    """``String.prototype.repeat`` truncates a fractional count toward zero."""
    return text * int(count)


def normalize_indentation(text: str, ctx: TabbyContext) -> str:
    """With a cursor line of only spaces: a first line whose odd indentation would make the total odd
    loses it, and every line with an odd number of leading spaces loses one."""
    lines = split_lines(text)
    prefix = ctx.current_line_prefix
    if not lines or len(prefix) == 0 or "\t" in prefix:
        return text
    if not re.fullmatch(f"{JS_S}*", prefix):
        return text
    normalized = list(lines)
    cursor_spaces = len(leading_ws(prefix))
    first = normalized[0]
    if first:
        first_spaces = len(leading_ws(first))
        if (first_spaces + cursor_spaces) % 2 != 0 and first_spaces % 2 != 0:
            normalized[0] = first[first_spaces:]
    for i, line in enumerate(normalized):
        if not line or not js_trim(line):
            continue
        spaces = len(leading_ws(line))
        if spaces > 0 and spaces % 2 != 0:
            normalized[i] = " " * (spaces - 1) + js_trim_start(line)
    return "".join(normalized)


def remove_duplicate_suffix_lines(text: str, ctx: TabbyContext) -> str:
    """From the end, the first line equal to the suffix's first non-blank line (trimmed) from which the
    completion's lines match the suffix's lines: it and what follows are removed."""
    original = text.split("\n")
    suffix_lines = [js_trim(line) for line in ctx.suffix.split("\n")]
    suffix_lines = [line for line in suffix_lines if not is_blank(line)]
    if not suffix_lines:
        return text
    first = suffix_lines[0]
    for i in range(len(original) - 1, -1, -1):
        line = original[i]
        if not is_blank(line) and line == first:
            if all(suffix_lines[j] == original[i + j] for j in range(min(len(suffix_lines), len(original) - i))):
                return "\n".join(original[:i])
    return text


# --- the pipeline -----------------------------------------------------------------------------------------------

Filter = Callable[[str, TabbyContext], str]
PRE_CACHE: list[tuple[str, Filter]] = [
    ("trim_multi_line_in_single_line_mode", trim_multi_line_in_single_line_mode),
    ("remove_line_ends_with_repetition", remove_line_ends_with_repetition),
    ("drop_duplicated", drop_duplicated),
    ("trim_space", trim_space),
    ("drop_minimum", drop_minimum),
]


def post_cache(syntax: bool = False) -> list[tuple[str, Filter]]:
    return [
        ("remove_repetitive_blocks", remove_repetitive_blocks),
        ("remove_repetitive_lines", remove_repetitive_lines),
        ("limit_scope", lambda text, ctx: limit_scope(text, ctx, syntax)),
        ("remove_duplicated_block_closing_line", remove_duplicated_block_closing_line),
        ("format_indentation", format_indentation),
        ("normalize_indentation", normalize_indentation),
        ("drop_duplicated", drop_duplicated),
        ("trim_space", trim_space),
        ("remove_duplicate_suffix_lines", remove_duplicate_suffix_lines),
        ("drop_minimum", drop_minimum),
    ]


def postprocess(text: str, ctx: TabbyContext, syntax: bool = False, min_chars: int = MIN_COMPLETION_CHARS, rules: RuleTracker | None = None) -> str:
    """``preCacheProcess`` then ``postCacheProcess``: the text ("" for the empty item)."""
    rules = rules or RuleTracker()
    for name, step in [*PRE_CACHE, *post_cache(syntax)]:
        text = rules.step(name, text, drop_minimum(text, ctx, min_chars) if name == "drop_minimum" else step(text, ctx))
    return text


def finish(raw: str, ctx: PeerContext, *, tokens: Sequence[str] | None = None, syntax: bool = False, indentation: str | None = "    ") -> PeerResult:
    """What Tabby's VS Code extension inserts for the model output ``raw``."""
    tctx = build_context(ctx.prefix, ctx.suffix, ctx.language, indentation)
    rules = RuleTracker()
    generated = raw
    if tokens is not None:
        generated = rules.step("max_decoding_tokens", raw, "".join(list(tokens)[:MAX_DECODING_TOKENS]))
    text = rules.step("server_stop_words", generated, server_stop(generated, ctx.language, tokens))
    text = postprocess(text, tctx, syntax, rules=rules)
    if is_blank(text):
        return PeerResult("", rules.rule_for(""))
    return PeerResult(text, rules.rule_for(text), tctx.line_end_replace_length)


def own_prompt(prefix: str, suffix: str, filename: str, language: str) -> tuple[str, str]:
    """The prefix and suffix in Tabby's prompt for Qwen2.5-Coder: the last 20 lines before the cursor
    (the cursor line's start included), the 20 lines from the cursor on, starting after the line end
    it replaces, an empty suffix sent as ``\\n``, the whole prompt clipped to 1536 bytes from its start.
    When the clip reaches past ``<|fim_prefix|>``, the real prompt loses that marker; the prefix
    returned is what is left of it (and the suffix is clipped once the prefix is gone). Left out:
    ``filepath`` and ``git_url`` (used only for code search), snippets and declarations from other
    files, which the server would add as comments (``# Path: ...``) before the prefix."""
    tctx = build_context(prefix, suffix, language)
    head = "".join(tctx.prefix_lines[max(len(tctx.prefix_lines) - MAX_PREFIX_LINES, 0) :])
    tail = "".join(tctx.suffix_lines[:MAX_SUFFIX_LINES]) or "\n"
    opening, middle, closing = PROMPT_TEMPLATE.split("{prefix}")[0], "<|fim_suffix|>", "<|fim_middle|>"
    excess = len((opening + head + middle + tail + closing).encode("utf-8")) - MAX_INPUT_LENGTH
    if excess > 0:
        excess -= len(opening.encode("utf-8"))
        head_bytes = head.encode("utf-8")
        if excess < len(head_bytes):
            head = head_bytes[max(excess, 0) :].decode("utf-8", errors="ignore")
        else:
            excess -= len(head_bytes) + len(middle.encode("utf-8"))
            head = ""
            tail = tail.encode("utf-8")[max(excess, 0) :].decode("utf-8", errors="ignore")
    return head, tail


def main() -> None:
    run_cli(finish, own_prompt, __doc__ or "")


if __name__ == "__main__":
    main()
