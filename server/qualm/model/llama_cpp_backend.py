"""The llama.cpp backend, over llama-cpp-python's low-level API.

qualm drives the decoding loop itself rather than through ``Llama.create_completion``: it needs
the full-vocabulary logits at every step (entropy and alternatives), teacher-forced scoring of
existing text, cancellation between tokens, and control of the model parameters (the AMX guard
below), none of which the high-level API offers together.
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from pathlib import Path

import numpy as np

from ..entropy import EntropyMeter
from ..prompts import ChatPrompt, thinking_off_marker
from ..settings import ModelSettings
from ..trace import Alternative, Trace
from .backend import CancelToken, GenerationOptions, ModelInfo, ModelRuntimeError, OnToken
from .files import ModelFileError
from .text_stream import TextStream, TokenStats

log = logging.getLogger("qualm.model")

# Teacher-forced scoring in chunks asks for logits at every position; llama.cpp grows its output
# buffer to rows x vocabulary floats, so chunks stay small (64 x 151,936 x 4 bytes = 39 MB).
_MAX_SCORE_CHUNK = 64


def _import_llama_cpp():
    try:
        import llama_cpp  # noqa: PLC0415 - optional heavy import, only when a model is loaded
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ModelFileError("llama-cpp-python is not installed: run the README's setup command") from exc
    # llama.cpp's own messages go to Python logging (logger "qualm.llama_cpp"), not to stderr.
    llama_cpp.llama_log_set(_LLAMA_LOG_CALLBACK, ctypes.c_void_p(0))
    return llama_cpp


_GGML_LEVELS = {1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR, 4: logging.DEBUG}
_llama_log = logging.getLogger("qualm.llama_cpp")


def _forward_llama_log(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
    message = text.decode("utf-8", "replace").rstrip()
    if message and message != ".":
        # llama.cpp is chatty at load time: its warnings are details, not user-facing problems.
        _llama_log.log(min(_GGML_LEVELS.get(level, logging.DEBUG), logging.INFO), "%s", message)


_LLAMA_LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)(_forward_llama_log)


class LlamaCppBackend:
    """One loaded GGUF model and one context; calls are serialised by a lock."""

    def __init__(self, path: Path, settings: ModelSettings, display_name: str | None = None):
        lc = _import_llama_cpp()
        self._lc = lc
        self._lock = threading.Lock()
        lc.llama_backend_init()
        self._system_info = lc.llama_print_system_info().decode("utf-8", "replace")

        mparams = lc.llama_model_default_params()
        mparams.n_gpu_layers = settings.n_gpu_layers
        mparams.use_extra_bufts = self._extra_buffers_allowed(settings.cpu_extra_buffers)
        self._model = lc.llama_model_load_from_file(str(path).encode(), mparams)
        if not self._model:
            raise ModelFileError(f"llama.cpp could not load {path} (corrupt, truncated, or an architecture this llama.cpp does not know): download it again or choose another .gguf")
        self._vocab = lc.llama_model_get_vocab(self._model)
        self.n_vocab = int(lc.llama_vocab_n_tokens(self._vocab))
        self._n_threads = settings.threads()

        cparams = lc.llama_context_default_params()
        cparams.n_ctx = settings.n_ctx
        cparams.n_batch = settings.n_batch
        cparams.n_ubatch = settings.n_batch
        cparams.n_threads = self._n_threads
        cparams.n_threads_batch = self._n_threads
        cparams.no_perf = True
        self._ctx = lc.llama_init_from_model(self._model, cparams)
        if not self._ctx:
            lc.llama_model_free(self._model)
            raise ModelFileError(f"llama.cpp could not create a context of {settings.n_ctx} tokens for {path}")
        self._n_ctx = int(lc.llama_n_ctx(self._ctx))
        self._n_batch = settings.n_batch
        # 1: text tokens are decoded one at a time exactly as in generation, so scoring what the
        # model wrote reproduces its entropies; llama.cpp's batched kernels are not batch-invariant
        # (chunks of 8 to 64 moved entropies by up to 0.1 nats on Qwen2.5-Coder-0.5B).
        self._score_chunk = max(1, min(settings.score_batch, _MAX_SCORE_CHUNK, settings.n_batch))
        self._batch = lc.llama_batch_init(settings.n_batch, 0, 1)
        self._piece_buf = ctypes.create_string_buffer(256)
        self._pieces: dict[int, bytes] = {}
        self._add_bos = bool(lc.llama_vocab_get_add_bos(self._vocab))
        self._chat_template = self._meta("tokenizer.chat_template") or ""
        name = display_name or self._meta("general.name") or path.stem
        self._info = ModelInfo(
            name=name,
            path=str(path),
            size_bytes=path.stat().st_size,
            context_length=self._n_ctx,
            trained_context_length=int(lc.llama_model_n_ctx_train(self._model)),
            vocab_size=self.n_vocab,
            n_threads=self._n_threads,
            n_gpu_layers=settings.n_gpu_layers,
            backend=f"llama.cpp (llama-cpp-python {getattr(lc, '__version__', '?')})",
            build=self._system_info.strip(),
            chat_template=self._chat_template,
        )
        self._closed = False

    # -- setup helpers -----------------------------------------------------------------------

    def _extra_buffers_allowed(self, mode: str) -> bool:
        if mode == "on":
            return True
        if mode == "off":
            return False
        # llama.cpp's AMX matmul segfaults at the first evaluation on some AMX CPUs (issue 20824);
        # a build without AMX (the README's setup) keeps the faster AVX2 weight repacking.
        if "AMX_INT8 = 1" in self._system_info:
            log.info("llama.cpp was built with AMX: extra CPU buffer types off to avoid its AMX crash")
            return False
        return True

    def _meta(self, key: str) -> str | None:
        size = 1 << 16
        buf = ctypes.create_string_buffer(size)
        n = self._lc.llama_model_meta_val_str(self._model, key.encode(), buf, size)
        if n < 0:
            return None
        if n >= size:  # chat templates can be long
            buf = ctypes.create_string_buffer(n + 1)
            self._lc.llama_model_meta_val_str(self._model, key.encode(), buf, n + 1)
        return buf.value.decode("utf-8", "replace")

    @property
    def info(self) -> ModelInfo:
        return self._info

    # -- tokens ------------------------------------------------------------------------------

    def tokenize(self, text: str, *, add_special: bool, parse_special: bool) -> list[int]:
        data = text.encode("utf-8")
        cap = len(data) + 16
        buf = (self._lc.llama_token * cap)()
        n = self._lc.llama_tokenize(self._vocab, data, len(data), buf, cap, add_special, parse_special)
        if n < 0:
            cap = -n
            buf = (self._lc.llama_token * cap)()
            n = self._lc.llama_tokenize(self._vocab, data, len(data), buf, cap, add_special, parse_special)
        return list(buf[:n])

    def piece(self, token_id: int) -> bytes:
        cached = self._pieces.get(token_id)
        if cached is None:
            n = self._lc.llama_token_to_piece(self._vocab, token_id, self._piece_buf, len(self._piece_buf), 0, False)
            cached = self._piece_buf.raw[: max(n, 0)]
            self._pieces[token_id] = cached
        return cached

    def _token_text(self, token_id: int) -> str:
        return self.piece(token_id).decode("utf-8", "replace")

    # -- prompts -----------------------------------------------------------------------------

    def render_prompt(self, prompt: ChatPrompt) -> str:
        from .chat_template import render_chat  # noqa: PLC0415

        head = render_chat(self._chat_template, [{"role": "user", "content": prompt.user}])
        return head + thinking_off_marker(self._chat_template) + prompt.assistant_prefix

    def _prompt_tokens(self, prompt: ChatPrompt) -> tuple[str, list[int]]:
        rendered = self.render_prompt(prompt)
        return rendered, self.tokenize(rendered, add_special=self._add_bos, parse_special=True)

    # -- decoding ----------------------------------------------------------------------------

    def _decode(self, tokens: list[int], start_pos: int, logits_from: int) -> None:
        """Decode tokens at positions start_pos.. with logits for batch rows >= logits_from."""
        b = self._batch
        n = len(tokens)
        b.n_tokens = n
        for i, tok in enumerate(tokens):
            b.token[i] = tok
            b.pos[i] = start_pos + i
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = 0
            b.logits[i] = 1 if i >= logits_from else 0
        rc = self._lc.llama_decode(self._ctx, b)
        if rc != 0:
            raise ModelRuntimeError(f"llama_decode failed with code {rc} at position {start_pos}")

    def _logits(self, row: int) -> np.ndarray:
        ptr = self._lc.llama_get_logits_ith(self._ctx, row)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))

    def _reset(self) -> None:
        # Every call starts from an empty cache so that the same input always gives the same
        # numbers (a reused prefix shifts logits slightly through different batch shapes).
        self._lc.llama_memory_clear(self._lc.llama_get_memory(self._ctx), True)

    def _eval_prompt(self, tokens: list[int]) -> None:
        for i in range(0, len(tokens), self._n_batch):
            chunk = tokens[i : i + self._n_batch]
            last = i + len(chunk) >= len(tokens)
            self._decode(chunk, i, len(chunk) - 1 if last else len(chunk))

    def _check_room(self, needed: int, what: str) -> None:
        if needed > self._n_ctx:
            raise ModelRuntimeError(f"{what} needs {needed} tokens but the context holds {self._n_ctx}; raise qualm.model.n_ctx")

    def _stats(self, meter: EntropyMeter, logits: np.ndarray, chosen: int | None) -> TokenStats:
        d = meter.measure(logits)
        token = int(d.top_ids[0]) if chosen is None else chosen
        alts = tuple(Alternative(int(i), self._token_text(int(i)), float(p)) for i, p in zip(d.top_ids, d.top_probs))
        prob = float(d.top_probs[0]) if chosen is None else d.prob_of(logits, token)
        return TokenStats(token_id=token, entropy=d.entropy, prob=prob, alternatives=alts)

    def _sampler(self, options: GenerationOptions):
        lc = self._lc
        chain = lc.llama_sampler_chain_init(lc.llama_sampler_chain_default_params())
        # Temperature before nucleus, as in vLLM and transformers (the paper's setup); no top-k, no min-p.
        lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_temp(options.temperature))
        if options.top_p < 1.0:
            lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_top_p(options.top_p, 1))
        lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_dist(options.seed & 0xFFFFFFFF))
        return chain

    def generate(
        self,
        prompt: ChatPrompt,
        options: GenerationOptions,
        on_token: OnToken | None = None,
        cancel: CancelToken | None = None,
    ) -> Trace:
        with self._lock:
            self._ensure_open()
            t0 = time.perf_counter()
            rendered, ptoks = self._prompt_tokens(prompt)
            self._check_room(len(ptoks) + 1, "the prompt")
            max_tokens = min(options.max_tokens, self._n_ctx - len(ptoks))
            meter = EntropyMeter(self.n_vocab, options.top_alternatives)
            stream = TextStream(prompt.stop, on_token)
            sampler = None if options.greedy else self._sampler(options)
            stop_reason = "length"
            try:
                self._reset()
                self._eval_prompt(ptoks)
                pos = len(ptoks)
                for _ in range(max_tokens):
                    if cancel is not None and cancel.cancelled:
                        stop_reason = "cancelled"
                        break
                    logits = self._logits(-1)
                    chosen = None if sampler is None else int(self._lc.llama_sampler_sample(sampler, self._ctx, -1))
                    stats = self._stats(meter, logits, chosen)
                    if self._lc.llama_vocab_is_eog(self._vocab, stats.token_id):
                        stop_reason = "eos"
                        break
                    if stream.push(self.piece(stats.token_id), stats):
                        stop_reason = "fence"
                        break
                    if pos >= self._n_ctx:
                        break
                    self._decode([stats.token_id], pos, 0)
                    pos += 1
            finally:
                if sampler is not None:
                    self._lc.llama_sampler_free(sampler)
            stream.finish()
            return Trace(
                text=stream.text,
                tokens=stream.records,
                model=self._info.name,
                mode="greedy" if options.greedy else "sampled",
                prompt=rendered,
                prompt_tokens=len(ptoks),
                vocab_size=self.n_vocab,
                temperature=options.temperature,
                top_p=options.top_p,
                seed=None if options.greedy else options.seed,
                stop_reason=stop_reason,  # type: ignore[arg-type]
                seconds=time.perf_counter() - t0,
            )

    def score(self, prompt: ChatPrompt, text: str, cancel: CancelToken | None = None) -> Trace:
        with self._lock:
            self._ensure_open()
            t0 = time.perf_counter()
            rendered, ptoks = self._prompt_tokens(prompt)
            ttoks = self.tokenize(text, add_special=False, parse_special=False)
            self._check_room(len(ptoks) + len(ttoks), "scoring this code")
            meter = EntropyMeter(self.n_vocab, 5)
            stream = TextStream(())
            self._reset()
            # The prompt's last position predicts the first text token.
            self._eval_prompt(ptoks)
            stop_reason = "end_of_text"
            if ttoks:
                stream.push(self.piece(ttoks[0]), self._stats(meter, self._logits(-1), ttoks[0]))
            pos = len(ptoks)
            # Feed text tokens in chunks; row i's logits predict token i+1.
            for i in range(0, len(ttoks) - 1, self._score_chunk):
                if cancel is not None and cancel.cancelled:
                    stop_reason = "cancelled"
                    break
                chunk = ttoks[i : i + self._score_chunk]
                self._decode(chunk, pos, 0)
                pos += len(chunk)
                for row, nxt in enumerate(ttoks[i + 1 : i + 1 + len(chunk)]):
                    stream.push(self.piece(nxt), self._stats(meter, self._logits(row), nxt))
            stream.finish()
            return Trace(
                text=stream.text,
                tokens=stream.records,
                model=self._info.name,
                mode="scored",
                prompt=rendered,
                prompt_tokens=len(ptoks),
                vocab_size=self.n_vocab,
                stop_reason=stop_reason,  # type: ignore[arg-type]
                seconds=time.perf_counter() - t0,
            )

    # -- lifetime ----------------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if self._closed:
            raise ModelRuntimeError("the model has been closed")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._lc.llama_batch_free(self._batch)
            self._lc.llama_free(self._ctx)
            self._lc.llama_model_free(self._model)

    def __enter__(self) -> "LlamaCppBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
