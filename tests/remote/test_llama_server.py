"""The openai backend against llama.cpp's own ``llama-server``, built by scripts/setup from the
llama.cpp that llama-cpp-python 0.3.36 vendors (scripts/build-llama-server), on the default model.

The in-process backend on the same file is the ground truth: the same prompt text, the same greedy
tokens, and every exact entropy inside the bounds the server's top-N probabilities give. llama-server
does not return prompt log-probabilities, so scoring code in the file is refused with that reason and
an assessment of code in the file leaves the lexical axis out saying why (never a silent zero).
Completions are filled in the middle through llama-server's /infill, or, with a format named
(qualm.model.fim_format), from FIM text on /completion: then the prompt and greedy tokens are the
in-process backend's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import replace

import httpx
import pytest
from remote_servers import llama_server
from timing import seconds

from qualm import prompts
from qualm.engine.completion import complete
from qualm.engine.document import Document
from qualm.model import GenerationOptions, TeacherForcingUnavailable, load_model

pytestmark = pytest.mark.model

PROMPT = "def strlen(string: str) -> int:\n    \"\"\" Return length of given string\n    >>> strlen('abc')\n    3\n    \"\"\"\n"


@pytest.fixture(scope="module")
def server():
    with llama_server() as url:
        yield url


def test_the_probe_finds_llama_cpp_and_that_it_cannot_score(remote):
    e = remote.endpoint
    assert e.engine == "llama.cpp" and e.top_logprobs == 10 and e.vocab_size == 151936
    assert e.chat_template  # the server's own (the GGUF's) template is used
    assert not e.prompt_logprobs and "log-probabilities of the prompt" in e.prompt_logprobs_note
    caps = remote.info.capabilities
    assert caps.remote and not caps.exact_entropy and not caps.teacher_forcing


def test_greedy_tokens_match_the_local_model_and_the_bounds_hold(remote, backend):
    prompt = prompts.code_generation(PROMPT)
    assert remote.render_prompt(prompt) == backend.render_prompt(prompt)
    far = remote.generate(prompt, GenerationOptions(max_tokens=16))
    near = backend.generate(prompt, GenerationOptions(max_tokens=16))
    assert far.text == near.text and [r.token_id for r in far.tokens] == [r.token_id for r in near.tokens]
    for a, b in zip(far.tokens, near.tokens):
        low, high = a.entropy_bounds
        assert low - 1e-3 <= b.entropy <= high + 1e-3
        assert a.prob == pytest.approx(b.prob, abs=2e-3)


def request_times(backend, monkeypatch) -> list[tuple[float, float]]:
    """When each streamed request of ``backend`` was sent and when its last token came: the answers
    are read from the first event (when the request goes out) to the end of the stream."""
    times: list[tuple[float, float]] = []
    read = backend._read_answers

    def timed(*args, **kwargs):
        start = time.monotonic()
        try:
            return read(*args, **kwargs)
        finally:
            times.append((start, time.monotonic()))

    monkeypatch.setattr(backend, "_read_answers", timed)
    return times


def test_scoring_is_refused_with_its_reason_and_samples_run_concurrently(remote, monkeypatch):
    prompt = prompts.code_generation(PROMPT)
    with pytest.raises(TeacherForcingUnavailable, match="log-probabilities of the prompt"):
        remote.score(prompt, "def strlen(s):\n    return len(s)\n")
    times = request_times(remote, monkeypatch)
    batch = remote.generate_batch([(prompts.plan_generation(PROMPT), GenerationOptions(max_tokens=8, temperature=0.8, top_p=0.95, seed=i)) for i in range(3)])
    assert [len(t.tokens) for t in batch] == [8, 8, 8] and all(t.mode == "sampled" for t in batch)
    # one request a sample, in flight together: the last to start started before the first ended
    assert len(times) == 3 and max(start for start, _ in times) < min(end for _, end in times), times


def test_qualm_score_on_llama_server_says_why_there_is_no_lexical_score(server, tmp_path):
    source = tmp_path / "f.py"
    source.write_text("def inc(x):\n    return x + 1\n")
    out = subprocess.run([sys.executable, "-m", "qualm", "score", str(source), "--backend", "openai", "--endpoint", server], capture_output=True, text=True, timeout=seconds(120))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "log-probabilities of the prompt" in out.stderr


def test_qualm_model_names_the_engine(server):
    out = subprocess.run([sys.executable, "-m", "qualm", "model", "--backend", "openai", "--endpoint", server, "--json"], capture_output=True, text=True, timeout=seconds(120))
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert facts["engine"].startswith("llama.cpp") and facts["scoring code in the file"].startswith("no:")


# A cursor on the empty line of a small function: the model writes the missing line, and the line
# after the cursor (the suffix's) ends the completion instead of being written twice.
FIM_DOC = "import math\n\n\ndef circle_area(r):\n    \n    return area\n"
FIM_OFFSET = FIM_DOC.index("    \n") + 4


class Recording:
    """A backend that keeps the traces of what it generates (a completion keeps only placed tokens)."""

    def __init__(self, backend):
        self.backend, self.traces = backend, []

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def generate(self, *args, **kwargs):
        self.traces.append(self.backend.generate(*args, **kwargs))
        return self.traces[-1]


def fim_completion(backend, settings):
    recording = Recording(backend)
    small = replace(settings, editor=replace(settings.editor, completion_max_tokens=24))
    result = complete(recording, Document(FIM_DOC, "file:///work/geometry.py"), FIM_OFFSET, small)
    return result, recording.traces[-1]


def assert_filled_in_the_middle(result, trace):
    assert result.prompt_kind == "fim" and trace.extra["prompt_kind"] == "fim" and result.first_token_seconds is not None
    assert result.tokens and result.text.strip() and "return area" not in result.text
    for r in trace.tokens:  # every remote entropy is a bound from the top N
        lo, hi = r.entropy_bounds
        assert lo - 1e-9 <= r.entropy <= hi + 1e-9 and 0.0 <= r.tail_mass <= 1.0


def slots_idle(server) -> None:
    """Until llama-server's slots are all idle: the slot that answered still holds the prompt, and
    the next request goes to it only once it is free (else to another slot, with nothing cached;
    seen once under load)."""
    end = time.monotonic() + seconds(30)
    while any(s.get("is_processing") for s in httpx.get(str(server).rstrip("/") + "/slots", timeout=seconds(10)).json()):
        assert time.monotonic() < end, "llama-server's slots stayed busy"
        time.sleep(0.05)


def test_a_completion_is_filled_in_the_middle_through_infill(remote, server, settings):
    assert remote.info.capabilities.infill and "/infill" in remote.info.detail("fill-in-the-middle")
    result, trace = fim_completion(remote, settings)
    assert_filled_in_the_middle(result, trace)
    assert trace.extra["fim"] == "llama.cpp /infill" and result.prompt_tokens > 0 and "[input_suffix]" in trace.prompt
    slots_idle(server)
    again, _ = fim_completion(remote, settings)  # the next keystroke's prompt: the server's cache holds it
    assert again.reused_prompt_tokens > 0


def test_a_named_fim_format_sends_the_local_prompt_to_completion(server, settings, backend):
    named = load_model(replace(settings.model, backend="openai", endpoint=server, top_logprobs=10, fim_format="qwen"))
    try:
        assert "qwen format" in named.info.detail("fill-in-the-middle")
        result, trace = fim_completion(named, settings)
        assert_filled_in_the_middle(result, trace)
        local, near = fim_completion(backend, settings)
        assert trace.prompt == near.prompt and result.text == local.text
    finally:
        named.close()
