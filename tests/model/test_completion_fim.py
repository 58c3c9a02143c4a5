"""Fill-in-the-middle completions with the real default model (issue 46): the prompt holds the code
after the cursor, the completion stops before it, the cache is reused on the next keystroke, and
the CLI shows which prompt it used."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from timing import seconds

from qualm.engine import Document, complete
from qualm.engine.completion import CompletionOptions
from qualm.model import load_model
from qualm.settings import Settings

pytestmark = pytest.mark.model

FUNCTION = 'def total_price(items):\n    """Sum price * quantity over the items."""\n    total = 0\n    \n    return total\n'
CURSOR = FUNCTION.index("    \n") + 4


@pytest.fixture(scope="module")
def backend():
    b = load_model(Settings().model)
    yield b
    b.close()


def test_the_default_model_writes_from_a_fim_prompt_and_stops_before_the_next_line(backend):
    assert backend.info.capabilities.infill
    assert "<|fim_prefix|>" in backend.info.detail("fill-in-the-middle")
    result = complete(backend, Document(FUNCTION, "prices.py"), CURSOR, Settings())
    assert result.prompt_kind == "fim"
    assert "<|fim_suffix|>" in result.prompt and "return total" in result.prompt.split("<|fim_suffix|>")[1]
    assert result.text.strip() and "return total" not in result.text
    assert result.doubt is not None and result.doubt.tokens == sum(1 for t in result.tokens if t.text.strip())
    assert result.doubt.max_entropy == max(t.entropy for t in result.tokens if t.text.strip())
    # every token is placed where it lands once inserted (the cursor's indentation is healed)
    inserted = FUNCTION[:CURSOR] + result.text + FUNCTION[CURSOR:]
    assert all(inserted[t.start : t.end] == t.text for t in result.tokens)


def test_the_next_keystroke_reuses_the_cached_prompt(backend):
    settings = Settings()
    first = complete(backend, Document(FUNCTION, "prices.py"), CURSOR, settings)
    typed = FUNCTION[:CURSOR] + "f" + FUNCTION[CURSOR:]
    second = complete(backend, Document(typed, "prices.py"), CURSOR + 1, settings)
    assert first.prompt_kind == second.prompt_kind == "fim"
    # the prompt is the same up to the cursor: only what follows it is evaluated again
    assert second.reused_prompt_tokens >= FUNCTION[:CURSOR].count("\n") * 3
    assert second.first_token_seconds is not None


def test_mid_line_a_completion_is_one_line_and_does_not_repeat_the_rest_of_it(backend):
    text = "def mean(xs):\n    return sum(xs) / len()\n"
    at = text.index("len(") + 4
    result = complete(backend, Document(text), at, Settings(), CompletionOptions(max_tokens=24))
    assert "\n" not in result.text
    assert not result.text.rstrip().endswith(")")  # the ")" after the cursor is not written twice


def test_the_chat_prompt_is_kept_where_asked(backend):
    settings = Settings.from_mapping({"editor": {"completion_prompt": "chat"}})
    result = complete(backend, Document(FUNCTION), CURSOR, settings, CompletionOptions(max_tokens=16))
    assert result.prompt_kind == "chat" and "<|fim_prefix|>" not in result.prompt


def test_qualm_generate_at_a_cursor_prints_the_prompt_kind(tmp_path):
    path = tmp_path / "prices.py"
    path.write_text(FUNCTION)
    out = subprocess.run([sys.executable, "-m", "qualm", "generate", str(path), "--at", "4:5", "--json"], capture_output=True, text=True, timeout=seconds(300))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["prompt_kind"] == "fim" and data["prompt"].startswith("<|fim_prefix|>")
    assert "return total" not in data["text"] and data["doubt"]["level"] in ("confident", "low", "medium", "high")
    bad = subprocess.run([sys.executable, "-m", "qualm", "generate", str(path), "--at", "40:1"], capture_output=True, text=True, timeout=seconds(120))
    assert bad.returncode == 2 and "--at 40:1" in bad.stderr
