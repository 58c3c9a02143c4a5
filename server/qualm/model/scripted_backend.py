"""A backend that replays a script instead of running a model: LSP and editor tests that need no
model, and demos on machines without one. ``model.backend: "scripted"`` and ``model.path`` naming
a JSON script:

    {
      "name": "scripted demo",                 # shown as the model's name
      "completions": ["    return a + b\\n"],    # what generate() writes, in turn (cycling)
      "plans": ["1. Add a and b.\\n2. Return it."],   # answers to the plan prompts (sampled, the code's own), in turn
      "tests": "[\\"assert add(1, 2) == 3\\"]",     # the answer to the test prompt
      "entropy": {"default": 0.05, "tokens": {"+": 2.4, "return": 0.8}},
      "seconds_per_token": 0.0,                # a delay, to test streaming and cancellation
      "fim": false                             # true: completions take fill-in-the-middle prompts
    }

Tokens are words, single punctuation marks and runs of white space (a leading space stays on the
token, as in BPE vocabularies); each token's entropy comes from the script (by its text without
surrounding white space), its probability is e^-entropy and its alternatives are made up from it.
Everything is deterministic: the same script and calls give the same traces.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..prompts import ChatPrompt, InfillPrompt
from ..settings import ModelSettings
from ..trace import Alternative, TokenRecord, Trace
from .backend import CancelToken, Capabilities, GenerationOptions, ModelInfo, OnToken
from .files import ModelFileError
from .identity import ModelIdentity
from .text_stream import TextStream, TokenStats

_TOKEN = re.compile(r"[ \t]*\w+|[ \t]*[^\w\s]|\n|[ \t]+")
VOCAB_SIZE = 1000  # what entropies are bounded by (log 1000 = 6.9 nats)


@dataclass(frozen=True)
class Script:
    name: str
    completions: tuple[str, ...]
    plans: tuple[str, ...]
    tests: str
    default_entropy: float
    token_entropy: dict[str, float]
    seconds_per_token: float
    fim: bool = False

    @classmethod
    def load(cls, path: Path) -> Script:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ModelFileError(f"cannot read the scripted backend's script {path}: {exc.strerror}") from exc
        except ValueError as exc:
            raise ModelFileError(f"the scripted backend's script {path} is not JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise ModelFileError(f"the scripted backend's script {path} must be a JSON object")
        try:
            entropy = data.get("entropy", {})
            return cls(
                name=str(data.get("name", "scripted")),
                completions=tuple(str(x) for x in data.get("completions", [""])) or ("",),
                plans=tuple(str(x) for x in data.get("plans", [""])) or ("",),
                tests=str(data.get("tests", "[]")),
                default_entropy=float(entropy.get("default", 0.05)),
                token_entropy={str(k): float(v) for k, v in entropy.get("tokens", {}).items()},
                seconds_per_token=float(data.get("seconds_per_token", 0.0)),
                fim=bool(data.get("fim", False)),
            )
        except (AttributeError, TypeError, ValueError) as exc:
            raise ModelFileError(f"the scripted backend's script {path} is malformed ({exc})") from exc

    def entropy_of(self, token: str) -> float:
        return min(math.log(VOCAB_SIZE), max(0.0, self.token_entropy.get(token.strip(), self.default_entropy)))


def tokenize(text: str) -> list[str]:
    """Pieces that concatenate to ``text`` exactly."""
    pieces = _TOKEN.findall(text)
    assert "".join(pieces) == text, "the token pattern must cover every character"
    return pieces


class ScriptedBackend:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._script = Script.load(path)
        self._lock = threading.Lock()
        self._turn = {"completion": 0, "plan": 0}
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        self._info = ModelInfo(
            name=self._script.name,
            identity=ModelIdentity("scripted", digest, self._script.name, str(path)),
            backend="scripted",
            capabilities=Capabilities(exact_entropy=True, teacher_forcing=True, parallel_sequences=False, gpu=False, max_alternatives=20, infill=self._script.fim),
            context_length=1 << 20,
            vocab_size=VOCAB_SIZE,
            details=(("script", str(path)),),
        )

    @property
    def info(self) -> ModelInfo:
        return self._info

    def render_prompt(self, prompt: ChatPrompt | InfillPrompt) -> str:
        if isinstance(prompt, InfillPrompt):
            extra = "".join(f"<file {c.filename}>\n{c.text}" for c in prompt.extra)
            return f"{extra}<prefix>{prompt.prefix}<suffix>{prompt.suffix}<middle>"
        return f"<user>\n{prompt.user}\n<assistant>\n{prompt.assistant_prefix}"

    def count_tokens(self, text: str) -> int:
        return len(tokenize(text))

    def _answer(self, prompt: ChatPrompt | InfillPrompt, options: GenerationOptions) -> str:
        if prompt.name == "test_generation":
            return self._script.tests
        kind, answers = ("plan", self._script.plans) if prompt.name in ("plan_generation", "candidate_plan") else ("completion", self._script.completions)
        with self._lock:
            i = self._turn[kind]
            self._turn[kind] += 1
        return answers[i % len(answers)]

    def _record(self, index: int, piece: str, start: int, top: int) -> TokenRecord:
        h = self._script.entropy_of(piece)
        p = math.exp(-h)
        # The chosen piece first, then made-up rivals sharing what is left, most likely first.
        rest = [(1 - p) / (2 ** (k + 1)) for k in range(max(0, top - 1))]
        alts = (Alternative(index, piece, p),) + tuple(Alternative(VOCAB_SIZE - k - 1, f"{piece.strip() or '·'}~{k + 1}", q) for k, q in enumerate(rest))
        return TokenRecord(index=index, token_id=index, text=piece, start=start, end=start + len(piece), entropy=h, prob=p, alternatives=alts[:top])

    def _trace(self, prompt: ChatPrompt, text: str, mode: str, options: GenerationOptions, on_token: OnToken | None, cancel: CancelToken | None, steps: bool = False) -> Trace:
        """``steps``: a batch's tokens, with a checkpoint before each (as llama.cpp's batch steps)."""
        t0 = time.perf_counter()
        top, limit = options.top_alternatives, options.max_tokens
        records: list[TokenRecord] = []
        stop_reason = "end_of_text" if mode == "scored" else "eos"
        start = 0
        for i, piece in enumerate(tokenize(text)):
            if cancel is not None and cancel.cancelled:
                stop_reason = "cancelled"
                break
            if i >= limit:
                stop_reason = "length"
                break
            if steps and cancel is not None:
                cancel.checkpoint()
            if self._script.seconds_per_token:
                time.sleep(self._script.seconds_per_token)
            rec = self._record(i, piece, start, top)
            start = rec.end
            records.append(rec)
            if on_token is not None:
                on_token(rec)
        return Trace(
            text="".join(r.text for r in records),
            tokens=tuple(records),
            model=self._info.name,
            mode=mode,  # type: ignore[arg-type]
            prompt=self.render_prompt(prompt),
            vocab_size=VOCAB_SIZE,
            temperature=options.temperature,
            top_p=options.top_p,
            seed=None if mode == "scored" else options.seed,
            stop_reason=stop_reason,  # type: ignore[arg-type]
            seconds=time.perf_counter() - t0,
        )

    def generate(self, prompt: ChatPrompt | InfillPrompt, options: GenerationOptions, on_token: OnToken | None = None, cancel: CancelToken | None = None) -> Trace:
        if cancel is not None:
            cancel.checkpoint()
        return self._generate(prompt, options, on_token, cancel)

    def _generate(self, prompt: ChatPrompt | InfillPrompt, options: GenerationOptions, on_token: OnToken | None, cancel: CancelToken | None, steps: bool = False) -> Trace:
        mode = "greedy" if options.greedy else "sampled"
        answer = self._answer(prompt, options)
        end = prompt.ends(answer + "\n") if prompt.ends is not None else None
        rule = None
        if prompt.ending is not None:  # the whole answer at once: where the ending cuts it
            end, rule = _first_cut(prompt.ending, answer)
        trace = self._trace(prompt, answer[:end] if end is not None else answer, mode, options, on_token, cancel, steps)
        if rule is not None:
            trace = replace(trace, extra={**trace.extra, "end_rule": rule})
        return replace(trace, stop_reason="complete") if end is not None and trace.stop_reason == "eos" else trace

    def generate_batch(self, jobs: Sequence[tuple[ChatPrompt, GenerationOptions]], on_progress: Callable[[int], None] | None = None, cancel: CancelToken | None = None) -> list[Trace]:
        """One job after another: a script has no batch to share."""
        if cancel is not None:
            cancel.checkpoint()
        out: list[Trace] = []
        total = 0
        for prompt, options in jobs:
            out.append(self._generate(prompt, options, None, cancel, steps=True))
            total += len(out[-1].tokens)
            if on_progress is not None:
                on_progress(total)
        return out

    def score(self, prompt: ChatPrompt, text: str, cancel: CancelToken | None = None, top_alternatives: int = 5) -> Trace:
        if cancel is not None:
            cancel.checkpoint()
        return self._trace(prompt, text, "scored", GenerationOptions(max_tokens=len(text) + 1, top_alternatives=top_alternatives), None, cancel)

    def close(self) -> None:
        pass


def _first_cut(ending, answer: str) -> tuple[int | None, str | None]:
    """Where ``ending`` would have stopped a stream of ``answer``'s tokens (a TextStream asks it as
    the real backends' do), and the rule that stopped it."""
    stream = TextStream(ending=ending)
    for piece in tokenize(answer):
        if stream.push(piece.encode(), TokenStats(0, 0.0, 1.0, ())):
            break
    stream.finish()
    return (len(stream.text) if len(stream.text) < len(answer) else None), stream.end_rule


def load(settings: ModelSettings) -> ScriptedBackend:
    """The registry's loader: ``model.path`` names the script."""
    if not settings.path:
        raise ModelFileError("the scripted backend needs qualm.model.path to name its JSON script")
    return ScriptedBackend(Path(settings.path).expanduser())
