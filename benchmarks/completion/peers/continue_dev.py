"""Continue's tab autocomplete, as a function of the model's whole greedy output.

Read from continuedev/continue at commit d0a3c0b626b5bebc3bef4742eec05a0242be0bab:

* ``core/autocomplete/CompletionProvider.ts`` (the order of the steps below; ``transform`` is on by
  default), ``core/util/parameters.ts`` (``DEFAULT_AUTOCOMPLETE_OPTS``: maxPromptTokens 1024,
  prefixPercentage 0.3, maxSuffixPercentage 0.2, multilineCompletions "auto"),
* ``core/autocomplete/classification/shouldCompleteMultiline.ts`` (the multi-line decision),
* ``core/autocomplete/generation/GeneratorReuseManager.ts`` (single-line mode: the stream is cut at
  its first line break) and ``generation/CompletionStreamer.ts``,
* ``core/autocomplete/filtering/streamTransforms/StreamTransformPipeline.ts`` (which filters run, in
  which order), ``streamTransforms/charStream.ts`` (``stopAtStopTokens``, ``stopAtStartOf``, and the
  unused ``onlyWhitespaceAfterEndOfLine``, ``noFirstCharNewline``), ``streamTransforms/lineStream.ts``
  (``stopAtLines``, ``validatePatternInLine``, ``stopAtLinesExact``, ``stopAtRepeatingLines``,
  ``avoidEmptyComments``, ``avoidPathLine``, ``skipPrefixes``, ``noDoubleNewLine``,
  ``stopAtSimilarLine``, ``lineIsRepeated``, ``streamWithNewLines``, and the unused
  ``noTopLevelKeywordsMidline``), ``core/diff/util.ts`` (``streamLines``),
* ``core/autocomplete/filtering/BracketMatchingService.ts`` (``stopOnUnmatchedClosingBracket``, a
  character filter of JSON files only),
* ``core/autocomplete/constants/AutocompleteLanguageInfo.ts`` (comment markers, the YAML line filters,
  the JSON character filter, Markdown's multi-line rule, ``languageForFilepath``),
* ``core/autocomplete/templating/getStopTokens.ts``, ``templating/AutocompleteTemplate.ts`` (the
  Qwen-coder and stable-code templates and their stop words), ``templating/index.ts``,
  ``templating/formatting.ts`` (the file-path comment header), ``util/HelperVars.ts`` and
  ``core/llm/countTokens.ts`` (``pruneLinesFromTop``/``pruneLinesFromBottom``),
* ``core/autocomplete/postprocessing/index.ts`` (``postprocessCompletion``) and ``core/util/lcs.ts``,
* ``extensions/vscode/src/autocomplete/completionProvider.ts`` and
  ``core/autocomplete/util/processSingleLineCompletion.ts`` (how the VS Code extension places the
  outcome: a one-line outcome through a word diff with the rest of the line, a multi-line outcome
  replacing the rest of the line), with the word diff of kpdecker/jsdiff v8.0.3 (``common.diff_words``).

The steps of ``finish`` (each a small function below; ``complete`` is Continue's core, whose outcome
Continue's own end-to-end tests check, ``finish`` adds the VS Code extension's placement):

1. multi-line or not (``should_complete_multiline``): always, except when the cursor line starts
   with the language's line comment, and Markdown's list/heading/quote lines;
2. single-line mode cuts the output at its first line break (``single_line_cut``);
3. character filters: ``stop_at_stop_tokens`` (the template's stop words, ``/src/``,
   ``#- coding: utf-8``, three backticks, ``diff --git``; a stop word left in the last characters is
   removed rather than cut at), ``stop_at_start_of`` (the output reaching the start of the suffix),
   and for JSON ``stop_on_unmatched_closing_bracket``;
4. line filters, in the pipeline's order: ``stream_lines`` (a final line break is dropped),
   ``stop_at_lines``, ``stop_at_lines_exact`` (the next non-blank line below the cursor),
   ``stop_at_repeating_lines``, ``avoid_empty_comments``, ``avoid_path_line``, ``skip_prefixes``,
   ``no_double_new_line``, the YAML filters, ``stop_at_similar_line``; then ``"\\n".join``;
5. ``postprocess_completion``: nothing blank, not a rewrite of the line above, not an extreme
   repetition, the model-specific fixes, a space not doubled, code fences removed;
6. in VS Code, a one-line outcome goes through ``process_single_line_completion`` (a word diff
   with the rest of the cursor line decides whether it replaces it, or only its first inserted part
   is kept); a multi-line outcome replaces the rest of the cursor line.

The stream is treated as it reaches the filters: ``stopAtStopTokens`` re-emits it one character at a
time, so ``stopAtStartOf`` (the only filter whose result depends on chunking) sees single characters
whatever the model's tokens, and its final buffer as one chunk. Single-line mode's cut and the stop
words do not depend on chunking either, so a function of the whole output is exact.

Not modelled: ``showWhateverWeHaveAtXMs`` and ``stopAfterMaxProcessingTime`` (timing), the cache of
earlier completions and the reuse of a pending generator, snippets from other files (none here),
selected IntelliSense items, and VS Code's ``completeBracketPairs`` on the item (a proposed API).
Unused at this commit and so not in ``finish``, but ported as named functions:
``only_whitespace_after_end_of_line``, ``no_first_char_newline``, ``no_top_level_keywords_midline``.
Templates other than Qwen-coder's and stable-code's (the fallback for unknown model names) are not
ported; ``finish(..., model=...)`` picks between those two and applies the model-specific fixes of
``postprocessCompletion`` by name.

``ctx.language`` is "python", "javascript" or "typescript", or a file extension Continue knows (its
language table is ported whole so that its end-to-end tests in other languages can run); anything
else is TypeScript, as in ``languageForFilepath``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from benchmarks.completion.peers.common import (
    JS_WHITESPACE,
    PeerContext,
    PeerResult,
    RuleTracker,
    diff_words,
    editor_lines,
    js_trim,
    js_trim_end,
    js_trim_start,
    levenshtein,
    run_cli,
)

MODEL = "qwen2.5-coder"  # the model name Continue is configured with: picks the template and the model-specific fixes
MAX_PROMPT_TOKENS = 1024
PREFIX_PERCENTAGE = 0.3
MAX_SUFFIX_PERCENTAGE = 0.2

# --- languages (AutocompleteLanguageInfo.ts) ---------------------------------------------------------


@dataclass(frozen=True)
class Language:
    name: str
    top_level_keywords: tuple[str, ...]
    single_line_comment: str | None
    end_of_line: tuple[str, ...]


TYPESCRIPT = Language("TypeScript", ("function", "class", "module", "export", "import"), "//", (";",))
JAVASCRIPT = Language("JavaScript", ("function", "class", "module", "export", "import"), "//", (";",))
PYTHON = Language("Python", ("def", "class", '"""#'), "#", ())
YAML = Language("YAML", (), "#", ())
JSON = Language("JSON", (), "//", (",", "}", "]"))
MARKDOWN = Language("Markdown", (), "", ())
_OTHERS = {
    "java": Language("Java", ("class", "function"), "//", (";",)),
    "cpp": Language("C++", ("class", "namespace", "template"), "//", (";",)),
    "cs": Language("C#", ("class", "namespace", "void"), "//", (";",)),
    "c": Language("C", ("if", "else", "while", "for", "switch", "case"), "//", (";",)),
    "scala": Language("Scala", ("def", "val", "var", "class", "object", "trait"), "//", (";",)),
    "go": Language("Go", ("func", "package", "import", "type"), "//", ()),
    "rs": Language("Rust", ("fn", "mod", "pub", "struct", "enum", "trait"), "//", (";",)),
    "hs": Language("Haskell", ("data", "type", "newtype", "class", "instance", "let", "in", "where"), "--", ()),
    "php": Language("PHP", ("function", "class", "namespace", "use"), "//", (";",)),
    "rails": Language("Ruby on Rails", ("def", "class", "module"), "#", ()),
    "swift": Language("Swift", ("func", "class", "struct", "import"), "//", (";",)),
    "kt": Language("Kotlin", ("fun", "class", "package", "import"), "//", (";",)),
    "rb": Language("Ruby", ("class", "module", "def"), "#", ()),
    "clj": Language("Clojure", ("def", "fn", "let", "do", "if", "defn", "ns", "defmacro"), ";", ()),
    "jl": Language("Julia", ("function", "macro", "if", "else", "elseif", "while", "for", "begin", "end", "module"), "#", (";",)),
    "fs": Language("F#", ("let", "type", "module", "namespace", "open", "if", "then", "else", "match", "with"), "//", ()),
    "r": Language("R", ("function", "if", "else", "for", "while", "repeat", "library", "require"), "#", ()),
    "dart": Language("Dart", ("class", "import", "void", "enum"), "//", (";",)),
    "sol": Language("Solidity", ("contract", "event", "modifier", "function", "constructor", "for", "require", "emit", "interface", "error", "library", "struct", "enum", "type"), "//", (";",)),
    "lua": Language("Lua", ("function",), "--", ()),
}
LANGUAGES_BY_EXTENSION: dict[str, Language] = {
    "ts": TYPESCRIPT, "js": JAVASCRIPT, "tsx": TYPESCRIPT, "json": JSON, "jsx": TYPESCRIPT, "ipynb": PYTHON, "py": PYTHON, "pyi": PYTHON,
    "java": _OTHERS["java"], "cpp": _OTHERS["cpp"], "cxx": _OTHERS["cpp"], "h": _OTHERS["cpp"], "hpp": _OTHERS["cpp"], "cs": _OTHERS["cs"], "c": _OTHERS["c"],
    "scala": _OTHERS["scala"], "sc": _OTHERS["scala"], "go": _OTHERS["go"], "rs": _OTHERS["rs"], "hs": _OTHERS["hs"], "php": _OTHERS["php"], "rb": _OTHERS["rb"],
    "rails": _OTHERS["rails"], "swift": _OTHERS["swift"], "kt": _OTHERS["kt"], "clj": _OTHERS["clj"], "cljs": _OTHERS["clj"], "cljc": _OTHERS["clj"],
    "jl": _OTHERS["jl"], "fs": _OTHERS["fs"], "fsi": _OTHERS["fs"], "fsx": _OTHERS["fs"], "fsscript": _OTHERS["fs"], "r": _OTHERS["r"], "R": _OTHERS["r"],
    "dart": _OTHERS["dart"], "sol": _OTHERS["sol"], "yaml": YAML, "yml": YAML, "md": MARKDOWN, "lua": _OTHERS["lua"], "luau": _OTHERS["lua"],
}  # fmt: skip
_NAMES = {"python": "py", "javascript": "js", "typescript": "ts"}


