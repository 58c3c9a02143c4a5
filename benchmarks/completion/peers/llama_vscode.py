"""llama.vscode's fill-in-the-middle completion (and llama.vim's, which it was ported from), as a
function of the model's whole greedy output.

Read from:

* ggml-org/llama.vscode at commit 3938fb3568b98e3ddfcf2ce3dd52d9570552b579:
  ``src/completion.ts`` (``getCompletionItems``: the request, ``shouldDiscardSuggestion``,
  ``updateSuggestion``, ``removeLeadingSpaces``, ``getCompletion``), ``src/utils.ts``
  (``getPrefixLines``, ``getSuffixLines``, ``removeTrailingNewLines``), ``src/llama-server.ts``
  (``createRequestPayload``: ``n_indent`` sent only when non-zero, ``n_predict``, samplers) and
  ``src/configuration.ts`` / ``package.json`` (defaults: n_prefix 256 lines, n_suffix 64 lines,
  n_predict 128 tokens, max_line_suffix 8, ring_n_chunks 16, ring_chunk_size 64, ring_scope 1024).
* ggml-org/llama.cpp, ``tools/server/server-context.cpp`` at commit
  fb4026604c67c682f552337ec9b91eced0abd35a (``process_token``: the ``n_indent`` stop) and
  ``tools/server/server-common.cpp`` at commit aa6192d38defc9a5d9fb2987413f71b18f214270
  (``format_prompt_infill``: how /infill lays out the prompt), read through the code index (the
  repository is too large to fetch whole).
* ggml-org/llama.vim at commit a1c8e6e40cb45df59b78add5b65d575386832465, ``autoload/llama.vim``
  (``s:fim_ctx_local`` and the rendering of the response), for the differences noted below.

What the client does, in order (each step a function below):

1. **Request** (``own_prompt``): ``input_prefix`` is the ``n_prefix`` (256) lines before the cursor's
   line, each ended by ``\\n``; ``prompt`` is the cursor line's text before the cursor, or ``""`` when
   that is only spaces and tabs; ``input_suffix`` is the rest of the cursor's line, ``\\n``, the
   ``n_suffix`` (64) lines after it joined by ``\\n``, and a final ``\\n``. ``n_indent`` is the
   indentation of the whole cursor line (``lineText.length - lineText.trimStart().length``), sent only
   when non-zero. ``n_predict`` is 128 tokens; the time limit ``t_max_predict_ms`` is replaced by that
   token limit here (the benchmark's raw output is capped at 128 tokens).
2. **Server stop at lesser indentation** (``server_indent_stop``, llama.cpp): once a line break has
   been generated, every new line must start with at least ``n_indent`` spaces or tabs; the first
   line that does not (a blank line counts: its first character is the line break) stops generation,
   and the text is cut right after that line's indentation. The server checks one line per generated
   token, so a line completed by the last tokens may go unchecked; this port checks every line of the
   whole output (the same whenever the output has at least as many tokens after a line break as lines).
3. **Split and trim** (``suggestion_lines``): split at ``\\r?\\n``, drop trailing blank lines.
4. **Discard** (``discard_reason``, ``shouldDiscardSuggestion``): no lines; a single blank line; on any
   line but the last: the first line blank or equal (trimmed) to the rest of the cursor line and the
   other lines equal to the lines below the cursor; a single line equal to the rest of the cursor
   line; the cursor line's prefix plus the first line equal to the next non-blank line below, and
   either nothing more, or a second line that is a prefix of the line after that, or further lines equal
   to the lines after it. VS Code's ``document.lineAt`` throws past the last line; the client catches
   the error and shows nothing (rule ``line_at_out_of_range``).
5. **Single line when the cursor line has text after the cursor** (``update_suggestion``): if the rest
   of the cursor line is not blank, only the first line is kept, with that rest cut off its end when
   it ends with it. This is the only single- versus multi-line choice the client makes: otherwise
   the model's lines (as cut by the server's indentation stop) are shown whole.
6. **Leading spaces** (``remove_leading_spaces``): when the cursor line before the cursor is only
   spaces and tabs, up to that many leading spaces are removed (the prompt left them out, so the model
   writes the indentation itself). The source's loop condition reads
   ``i < str.length && i < n && str[i] === ' ' || str[i] === '\\t'``, so leading tabs are removed past
   ``n`` too; ported as written.

Automatic triggering is not started when more than ``max_line_suffix`` (8) characters follow the
cursor (``too_long_line_suffix``); ``finish(..., automatic=True)`` applies that, the default is a
manual request.

Not modelled: the extra context "ring chunks" (up to 16 chunks of 64 lines picked from files opened or
edited lately, and from the current file outside the windows: no other files here), the server's
token budgets (prefix at most 3/4 of ``n_batch``, 1536 tokens by default, suffix at most
``n_batch/4 - 2 - prompt``; applied by ``own_prompt`` only when given a tokenizer), the ``infill``
sampler and top-k/top-p (the benchmark's output is greedy), the cache of earlier completions and
speculative next completions, ``n_cmpl`` parallel completions (greedy gives one).

Where the model's output came from a prompt that kept the cursor line's indentation (qualm's), step 4
and step 6 see an output without it; llama.vscode's own prompt leaves a blank cursor-line prefix out,
so its model writes the indentation and then step 4 compares ``linePrefix + line`` (indentation
counted twice: a quirk of the source). For a faithful replay, generate from ``own_prompt``.

llama.vim (same author, same rules) differs in: a cursor line that is only whitespace is treated as
empty (``n_indent`` 0, prefix and suffix of the line ``""``) and the whitespace the suggestion starts
with is moved into the line; the last line of the suggestion gets the line's suffix appended (it is
displayed over it); the "repeats the next lines" check needs the first line to be exactly empty; and
it never keeps only the first line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from benchmarks.completion.peers.common import PeerContext, PeerResult, RuleTracker, editor_lines, js_trim, js_trim_start, run_cli

N_PREFIX = 256  # lines before the cursor line
N_SUFFIX = 64  # lines after the cursor line
N_PREDICT = 128  # tokens
MAX_LINE_SUFFIX = 8  # characters after the cursor above which automatic triggering is skipped
RING_N_CHUNKS = 16  # extra-context chunks (not available here)
RING_CHUNK_SIZE = 64  # lines per chunk
N_BATCH = 2048  # llama-server's default batch, which sets its /infill prefix and suffix budgets


class _LineOutOfRange(Exception):
    """VS Code's ``TextDocument.lineAt`` with a line number past the end throws; the client's catch
    then shows no suggestion."""


class _Document:
    def __init__(self, ctx: PeerContext):
        self.lines = editor_lines(ctx.prefix + ctx.suffix)
        self.line = len(editor_lines(ctx.prefix)) - 1
        text = self.lines[self.line]
        column = len(editor_lines(ctx.prefix)[-1])
        self.line_text = text
        self.line_prefix = text[:column]
        self.line_suffix = text[column:]

    def line_at(self, i: int) -> str:
        if i < 0 or i >= len(self.lines):
            raise _LineOutOfRange(i)
        return self.lines[i]


def cursor_indent(ctx: PeerContext) -> int:
    """``nindent``: the indentation of the whole cursor line, sent to the server as ``n_indent``."""
    text = _Document(ctx).line_text
    return len(text) - len(js_trim_start(text))


def too_long_line_suffix(ctx: PeerContext) -> bool:
    """An automatic trigger is dropped when more than ``max_line_suffix`` characters follow the cursor."""
    return len(_Document(ctx).line_suffix) > MAX_LINE_SUFFIX


def server_indent_stop(text: str, n_indent: int) -> str:
    """llama-server's ``n_indent`` rule: after the first line, a line indented by fewer than
    ``n_indent`` spaces/tabs (a blank line included) ends the generation, cut after its indentation."""
    if n_indent <= 0:
        return text
    newline = text.find("\n")
    while newline >= 0:
        start = pos = newline + 1
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos < len(text) and pos - start < n_indent:
            return text[:pos]
        newline = text.find("\n", start)
    return text


def suggestion_lines(text: str) -> list[str]:
    """``compl.split(/\\r?\\n/)`` then ``Utils.removeTrailingNewLines``."""
    lines = re.split(r"\r?\n", text)
    while lines and js_trim(lines[-1]) == "":
        lines.pop()
    return lines


def discard_reason(lines: list[str], ctx: PeerContext) -> str | None:
    """``shouldDiscardSuggestion``: the name of the check that discards the suggestion, or None."""
    doc = _Document(ctx)
    try:
        return _discard_reason(lines, doc)
    except _LineOutOfRange:
        return "line_at_out_of_range"


def _discard_reason(lines: list[str], doc: _Document) -> str | None:
    if not lines:
        return "empty"
    if len(lines) == 1 and js_trim(lines[0]) == "":
        return "first_line_blank"
    if doc.line == len(doc.lines) - 1:
        return None  # the cursor is on the last line: never discarded
    if len(lines) > 1 and (js_trim(lines[0]) == "" or js_trim(lines[0]) == js_trim(doc.line_suffix)):
        if all(value == doc.line_at(doc.line + 1 + index) for index, value in enumerate(lines[1:])):
            return "repeats_next_lines"
    if len(lines) == 1 and lines[0] == doc.line_suffix:
        return "repeats_line_suffix"
    first = doc.line + 1
    while first < len(doc.lines) and js_trim(doc.line_at(first)) == "":
        first += 1
    if first >= len(doc.lines):
        return None  # only blank lines to the end of the file
    if doc.line_prefix + lines[0] == doc.line_at(first):
        if len(lines) == 1:
            return "repeats_next_line"
        if len(lines) == 2 and lines[1] == doc.line_at(first + 1)[: len(lines[1])]:
            return "repeats_next_two_lines"
        if len(lines) > 2 and all(value == doc.line_at(first + 1 + index) for index, value in enumerate(lines[1:])):
            return "repeats_following_lines"
    return None


def update_suggestion(lines: list[str], line_suffix: str) -> str:
    """``updateSuggestion``: with text after the cursor, only the first line, the line's rest cut off
    its end; otherwise all lines."""
    if js_trim(line_suffix) != "":
        if lines[0].endswith(line_suffix):
            return lines[0][: len(lines[0]) - len(line_suffix)]
        if len(lines) > 1:
            return lines[0]
    return "\n".join(lines)


def remove_leading_spaces(text: str, n: int) -> str:
    """``removeLeadingSpaces`` with its operator precedence as written: ``(i < len && i < n && s[i] ==
    ' ') || s[i] == '\\t'``."""
    i = 0
    while (i < len(text) and i < n and text[i] == " ") or (i < len(text) and text[i] == "\t"):
        i += 1
    return text[i:]


def finish(raw: str, ctx: PeerContext, *, automatic: bool = False) -> PeerResult:
    """What llama.vscode shows for the model output ``raw`` (the first of its completions)."""
    doc = _Document(ctx)
    if automatic and too_long_line_suffix(ctx):
        return PeerResult("", "max_line_suffix")
    rules = RuleTracker()
    text = rules.step("n_indent", raw, server_indent_stop(raw, cursor_indent(ctx)))
    lines = suggestion_lines(text)
    text = rules.step("remove_trailing_new_lines", text, "\n".join(lines))
    reason = discard_reason(lines, ctx)
    if reason is not None:
        rules.drop(reason, text)
        return PeerResult("", reason)
    text = rules.step("single_line_with_line_suffix", text, update_suggestion(lines, doc.line_suffix))
    spaces = len(doc.line_prefix) if re.fullmatch(r"[ \t]*", doc.line_prefix) else 0
    text = rules.step("remove_leading_spaces", text, remove_leading_spaces(text, spaces))
    return PeerResult(text, rules.rule_for(text))


def own_prompt(prefix: str, suffix: str, filename: str, language: str, *, token_pieces: Callable[[str], list[str]] | None = None) -> tuple[str, str]:
    """The FIM prefix and suffix llama.vscode's request makes llama-server build: ``input_prefix +
    prompt`` and ``input_suffix`` (the line windows above). With ``token_pieces`` (a function that
    splits text into the model's token strings), the server's budgets are applied too: the last
    ``3 * (n_batch // 4)`` tokens of ``input_prefix``, the first ``n_batch // 4 - 2 - len(prompt)``
    tokens of ``input_suffix``. ``filename`` and ``language`` do not enter it (the server writes
    ``filename`` as a placeholder name after ``<|file_sep|>`` when the model has repository tokens)."""
    ctx = PeerContext(prefix, suffix, language)
    doc = _Document(ctx)
    before = doc.lines[max(0, doc.line - N_PREFIX) : doc.line]
    after = doc.lines[doc.line + 1 : min(len(doc.lines) - 1, doc.line + N_SUFFIX) + 1]
    prompt = "" if re.fullmatch(r"[ \t]*", doc.line_prefix) else doc.line_prefix
    input_prefix = "\n".join(before) + "\n"
    input_suffix = doc.line_suffix + "\n" + "\n".join(after) + "\n"
    if token_pieces is not None:
        prefix_pieces = token_pieces(input_prefix)
        suffix_pieces = token_pieces(input_suffix)
        prompt_pieces = token_pieces(prompt) if prompt else []
        take_prefix = min(len(prefix_pieces), 3 * (N_BATCH // 4))
        take_suffix = min(len(suffix_pieces), max(0, N_BATCH // 4 - (2 + len(prompt_pieces))))
        input_prefix = "".join(prefix_pieces[len(prefix_pieces) - take_prefix :])
        input_suffix = "".join(suffix_pieces[:take_suffix])
    return input_prefix + prompt, input_suffix


def main() -> None:
    run_cli(finish, own_prompt, __doc__ or "")


if __name__ == "__main__":
    main()
