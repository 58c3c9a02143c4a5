"""The llama.cpp backend, over llama-cpp-python's low-level API.

qualm drives the decoding loop itself rather than through ``Llama.create_completion``: it needs
the full-vocabulary logits at every step (entropy and alternatives), teacher-forced scoring of
existing text, cancellation between tokens, and control of the model parameters (the AMX guard
below), none of which the high-level API offers together.
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from ..entropy import EntropyMeter, sample_top_p
from ..prompts import ChatPrompt, InfillPrompt
from ..settings import ModelSettings
from ..trace import Alternative, Trace
from . import fim
from .backend import CancelToken, Capabilities, GenerationOptions, ModelInfo, ModelRuntimeError, OnToken, generated_trace
from .files import ModelFileError, resolve_model_path
from .identity import gguf_identity
from .text_stream import TextStream, TokenStats

log = logging.getLogger("qualm.model")

# Teacher-forced scoring in chunks asks for logits at every position; llama.cpp grows its output
# buffer to rows x vocabulary floats, so chunks stay small (64 x 151,936 x 4 bytes = 39 MB).
_MAX_SCORE_CHUNK = 64
# A shared prefix shorter than this is not worth keeping (GenerationOptions.reuse_cache).
MIN_REUSE = 16
# A batch's different prompts share their opening when it is at least this long: a plan's programs
# share the problem (about 200 tokens), while the plans, the code's own plan and the tests share
# only the chat template's first line, and stay evaluated whole, as their stored samples were
# (a sampled answer shifts with the batch's arithmetic: qualm.engine.solutions).
SHARED_PREFIX_MIN = 64


def _preload_libstdcxx_for_cuda(lib_dir: Path | None, load: Callable[..., object] = ctypes.CDLL) -> bool:
    """Load the system libstdc++ into the global symbol scope before a CUDA build of llama.cpp;
    True when it did (a CUDA build was found and the library loaded).

    Measured on an H100 with CUDA 13.0 (llama-cpp-python 0.3.36): libggml-cuda.so exports its own
    copies of 267 libstdc++ symbols, libllama's ostream calls bound to them, and loading a model
    segfaulted in llama_model::print_info whenever scipy or numpy had been imported first (every
    `qualm eval`). Preloading the system libstdc++ (LD_PRELOAD) fixed it; loading it RTLD_GLOBAL
    here puts it ahead of libggml-cuda's copies the same way, without asking users for LD_PRELOAD.
    """
    if lib_dir is None or not any(lib_dir.glob("libggml-cuda.so*")):
        return False
    try:
        load("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
    except OSError:  # not glibc Linux: nothing to do
        return False
    return True


def _llama_cpp_lib_dir() -> Path | None:
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "lib"


def _import_llama_cpp():
    if "llama_cpp" not in sys.modules:
        _preload_libstdcxx_for_cuda(_llama_cpp_lib_dir())
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


def _template_file(path: str) -> str:
    try:
        return Path(path).expanduser().read_text()
    except OSError as exc:
        raise ModelFileError(f"qualm.model.chat_template: cannot read {path}: {exc}") from exc


class LlamaCppBackend:
    """One loaded GGUF model and one context; calls are serialised by a lock."""

    def __init__(self, path: Path, settings: ModelSettings, display_name: str | None = None):
        lc = _import_llama_cpp()
        self._lc = lc
        # Reentrant: a completion may run inside a batch, at its checkpoint, on the same thread.
        self._lock = threading.RLock()
        self._batching = False  # a batch is decoding in the multi-sequence context
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

        self._settings = settings
        try:
            self._main = _Context(lc, self._model, self.n_vocab, settings.n_ctx, settings.n_batch, self._n_threads, 1)
            self._cached: list[int] = []  # the tokens the main context's cache holds, in order
        except ModelRuntimeError as exc:
            lc.llama_model_free(self._model)
            raise ModelFileError(f"{exc} for {path}") from exc
        self._multi: _Context | None = None  # the batch's own context: created for a batch, freed after it
        self._n_ctx = self._main.n_ctx
        self._n_batch = self._main.n_batch
        # model.score_batch 1 decodes text one token at a time exactly as generation does, so scoring
        # what the model wrote reproduces its entropies; llama.cpp's batched kernels are not
        # batch-invariant (chunks of 8 to 64 move entropies by up to 0.1 nats), the default 64 is
        # 3 to 6 times faster.
        self._score_chunk = max(1, min(settings.score_batch, _MAX_SCORE_CHUNK, self._main.n_batch))
        self._piece_buf = ctypes.create_string_buffer(256)
        self._pieces: dict[int, bytes] = {}
        self._add_bos = bool(lc.llama_vocab_get_add_bos(self._vocab))
        # qualm.model.chat_template replaces the GGUF's own template (for example a user turn alone,
        # without the default system turn Qwen's template adds).
        self._chat_template = _template_file(settings.chat_template) if settings.chat_template else self._meta("tokenizer.chat_template") or ""
        self._fim = fim.FimTokenIds(
            *(int(f(self._vocab)) for f in (lc.llama_vocab_fim_pre, lc.llama_vocab_fim_suf, lc.llama_vocab_fim_mid, lc.llama_vocab_fim_rep, lc.llama_vocab_fim_sep))
        )
        name = display_name or self._meta("general.name") or path.stem
        gpu_layers = settings.n_gpu_layers
        self._info = ModelInfo(
            name=name,
            identity=gguf_identity(path, name),
            backend="llama_cpp",
            capabilities=Capabilities(
                exact_entropy=True,
                teacher_forcing=True,
                parallel_sequences=True,
                gpu=gpu_layers != 0 and bool(lc.llama_supports_gpu_offload()),
                max_alternatives=20,
                infill=self._fim.usable,
            ),
            context_length=self._n_ctx,
            vocab_size=self.n_vocab,
            details=(
                ("path", str(path)),
                ("size", f"{path.stat().st_size:,} bytes"),
                ("trained context", f"{int(lc.llama_model_n_ctx_train(self._model)):,} tokens"),
                ("threads", str(self._n_threads)),
                ("score batch", str(self._score_chunk)),
                ("GPU layers", str(gpu_layers)),
                ("fill-in-the-middle", self._fim_description()),
                ("runtime", f"llama.cpp (llama-cpp-python {getattr(lc, '__version__', '?')})"),
                ("build", self._system_info.strip()),
            ),
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

    def _fim_description(self) -> str:
        if not self._fim.usable:
            return "no FIM tokens: completions use the chat prompt"
        names = [self._special_text(t) for t in (self._fim.prefix, self._fim.suffix, self._fim.middle)]
        repo = f", repository pattern {self._special_text(self._fim.repo)} {self._special_text(self._fim.file_sep)}" if self._fim.file_sep >= 0 else ""
        return " ".join(names) + repo

    def _special_text(self, token_id: int) -> str:
        if token_id < 0:
            return "-"
        n = self._lc.llama_token_to_piece(self._vocab, token_id, self._piece_buf, len(self._piece_buf), 0, True)
        return self._piece_buf.raw[: max(n, 0)].decode("utf-8", "replace")

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

    def render_prompt(self, prompt: ChatPrompt | InfillPrompt) -> str:
        if isinstance(prompt, InfillPrompt):
            return "".join(self._special_text(t) if self._is_marker(t) else self._token_text(t) for t in self._infill_tokens(prompt))
        from .chat_template import render_prompt  # noqa: PLC0415 - Jinja loads on the first prompt, not at import

        return render_prompt(self._chat_template, prompt)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text, add_special=False, parse_special=False))

    def _is_marker(self, token_id: int) -> bool:
        f = self._fim
        return token_id in (f.prefix, f.suffix, f.middle, f.repo, f.file_sep)

    def _infill_tokens(self, prompt: InfillPrompt) -> list[int]:
        if not self._fim.usable:
            raise ModelRuntimeError(f"{self._info.name} has no fill-in-the-middle tokens: completions need the chat prompt")
        bos = [int(self._lc.llama_vocab_bos(self._vocab))] if self._add_bos else []
        return fim.prompt_ids(prompt, self._fim, lambda text: self.tokenize(text, add_special=False, parse_special=False), bos)

    def _prompt_tokens(self, prompt: ChatPrompt | InfillPrompt) -> tuple[str, list[int]]:
        if isinstance(prompt, InfillPrompt):
            return self.render_prompt(prompt), self._infill_tokens(prompt)
        rendered = self.render_prompt(prompt)
        return rendered, self.tokenize(rendered, add_special=self._add_bos, parse_special=True)

    # -- decoding ----------------------------------------------------------------------------

    def _decode(self, tokens: list[int], start_pos: int, logits_from: int) -> None:
        self._main.decode_seq(tokens, start_pos, logits_from, seq=0)

    def _logits(self, row: int) -> np.ndarray:
        return self._main.logits(row)

    def _reset(self) -> None:
        # Every call starts from an empty cache so that the same input always gives the same
        # numbers (a reused prefix shifts logits slightly through different batch shapes).
        self._main.clear()
        self._cached = []

    def _reuse(self, tokens: list[int]) -> int:
        """Keep the main cache's longest prefix shared with ``tokens`` (at least one token is left
        to evaluate: its logits start the answer) and drop the rest; how many were kept."""
        keep = _common(self._cached, tokens[: len(tokens) - 1])
        if keep < MIN_REUSE or not self._main.trim(keep):
            self._reset()
            return 0
        del self._cached[keep:]
        return keep

    def _eval_prompt(self, tokens: list[int], ctx: _Context | None = None, seq: int = 0, start: int = 0, cancel: CancelToken | None = None) -> None:
        """Evaluate ``tokens`` at positions ``start``.. in batches; logits of the last one. ``cancel``:
        its checkpoint before each batch (only for a context other than the main one)."""
        ctx = ctx or self._main
        for i in range(0, len(tokens), ctx.n_batch):
            if cancel is not None and ctx is not self._main:
                cancel.checkpoint()
            chunk = tokens[i : i + ctx.n_batch]
            last = i + len(chunk) >= len(tokens)
            ctx.decode_seq(chunk, start + i, len(chunk) - 1 if last else len(chunk), seq=seq)

    def _check_room(self, needed: int, what: str) -> None:
        if needed > self._n_ctx:
            raise ModelRuntimeError(f"{what} needs {needed} tokens but the context holds {self._n_ctx}; raise qualm.model.n_ctx")

    def _stats(self, meter: EntropyMeter, logits: np.ndarray, sampler: _NumpySampler | _Forced | None) -> TokenStats:
        """Entropy and alternatives of this step, and the chosen token (the argmax without a sampler)."""
        d = meter.measure(logits)
        chosen = None if sampler is None else sampler.draw(logits, d)
        token = int(d.top_ids[0]) if chosen is None else chosen
        alts = tuple(Alternative(int(i), self._token_text(int(i)), float(p)) for i, p in zip(d.top_ids, d.top_probs))
        prob = float(d.top_probs[0]) if chosen is None else d.prob_of(logits, token)
        return TokenStats(token_id=token, entropy=d.entropy, prob=prob, alternatives=alts)

    def _sampler(self, options: GenerationOptions) -> _NumpySampler | None:
        return None if options.greedy else _NumpySampler(options)

    def generate(
        self,
        prompt: ChatPrompt | InfillPrompt,
        options: GenerationOptions,
        on_token: OnToken | None = None,
        cancel: CancelToken | None = None,
    ) -> Trace:
        if cancel is not None:
            cancel.checkpoint()  # nothing of ours is in the main context yet
        with self._lock:
            self._ensure_open()
            t0 = time.perf_counter()
            rendered, ptoks = self._prompt_tokens(prompt)
            self._check_room(len(ptoks) + 1, "the prompt")
            max_tokens = min(options.max_tokens, self._n_ctx - len(ptoks))
            meter = EntropyMeter(self.n_vocab, options.top_alternatives)
            stream = TextStream(prompt.stop, on_token, prompt.ends, prompt.ending)
            sampler = self._sampler(options)
            stop_reason = "length"
            kept = self._reuse(ptoks) if options.reuse_cache else 0
            t_prompt = time.perf_counter()
            if not kept:
                self._reset()
            self._eval_prompt(ptoks[kept:], start=kept)
            t_prompt_end = time.perf_counter()
            self._cached = list(ptoks)  # what the main cache holds (generate's tokens follow)
            pos = len(ptoks)
            first_token_s: float | None = None
            for _ in range(max_tokens):
                if cancel is not None and cancel.cancelled:
                    stop_reason = "cancelled"
                    break
                stats = self._stats(meter, self._logits(-1), sampler)
                if first_token_s is None:
                    first_token_s = time.perf_counter() - t0
                if self._lc.llama_vocab_is_eog(self._vocab, stats.token_id):
                    stop_reason = "eos"
                    break
                if stream.push(self.piece(stats.token_id), stats):
                    stop_reason = stream.stop_kind
                    break
                if pos >= self._n_ctx:
                    break
                self._decode([stats.token_id], pos, 0)
                self._cached.append(stats.token_id)
                pos += 1
            stream.finish()
            extra: dict = {"reused_prompt_tokens": kept} if options.reuse_cache else {}
            if isinstance(prompt, InfillPrompt):  # what an editor's completion waits for
                extra.update(prompt_kind="fim", prompt_seconds=round(t_prompt_end - t_prompt, 4))
                if first_token_s is not None:
                    extra["first_token_seconds"] = round(first_token_s, 4)
            return generated_trace(stream, options, model=self._info.name, prompt=rendered, prompt_tokens=len(ptoks), vocab_size=self.n_vocab, stop_reason=stop_reason, seconds=time.perf_counter() - t0, extra=extra or None)

    def score(self, prompt: ChatPrompt, text: str, cancel: CancelToken | None = None, top_alternatives: int = 5) -> Trace:
        if cancel is not None:
            cancel.checkpoint()
        with self._lock:
            self._ensure_open()
            t0 = time.perf_counter()
            rendered, ptoks = self._prompt_tokens(prompt)
            ttoks = self.tokenize(text, add_special=False, parse_special=False)
            self._check_room(len(ptoks) + len(ttoks), "scoring this code")
            meter = EntropyMeter(self.n_vocab, top_alternatives)
            stream = TextStream(())
            self._reset()
            # The prompt's last position predicts the first text token.
            self._eval_prompt(ptoks)
            self._cached = list(ptoks)  # what the main cache holds (a batch may take its opening)
            stop_reason = "end_of_text"
            if ttoks:
                stream.push(self.piece(ttoks[0]), self._stats(meter, self._logits(-1), _Forced(ttoks[0])))
            pos = len(ptoks)
            # Feed text tokens in chunks; row i's logits predict token i+1.
            for i in range(0, len(ttoks) - 1, self._score_chunk):
                if cancel is not None and cancel.cancelled:
                    stop_reason = "cancelled"
                    break
                chunk = ttoks[i : i + self._score_chunk]
                self._decode(chunk, pos, 0)
                self._cached.extend(chunk)
                pos += len(chunk)
                for row, nxt in enumerate(ttoks[i + 1 : i + 1 + len(chunk)]):
                    stream.push(self.piece(nxt), self._stats(meter, self._logits(row), _Forced(nxt)))
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

    def generate_batch(
        self,
        jobs: Sequence[tuple[ChatPrompt, GenerationOptions]],
        on_progress: Callable[[int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Trace]:
        """Several samples decoded together, one llama_decode per step for all of them.

        Jobs with the same prompt share one evaluation of it in a unified KV cache (copied to
        each sequence id without recomputing). Each job has its own sampler and seed, so the
        result does not depend on which other jobs run beside it, up to floating point.
        ``on_progress`` receives the number of tokens generated so far over all jobs.
        """
        if not jobs:
            return []
        if cancel is not None:
            cancel.checkpoint()
        with self._lock:
            self._ensure_open()
            if self._batching:  # only a completion runs at a batch's checkpoint, and it never batches
                raise ModelRuntimeError("a batch cannot start inside another batch")
            self._batching = True
            try:
                return self._decode_batch(jobs, on_progress, cancel)
            finally:
                self._batching = False
                self._free_multi()

    def _decode_batch(
        self,
        jobs: Sequence[tuple[ChatPrompt, GenerationOptions]],
        on_progress: Callable[[int], None] | None,
        cancel: CancelToken | None,
    ) -> list[Trace]:
        t0 = time.perf_counter()
        ctx = self._multi_context(len(jobs))
        rendered, prompt_tokens = zip(*(self._prompt_tokens(p) for p, _ in jobs))
        groups: dict[tuple[int, ...], list[int]] = {}
        for j, toks in enumerate(prompt_tokens):
            groups.setdefault(tuple(toks), []).append(j)
        shared = shared_prefix(list(groups))
        prompt_cells = shared + sum(len(k) - shared for k in groups)
        room = (ctx.n_ctx - prompt_cells) // len(jobs)
        if room < 1:
            raise ModelRuntimeError(f"{len(jobs)} samples of these prompts do not fit in {ctx.n_ctx} tokens; raise qualm.model.batch_n_ctx")
        meter = EntropyMeter(self.n_vocab, max(o.top_alternatives for _, o in jobs))
        states = [_Sample(p, o, min(o.max_tokens, room), len(t), self._sampler(o)) for (p, o), t in zip(jobs, prompt_tokens)]
        produced = 0
        ctx.clear()
        # With every job's reuse_cache: the opening the prompts share with what the main context
        # holds (the function an assessment just scored: its solutions' prompt) is copied from
        # it into a spare sequence id, not evaluated again.
        scratch = len(jobs)
        held = self._lend_main(ctx, scratch, groups) if all(o.reuse_cache for _, o in jobs) and scratch < ctx.n_seq else 0
        # what the scratch sequence holds: the main context may change from here (a completion at a
        # checkpoint), the copy does not
        held_tokens = list(self._cached) if held else []

        def lent(toks: Sequence[int], upto: int) -> int:
            n = min(_common(held_tokens, toks), upto) if held else 0
            return n if n >= MIN_REUSE else 0

        if shared:
            # the prompts' common opening, evaluated once and given to every sequence
            first = next(iter(groups.values()))[0]
            if n := lent(prompt_tokens[first], shared):
                ctx.copy_range(scratch, first, 0, n)
            self._eval_prompt(list(prompt_tokens[first][n:shared]), ctx, seq=first, start=n, cancel=cancel)
            for j in range(len(jobs)):
                if j != first:
                    ctx.copy_seq(first, j)
        for toks, members in groups.items():
            start = shared
            if (n := lent(toks, len(toks) - 1)) > shared:
                ctx.copy_range(scratch, members[0], shared, n)
                start = n
            self._eval_prompt(list(toks[start:]), ctx, seq=members[0], start=start, cancel=cancel)
            for j in members[1:]:
                ctx.copy_seq(members[0], j)
            for j in members:
                self._advance(states[j], ctx, -1, meter)
                produced += 1
        if held:
            ctx.drop_seq(scratch)
        active = [j for j, st in enumerate(states) if st.open]
        while active:
            if cancel is not None and cancel.cancelled:
                for j in active:
                    states[j].close("cancelled")
                break
            if cancel is not None:
                # the batch lives in its own context now (the main one was lent, above): a
                # completion may use the main one between two steps
                cancel.checkpoint()
            ctx.decode_step([(states[j].next_token, states[j].next_pos, j) for j in active])
            for row, j in enumerate(active):
                self._advance(states[j], ctx, row, meter)
                if not states[j].open:
                    ctx.drop_seq(j)  # frees its cells for the others
            produced += len(active)
            if on_progress is not None:
                on_progress(produced)
            active = [j for j in active if states[j].open]
        seconds = time.perf_counter() - t0
        traces = []
        for st, text, toks in zip(states, rendered, prompt_tokens):
            st.stream.finish()
            traces.append(
                generated_trace(
                    st.stream, st.options, model=self._info.name, prompt=text, prompt_tokens=len(toks), vocab_size=self.n_vocab, stop_reason=st.stop_reason, seconds=seconds, extra={"batch_size": len(jobs)}
                )
            )
        return traces

    def _lend_main(self, ctx: _Context, seq: int, prompts: Iterable[Sequence[int]]) -> int:
        """Copy the main context's cache into ``seq`` of ``ctx`` where a prompt's opening is in it
        (at least MIN_REUSE tokens); how many tokens it holds (0: not copied)."""
        if max((_common(self._cached, p) for p in prompts), default=0) < MIN_REUSE:
            return 0
        state = self._main.seq_state(0)
        if state is None or not ctx.load_seq_state(state, seq):
            return 0
        return len(self._cached)

    def _advance(self, st: _Sample, ctx: _Context, row: int, meter: EntropyMeter) -> None:
        """Choose the next token of one sample from logits row ``row`` and record it."""
        stats = self._stats(meter, ctx.logits(row), st.sampler)
        if self._lc.llama_vocab_is_eog(self._vocab, stats.token_id):
            st.close("eos")
            return
        st.generated += 1
        if st.stream.push(self.piece(stats.token_id), stats):
            st.close(st.stream.stop_kind)
        elif st.generated >= st.max_tokens:
            st.close("length")
        else:
            st.next_token = stats.token_id
            st.next_pos = st.prompt_len + st.generated - 1

    def _multi_context(self, n_seq: int) -> _Context:
        s = self._settings
        if n_seq > s.max_parallel_sequences:
            raise ModelRuntimeError(f"{n_seq} parallel samples exceed qualm.model.max_parallel_sequences ({s.max_parallel_sequences})")
        if self._multi is None:
            self._multi = _Context(self._lc, self._model, self.n_vocab, s.batch_n_ctx, s.n_batch, self._n_threads, s.max_parallel_sequences)
        return self._multi

    def _free_multi(self) -> None:
        """Let the batch's context go: nothing in it outlives a batch (each starts by clearing it),
        and its KV cache (batch_n_ctx cells: about 110 MB for the 0.5B model) would otherwise stay
        resident for the life of an editor window after its first assessment. Creating it again
        takes about 0.04 s on 2 cores, against seconds for any batch."""
        if self._multi is not None:
            self._multi.free()
            self._multi = None

    # -- lifetime ----------------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if self._closed:
            raise ModelRuntimeError("the model has been closed")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._main.free()
            self._free_multi()
            self._lc.llama_model_free(self._model)

    def __enter__(self) -> LlamaCppBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def shared_prefix(prompts: Sequence[Sequence[int]], least: int = SHARED_PREFIX_MIN) -> int:
    """How many opening tokens several different prompts share, when worth evaluating once: at
    least ``least`` and always one short of the shortest prompt (each keeps a token of its own,
    whose logits start its sample). 0 for one prompt or a short common opening."""
    if len(prompts) < 2:
        return 0
    n = 0
    for column in zip(*prompts):
        if any(t != column[0] for t in column[1:]):
            break
        n += 1
    n = min(n, min(len(p) for p in prompts) - 1)
    return n if n >= least else 0


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    """How many opening tokens two sequences share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class _Context:
    """A llama.cpp context with its batch; ``n_seq`` > 1 makes a unified KV cache for parallel sequences."""

    def __init__(self, lc, model, n_vocab: int, n_ctx: int, n_batch: int, n_threads: int, n_seq: int):
        self._lc = lc
        self.n_vocab = n_vocab
        params = lc.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = n_batch
        params.n_ubatch = n_batch
        params.n_threads = n_threads
        params.n_threads_batch = n_threads
        params.no_perf = True
        if n_seq > 1:
            # One cache shared by all sequences: a prompt evaluated once serves every sample.
            params.n_seq_max = n_seq
            params.kv_unified = True
        self.ctx = lc.llama_init_from_model(model, params)
        if not self.ctx:
            raise ModelRuntimeError(f"llama.cpp could not create a context of {n_ctx} tokens")
        self.n_ctx = int(lc.llama_n_ctx(self.ctx))
        # llama.cpp may lower the batch to fit the context; a larger chunk would abort the process.
        self.n_batch = min(n_batch, int(lc.llama_n_batch(self.ctx)), int(lc.llama_n_ubatch(self.ctx)))
        self.n_seq = n_seq
        self.batch = lc.llama_batch_init(n_batch, 0, 1)
        self.memory = lc.llama_get_memory(self.ctx)

    def decode_seq(self, tokens: list[int], start_pos: int, logits_from: int, seq: int) -> None:
        """Decode tokens of one sequence at positions start_pos.., logits for rows >= logits_from."""
        b = self.batch
        b.n_tokens = len(tokens)
        for i, tok in enumerate(tokens):
            b.token[i] = tok
            b.pos[i] = start_pos + i
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = seq
            b.logits[i] = 1 if i >= logits_from else 0
        self._run(start_pos)

    def decode_step(self, items: list[tuple[int, int, int]]) -> None:
        """One token for each of several sequences: items of (token, position, seq); logits for all."""
        b = self.batch
        b.n_tokens = len(items)
        for i, (tok, pos, seq) in enumerate(items):
            b.token[i] = tok
            b.pos[i] = pos
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = seq
            b.logits[i] = 1
        self._run(items[0][1] if items else 0)

    def _run(self, pos: int) -> None:
        rc = self._lc.llama_decode(self.ctx, self.batch)
        if rc == 1:
            raise ModelRuntimeError(f"the context ({self.n_ctx} tokens) is full at position {pos}")
        if rc != 0:
            raise ModelRuntimeError(f"llama_decode failed with code {rc} at position {pos}")

    def logits(self, row: int) -> np.ndarray:
        ptr = self._lc.llama_get_logits_ith(self.ctx, row)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))

    def clear(self) -> None:
        self._lc.llama_memory_clear(self.memory, True)

    def trim(self, keep: int, seq: int = 0) -> bool:
        """Drop a sequence's cache from position ``keep`` on; False where the memory cannot."""
        return bool(self._lc.llama_memory_seq_rm(self.memory, seq, keep, -1))

    def copy_seq(self, src: int, dst: int) -> None:
        self._lc.llama_memory_seq_cp(self.memory, src, dst, -1, -1)

    def copy_range(self, src: int, dst: int, start: int, stop: int) -> None:
        """Give ``dst`` the cells of ``src`` at positions start..stop-1 (no computing)."""
        self._lc.llama_memory_seq_cp(self.memory, src, dst, start, stop)

    def seq_state(self, seq: int) -> ctypes.Array | None:
        """A sequence's cache as llama.cpp saves it (for :meth:`load_seq_state` of another context)."""
        size = int(self._lc.llama_state_seq_get_size(self.ctx, seq))
        if size <= 0:
            return None
        buf = (ctypes.c_uint8 * size)()
        return buf if int(self._lc.llama_state_seq_get_data(self.ctx, buf, size, seq)) == size else None

    def load_seq_state(self, state: ctypes.Array, seq: int) -> bool:
        return int(self._lc.llama_state_seq_set_data(self.ctx, state, len(state), seq)) > 0

    def drop_seq(self, seq: int) -> None:
        self._lc.llama_memory_seq_rm(self.memory, seq, -1, -1)

    def free(self) -> None:
        self._lc.llama_batch_free(self.batch)
        self._lc.llama_free(self.ctx)