def language_info(language: str) -> Language:
    """``languageForFilepath``: a qualm language name or a file extension; TypeScript otherwise."""
    return LANGUAGES_BY_EXTENSION.get(_NAMES.get(language, language), TYPESCRIPT)


# --- templates and stop words (AutocompleteTemplate.ts, getStopTokens.ts) -------------------------------

QWEN_CODER_STOPS = ("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<|im_start|>", "<|im_end|>")
STABLE_CODE_STOPS = ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|endoftext|>", "</fim_middle>", "</code>")
COMMON_STOPS = ("/src/", "#- coding: utf-8", "```")
STARCODER2_T_ARTIFACTS = ("t.", "\nt", "<file_sep>")
STOP_AT_PATTERNS = ("diff --git",)  # StreamTransformPipeline.ts


def is_qwen_coder(model: str) -> bool:
    lower = model.lower()
    return "qwen" in lower and "coder" in lower and "mercury" not in lower


def stop_tokens(model: str) -> list[str]:
    """``getStopTokens``: the template's stop words, the common ones, Starcoder2's artifacts."""
    template = QWEN_CODER_STOPS if is_qwen_coder(model) else STABLE_CODE_STOPS
    return [*template, *COMMON_STOPS, *(STARCODER2_T_ARTIFACTS if "starcoder2" in model.lower() else ())]


