"""The remote backend's reading of each engine's answers, and its requests, for the engines that
cannot run on this project's CPUs (vLLM, SGLang) and for llama.cpp's native shape.

These responses are NOT recorded from live servers (no GPU here): they are written by hand to the
shapes in each engine's source, cited per fixture (tests/remote/SOURCES.md has the commits). The
HTTP layer is httpx's MockTransport serving them: a mock, because the servers cannot run here.
llama-cpp-python's server is tested for real in tests/remote/.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import httpx
import pytest

from qualm import prompts
from qualm.model import GenerationOptions
from qualm.model.remote.backend import OpenAIBackend, TeacherForcingUnavailable
from qualm.model.remote.client import ClientConfig, RemoteClient, RemoteError, base_urls
from qualm.model.remote.wire import WireFormatError, llama_server_tokens, openai_tokens, sglang_tokens, token_stats, vllm_prompt_tokens
from qualm.settings import Settings

LN = math.log


def test_endpoint_roots():
    assert base_urls("http://h:8000/v1/") == ("http://h:8000", "http://h:8000/v1")
    assert base_urls("https://h") == ("https://h", "https://h/v1")
    with pytest.raises(RemoteError, match="http"):
        base_urls("h:8000")


def test_openai_legacy_logprobs_and_the_bound_from_them():
    # vllm/entrypoints/openai/completion/serving.py _create_completion_logprobs (and llama-cpp-python)
    chunk = {"tokens": [" x", ""], "token_logprobs": [LN(0.5), LN(0.9)], "top_logprobs": [{" x": LN(0.5), " y": LN(0.25)}, None], "text_offset": [0, 2]}
    a, b = openai_tokens(chunk)
    assert a.text == " x" and a.token_id == -1 and [t for t, _, _ in a.top] == [" x", " y"]
    assert b.text == "" and b.top == ()  # a token vLLM could not decode alone arrives as ""
    s = token_stats(a, vocab_size=4, estimator="lower", top_alternatives=5)
    assert s.prob == pytest.approx(0.5) and s.tail_mass == pytest.approx(0.25)
    assert s.entropy_bounds == pytest.approx((1.5 * LN(2), LN(2) + 0.25 * LN(8)))
    assert [alt.text for alt in s.alternatives] == [" x", " y"]


def test_the_chosen_token_outside_the_top_n_still_counts_as_known():
    chunk = {"tokens": ["z"], "token_logprobs": [LN(0.1)], "top_logprobs": [{"a": LN(0.6), "b": LN(0.2)}]}
    (tok,) = openai_tokens(chunk)
    s = token_stats(tok, vocab_size=1000, estimator="geometric", top_alternatives=5)
    assert s.prob == pytest.approx(0.1) and s.tail_mass == pytest.approx(0.1)  # 1 - (0.6 + 0.2 + 0.1)
    assert "z" not in [a.text for a in s.alternatives]


def test_llama_server_native_probabilities_keep_ids_and_bytes():
    # tools/server/server-task.cpp (llama.cpp 0c1e570, vendored by llama-cpp-python 0.3.36)
    entry = {"id": 220, "token": "é", "bytes": [195, 169], "logprob": -0.1, "top_logprobs": [{"id": 220, "token": "é", "bytes": [195, 169], "logprob": -0.1}, {"id": 9, "token": "e", "bytes": [101], "logprob": -2.4}]}
    (tok,) = llama_server_tokens([entry])
    assert tok.raw == "é".encode() and tok.token_id == 220 and tok.top[1] == ("e", -2.4, 9)
    # llama-server's /v1/completions form wraps the same entries in "content"
    assert openai_tokens({"content": [entry]}) == [tok]
    with pytest.raises(WireFormatError):
        llama_server_tokens([{"token": "x"}])


def test_vllm_prompt_logprobs_hold_the_own_token_and_the_top_n():
    # vllm/logprobs.py create_prompt_logprobs, vllm/v1/sample/sampler.py gather_logprobs: entry 0 is
    # null; each other entry holds the prompt's own token (rank 1 = most probable) and the top n
    entries = [
        None,
        {"11": {"logprob": -0.2, "rank": 1, "decoded_token": "def"}, "12": {"logprob": -2.0, "rank": 2, "decoded_token": "class"}},
        {"13": {"logprob": -4.0, "rank": 7, "decoded_token": " g"}, "14": {"logprob": -0.1, "rank": 1, "decoded_token": " f"}, "15": {"logprob": -3.0, "rank": 2, "decoded_token": " h"}},
    ]
    first, ok, odd = vllm_prompt_tokens(entries, [10, 11, 13], n=2)
    assert first.logprob is None and ok.text == "def" and ok.logprob == -0.2 and len(ok.top) == 2
    assert odd.text == " g" and odd.logprob == -4.0 and [t for t, _, _ in odd.top] == [" f", " h"]  # rank 7 is not an alternative
    with pytest.raises(WireFormatError, match="entries for 2"):
        vllm_prompt_tokens(entries, [10, 11], n=2)


def test_sglang_input_logprobs():
    # python/sglang/srt/managers/scheduler_output_processor_mixin.py: [logprob, id, text], entry 0 null
    tokens = [[None, 5, "\n"], [-0.3, 11, "def"], [-1.2, 14, " f"]]
    tops = [None, [[-0.3, 11, "def"], [-1.5, 12, "class"]], [[-0.4, 15, " main"], [-1.2, 14, " f"]]]
    head, a, b = sglang_tokens(tokens, tops)
    assert head.logprob is None and a.token_id == 11 and b.top[0] == (" main", -0.4, 15)


# -- the backend's requests against recorded-shape servers ---------------------------------------


class Recorded:
    """Answers by route; keeps every request for the assertions."""

    def __init__(self, routes: dict):
        self.routes = routes
        self.requests: list[tuple[str, dict | None]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        self.requests.append((request.url.path, body))
        answer = self.routes.get((request.method, request.url.path))
        if answer is None:
            return httpx.Response(404, json={"detail": "Not Found"})
        return answer(body) if callable(answer) else answer


def _sse(events: list[dict]) -> httpx.Response:
    text = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return httpx.Response(200, text=text, headers={"content-type": "text/event-stream"})


def _vllm_stream(body: dict) -> httpx.Response:
    """A streamed completion; with ``n``, answer i's events carry ``index`` i, interleaved as vLLM
    sends them (each answer's tokens as they come, its own finish_reason), answer i one token longer."""
    top = body["logprobs"]
    n = body.get("n", 1)
    answers = [[(f" a{i}", -0.05), (" b", -0.7)] + [(" c", -0.2)] * i for i in range(n)] if n > 1 else [[(" a", -0.05), (" b", -0.7)]]
    events = []
    for step in range(max(len(a) for a in answers) + 1):
        for i, answer in enumerate(answers):
            if step < len(answer):
                t, lp = answer[step]
                alts = {t: lp, **{f" z{k}": lp - 1 - k for k in range(top - 1)}}
                logprobs = {"tokens": [t], "token_logprobs": [lp], "top_logprobs": [alts], "text_offset": [step]}
                events.append({"choices": [{"index": i, "text": t, "logprobs": logprobs, "finish_reason": None}]})
            elif step == len(answer):
                events.append({"choices": [{"index": i, "text": "", "logprobs": None, "finish_reason": "length"}]})
    return _sse(events)


def _vllm_prompt_logprobs(body: dict) -> httpx.Response:
    ids = body["prompt"]
    entries = [None] + [{str(i): {"logprob": -0.5, "rank": 1, "decoded_token": chr(i - 1000)}, "999": {"logprob": -1.5, "rank": 2, "decoded_token": "?"}} for i in ids[1:]]
    return httpx.Response(200, json={"choices": [{"index": 0, "text": "!", "prompt_logprobs": entries, "logprobs": None, "finish_reason": "length"}]})


def _tokenize(body: dict) -> httpx.Response:
    return httpx.Response(200, json={"count": len(body["prompt"]), "max_model_len": 32768, "tokens": [1000 + ord(c) for c in body["prompt"]], "token_strs": None})


def vllm_server() -> Recorded:
    # vllm/entrypoints/openai/engine/protocol.py ModelCard; /version
    return Recorded(
        {
            ("GET", "/v1/models"): httpx.Response(200, json={"object": "list", "data": [{"id": "Qwen/Qwen2.5-Coder-7B-Instruct", "object": "model", "owned_by": "vllm", "max_model_len": 32768}]}),
            ("GET", "/version"): httpx.Response(200, json={"version": "0.11.0"}),
            ("POST", "/v1/completions"): lambda body: _vllm_stream(body) if body.get("stream") else _vllm_prompt_logprobs(body),
            ("POST", "/tokenize"): _tokenize,
        }
    )


def backend_on(server: Recorded, **model) -> OpenAIBackend:
    settings = replace(Settings().model, backend="openai", endpoint="http://gpu-box:8000/v1", top_logprobs=5, **model)
    client = RemoteClient(ClientConfig(settings.endpoint, retries=0), transport=httpx.MockTransport(server))
    return OpenAIBackend(settings, client)


def test_vllm_is_probed_and_asked_for_what_it_offers():
    server = vllm_server()
    backend = backend_on(server)
    e = backend.endpoint
    assert (e.engine, e.version, e.model, e.context_length) == ("vllm", "0.11.0", "Qwen/Qwen2.5-Coder-7B-Instruct", 32768)
    assert e.prompt_logprobs and e.top_logprobs == 5 and "assumed 151,936" in e.vocab_note
    trace = backend.generate(prompts.code_generation("def f():\n"), GenerationOptions(max_tokens=8, temperature=0.8, top_p=0.95, seed=3))
    assert trace.text == " a b" and trace.stop_reason == "length"
    request = [b for p, b in server.requests if p == "/v1/completions" and b.get("stream")][-1]
    # the paper's sampling: temperature and top-p alone, vLLM's top-k and min-p off
    assert request["model"] == e.model and request["logprobs"] == 5 and request["top_k"] == -1 and request["min_p"] == 0.0
    assert request["prompt"].startswith("<|im_start|>system") and request["seed"] == 3
    scored = backend.score(prompts.code_generation("def f():\n"), "ab")
    assert scored.text == "ab" and [r.prob for r in scored.tokens] == pytest.approx([math.exp(-0.5)] * 2)
    assert scored.tokens[0].entropy_bounds[0] <= scored.tokens[0].entropy <= scored.tokens[0].entropy_bounds[1]
    scoring = [b for p, b in server.requests if p == "/v1/completions" and "prompt_logprobs" in b][-1]
    assert scoring["prompt_logprobs"] == 5 and isinstance(scoring["prompt"], list)


def test_vllm_samples_of_one_prompt_share_one_request_with_n():
    server = vllm_server()
    backend = backend_on(server)
    prompt, other = prompts.plan_generation("def f():\n"), prompts.code_generation("def f():\n")
    sampled = [(prompt, GenerationOptions(max_tokens=8, temperature=0.8, top_p=0.95, seed=5 + i)) for i in range(3)]
    greedy = [(other, GenerationOptions(max_tokens=8)), (other, GenerationOptions(max_tokens=8))]
    seen: list[int] = []
    traces = backend.generate_batch([sampled[0], greedy[0], sampled[1], greedy[1], sampled[2]], on_progress=seen.append)
    streamed = [b for p, b in server.requests if p == "/v1/completions" and b.get("stream") and b["max_tokens"] == 8]
    # the three samples: one request, n=3, the first job's seed; greedy answers are never grouped
    assert sorted(b.get("n", 1) for b in streamed) == [1, 1, 3]
    assert next(b for b in streamed if b.get("n") == 3)["seed"] == 5
    # answers come back in the jobs' order, each from its own index of the interleaved stream
    assert [t.text for t in traces] == [" a0 b", " a b", " a1 b c", " a b", " a2 b c c"]
    assert all(t.stop_reason == "length" for t in traces) and "n=3" in traces[0].extra["request"]
    assert max(seen) == sum(len(t.tokens) for t in traces)


def test_llama_server_cannot_score_code_in_the_file_and_says_why():
    stream = [
        {"content": "x", "completion_probabilities": [{"id": 87, "token": "x", "bytes": [120], "logprob": -0.2, "top_logprobs": [{"id": 87, "token": "x", "bytes": [120], "logprob": -0.2}]}], "stop": False},
        {"content": "", "stop": True, "stop_type": "eos"},
    ]
    server = Recorded(
        {
            ("GET", "/v1/models"): httpx.Response(200, json={"object": "list", "data": [{"id": "qwen.gguf", "owned_by": "llamacpp", "meta": {"n_vocab": 151936, "n_ctx_train": 32768}}]}),
            ("GET", "/props"): httpx.Response(200, json={"default_generation_settings": {"n_ctx": 8192}, "chat_template": "{{ messages[0]['content'] }}", "build_info": "b6000-0c1e570"}),
            ("POST", "/completion"): lambda body: httpx.Response(200, text="".join(f"data: {json.dumps(e)}\n\n" for e in stream)),
        }
    )
    backend = backend_on(server)
    e = backend.endpoint
    assert (e.engine, e.vocab_size, e.context_length, e.chat_template) == ("llama.cpp", 151936, 8192, "{{ messages[0]['content'] }}")
    assert not backend.info.capabilities.teacher_forcing
    with pytest.raises(TeacherForcingUnavailable, match="does not return log-probabilities of the prompt"):
        backend.score(prompts.code_generation("def f():\n"), "pass")
    trace = backend.generate(prompts.code_generation("def f():\n"), GenerationOptions(max_tokens=8))
    assert trace.text == "x" and trace.stop_reason == "eos" and trace.tokens[0].token_id == 87
    body = [b for p, b in server.requests if p == "/completion"][-1]
    assert body["n_probs"] == 5 and body["top_k"] == 0 and body["min_p"] == 0.0 and body["n_predict"] == 8


def test_errors_in_words():
    server = Recorded({("GET", "/v1/models"): httpx.Response(401, json={"error": {"message": "bad key"}})})
    with pytest.raises(RemoteError, match="refused the request \\(401\\).*api_key_env"):
        backend_on(server)
    two = Recorded({("GET", "/v1/models"): httpx.Response(200, json={"data": [{"id": "a", "owned_by": "vllm"}, {"id": "b", "owned_by": "vllm"}]})})
    with pytest.raises(RemoteError, match="several models \\(a, b\\).*qualm.model.name"):
        backend_on(two)
    mid = Recorded(
        {
            ("GET", "/v1/models"): httpx.Response(200, json={"data": [{"id": "m", "owned_by": "x"}]}),
            ("POST", "/v1/completions"): httpx.Response(200, text='data: {"error": {"message": "CUDA out of memory"}}\n\n'),
        }
    )
    with pytest.raises(RemoteError, match="failed during /v1/completions: CUDA out of memory"):
        backend_on(mid)


def test_an_answer_cut_short_without_a_finish_reason_is_an_error_not_an_end():
    # llama-cpp-python's server (app.py, get_event_publisher, --interrupt_requests on by default)
    # sends [DONE] with no finish_reason when another request arrives during an answer
    server = vllm_server()
    tokens = []

    def cut(body: dict) -> httpx.Response:
        if body.get("max_tokens") == 4:  # the probe's short answer is left whole
            return _vllm_stream(body)
        whole = _vllm_stream(body).text.split("\n\n")
        return httpx.Response(200, text="\n\n".join(whole[:2]) + "\n\ndata: [DONE]\n\n", headers={"content-type": "text/event-stream"})

    server.routes[("POST", "/v1/completions")] = lambda body: cut(body) if body.get("stream") else _vllm_prompt_logprobs(body)
    backend = backend_on(server)
    with pytest.raises(RemoteError, match="cut short.*--interrupt_requests false"):
        backend.generate(prompts.code_generation("def f():\n"), GenerationOptions(max_tokens=8), on_token=tokens.append)
    assert [t.text for t in tokens] == [" a", " b"]  # what was shown stays shown


def test_llama_cpp_python_echo_is_read_one_position_back():
    # llama-cpp-python 0.3.36, _create_completion with echo and logprobs, as observed on its server
    # (tests/remote checks the result against the local model): entry i's top_logprobs is the
    # distribution after token i, its token_logprobs token i's probability in that row
    from qualm.model.remote.wire import llama_cpp_python_echo_tokens

    echo = {
        "tokens": ["assistant", "\n", "def", " f", "!"],
        "token_logprobs": [None, LN(0.01), LN(0.001), LN(0.0001), LN(0.2)],
        "top_logprobs": [None, {"def": LN(0.7), "#": LN(0.1)}, {" f": LN(0.9), " g": LN(0.05)}, {"(": LN(0.6), "!": LN(0.2)}, {"\n": LN(0.5)}],
        "text_offset": [0, 9, 10, 13, 15],
    }
    d, f = llama_cpp_python_echo_tokens(echo, "def f")
    assert (d.text, f.text) == ("def", " f")
    assert d.logprob == pytest.approx(LN(0.7)) and [t for t, _, _ in d.top] == ["def", "#"]
    assert f.logprob == pytest.approx(LN(0.9))
    with pytest.raises(WireFormatError, match="do not end with"):
        llama_cpp_python_echo_tokens(echo, "xyz")
