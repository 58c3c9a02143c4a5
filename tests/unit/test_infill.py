"""Fill-in-the-middle completions without a model (issue 46): where a completion stops, what the
stream holds back, the prompt's windows and token layout, and the context from other documents."""

from __future__ import annotations

from qualm.engine.completion_end import CompletionEnd
from qualm.engine.context_chunks import OpenDocument, context_chunks
from qualm.engine.infill import PREFIX_STEP, InfillBudget, fit_chunks, infill_context
from qualm.model import fim
from qualm.model.text_stream import TextStream, TokenStats
from qualm.prompts import ContextChunk, InfillPrompt

FUNCTION = "def total(items):\n    t = 0\n    \n    return t\n"
CURSOR = FUNCTION.index("    \n") + 4  # on the empty line, after its indentation


def _stream(end: CompletionEnd, pieces: list[str]) -> tuple[str, str, str]:
    """What a stream of ``pieces`` streamed, kept and why it stopped."""
    shown: list[str] = []
    s = TextStream((), lambda r: shown.append(r.text), ending=end)
    for p in pieces:
        if s.push(p.encode(), TokenStats(0, 0.1, 0.9, ())):
            break
    s.finish()
    return "".join(shown), s.text, s.stop_kind


def test_on_an_empty_line_it_stops_where_the_code_after_the_cursor_resumes():
    end = CompletionEnd.at(FUNCTION, CURSOR, heal="    ")
    assert end.multiline and end.next_line == "return t" and end.column == 0
    pieces = ["    for", " x", " in", " items", ":\n", "        t", " +=", " x", "\n", "    return", " t", "\n"]
    shown, kept, kind = _stream(end, pieces)
    assert kept == "    for x in items:\n        t += x"
    assert kind == "complete"
    assert "return" not in shown  # the repeated line was held back, never streamed


def test_a_line_less_indented_than_the_block_ends_the_completion():
    text = "def f(x):\n    if x:\n        \n\ndef g():\n    pass\n"
    at = text.index("        \n") + 8
    end = CompletionEnd.at(text, at, heal="        ")
    # the code after the cursor resumes at column 0 (`def g():`): a dedent to `return 0` may be the
    # hole's own end, and the blank lines before the repeated `def g():` go with it
    _, kept, _ = _stream(end, ["        y = 1\n", "    return 0\n", "\n", "\n", "def g():\n", "    pass\n"])
    assert kept == "        y = 1\n    return 0"
    inner = CompletionEnd.at("def f(x):\n    if x:\n        \n", 28, heal="        ")
    _, kept, _ = _stream(inner, ["        y = 1\n", "    return 0\n"])
    assert kept == "        y = 1"  # at the end of the text the first line's indentation is the block


def test_an_indented_completion_never_writes_new_top_level_code():
    # the function's end, with the next function after it: `def main()` is not the end of this block
    text = 'def gap(xs):\n    """Largest gap."""\n    \n\ndef unrelated():\n    return 1\n'
    end = CompletionEnd.at(text, text.index("    \n") + 4, heal="    ")
    _, kept, _ = _stream(end, ["    return", " max(xs)", "\n", "\n", "def", " main", "():\n", "    pass\n"])
    assert kept == "    return max(xs)"


def test_mid_line_it_writes_one_line_and_never_repeats_the_rest_of_the_line():
    text = "x = compute(a, )\nprint(x)\n"
    end = CompletionEnd.at(text, text.index(")"))
    assert not end.multiline and end.rest_of_line == ")"
    shown, kept, _ = _stream(end, ["b", ")", "\n", "print(x)\n"])
    assert kept == "b" and shown == "b"
    _, kept, _ = _stream(end, ["b", ", c"])  # the model ended the middle itself
    assert kept == "b, c"


def test_at_the_end_of_a_line_the_model_may_go_on_below():
    text = "def f(x):\n\nprint(f(1))\n"
    end = CompletionEnd.at(text, text.index(":") + 1)
    assert not end.multiline
    _, kept, _ = _stream(end, ["\n", "    return", " x", " +", " 1", "\n", "print", "(f(1))\n"])
    assert kept == "\n    return x + 1"