# --- the multi-line decision ---------------------------------------------------------------------------


def markdown_use_multiline(prefix: str) -> bool:
    """Markdown's ``useMultiline``: one line after a list item, a numbered item, a quote, a fence or a heading."""
    current = prefix.split("\n")[-1]
    if not current:
        return True
    current = js_trim(current)
    for starter in ("- ", "* ", "> ", "```"):
        if current.startswith(starter):
            return False
    return not (re.match(r"\d+\. ", current) or re.match(r"#{1,6} ", current))


def should_complete_multiline(ctx: PeerContext) -> bool:
    """``shouldCompleteMultiline`` with multilineCompletions "auto" and no IntelliSense item selected."""
    lang = language_info(ctx.language)
    comment = lang.single_line_comment
    if comment and js_trim_start(ctx.prefix.split("\n")[-1]).startswith(comment):
        return False
    if lang is MARKDOWN:
        return markdown_use_multiline(ctx.prefix)
    return True


def single_line_cut(text: str) -> str:
    """GeneratorReuseManager: "Break at newline unless we are in multiline mode"."""
    newline = text.find("\n")
    return text if newline < 0 else text[:newline]


# --- character filters (charStream.ts, BracketMatchingService.ts) -----------------------------------------


def stop_at_stop_tokens(text: str, tokens: Iterable[str]) -> str:
    """``stopAtStopTokens``: cut where a stop word starts, checked while at least the longest stop word's
    length is left; in the last characters, the first occurrence of each stop word is removed instead."""
    tokens = list(tokens)
    if not tokens:
        return text
    longest = max(len(t) for t in tokens)
    i = 0
    while len(text) - i >= longest:
        if any(text.startswith(t, i) for t in tokens):
            return text[:i]
        i += 1
    rest = text[i:]
    for t in tokens:
        rest = rest.replace(t, "", 1)
    return text[:i] + rest