class _Sample:
    """The state of one sequence in :meth:`LlamaCppBackend.generate_batch`."""

    def __init__(self, prompt: ChatPrompt, options: GenerationOptions, max_tokens: int, prompt_len: int, sampler):
        self.options = options
        self.max_tokens = max_tokens
        self.prompt_len = prompt_len
        self.sampler = sampler
        self.stream = TextStream(prompt.stop, ends=prompt.ends)
        self.generated = 0
        self.next_token = -1
        self.next_pos = prompt_len
        self.open = True
        self.stop_reason = "length"

    def close(self, reason: str) -> None:
        self.open = False
        self.stop_reason = reason


class _NumpySampler:
    """Seeded temperature + top-p sampling on the logits the entropy pass already examined.

    One generator per sequence, so a sample depends only on its own seed, never on which other
    sequences share its batch. (llama.cpp's sampler chain sorts the whole vocabulary per token:
    2.6 ms here, against a tenth of that on the entropy pass's candidate set.)
    """

    def __init__(self, options: GenerationOptions):
        self.temperature = options.temperature
        self.top_p = options.top_p
        self.rng = np.random.default_rng(options.seed)

    def draw(self, logits: np.ndarray, d) -> int:
        return sample_top_p(logits, d, self.temperature, self.top_p, self.rng)


class _Forced:
    """Teacher forcing: the 'chosen' token is the text's own."""

    def __init__(self, token: int):
        self.token = token

    def draw(self, logits: np.ndarray, d) -> int:
        return self.token


def load(settings: ModelSettings) -> LlamaCppBackend:
    """The registry's loader: the configured GGUF, or the default model assembled in the cache."""
    path, known = resolve_model_path(settings.path)
    return LlamaCppBackend(path, settings, display_name=known.display_name if known else None)
