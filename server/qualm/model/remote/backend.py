"""The ``openai`` backend: the same engine features over a shared inference server.

qualm renders the chat prompt itself (the server's template where it gives one) and asks for raw
completions, so a prompt is the same text locally and remotely. Per-token uncertainty comes from
the top N log-probabilities the engine returns: the entropy is a bound with a point estimate
(``qualm.entropy_bounds``), and each record says so. Scoring code in the file needs the prompt's
log-probabilities: vLLM (``prompt_logprobs``), SGLang (``logprob_start_len``) and llama-cpp-python
(``echo`` with ``logprobs``) give them; llama.cpp's server does not, and ``score`` then raises
:class:`TeacherForcingUnavailable` with that reason (the lexical axis of code in the file is then
unavailable, never zero). Samples (plans, tests) run as concurrent requests: vLLM, SGLang and
llama-server batch them and share the prompt's prefix cache.

Completions take a fill-in-the-middle prompt where the server can (docs/completion-remote.md):
llama.cpp's server through its ``/infill`` (it builds the prompt from the model's FIM tokens),
others through ``/v1/completions`` with the prompt as FIM text in the markers the probe found.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from pathlib import Path

from ...prompts import ChatPrompt, InfillPrompt
from ...settings import ModelSettings
from ...trace import Trace
from .. import fim
from ..backend import CancelToken, Capabilities, GenerationOptions, ModelInfo, ModelRuntimeError, OnToken, TeacherForcingUnavailable, generated_trace
from ..identity import ModelIdentity
from ..text_stream import TextStream
from .client import ClientConfig, RemoteClient, RemoteError
from .infill import describe_infill, fim_text, infill_body
from .probe import FINGERPRINT_PROMPT, NO_PROMPT_LOGPROBS, EndpointInfo, choose_model, context_length, detect_engine, fim_support, fingerprint_of, vocabulary
from .wire import WireFormatError, WireToken, llama_cpp_python_echo_tokens, llama_server_tokens, openai_tokens, sglang_tokens, token_stats, vllm_prompt_tokens

log = logging.getLogger("qualm.model")

# Engines whose completions take ``n`` answers to one prompt in one request (one prefill); llama.cpp's
# servers take one answer a request. MAX_N: at most this many answers a request.
N_ENGINES = frozenset({"vllm", "sglang"})
MAX_N = 16
# How often a batch's wait lets a waiting completion go to the server beside it (CancelToken.checkpoint).
CHECKPOINT_S = 0.05
# An answer whose stream ended without a finish reason was cut short, not finished: llama-cpp-python's
# server does that to a running answer when another request arrives (its --interrupt_requests).
CUT_SHORT = (
    "the server ended the answer without saying why (cut short, not finished): another client's request may have"
    " interrupted it (llama-cpp-python's server: start it with --interrupt_requests false)"
)


class AnswerCutShort(RemoteError):
    """The answer's stream ended without a finish reason (CUT_SHORT)."""


# count_tokens without a round trip per keystroke: code averages a little over 3 characters a token
# in the tokenizers of the FIM families (qualm.model.fim); the server trims a prompt that is longer.
CHARS_PER_TOKEN = 3.2

# Engines that decode one request at a time: more in flight only queue (or interrupt each other).
ONE_AT_A_TIME = frozenset({"llama-cpp-python"})

# Qwen2.5's chat format (ChatML with its default system message) for a user-only conversation:
# the default model's family, used where the server gives no template and none is configured.
CHATML_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}{%- endif %}"
    "{%- for m in messages %}{%- if m['role'] != 'system' %}{{- '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)