def stop_at_start_of(chunks: list[str], suffix: str, sequence_length: int = 20) -> list[str]:
    """``stopAtStartOf``: stop when the last ``sequence_length`` (+ one chunk) characters are found in the
    first 30 characters of the suffix (trimmed at its start). Returns the chunks it yields."""
    if len(suffix) < sequence_length:
        return chunks
    target = js_trim_start(suffix)[: math.floor(sequence_length * 1.5)]
    out: list[str] = []
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        if len(buffer) >= sequence_length and buffer in target:
            return out
        while len(buffer) > sequence_length:
            out.append(buffer[0])
            buffer = buffer[1:]
    if buffer:
        out.append(buffer)
    return out


BRACKETS = {"(": ")", "{": "}", "[": "]"}
BRACKETS_REVERSE = {")": "(", "}": "{", "]": "["}


def stop_on_unmatched_closing_bracket(chunks: list[str], prefix: str, suffix: str, multiline: bool) -> str:
    """``BracketMatchingService.stopOnUnmatchedClosingBracket`` on a new service (as the JSON filter
    makes one per request): stop before a closing bracket that no bracket of the output (or, in
    single-line mode, of the cursor line; or, for closers at the start of the suffix, of the suffix)
    opened. Closing brackets before the first other character are let through."""
    stack: list[str] = []
    if not multiline:
        current = prefix.split("\n")[-1] + suffix.split("\n")[0]
        for char in current:
            if char in BRACKETS:
                stack.append(char)
            elif char in BRACKETS_REVERSE and (not stack or BRACKETS[stack.pop()] != char):
                break
    for char in suffix:
        if char == " ":
            continue
        opening = BRACKETS_REVERSE.get(char)
        if opening is None:
            break
        stack.insert(0, opening)
    out = ""
    seen = False
    for chunk in chunks:
        if not seen:
            match = re.search(r"[^" + re.escape(JS_WHITESPACE) + r")}\]]", chunk)
            if match is None:
                out += chunk
                continue
            out += chunk[: match.start()]
            chunk = chunk[match.start() :]
            seen = True
        for i, char in enumerate(chunk):
            if char in BRACKETS_REVERSE:
                if not stack or BRACKETS[stack.pop()] != char:
                    return out + chunk[:i]
            elif char in BRACKETS:
                stack.append(char)
        out += chunk
    return out


def only_whitespace_after_end_of_line(chunks: list[str], end_of_line: Iterable[str]) -> str:
    """``onlyWhitespaceAfterEndOfLine`` (not in the pipeline at this commit): stop after an end-of-line
    character (``;``) that a non-whitespace character follows."""
    end_of_line = list(end_of_line)
    out = ""
    pending = ""
    for chunk in chunks:
        chunk = pending + chunk
        pending = ""
        for i in range(len(chunk) - 1):
            if chunk[i] in end_of_line and js_trim(chunk[i + 1]) == chunk[i + 1]:
                return out + chunk[: i + 1]
        if chunk and chunk[-1] in end_of_line:
            pending = chunk[-1]
            out += chunk[:-1]
        else:
            out += chunk
    return out + pending


def no_first_char_newline(chunks: list[str]) -> str:
    """``noFirstCharNewline`` (not in the pipeline at this commit): nothing when the first chunk starts a new line."""
    if chunks and (chunks[0].startswith("\n") or chunks[0].startswith("\r")):
        return ""
    return "".join(chunks)


# --- line filters (lineStream.ts) --------------------------------------------------------------------------

LINES_TO_STOP_AT = ("# End of file.", "<STOP EDITING HERE", "<|/updated_code|>", "```")
PREFIXES_TO_SKIP = ("<COMPLETION>",)
BRACKET_ENDING_CHARS = (")", "]", "}", ";")