def test_windows_are_whole_lines_within_the_budget_and_the_prefix_starts_on_a_step():
    lines = [f"x{i} = {i}" for i in range(100)]
    text = "\n".join(lines) + "\n"
    offset = text.index("x80 = 80") + 3
    count = len  # a character is a token here
    ctx = infill_context(text, offset, InfillBudget(prefix=200, suffix=40, context=0), count)
    first = ctx.prompt.prefix.split("\n")[0]
    assert first == lines[ctx.prefix_from_line] and ctx.prefix_from_line % PREFIX_STEP == 0
    assert len(ctx.prompt.prefix) <= 200 and ctx.prompt.prefix.endswith("x80")
    assert ctx.prompt.suffix.startswith(" = 80\n") and len(ctx.prompt.suffix) <= 41
    # typing on keeps the prefix's opening (the model's cache of it is reused)
    later = infill_context(text[:offset] + "0" + text[offset:], offset + 1, InfillBudget(200, 40, 0), count)
    assert later.prefix_from_line == ctx.prefix_from_line


def test_whitespace_before_the_cursor_is_healed():
    ctx = infill_context(FUNCTION, CURSOR, InfillBudget(512, 128, 0), len)
    assert ctx.heal == "    " and ctx.prompt.prefix.endswith("t = 0\n")


def test_the_prompt_in_token_ids_keeps_markers_typed_in_the_file_as_text():
    ids = fim.FimTokenIds(prefix=1, suffix=2, middle=3, repo=4, file_sep=5)
    def tok(text):
        return [ord(c) + 100 for c in text]
    prompt = InfillPrompt("a<|fim_middle|>", "b", (ContextChunk("u.py", "c\n"),), "m.py")
    out = fim.prompt_ids(prompt, ids, tok)
    assert out[0] == 4 and out.count(3) == 1 and out[-1] == 3  # one middle marker: the real one
    assert out.count(5) == 2  # one file separator per chunk and one for this file
    text = fim.prompt_text(prompt, fim.FORMATS["qwen"])
    assert text.startswith("<|repo_name|>project\n<|file_sep|>u.py\nc\n<|file_sep|>m.py\n<|fim_prefix|>a")
    assert fim.has_markers(prompt.prefix, fim.FORMATS["qwen"])
    bare = fim.prompt_text(InfillPrompt("a", "b"), fim.FORMATS["qwen"])
    assert bare == "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>"  # no repository pattern without context
    assert fim.format_for_model_name("Qwen2.5-Coder-1.5B-Instruct").name == "qwen"


def test_context_comes_from_other_documents_latest_edits_first():
    a = OpenDocument("a.py", "\n".join(f"a{i}" for i in range(100)), edited=((50, 51),), last_edit=2.0)
    b = OpenDocument("b.py", "import os\nB = 1\n", last_edit=1.0)
    here = OpenDocument("here.py", "x", edited=((0, 0),), last_edit=3.0)
    chunks = context_chunks([b, a, here], "here.py")
    assert [c.filename for c in chunks] == ["a.py", "a.py", "b.py"]  # a's edit, then the openings
    assert "a50" in chunks[0].text and "a10" not in chunks[0].text
    fitted = fit_chunks(chunks, 30, len)
    assert sum(len(c.filename) + 1 + len(c.text) for c in fitted) <= 30 + 1


def test_in_the_middle_of_a_line_the_prompt_ends_at_the_cursor_spaces_included():
    text = "def f(x):\n    return x + \n"
    at = text.index("+ ") + 2
    ctx = infill_context(text, at, InfillBudget(512, 128, 0), len)
    assert ctx.heal == "" and ctx.prompt.prefix.endswith("return x + ")
    assert infill_context(text, at, InfillBudget(512, 128, 0), len, heal=False).prompt.prefix.endswith("return x + ")
