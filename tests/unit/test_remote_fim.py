"""Fill-in-the-middle on a shared server, without one: how the probe finds the FIM format, the
requests a completion sends (llama.cpp's /infill, FIM text on /v1/completions), and the refusal of
text that holds a marker. The answers are written by hand to each engine's shapes (see
test_remote_wire.py and tests/remote/SOURCES.md); tests/remote runs the real servers.
"""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest
from test_remote_wire import Recorded, _sse, backend_on, vllm_server

from qualm.engine.completion_end import CompletionEnd
from qualm.model import GenerationOptions, ModelRuntimeError
from qualm.model.fim import FORMATS, prompt_text
from qualm.model.remote.client import ClientConfig, RemoteClient
from qualm.model.remote.infill import FimMarkersInText, infill_body, without_markers
from qualm.model.remote.probe import fim_support
from qualm.prompts import ContextChunk, InfillPrompt

QWEN = FORMATS["qwen"]
PROMPT = InfillPrompt(prefix="def mean(xs):\n", suffix="\n    return m\n", extra=(ContextChunk("util.py", "X = 1\n"),), filename="stats.py")


def _tokenizer(special: set[str], bos: list[int] | None = None):
    """A tokenizer route: a special token is one id, any other text one id a character."""

    def answer(body: dict) -> httpx.Response:
        text = body.get("prompt", body.get("input", body.get("content")))
        ids = [7] if text in special else [1000 + ord(c) for c in text]
        return httpx.Response(200, json={"tokens": (bos or []) + ids})

    return answer


def _client(server: Recorded) -> RemoteClient:
    return RemoteClient(ClientConfig("http://gpu-box:8000", retries=0), transport=httpx.MockTransport(server))


# -- the probe ---------------------------------------------------------------------------------


def test_auto_asks_the_served_tokenizer_which_markers_are_single_tokens():
    server = Recorded({("POST", "/tokenize"): _tokenizer(set(QWEN.markers))})
    support = fim_support(_client(server), "vllm", "team/served-coder", "auto")
    assert support.route == "text" and support.fmt == QWEN and "single tokens" in support.note
    asked = [b for p, b in server.requests if p == "/tokenize"]
    assert all(b["add_special_tokens"] is False and b["model"] == "team/served-coder" for b in asked)


def test_without_a_tokenizer_the_name_decides_and_an_unknown_name_means_no_fim():
    server = Recorded({})  # /tokenize: 404
    by_name = fim_support(_client(server), "sglang", "Qwen/Qwen2.5-Coder-7B", "auto")
    assert by_name.fmt == QWEN and "model's name" in by_name.note
    unknown = fim_support(_client(server), "openai", "meta-llama/Llama-3-8B", "auto")
    assert not unknown.usable and "qualm.model.fim_format" in unknown.note


def test_a_tokenizer_without_any_known_markers_means_no_fim():
    support = fim_support(_client(Recorded({("POST", "/tokenize"): _tokenizer(set())})), "vllm", "Qwen/Qwen2.5-Coder-7B", "auto")
    assert not support.usable and "none of the known FIM markers" in support.note


def test_a_named_format_is_checked_where_the_server_can_tokenize():
    server = Recorded({("POST", "/tokenize"): _tokenizer(set(QWEN.markers))})
    wrong = fim_support(_client(server), "vllm", "m", "starcoder")
    assert not wrong.usable and "starcoder markers" in wrong.note
    assert fim_support(_client(Recorded({})), "vllm", "m", "deepseek").fmt == FORMATS["deepseek"]  # unchecked: taken as said


def test_llama_cpp_python_tokenizer_adds_a_bos_that_is_counted_off():
    server = Recorded({("POST", "/extras/tokenize"): _tokenizer(set(QWEN.markers), bos=[1])})
    support = fim_support(_client(server), "llama-cpp-python", "/models/any.gguf", "auto")
    assert support.fmt == QWEN
    assert server.requests[0][1] == {"model": "/models/any.gguf", "input": ""}