def stream_lines(text: str) -> list[str]:
    """``streamLines``: split at ``\\n``; an empty remainder after the last break is not a line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def validate_pattern_in_line(line: str, pattern: str) -> tuple[bool, int, str]:
    """``validatePatternInLine``: (is valid, index, text before it). Not valid when glued to a preceding
    non-space character or after an odd number of quotes."""
    index = line.find(pattern)
    if index == -1:
        return False, -1, ""
    if index > 0 and line[index - 1] not in JS_WHITESPACE:
        return False, index, ""
    before = line[:index]
    if before.count("'") % 2 != 0 or before.count('"') % 2 != 0:
        return False, index, before
    return True, index, before


def stop_at_lines(lines: list[str], stops: Iterable[str] = LINES_TO_STOP_AT) -> list[str]:
    """``stopAtLines``: stop at a line holding a stop phrase at its start or after whitespace."""
    stops = list(stops)
    for n, line in enumerate(lines):
        for stop in stops:
            if stop not in line:
                continue
            valid, _, before = validate_pattern_in_line(line, stop)
            if not valid:
                continue
            if js_trim_start(line).startswith(stop) or len(js_trim_end(before)) < len(before):
                return lines[:n]
    return lines


def stop_at_lines_exact(lines: list[str], stops: Iterable[str]) -> list[str]:
    """``stopAtLinesExact``: stop at a line equal to one of ``stops``."""
    stops = list(stops)
    for n, line in enumerate(lines):
        if line in stops:
            return lines[:n]
    return lines


def stop_at_repeating_lines(lines: list[str]) -> list[str]:
    """``stopAtRepeatingLines``: a line equal to the one before is dropped; the third in a row stops."""
    out: list[str] = []
    previous: str | None = None
    count = 0
    for line in lines:
        if line == previous:
            count += 1
            if count == 3:
                return out
        else:
            out.append(line)
            count = 1
        previous = line
    return out


def avoid_empty_comments(lines: list[str], comment: str | None) -> list[str]:
    """``avoidEmptyComments``: drop lines that are only the comment marker."""
    return [line for line in lines if not comment or js_trim(line) != comment]


def avoid_path_line(lines: list[str], comment: str | None) -> list[str]:
    """``avoidPathLine``: drop lines starting ``<comment> Path: `` (copies of Continue's snippet headers;
    JavaScript writes an absent marker as "undefined")."""
    marker = f"{'undefined' if comment is None else comment} Path: "
    return [line for line in lines if not line.startswith(marker)]


def skip_prefixes(lines: list[str]) -> list[str]:
    """``skipPrefixes``: ``<COMPLETION>`` removed from the start of the first lines that have it."""
    out = []
    first = True
    for line in lines:
        if first:
            match = next((p for p in PREFIXES_TO_SKIP if line.startswith(p)), None)
            if match is not None:
                out.append(line[len(match) :])
                continue
            first = False
        out.append(line)
    return out


def no_double_new_line(lines: list[str]) -> list[str]:
    """``noDoubleNewLine``: stop at the first blank line that is not the first line."""
    out = []
    for n, line in enumerate(lines):
        if js_trim(line) == "" and n > 0:
            return out
        out.append(line)
    return out


def yaml_one_list_item(lines: list[str]) -> list[str]:
    """YAML's first line filter: "Only display one list item at a time"."""
    out = []
    seen = False
    for line in lines:
        if js_trim(line).startswith("- "):
            if seen:
                return out
            seen = True
        out.append(line)
    return out


def yaml_no_repeated_key(lines: list[str]) -> list[str]:
    """YAML's second line filter: "Don't allow consecutive lines of same key"."""
    out = []
    last_key = None
    for line in lines:
        if ":" in line:
            key = line.split(":")[0]
            if key == last_key:
                return out
            out.append(line)
            last_key = key
        else:
            out.append(line)
    return out


def line_is_repeated(a: str, b: str) -> bool:
    """``lineIsRepeated``: both longer than 4 characters and, trimmed, within 10% of ``b``'s length."""
    if len(a) <= 4 or len(b) <= 4:
        return False
    a_trim, b_trim = js_trim(a), js_trim(b)
    if not b_trim:
        return False  # JavaScript: distance / 0 is NaN or Infinity, never below 0.1
    return levenshtein(a_trim, b_trim) / len(b_trim) < 0.1


def _is_bracket_ending(line: str) -> bool:
    return any(char in BRACKET_ENDING_CHARS for char in js_trim(line))