class OpenAIBackend:
    def __init__(self, settings: ModelSettings, client: RemoteClient | None = None):
        self._settings = settings
        self._client = client or RemoteClient(ClientConfig(settings.endpoint, settings.api_key_env, settings.timeout_s, settings.retries))
        self._closed = False
        try:
            self.endpoint = self._probe()
        except Exception:
            self._client.close()
            raise
        e = self.endpoint
        # Every request holds a slot: samples, concurrent problems of an evaluation and editor
        # requests together never have more than this many answers in flight on the server.
        # llama-cpp-python's server decodes one request at a time and, by default, cuts the running
        # answer short when another arrives: qualm never sends it two at once.
        in_flight = 1 if e.engine in ONE_AT_A_TIME else max(1, settings.max_concurrency)
        self._slots = threading.BoundedSemaphore(in_flight)
        self._info = ModelInfo(
            name=e.model,
            identity=ModelIdentity("endpoint", e.identity_digest(self._client.root), e.model, f"{self._client.root} {e.model}"),
            backend="openai",
            capabilities=Capabilities(
                exact_entropy=False, teacher_forcing=e.prompt_logprobs, parallel_sequences=True, gpu=False, max_alternatives=e.top_logprobs, remote=True, infill=self._fim.usable
            ),
            context_length=e.context_length or settings.n_ctx,
            vocab_size=e.vocab_size,
            details=(
                ("endpoint", self._client.root),
                ("engine", e.engine + (f" {e.version}" if e.version else "")),
                ("served models", ", ".join(e.served)),
                ("alternatives per token", f"{e.top_logprobs} (asked {settings.top_logprobs}): entropy is a bound, estimate {settings.entropy_estimate}"),
                ("scoring code in the file", "yes" if e.prompt_logprobs else f"no: {e.prompt_logprobs_note}"),
                ("vocabulary", f"{e.vocab_size:,} ({e.vocab_note})"),
                ("context", f"{e.context_length:,} tokens" if e.context_length else "not reported"),
                ("chat template", "the server's" if e.chat_template else (settings.chat_template or "built-in ChatML (Qwen2.5)")),
                ("fill-in-the-middle", self._fim.note),
                ("requests in flight", f"at most {in_flight}" + (f" ({e.engine} serves one at a time)" if e.engine in ONE_AT_A_TIME else "")),
            ),
            chat_template=self._template,
        )

    # -- start-up ----------------------------------------------------------------------------

    def _template_from_settings(self) -> str:
        if self._settings.chat_template:
            path = Path(self._settings.chat_template).expanduser()
            try:
                return path.read_text()
            except OSError as exc:
                raise RemoteError(f"qualm.model.chat_template: cannot read {path}: {exc}") from exc
        return CHATML_TEMPLATE

    def _probe(self) -> EndpointInfo:
        s = self._settings
        models = self._client.get_json("/v1/models")
        engine, version, facts = detect_engine(self._client, models) if s.engine == "auto" else (s.engine, "", {})
        self._engine = engine
        model, served, entry = choose_model(models, s.name, self._client.root)
        self._model = model
        vocab, vocab_note = vocabulary(entry, s.vocab_size)
        self._vocab = vocab
        template = facts.get("chat_template") or None
        self._template = template or self._template_from_settings()
        # One short greedy answer with logprobs: does the server give them, how many, and the
        # fingerprint of the model behind the name.
        tokens: list[WireToken] = []
        failure: AnswerCutShort | None = None
        try:
            for _, tok, _ in self._stream_tokens(FINGERPRINT_PROMPT, GenerationOptions(max_tokens=4, temperature=0.0, top_alternatives=1)):
                if tok is not None:
                    tokens.append(tok)
        except AnswerCutShort as exc:  # llama-cpp-python without logits_all ends the stream at once
            failure = exc
        if not tokens or not any(t.top or t.logprob is not None for t in tokens):
            hint = " (llama-cpp-python's server: start it with --logits_all true)" if engine == "llama-cpp-python" else ""
            raise RemoteError(f"{self._client.root} ({engine}) returned no log-probabilities: qualm cannot measure uncertainty without them{hint}") from failure
        if failure is not None:
            raise failure
        top_n = max(len(t.top) for t in tokens)
        prompt_ok, note = self._probe_prompt_logprobs(engine)
        self._fim = fim_support(self._client, engine, model, s.fim_format)
        return EndpointInfo(
            engine=engine,
            model=model,
            served=served,
            vocab_size=vocab,
            vocab_note=vocab_note,
            context_length=context_length(entry, facts),
            chat_template=template,
            top_logprobs=top_n,
            prompt_logprobs=prompt_ok,
            prompt_logprobs_note=note,
            fingerprint=fingerprint_of([(t.text, t.logprob) for t in tokens]),
            version=version,
            fim=self._fim,
        )

    def _probe_prompt_logprobs(self, engine: str) -> tuple[bool, str]:
        if engine == "llama.cpp":
            return False, NO_PROMPT_LOGPROBS["llama.cpp"]
        try:
            from ..chat_template import render_chat  # noqa: PLC0415 - Jinja loads on the first prompt

            # the shape of a real scoring request: a chat prompt, then a function
            head = render_chat(self._template, [{"role": "user", "content": "Write f."}])
            scored = self._score_tokens(head, "def f():\n    return 1\n")
        except (RemoteError, WireFormatError, KeyError, IndexError, TypeError) as exc:
            # an engine that answers the scoring request in another shape cannot score either
            log.info("prompt log-probabilities not available: %s", exc)
            return False, NO_PROMPT_LOGPROBS.get(engine, NO_PROMPT_LOGPROBS["openai"]) + f" ({exc})"
        return (True, "") if scored else (False, NO_PROMPT_LOGPROBS.get(engine, NO_PROMPT_LOGPROBS["openai"]))

    # -- the protocol ------------------------------------------------------------------------

    @property
    def info(self) -> ModelInfo:
        return self._info

    def render_prompt(self, prompt: ChatPrompt | InfillPrompt) -> str:
        """The text the model sees; for an infill prompt on llama.cpp, the parts /infill is sent."""
        if isinstance(prompt, InfillPrompt):
            fmt = self._infill_format()
            return describe_infill(prompt) if fmt is None else fim_text(prompt, fmt)
        from ..chat_template import render_prompt  # noqa: PLC0415 - Jinja loads on the first prompt

        return render_prompt(self._info.chat_template, prompt)

    def count_tokens(self, text: str) -> int:
        """An estimate from the length (no request per keystroke): the windows it sizes are cut at
        line ends anyway, and the server trims a prompt that does not fit."""
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def generate(self, prompt: ChatPrompt | InfillPrompt, options: GenerationOptions, on_token: OnToken | None = None, cancel: CancelToken | None = None) -> Trace:
        if cancel is not None:
            cancel.checkpoint()
        return self._decode(prompt, options, 1, on_token, cancel)[0]

    def _infill_format(self) -> fim.FimFormat | None:
        """The markers of the FIM text; None where llama.cpp's /infill takes the parts."""
        if not self._fim.usable:
            raise ModelRuntimeError(f"{self._model} on {self._client.root} takes no fill-in-the-middle prompt ({self._fim.note})")
        return self._fim.fmt

    def generate_batch(
        self,
        jobs: Sequence[tuple[ChatPrompt, GenerationOptions]],
        on_progress: Callable[[int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Trace]:
        """Samples as the engine prefers them. vLLM and SGLang: one request with ``n`` per prompt and
        settings (the prompt is prefilled once; the request's seed is the first job's). Others:
        concurrent requests that the engine batches, its prefix cache sharing the prompt. At most
        ``max_concurrency`` requests are in flight; an error cancels the others and is raised."""
        if not jobs:
            return []
        if cancel is not None:
            cancel.checkpoint()
        inner = CancelToken(cancel)  # the caller's, or the batch's own after an error
        produced = [0]
        lock = threading.Lock()

        def count(_record) -> None:
            with lock:
                produced[0] += 1
                total = produced[0]
            if on_progress is not None:
                on_progress(total)

        groups = self._request_groups(jobs)

        def run(group: list[int]) -> list[Trace]:
            prompt, options = jobs[group[0]]
            return self._decode(prompt, options, len(group), count, inner)

        out: list[Trace | None] = [None] * len(jobs)
        with ThreadPoolExecutor(max_workers=min(len(groups), self._settings.max_concurrency), thread_name_prefix="qualm-remote") as pool:
            futures = [(group, pool.submit(run, group)) for group in groups]
            try:
                for group, future in futures:
                    for i, trace in zip(group, self._awaited(future, cancel)):
                        out[i] = trace
            except BaseException:
                inner.cancel()
                raise
        return [t for t in out if t is not None]

    def _awaited(self, future: Future, cancel: CancelToken | None) -> list[Trace]:
        """A request's traces; while it runs, the caller's checkpoint (a completion that waits is
        sent beside the batch: the server runs requests side by side), except on a server that
        cuts a running answer short when another request arrives."""
        side_by_side = cancel is not None and self._engine not in ONE_AT_A_TIME
        while True:
            try:
                return future.result(timeout=CHECKPOINT_S if side_by_side else None)
            except FuturesTimeout:
                if cancel is not None:
                    cancel.checkpoint()

    def _request_groups(self, jobs: Sequence[tuple[ChatPrompt, GenerationOptions]]) -> list[list[int]]:
        """Which jobs share one request: with an engine that takes ``n``, the samples of one prompt
        with the same settings but their seeds (at most MAX_N a request); else one job a request."""
        if self._engine not in N_ENGINES:
            return [[i] for i in range(len(jobs))]
        groups: dict[tuple, list[int]] = {}
        for i, (prompt, options) in enumerate(jobs):
            key = (prompt, options.max_tokens, options.temperature, options.top_p, options.top_alternatives)
            if options.greedy:  # n greedy answers are one answer n times: never grouped
                key = (*key, i)
            groups.setdefault(key, []).append(i)
        return [g[k : k + MAX_N] for g in groups.values() for k in range(0, len(g), MAX_N)]

    def _decode(self, prompt: ChatPrompt | InfillPrompt, options: GenerationOptions, n: int, on_token: OnToken | None, cancel: CancelToken | None) -> list[Trace]:
        """``n`` answers to one prompt from one streamed request (n > 1 only where the engine
        takes ``n``); each answer ends at its own stop, and the request when all have."""
        self._ensure_open()
        t0 = time.perf_counter()
        rendered = self.render_prompt(prompt)
        stop = prompt.stop + self._marker_stops(prompt)
        streams = [TextStream(stop, on_token, prompt.ends, prompt.ending) for _ in range(n)]
        reasons: list[str | None] = [None] * n
        usage: dict = {}  # what the server said of the prompt (llama.cpp), and the first token's time
        if not self._take_slot(cancel):
            reasons = ["cancelled"] * n
        else:
            try:
                self._read_answers(self._request(prompt, rendered, options, n, usage), streams, reasons, options, cancel, usage)
            finally:
                self._slots.release()
        seconds = time.perf_counter() - t0
        extra = {"backend": "openai", "engine": self._engine, "entropy": f"estimate ({self._settings.entropy_estimate}) from the top {self.endpoint.top_logprobs}"}
        if n > 1:
            extra["request"] = f"one request with n={n} (seed {options.seed})"
        if isinstance(prompt, InfillPrompt):  # what an editor's completion waits for, as the local backend records it
            extra.update(self._infill_extra(usage))
        traces = []
        prompt_tokens = int(usage.get("prompt_tokens", 0))  # 0: the server did not say
        for stream, reason in zip(streams, reasons):
            stream.finish()
            trace = generated_trace(stream, options, model=self._info.name, prompt=rendered, prompt_tokens=prompt_tokens, vocab_size=self._vocab, stop_reason=reason or "length", seconds=seconds, extra=extra)
            traces.append(trace)
        return traces

    def _read_answers(
        self, events: Iterator[tuple[int, WireToken | None, str]], streams: list[TextStream], reasons: list[str | None], options: GenerationOptions, cancel: CancelToken | None, usage: dict
    ) -> None:
        """Push each token into its answer's stream until every answer has ended (``reasons``);
        ``usage["first_token_seconds"]``: from sending the request to the first token."""
        counts = [0] * len(streams)
        sent = time.perf_counter()
        try:
            for index, tok, finish in events:
                if cancel is not None and cancel.cancelled:
                    reasons[:] = [r or "cancelled" for r in reasons]
                elif index < len(streams) and reasons[index] is None:
                    if tok is None:  # this answer ended
                        reasons[index] = "eos" if finish == "stop" else "length"
                    else:
                        usage.setdefault("first_token_seconds", time.perf_counter() - sent)
                        counts[index] += 1
                        stats = token_stats(tok, self._vocab, self._settings.entropy_estimate, options.top_alternatives)  # type: ignore[arg-type]
                        if streams[index].push(tok.raw, stats):
                            reasons[index] = streams[index].stop_kind
                        elif counts[index] >= options.max_tokens:
                            reasons[index] = "length"
                if all(reasons):
                    break
        finally:
            events.close()  # closes the connection: the server stops decoding these answers

    def _request(self, prompt: ChatPrompt | InfillPrompt, rendered: str, options: GenerationOptions, n: int, usage: dict) -> Iterator[tuple[int, WireToken | None, str]]:
        """The streamed request for ``prompt``: llama.cpp's /infill for an infill prompt there (it
        takes the parts), else the rendered text (chat or FIM) as a completion's prompt."""
        if isinstance(prompt, InfillPrompt) and self._fim.route == "infill":
            return self._llama_stream("/infill", infill_body(prompt, options, max(1, self._settings.top_logprobs), self._sampling(options)), usage)
        return self._stream_tokens(rendered, options, n, usage)

    def _marker_stops(self, prompt: ChatPrompt | InfillPrompt) -> tuple[str, ...]:
        """FIM text: the format's markers end the middle where the engine shows them as text (an
        engine stops only at its model's end-of-sequence tokens; a FIM model may write a file
        separator instead)."""
        fmt = self._fim.fmt if isinstance(prompt, InfillPrompt) else None
        return fmt.markers if fmt is not None else ()

    def _infill_extra(self, usage: dict) -> dict:
        fmt = self._fim.fmt
        extra: dict = {"prompt_kind": "fim", "fim": f"FIM text ({fmt.name})" if fmt else "llama.cpp /infill"}
        if "first_token_seconds" in usage:
            extra["first_token_seconds"] = round(usage["first_token_seconds"], 4)
        if "reused_prompt_tokens" in usage:
            extra["reused_prompt_tokens"] = usage["reused_prompt_tokens"]
        return extra

    def score(self, prompt: ChatPrompt, text: str, cancel: CancelToken | None = None, top_alternatives: int = 5) -> Trace:
        if cancel is not None:
            cancel.checkpoint()
        self._ensure_open()
        if not self.endpoint.prompt_logprobs:
            raise TeacherForcingUnavailable(self.endpoint.prompt_logprobs_note)
        t0 = time.perf_counter()
        rendered = self.render_prompt(prompt)
        cancelled = not self._take_slot(cancel)
        tokens: list[WireToken] = []
        if not cancelled:  # as the local backend: a cancelled scoring is an empty trace that says so
            try:
                tokens = self._score_tokens(rendered, text)
            finally:
                self._slots.release()
        stream = TextStream(())
        for tok in tokens:
            stream.push(tok.raw, token_stats(tok, self._vocab, self._settings.entropy_estimate, top_alternatives))  # type: ignore[arg-type]
        stream.finish()
        if not cancelled and stream.text != text:
            raise RemoteError(f"the server's tokens of the scored code do not rebuild it ({len(stream.text)} of {len(text)} characters): cannot place them")
        return Trace(
            text=stream.text,
            tokens=stream.records,
            model=self._info.name,
            mode="scored",
            prompt=rendered,
            vocab_size=self._vocab,
            stop_reason="cancelled" if cancelled else "end_of_text",
            seconds=time.perf_counter() - t0,
            extra={"backend": "openai", "engine": self._engine},
        )

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._client.close()

    def __enter__(self) -> OpenAIBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _take_slot(self, cancel: CancelToken | None) -> bool:
        """Wait for a free request slot; False when cancelled while waiting."""
        while not self._slots.acquire(timeout=0.1):
            if cancel is not None and cancel.cancelled:
                return False
        return True

    def _ensure_open(self) -> None:
        if self._closed:
            raise ModelRuntimeError("the model backend has been closed")

    # -- engines -----------------------------------------------------------------------------

    def _sampling(self, options: GenerationOptions) -> dict:
        """The paper's sampling: temperature and top-p alone. llama.cpp-based servers add top-k 40
        and min-p 0.05 by default, so those are switched off where the engine knows them."""
        body: dict = {"temperature": max(0.0, options.temperature), "top_p": 1.0 if options.greedy else options.top_p, "seed": options.seed}
        if self._engine in ("llama.cpp", "llama-cpp-python"):
            body.update(top_k=0, min_p=0.0, repeat_penalty=1.0)
        elif self._engine in ("vllm", "sglang"):
            body.update(top_k=-1, min_p=0.0)
        return body

    def _stream_tokens(self, prompt_text: str, options: GenerationOptions, n: int = 1, usage: dict | None = None) -> Iterator[tuple[int, WireToken | None, str]]:
        """(answer index, token, "") for each token as it arrives, and (index, None, finish reason)
        when an answer ends; ``n`` answers to the one prompt (n > 1 only for N_ENGINES)."""
        top = max(1, self._settings.top_logprobs)
        if self._engine == "llama.cpp":
            body = {"prompt": prompt_text, "n_predict": options.max_tokens, "n_probs": top, "stream": True, "cache_prompt": True, "timings_per_token": True, **self._sampling(options)}
            yield from self._llama_stream("/completion", body, usage)
            return
        body = {"model": self._model, "prompt": prompt_text, "max_tokens": options.max_tokens, "logprobs": top, "stream": True, **self._sampling(options)}
        if n > 1:
            body["n"] = n
        events = self._client.stream_events("/v1/completions", body)
        ended: set[int] = set()
        try:
            for event in events:
                for choice in event.get("choices") or []:
                    index = int(choice.get("index") or 0)
                    for tok in openai_tokens(choice.get("logprobs")):
                        yield index, tok, ""
                    if choice.get("finish_reason"):
                        ended.add(index)
                        yield index, None, str(choice["finish_reason"])
                if len(ended) >= n:
                    return
        finally:
            events.close()
        if len(ended) < n:  # the stream closed without saying why an answer ended
            raise AnswerCutShort(CUT_SHORT)

    def _llama_stream(self, path: str, body: dict, usage: dict | None = None) -> Iterator[tuple[int, WireToken | None, str]]:
        """llama.cpp's native stream (/completion, /infill): one answer's tokens, then its end.
        ``usage`` gets the prompt's length and the tokens its cache held, from the first event that
        says them (every event does with ``timings_per_token``: a completion cut short never reads
        the last)."""
        events = self._client.stream_events(path, body)
        try:
            for event in events:
                if usage is not None and "prompt_tokens" not in usage:
                    usage.update(prompt_usage(event))
                for tok in llama_server_tokens(event.get("completion_probabilities")):
                    yield 0, tok, ""
                if event.get("stop"):
                    yield 0, None, "stop" if event.get("stop_type") in ("eos", "word") else "length"
                    return
        finally:
            events.close()
        raise AnswerCutShort(CUT_SHORT)

    def _score_tokens(self, rendered: str, text: str) -> list[WireToken]:
        """The tokens of ``text`` after ``rendered``, each with the log-probabilities the model gave
        it there (teacher forcing), by the engine's own means."""
        n = max(1, self._settings.top_logprobs)
        if self._engine == "vllm":
            ids_prompt = self._tokenize(rendered, special=True)
            ids_text = self._tokenize(text, special=False)
            ids = ids_prompt + ids_text
            answer = self._client.post_json("/v1/completions", {"model": self._model, "prompt": ids, "max_tokens": 1, "temperature": 0.0, "prompt_logprobs": n})
            return vllm_prompt_tokens(answer["choices"][0].get("prompt_logprobs"), ids, n)[len(ids_prompt) :]
        if self._engine == "sglang":
            # SGLang's input log-probabilities from logprob_start_len = k: entry 0 is token k with
            # no value, entry j is token k + j predicted from what precedes it. Starting at the
            # prompt's last token (its length from a prefill-only request) makes entries 1.. the
            # text's tokens.
            head = self._client.post_json("/generate", {"text": rendered, "sampling_params": {"max_new_tokens": 0, "temperature": 0.0}})
            start = int(head["meta_info"]["prompt_tokens"]) - 1
            answer = self._client.post_json(
                "/generate",
                {
                    "text": rendered + text,
                    "sampling_params": {"max_new_tokens": 0, "temperature": 0.0},
                    "return_logprob": True,
                    "logprob_start_len": start,
                    "top_logprobs_num": n,
                    "return_text_in_logprobs": True,
                },
            )
            meta = answer["meta_info"]
            return sglang_tokens(meta["input_token_logprobs"], meta.get("input_top_logprobs"))[1:]
        # OpenAI legacy: echo the prompt with its log-probabilities (llama.cpp's server refuses echo
        # and never gets here: the probe found it cannot score)
        answer = self._client.post_json("/v1/completions", {"model": self._model, "prompt": rendered + text, "max_tokens": 1, "temperature": 0.0, "echo": True, "logprobs": n})
        logprobs = answer["choices"][0].get("logprobs") or {}
        if self._engine == "llama-cpp-python":
            return llama_cpp_python_echo_tokens(logprobs, text)  # shifted by one (wire.py)
        tokens = openai_tokens(logprobs)
        offsets = logprobs.get("text_offset") or []
        if len(offsets) != len(tokens):
            raise WireFormatError("echoed logprobs without a text_offset per token")
        start, end = len(rendered), len(rendered) + len(text)
        return [t for t, off in zip(tokens, offsets) if start <= off < end]

    def _tokenize(self, text: str, special: bool) -> list[int]:
        answer = self._client.post_json("/tokenize", {"model": self._model, "prompt": text, "add_special_tokens": special})
        return [int(t) for t in answer["tokens"]]


def prompt_usage(event: dict) -> dict:
    """The prompt's length (``tokens_evaluated``) and how much of it came from the server's cache
    (``timings.cache_n``) in a llama.cpp stream event; empty where it says neither."""
    out: dict = {}
    if event.get("tokens_evaluated") is not None:
        out["prompt_tokens"] = int(event["tokens_evaluated"])
    timings = event.get("timings") or {}
    if timings.get("cache_n") is not None:
        out["reused_prompt_tokens"] = int(timings["cache_n"])
    return out


def load(settings: ModelSettings) -> OpenAIBackend:
    """The registry's loader."""
    return OpenAIBackend(settings)