def test_none_turns_fim_off_without_asking_the_server():
    server = Recorded({})
    for engine in ("llama.cpp", "vllm"):
        support = fim_support(_client(server), engine, "Qwen/Qwen2.5-Coder-7B", "none")
        assert not support.usable and "'none'" in support.note
    assert server.requests == []


def test_llama_server_infill_is_probed_with_one_token_and_a_refusal_means_no_fim():
    ok = Recorded({("POST", "/infill"): httpx.Response(200, json={"content": "a", "stop": True})})
    assert fim_support(_client(ok), "llama.cpp", "m.gguf", "auto").route == "infill"
    assert ok.requests[0][1]["n_predict"] == 1
    # tools/server/server-context.cpp handle_infill: a model without FIM tokens is answered 501
    refusal = {"error": {"code": 501, "message": "Infill is not supported by this model: prefix token is missing. ", "type": "not_supported_error"}}
    no = fim_support(_client(Recorded({("POST", "/infill"): httpx.Response(501, json=refusal)})), "llama.cpp", "m.gguf", "auto")
    assert not no.usable and "prefix token is missing" in no.note


# -- the requests ------------------------------------------------------------------------------


def test_the_infill_body_carries_the_parts_and_the_sampling():
    body = infill_body(PROMPT, GenerationOptions(max_tokens=32), n_probs=10, sampling={"temperature": 0.0, "top_k": 0})
    assert body == {
        "input_prefix": "def mean(xs):\n",
        "input_suffix": "\n    return m\n",
        "input_extra": [{"filename": "util.py", "text": "X = 1\n"}],
        "prompt": "",
        "n_predict": 32,
        "n_probs": 10,
        "stream": True,
        "cache_prompt": True,
        "timings_per_token": True,
        "temperature": 0.0,
        "top_k": 0,
    }


def _llama_event(text: str, tid: int, logprob: float = -0.1) -> dict:
    # tools/server/server-task.cpp, a streamed event with n_probs and timings_per_token
    own = {"id": tid, "token": text, "bytes": list(text.encode()), "logprob": logprob}
    entry = {**own, "top_logprobs": [own, {"id": 3, "token": "?", "bytes": [63], "logprob": -3.0}]}
    return {"content": text, "stop": False, "tokens_evaluated": 40, "timings": {"cache_n": 31, "prompt_n": 9}, "completion_probabilities": [entry]}


def llama_server(pieces: list[str]) -> Recorded:
    probe = [_llama_event("x", 87), {"content": "", "stop": True, "stop_type": "limit"}]
    infill = [_llama_event(p, 100 + i) for i, p in enumerate(pieces)] + [{"content": "", "stop": True, "stop_type": "eos"}]
    return Recorded(
        {
            ("GET", "/v1/models"): httpx.Response(200, json={"data": [{"id": "qwen.gguf", "owned_by": "llamacpp", "meta": {"n_vocab": 151936}}]}),
            ("GET", "/props"): httpx.Response(200, json={"default_generation_settings": {"n_ctx": 8192}, "chat_template": "{{ messages[0]['content'] }}"}),
            ("POST", "/completion"): lambda body: _sse(probe),
            ("POST", "/infill"): lambda body: _sse(infill) if body.get("stream") else httpx.Response(200, json={"content": "a", "stop": True}),
        }
    )


def test_llama_server_completes_through_infill_and_the_ending_stops_it():
    text = "def mean(xs):\n    total = sum(xs)\n    \n    return m\n"
    offset = text.index("    \n") + 4
    prompt = InfillPrompt(text[: text.index("    \n")], text[offset:], (ContextChunk("util.py", "X = 1\n"),), "stats.py", ending=CompletionEnd.at(text, offset, "    "))
    server = llama_server(["    m", " = total", " / len(xs)\n", "    return", " m\n", "\n", "never"])
    backend = backend_on(server)
    assert backend.info.capabilities.infill and "/infill" in backend.info.detail("fill-in-the-middle")
    streamed = []
    trace = backend.generate(prompt, GenerationOptions(max_tokens=16), on_token=streamed.append)
    # the next line of the suffix ends the middle: it is not written twice
    assert trace.text == "    m = total / len(xs)" and trace.stop_reason == "complete"
    assert trace.extra["prompt_kind"] == "fim" and trace.extra["first_token_seconds"] >= 0 and trace.extra["reused_prompt_tokens"] == 31
    assert trace.prompt_tokens == 40 and all(r.entropy_bounds[0] <= r.entropy <= r.entropy_bounds[1] for r in trace.tokens)
    body = [b for p, b in server.requests if p == "/infill" and b.get("stream")][-1]
    assert body["input_extra"] == [{"filename": "util.py", "text": "X = 1\n"}] and body["prompt"] == "" and body["n_probs"] == 5 and body["top_k"] == 0
    assert "[input_prefix]\ndef mean(xs):" in trace.prompt  # what was sent, for people