def stop_at_similar_line(lines: list[str], line: str) -> list[str]:
    """``stopAtSimilarLine``: stop at a line equal or similar (``line_is_repeated``) to ``line`` (the next
    non-blank line below the cursor); a line ending in a bracket may repeat it when equal trimmed."""
    trimmed = js_trim(line)
    bracket_ending = _is_bracket_ending(trimmed)
    out = []
    for next_line in lines:
        if trimmed == "":
            out.append(next_line)
            continue
        if bracket_ending and trimmed == js_trim(next_line):
            out.append(next_line)
            continue
        if next_line == line or line_is_repeated(next_line, trimmed):
            return out
        out.append(next_line)
    return out


def no_top_level_keywords_midline(lines: list[str], keywords: Iterable[str]) -> list[str]:
    """``noTopLevelKeywordsMidline`` (not in the pipeline at this commit): cut a line before a top-level
    keyword glued to something, then stop (its source yields the whole line once more before stopping)."""
    keywords = list(keywords)
    out = []
    for line in lines:
        for keyword in keywords:
            index = line.find(f"{keyword} ")
            if index >= 0 and js_trim(line[index - 1 : index] if index > 0 else "") != "":
                out.append(line[:index])
                out.append(line)
                return out
        out.append(line)
    return out


def line_below_cursor(ctx: PeerContext) -> str:
    """``getLineBelowCursor``: the first non-blank line after the cursor's line (or the last line)."""
    lines = (ctx.prefix + ctx.suffix).split("\n")
    line = len(ctx.prefix.split("\n")) - 1
    below = ""
    i = 1
    while js_trim(below) == "" and line + i <= len(lines) - 1:
        below = lines[min(line + i, len(lines) - 1)]
        i += 1
    return below


# --- post-processing (postprocessing/index.ts) ---------------------------------------------------------------


