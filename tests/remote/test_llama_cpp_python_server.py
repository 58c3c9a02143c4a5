"""The openai backend against a real server: llama-cpp-python's own OpenAI-compatible server
(``python -m llama_cpp.server``, the ``[server]`` extra) started here on the default model.

The in-process backend on the same file is the ground truth: the server's greedy text must be the
same, every remote entropy bound must hold the exact entropy, and scoring code in the file must
give the same tokens and probabilities. Bad input: a server that is down, a model name it does not
serve, a server without log-probabilities, and a server that dies mid-answer.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from remote_servers import free_port, llama_cpp_python_server
from test_llama_server import assert_filled_in_the_middle, fim_completion, request_times
from timing import seconds

from qualm import prompts
from qualm.evaluation.report import load_runs
from qualm.model import CancelToken, GenerationOptions, load_model
from qualm.model.remote import RemoteError
from qualm.model.remote.backend import OpenAIBackend

pytestmark = pytest.mark.model

PROMPT = "def strlen(string: str) -> int:\n    \"\"\" Return length of given string\n    >>> strlen('abc')\n    3\n    \"\"\"\n"


@pytest.fixture(scope="module")
def server(settings):
    with llama_cpp_python_server(logits_all=True) as url:
        yield url


@pytest.fixture(scope="module")
def local(settings):
    backend = load_model(settings.model)
    yield backend
    backend.close()


def test_the_probe_names_the_engine_and_what_it_can_do(remote):
    assert isinstance(remote, OpenAIBackend)
    e = remote.endpoint
    assert e.engine == "llama-cpp-python" and e.prompt_logprobs
    assert e.top_logprobs >= 10  # llama-cpp-python adds the chosen token to the N asked for
    caps = remote.info.capabilities
    assert not caps.exact_entropy and caps.teacher_forcing
    assert remote.info.identity.kind == "endpoint" and len(remote.info.identity.digest) == 64
    assert dict(remote.info.details)["engine"].startswith("llama-cpp-python")


def test_streamed_greedy_completion_matches_the_local_model_and_its_bounds_hold(remote, local):
    prompt = prompts.code_generation(PROMPT)
    opts = GenerationOptions(max_tokens=24, top_alternatives=5)
    streamed = []
    far = remote.generate(prompt, opts, on_token=streamed.append)
    near = local.generate(prompt, replace(opts, top_alternatives=20))
    assert far.text and near.text.startswith(far.text)
    assert [r.text for r in far.tokens] == [r.text for r in near.tokens[: len(far.tokens)]]
    assert streamed == list(far.tokens)[: len(streamed)] and len(streamed) >= len(far.tokens) - 2
    assert far.prompt == near.prompt  # the built-in ChatML renders what the GGUF's template does
    # Two llama.cpp contexts (the server's and qualm's, with their own attention and batch settings)
    # are not bit-identical: measured here up to 0.021 nats outside the bounds and 0.012 in a
    # probability. The bounds' exactness itself is tested on known distributions (unit tests).
    for r, exact in zip(far.tokens, near.tokens):
        lo, hi = r.entropy_bounds
        assert lo - 0.05 <= exact.entropy <= hi + 0.05, (r.text, lo, exact.entropy, hi)
        assert r.prob == pytest.approx(exact.prob, abs=0.03)
        assert r.alternatives[0].text == exact.alternatives[0].text or r.alternatives[0].prob == pytest.approx(r.alternatives[1].prob, abs=1e-3)
        assert 0.0 <= r.tail_mass <= 1.0


def test_scoring_code_in_the_file_gives_the_local_tokens_and_probabilities(remote, local):
    prompt = prompts.code_generation(PROMPT)
    code = "def strlen(string: str) -> int:\n    return len(string) + 1\n"
    far = remote.score(prompt, code)
    exact = local.score(prompt, code, top_alternatives=20)
    assert far.text == code and [r.text for r in far.tokens] == [r.text for r in exact.tokens]
    for a, b in zip(far.tokens, exact.tokens):
        if b.prob >= min(x.prob for x in a.alternatives):  # within the server's top N
            assert a.prob == pytest.approx(b.prob, abs=0.05), a.text  # two llama.cpp contexts, see above
        else:  # outside it, the N-th probability stands in: an upper bound
            assert a.prob >= b.prob - 1e-3, a.text
    # the wrong "+ 1" is the least likely token of the body, remotely as locally
    body = [r for r in far.tokens if r.start >= code.index("return")]
    assert min(body, key=lambda r: r.prob).text.strip() in {"+", "1"}


def test_a_completion_is_filled_in_the_middle_from_fim_text(remote, local, settings):
    # the served name is the GGUF's path; the server's /extras/tokenize finds Qwen's markers
    assert remote.info.capabilities.infill and "qwen format" in remote.info.detail("fill-in-the-middle")
    result, trace = fim_completion(remote, settings)
    assert_filled_in_the_middle(result, trace)
    near, exact = fim_completion(local, settings)
    assert trace.prompt == exact.prompt and result.text == near.text  # the in-process prompt and answer


def test_samples_are_sent_one_at_a_time_and_a_cancelled_request_writes_nothing(remote, monkeypatch):
    # llama-cpp-python's server decodes one request at a time and cuts the running answer short
    # when another arrives: qualm never has two in flight there (ONE_AT_A_TIME)
    prompt = prompts.plan_generation(PROMPT)
    jobs = [(prompt, GenerationOptions(max_tokens=6, temperature=0.8, top_p=0.95, seed=s, top_alternatives=1)) for s in (1, 2, 3)]
    seen = []
    times = request_times(remote, monkeypatch)
    traces = remote.generate_batch(jobs, on_progress=seen.append)
    assert len(traces) == 3 and all(t.mode == "sampled" and 0 < len(t.tokens) <= 6 for t in traces)
    assert seen and seen[-1] == sum(len(t.tokens) for t in traces)
    ordered = sorted(times)
    assert len(ordered) == 3 and all(ended <= started for (_, ended), (started, _) in zip(ordered, ordered[1:])), ordered
    cancel = CancelToken()
    cancel.cancel()
    stopped = remote.generate(prompt, GenerationOptions(max_tokens=50), cancel=cancel)
    assert stopped.stop_reason == "cancelled" and not stopped.tokens


def test_a_server_that_is_down_is_named_in_the_error(settings):
    port = free_port()
    with pytest.raises(RemoteError, match=rf"cannot reach the model server at http://127.0.0.1:{port}"):
        load_model(replace(settings.model, backend="openai", endpoint=f"http://127.0.0.1:{port}/v1", retries=0))


def test_a_model_the_server_does_not_serve_is_refused(server, settings):
    with pytest.raises(RemoteError, match="serves .*not 'gpt-4'"):
        load_model(replace(settings.model, backend="openai", endpoint=server, name="gpt-4", engine="openai"))


def test_a_server_without_logprobs_is_refused_with_the_fix(settings):
    with llama_cpp_python_server(logits_all=False) as url:
        with pytest.raises(RemoteError, match="returned no log-probabilities.*--logits_all true"):
            load_model(replace(settings.model, backend="openai", endpoint=url))


def test_a_server_that_dies_mid_answer_keeps_what_was_shown(settings):
    with llama_cpp_python_server(logits_all=True) as url:
        backend = load_model(replace(settings.model, backend="openai", endpoint=url, retries=0))
        shown = []

        def kill_after_three(record):
            shown.append(record)
            if len(shown) == 3:
                url.stop()  # the server process is killed while it streams

        with pytest.raises(RemoteError, match=r"broke|cannot reach|did not answer"):
            backend.generate(prompts.code_generation(PROMPT), GenerationOptions(max_tokens=60), on_token=kill_after_three)
        assert len(shown) >= 3 and all(math.isfinite(r.entropy) for r in shown)
        backend.close()


def test_qualm_model_says_what_the_probe_found(server):
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "qualm", "model", "--backend", "openai", "--endpoint", server, "--json"], capture_output=True, text=True, timeout=seconds(120))
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert facts["backend"] == "openai" and facts["engine"] == "llama-cpp-python"
    assert facts["scoring code in the file"] == "yes" and "entropy is a bound" in facts["alternatives per token"]
    down = subprocess.run([sys.executable, "-m", "qualm", "model", "--backend", "openai", "--endpoint", f"http://127.0.0.1:{free_port()}"], capture_output=True, text=True, timeout=seconds(120))
    assert down.returncode != 0 and "cannot reach the model server" in down.stderr and "Traceback" not in down.stderr


TINY_PROBLEMS = [
    {"task_id": "tiny/inc", "prompt": 'def inc(x: int) -> int:\n    """Return x plus one."""\n', "entry_point": "inc", "tests": ["assert inc(1) == 2"]},
    {"task_id": "tiny/neg", "prompt": 'def neg(x: int) -> int:\n    """Return minus x."""\n', "entry_point": "neg", "tests": ["assert neg(2) == -2"]},
    {"task_id": "tiny/dbl", "prompt": 'def dbl(x: int) -> int:\n    """Return twice x."""\n', "entry_point": "dbl", "tests": ["assert dbl(3) == 6"]},
]


def test_qualm_eval_runs_problems_in_flight_against_the_server_and_resumes_from_its_cache(server, tmp_path):
    import json
    import subprocess
    import sys

    problems = tmp_path / "tiny.jsonl"
    problems.write_text("".join(json.dumps(p) + "\n" for p in TINY_PROBLEMS))
    cache, out = tmp_path / "cache", tmp_path / "out"
    command = [sys.executable, "-m", "qualm", "eval", "--backend", "openai", "--endpoint", server, "-d", str(problems)]
    command += ["--methods", "lexical,consistency", "--n-samples", "2", "--in-flight", "3", "--cache", str(cache), "--out", str(out)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=seconds(600))
    assert first.returncode == 0, first.stderr[-3000:]
    (run,) = load_runs(out / "results.json")
    assert run.task_ids == [p["task_id"] for p in TINY_PROBLEMS] and len(run.labels) == 3
    assert run.model.endswith(".gguf") and all(run.labels)  # the served name; the greedy solutions pass
    # the cache is keyed by the endpoint's identity (endpoint, served model, fingerprint)
    (model_dir,) = list(cache.iterdir())
    assert model_dir.name.startswith("endpoint-")
    cached = sorted(model_dir.rglob("*.json"))
    assert len([p for p in cached if p.name == "samples.json"]) == 3
    stamps = {p: p.stat().st_mtime_ns for p in cached}
    second = subprocess.run(command, capture_output=True, text=True, timeout=seconds(600))
    assert second.returncode == 0, second.stderr[-3000:]
    assert {p: p.stat().st_mtime_ns for p in sorted(model_dir.rglob("*.json"))} == stamps  # nothing recomputed
    assert load_runs(out / "results.json")[0].labels == run.labels