def test_vllm_completes_from_fim_text_with_logprobs():
    server = vllm_server()
    server.routes[("POST", "/tokenize")] = _tokenizer(set(QWEN.markers))
    backend = backend_on(server)
    assert backend.info.capabilities.infill and "qwen format" in backend.info.detail("fill-in-the-middle")
    trace = backend.generate(PROMPT, GenerationOptions(max_tokens=8))
    request = [b for p, b in server.requests if p == "/v1/completions" and b.get("stream")][-1]
    assert request["prompt"] == prompt_text(PROMPT, QWEN) and request["logprobs"] == 5
    assert trace.text == " a b" and trace.extra["prompt_kind"] == "fim" and trace.prompt == request["prompt"]
    assert backend.count_tokens("x" * 32) == 10 and backend.count_tokens("") == 0  # an estimate, no request


def test_a_marker_written_as_text_ends_the_middle():
    server = vllm_server()
    server.routes[("POST", "/tokenize")] = _tokenizer(set(QWEN.markers))

    def stream(body: dict) -> httpx.Response:
        if body["max_tokens"] == 4:  # the probe's answer
            return _sse([{"choices": [{"index": 0, "text": "a", "logprobs": {"tokens": ["a"], "token_logprobs": [-0.1], "top_logprobs": [{"a": -0.1}]}, "finish_reason": "length"}]}])
        pieces = ["x = 1", "<|file_sep|>", "other.py"]
        return _sse([{"choices": [{"index": 0, "text": p, "logprobs": {"tokens": [p], "token_logprobs": [-0.1], "top_logprobs": [{p: -0.1}]}, "finish_reason": None}]} for p in pieces])

    server.routes[("POST", "/v1/completions")] = lambda body: stream(body) if body.get("stream") else httpx.Response(404)
    backend = backend_on(server)
    trace = backend.generate(PROMPT, GenerationOptions(max_tokens=8))
    assert trace.text == "x = 1" and trace.stop_reason == "fence"  # a stop string


# -- markers in the user's text ----------------------------------------------------------------


def test_a_marker_in_the_code_around_the_cursor_is_refused_before_any_request():
    server = vllm_server()
    server.routes[("POST", "/tokenize")] = _tokenizer(set(QWEN.markers))
    backend = backend_on(server)
    sent = len(server.requests)
    with pytest.raises(FimMarkersInText, match="'<\\|fim_middle\\|>'.*completion_prompt") as caught:
        backend.generate(replace(PROMPT, suffix='MID = "<|fim_middle|>"\n'), GenerationOptions(max_tokens=8))
    assert isinstance(caught.value, ModelRuntimeError) and len(server.requests) == sent


def test_context_chunks_holding_a_marker_are_left_out():
    prompt = replace(PROMPT, extra=(ContextChunk("fim.py", "PREFIX = '<|fim_prefix|>'\n"), ContextChunk("util.py", "X = 1\n")))
    safe = without_markers(prompt, QWEN)
    assert safe.extra == (ContextChunk("util.py", "X = 1\n"),)
    assert without_markers(PROMPT, QWEN) is PROMPT
    # llama.cpp's /infill tokenizes the parts without special tokens: nothing to refuse there
    assert json.loads(json.dumps(infill_body(prompt, GenerationOptions(), 5, {})))["input_extra"][0]["text"] == "PREFIX = '<|fim_prefix|>'\n"