def longest_common_subsequence(a: str, b: str) -> str:
    """``core/util/lcs.ts``, with its tie-breaking."""
    lengths = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            lengths[i][j] = lengths[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(lengths[i - 1][j], lengths[i][j - 1])
    result = ""
    x, y = len(a), len(b)
    while x != 0 and y != 0:
        if lengths[x][y] == lengths[x - 1][y]:
            x -= 1
        elif lengths[x][y] == lengths[x][y - 1]:
            y -= 1
        else:
            result = a[x - 1] + result
            x -= 1
            y -= 1
    return result


def rewrites_line_above(completion: str, prefix: str) -> bool:
    """The first non-blank line of the completion repeats the last non-blank line of the prefix."""
    above = [line for line in prefix.split("\n") if len(js_trim(line)) > 0]
    if not above:
        return False
    first = next((line for line in completion.split("\n") if len(js_trim(line)) > 0), None)
    if first is None:
        return False
    return line_is_repeated(above[-1], first)


def is_extreme_repetition(completion: str) -> bool:
    """Six or more lines of which most share a long common subsequence with the first."""
    lines = completion.split("\n")
    if len(lines) < 6:
        return False
    for freq in range(1, 3):
        lcs = longest_common_subsequence(lines[0], lines[freq])
        if len(lcs) > 5 or len(lcs) > len(lines[0]) * 0.5:
            matches = sum(1 for i in range(0, len(lines), freq) if lcs in lines[i])
            if matches * freq > 8 or (matches * freq) / len(lines) > 0.8:
                return True
    return False


def remove_backticks(completion: str) -> str:
    """``removeBackticks``: a first line opening a code fence and a last line of only backticks go."""
    lines = completion.split("\n")
    start, end = 0, len(lines)
    if js_trim(lines[0]).startswith("```"):
        start = 1
    if len(lines) > start:
        last = js_trim(lines[-1])
        if last and re.fullmatch(r"`+", last):
            end = len(lines) - 1
    if start > 0 or end < len(lines):
        return "\n".join(lines[start:end])
    return completion


def postprocess_completion(completion: str, prefix: str, suffix: str, model: str = MODEL) -> tuple[str | None, str | None]:
    """``postprocessCompletion``: (the completion or None, the rule that changed or rejected it)."""
    if len(js_trim(completion)) == 0:
        return None, "blank"
    if rewrites_line_above(completion, prefix):
        return None, "rewrites_line_above"
    if is_extreme_repetition(completion):
        return None, "extreme_repetition"
    original = completion
    name = model  # the source tests llm.model.includes(...), case-sensitive
    if "codestral" in name:
        if completion[:1] == " " and completion[1:2] != " " and prefix.endswith(" ") and suffix.startswith("\n"):
            completion = completion[1:]
        if len(suffix) == 0 and prefix.endswith("\n\n") and completion.startswith("\n"):
            completion = completion[1:]
    if "qwen3" in name:
        completion = re.sub(r"<think>.*?</think>", "", completion, count=1, flags=re.S)
        completion = completion.replace("</think>", "", 1)
        completion = re.sub(r"^\n+|\n+$", "", completion)
    if "granite" in name:
        prefix_end = prefix.split("\n")[-1]
        if prefix_end:
            if completion.startswith(prefix_end):
                completion = completion[len(prefix_end) :]
            else:
                trimmed = js_trim(prefix_end)
                last_word = re.split(f"[{re.escape(JS_WHITESPACE)}]+", trimmed)[-1]
                if last_word and completion.startswith(last_word):
                    completion = completion[len(last_word) :]
                elif completion.startswith(trimmed):
                    completion = completion[len(trimmed) :]
    if "mercury" in name and (completion.startswith("  ") or completion.startswith("\t")) and not prefix.endswith("\n") and (suffix.startswith("\n") or len(js_trim(suffix)) == 0):
        completion = "\n" + completion
    if ("gemini" in name or "gemma" in name) and completion.endswith("<|file_separator|>"):
        completion = completion[:-18]
    rule = "model_specific" if completion != original else None
    if prefix.endswith(" ") and completion.startswith(" "):
        completion = completion[1:]
        rule = rule or "no_double_space"
    fenced = remove_backticks(completion)
    if fenced != completion:
        rule = rule or "remove_backticks"
    return fenced, rule


# --- VS Code's placement (processSingleLineCompletion.ts) -------------------------------------------------


def process_single_line_completion(completion: str, current_text: str, cursor: int) -> tuple[str, tuple[int, int] | None]:
    """``processSingleLineCompletion``: the text to insert and the replaced range of the line (start,
    end columns), from the word diff of the rest of the line (``current_text``) and the completion."""
    diffs = diff_words(current_text, completion)
    kinds = "".join("+" if d.added else "-" if d.removed else "=" for d in diffs)
    if kinds == "+":
        return completion, None
    if kinds in ("+=", "+=+"):
        return completion, (cursor, len(current_text) + cursor)
    if kinds in ("+-", "-+"):
        return completion, None
    if diffs and diffs[0].added:
        return diffs[0].value, None
    return completion, None


# --- the whole pipeline ------------------------------------------------------------------------------------


def complete(raw: str, ctx: PeerContext, *, model: str = MODEL) -> tuple[str | None, str | None]:
    """Continue's core (``CompletionProvider.provideInlineCompletionItems``): its outcome's completion
    (None when it shows nothing) and the rule that cut or dropped it."""
    completion, rules = _complete(raw, ctx, model)
    return completion, rules.rule_for(completion or "")


def _complete(raw: str, ctx: PeerContext, model: str) -> tuple[str | None, RuleTracker]:
    lang = language_info(ctx.language)
    rules = RuleTracker()
    multiline = should_complete_multiline(ctx)
    text = raw if multiline else rules.step("single_line", raw, single_line_cut(raw))
    suffix = ctx.suffix if ctx.suffix != "" else "\n"
    text = rules.step("stop_at_stop_tokens", text, stop_at_stop_tokens(text, [*stop_tokens(model), *STOP_AT_PATTERNS]))
    chunks = stop_at_start_of(list(text), suffix)
    text = rules.step("stop_at_start_of", text, "".join(chunks))
    if lang is JSON:
        text = rules.step("stop_on_unmatched_closing_bracket", text, stop_on_unmatched_closing_bracket(chunks, ctx.prefix, suffix, multiline))
    lines = stream_lines(text)
    text = rules.step("stream_lines", text, "\n".join(lines))
    below = line_below_cursor(ctx)
    comment = lang.single_line_comment
    line_filters: list[tuple[str, Callable[[list[str]], list[str]]]] = [
        ("stop_at_lines", stop_at_lines),
        ("stop_at_lines_exact", lambda ls: stop_at_lines_exact(ls, [below]) if js_trim(below) != "" else ls),
        ("stop_at_repeating_lines", stop_at_repeating_lines),
        ("avoid_empty_comments", lambda ls: avoid_empty_comments(ls, comment)),
        ("avoid_path_line", lambda ls: avoid_path_line(ls, comment)),
        ("skip_prefixes", skip_prefixes),
        ("no_double_new_line", no_double_new_line),
    ]
    if lang is YAML:
        line_filters += [("yaml_one_list_item", yaml_one_list_item), ("yaml_no_repeated_key", yaml_no_repeated_key)]
    line_filters.append(("stop_at_similar_line", lambda ls: stop_at_similar_line(ls, below)))
    for name, line_filter in line_filters:
        lines = line_filter(lines)
        text = rules.step(name, text, "\n".join(lines))
    processed, rule = postprocess_completion(text, ctx.prefix, ctx.suffix, model)
    if processed is None:
        rules.drop(rule or "postprocess", text)
        return None, rules
    processed = rules.step(rule or "postprocess", text, processed)
    return processed or None, rules


def finish(raw: str, ctx: PeerContext, *, model: str = MODEL) -> PeerResult:
    """What Continue's VS Code extension inserts for the model output ``raw``."""
    completion, rules = _complete(raw, ctx, model)
    if completion is None:
        return PeerResult("", rules.rule_for(""))
    rest_of_line = editor_lines(ctx.suffix)[0]
    if len(completion.split("\n")) <= 1:
        column = len(editor_lines(ctx.prefix)[-1])
        text, span = process_single_line_completion(completion.split("\n")[-1], rest_of_line, column)
        text = rules.step("single_line_diff", completion, text)
        return PeerResult(text, rules.rule_for(text), 0 if span is None else span[1] - span[0])
    return PeerResult(completion, rules.rule_for(completion), len(rest_of_line))


# --- its own prompt ------------------------------------------------------------------------------------------


def prune_lines_from_top(text: str, max_tokens: float, count_tokens: Callable[[str], int]) -> str:
    """``pruneLinesFromTop``: whole lines dropped from the top until the count (a token per line break
    included) fits."""
    lines = text.split("\n")
    counts = [count_tokens(line) for line in lines]
    total = sum(counts) + max(0, len(lines) - 1)
    start = 0
    while total > max_tokens and start < len(lines):
        total -= counts[start]
        if len(lines) - start > 1:
            total -= 1
        start += 1
    return "\n".join(lines[start:])


def prune_lines_from_bottom(text: str, max_tokens: float, count_tokens: Callable[[str], int]) -> str:
    """``pruneLinesFromBottom``: whole lines dropped from the bottom until the count fits."""
    lines = text.split("\n")
    counts = [count_tokens(line) for line in lines]
    total = sum(counts) + max(0, len(lines) - 1)
    end = len(lines)
    while total > max_tokens and end > 0:
        end -= 1
        total -= counts[end]
        if end > 0:
            total -= 1
    return "\n".join(lines[:end])


def _estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 3.2)


def own_prompt(prefix: str, suffix: str, filename: str, language: str, *, model: str = MODEL, count_tokens: Callable[[str], int] | None = None) -> tuple[str, str]:
    """The prefix and suffix Continue puts in its FIM template, with its default budgets: the prefix
    pruned from the top to 30% of 1024 tokens, the suffix pruned from the bottom to the lesser of 20%
    of 1024 and what the prefix left, an empty suffix sent as ``\\n``. For a Qwen-coder model (the
    default) with no snippets from other files, that is all; for the stable-code template (other model
    names) the prefix starts with the file's path as a comment (``\\n# dir/file.py\\n``).

    Continue counts tokens with the model family's tokenizer (llama-tokenizer-js or tiktoken); pass
    ``count_tokens`` for the real count, else one token per 3.2 characters is assumed. Left out: the
    snippets (other open files, recent edits, imports, LSP definitions, clipboard; none here) and the
    Qwen repository header that comes with them (``<|repo_name|>``, ``<|file_sep|>``)."""
    count = count_tokens or _estimate_tokens
    pruned_prefix = prune_lines_from_top(prefix, MAX_PROMPT_TOKENS * PREFIX_PERCENTAGE, count)
    max_suffix = min(MAX_PROMPT_TOKENS - count(pruned_prefix), MAX_SUFFIX_PERCENTAGE * MAX_PROMPT_TOKENS)
    pruned_suffix = prune_lines_from_bottom(suffix, max_suffix, count)
    if pruned_suffix == "":
        pruned_suffix = "\n"
    if is_qwen_coder(model):
        return pruned_prefix, pruned_suffix
    comment = language_info(language).single_line_comment
    path = "/".join(filename.replace("\\", "/").split("/")[-2:])
    header = "\n".join(f"{comment} {line}" for line in js_trim(path).split("\n"))
    return "\n".join(["\n" + header, pruned_prefix]), pruned_suffix


def main() -> None:
    run_cli(finish, own_prompt, __doc__ or "")


if __name__ == "__main__":
    main()
