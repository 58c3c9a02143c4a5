"""What an inference server is and can do, asked once at start-up.

Which engine (each answers a route the others lack: llama.cpp ``/props``, vLLM ``/version``,
SGLang ``/get_model_info``; llama-cpp-python lists its models as owned by "me"), which model it
serves, its vocabulary and context, its chat template where it gives one, how many alternatives a
token may carry, whether it can score text it did not write (prompt log-probabilities), and a
fingerprint of its answers: the model's identity for calibration files and the evaluation cache.
Also whether completions can be written fill-in-the-middle (:func:`fim_support`): through llama.cpp's
own ``/infill``, or as raw FIM text in the markers the served tokenizer knows.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

from ..fim import FORMATS, FimFormat, format_for_model_name
from .client import RemoteClient, RemoteError

log = logging.getLogger("qualm.model")

# Qwen2.5's vocabulary (the default model's family), assumed where neither server nor setting says.
DEFAULT_VOCAB = 151_936
FINGERPRINT_PROMPT = "def add(a, b):\n    return"

# Why an engine cannot score code in the file (teacher forcing), in words for the lens and CLI.
NO_PROMPT_LOGPROBS = {
    "llama.cpp": "llama.cpp's server does not return log-probabilities of the prompt, so code in the file cannot be scored",
    "openai": "this endpoint did not return log-probabilities of the prompt (echo with logprobs), so code in the file cannot be scored",
    "llama-cpp-python": "this llama-cpp-python server did not return log-probabilities of the prompt (start it with --logits_all true)",
}


@dataclass(frozen=True)
class EndpointInfo:
    engine: str  # llama.cpp | llama-cpp-python | vllm | sglang | openai
    model: str  # the served model's name, as requests must give it
    served: tuple[str, ...]  # every model the server lists
    vocab_size: int
    vocab_note: str  # where the vocabulary size came from
    context_length: int | None
    chat_template: str | None  # the server's, where it gives it
    top_logprobs: int  # alternatives a token came back with when asked for the setting's N
    prompt_logprobs: bool
    prompt_logprobs_note: str  # why not, when not
    fingerprint: str
    version: str = ""
    fim: FimSupport | None = None

    def identity_digest(self, root: str) -> str:
        """Endpoint, served name and answers: the same weights behind another URL are another key."""
        return hashlib.sha256(f"{root}\n{self.model}\n{self.fingerprint}".encode()).hexdigest()


def detect_engine(client: RemoteClient, models: dict | None) -> tuple[str, str, dict]:
    """(engine, version, the engine's own facts) from the routes it answers."""
    props = client.get_json("/props", quiet=True)
    if isinstance(props, dict) and ("default_generation_settings" in props or "chat_template" in props):
        return "llama.cpp", str(props.get("build_info", "")), props
    info = client.get_json("/get_model_info", quiet=True)
    if isinstance(info, dict) and "model_path" in info:
        return "sglang", str((client.get_json("/get_server_info", quiet=True) or {}).get("version", "")), info
    version = client.get_json("/version", quiet=True)
    owners = {str(m.get("owned_by", "")) for m in (models or {}).get("data", []) if isinstance(m, dict)}
    if isinstance(version, dict) and "version" in version and ("vllm" in owners or not owners):
        return "vllm", str(version["version"]), {}
    if "me" in owners:
        return "llama-cpp-python", "", {}
    return "openai", "", {}


def choose_model(models: dict | None, wanted: str | None, root: str) -> tuple[str, tuple[str, ...], dict]:
    entries = [m for m in (models or {}).get("data", []) if isinstance(m, dict) and m.get("id")]
    served = tuple(str(m["id"]) for m in entries)
    if wanted:
        for m in entries:
            if m["id"] == wanted:
                return wanted, served, m
        raise RemoteError(f"{root} serves {', '.join(served) or 'no model'}, not {wanted!r} (qualm.model.name)")
    if len(entries) == 1:
        return served[0], served, entries[0]
    if not entries:
        raise RemoteError(f"{root}/v1/models lists no model: is it an OpenAI-compatible server?")
    raise RemoteError(f"{root} serves several models ({', '.join(served)}): choose one with qualm.model.name")


def vocabulary(entry: dict, configured: int | None) -> tuple[int, str]:
    if configured:
        return configured, "qualm.model.vocab_size"
    meta = entry.get("meta") or {}
    if meta.get("n_vocab"):
        return int(meta["n_vocab"]), "the server's /v1/models"
    return DEFAULT_VOCAB, f"assumed {DEFAULT_VOCAB:,} (Qwen2.5; the server does not say: set qualm.model.vocab_size)"


def context_length(entry: dict, facts: dict) -> int | None:
    for value in (
        (facts.get("default_generation_settings") or {}).get("n_ctx"),
        facts.get("n_ctx"),
        entry.get("max_model_len"),
        (entry.get("meta") or {}).get("n_ctx_train"),
        facts.get("context_length"),
    ):
        if value:
            return int(value)
    return None


def fingerprint_of(tokens: list[tuple[str, float | None]]) -> str:
    """The greedy answer's tokens and their log-probabilities to 2 decimals: a different model (or
    quantisation) behind the same name answers differently; run-to-run float noise does not."""
    text = "\n".join(f"{t}\t{'' if lp is None or not math.isfinite(lp) else f'{lp:.2f}'}" for t, lp in tokens)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# -- fill-in-the-middle ----------------------------------------------------------------------

# The start-up /infill request: a model without FIM tokens is refused with HTTP 501.
INFILL_PROBE = {"input_prefix": "def add(a, b):\n    return ", "input_suffix": "\n", "prompt": "", "n_predict": 1, "temperature": 0.0, "cache_prompt": False}
NO_FIM = "completions use the chat prompt"


@dataclass(frozen=True)
class FimSupport:
    """How a completion is written from a fill-in-the-middle prompt on this server, if at all.

    ``route``: "infill" (llama.cpp's /infill: the server builds the prompt from the model's own FIM
    tokens), "text" (the prompt as FIM text on /v1/completions, markers of ``fmt``) or "" (none)."""

    route: str
    fmt: FimFormat | None
    note: str  # how, or why not, in words (the model's details)

    @property
    def usable(self) -> bool:
        return bool(self.route)


def fim_support(client: RemoteClient, engine: str, model: str, setting: str) -> FimSupport:
    """How this server writes FIM completions, by ``qualm.model.fim_format``. llama.cpp's server:
    its /infill where the setting is "auto"; a format named sends FIM text to its /completion
    instead (/infill always opens the prompt with a repository header naming the file "filename",
    which a small model may follow less well)."""
    if setting == "none":
        return FimSupport("", None, f"off (qualm.model.fim_format is 'none'): {NO_FIM}")
    if engine == "llama.cpp" and setting == "auto":
        return _llama_infill(client)
    count = marker_counter(client, engine, model)
    try:
        return _chosen_format(FORMATS[setting], count) if setting != "auto" else _detected_format(model, count)
    except (RemoteError, KeyError, TypeError) as exc:  # the tokenizer answered once, then did not
        return FimSupport("", None, f"no: the server's tokenizer failed while checking FIM markers ({exc}); {NO_FIM}")


def _llama_infill(client: RemoteClient) -> FimSupport:
    try:
        client.post_json("/infill", INFILL_PROBE)
    except RemoteError as exc:  # 501 for a model without FIM tokens, 404 for a server without /infill
        log.info("llama.cpp's /infill refused: %s", exc)
        return FimSupport("", None, f"no: {exc}; {NO_FIM}")
    return FimSupport("infill", None, "via llama.cpp's /infill (the server builds the prompt from the model's FIM tokens)")


def _chosen_format(fmt: FimFormat, count: Callable[[str], int] | None) -> FimSupport:
    if count is None:
        return FimSupport("text", fmt, f"raw FIM text in the {fmt.name} format (qualm.model.fim_format; the server's tokenizer could not check it)")
    if not single_tokens(fmt, count):
        return FimSupport("", None, f"no: the {fmt.name} markers (qualm.model.fim_format) are not single tokens of the served model; {NO_FIM}")
    return FimSupport("text", fmt, f"raw FIM text in the {fmt.name} format (qualm.model.fim_format, checked with the server's tokenizer)")


def _detected_format(model: str, count: Callable[[str], int] | None) -> FimSupport:
    guess = format_for_model_name(model)
    if count is None:
        if guess is None:
            return FimSupport("", None, f"no: the server cannot tokenize and the name {model!r} names no known FIM format (set qualm.model.fim_format); {NO_FIM}")
        return FimSupport("text", guess, f"raw FIM text in the {guess.name} format (from the model's name; set qualm.model.fim_format if wrong)")
    # the name's guess first: one family's markers are checked in a few requests
    candidates = ([guess] if guess else []) + [f for f in FORMATS.values() if f != guess]
    for fmt in candidates:
        if single_tokens(fmt, count):
            return FimSupport("text", fmt, f"raw FIM text in the {fmt.name} format (its markers are single tokens of the server's tokenizer)")
    return FimSupport("", None, f"no: the served tokenizer has none of the known FIM markers ({', '.join(FORMATS)}) as single tokens; {NO_FIM}")


def single_tokens(fmt: FimFormat, count: Callable[[str], int]) -> bool:
    """Whether every marker of ``fmt`` is one token: sent as text, it is read as that special token."""
    return all(count(m) == 1 for m in fmt.markers)


# Each engine's tokenizer route: (path, the request for a text, whether it adds a BOS to count off).
TOKENIZERS: dict[str, tuple[str, Callable[[str, str], dict], bool]] = {
    "llama.cpp": ("/tokenize", lambda model, text: {"content": text}, False),  # special tokens parsed, none added
    "llama-cpp-python": ("/extras/tokenize", lambda model, text: {"model": model, "input": text}, True),
}
VLLM_TOKENIZER = ("/tokenize", lambda model, text: {"model": model, "prompt": text, "add_special_tokens": False}, False)


def marker_counter(client: RemoteClient, engine: str, model: str) -> Callable[[str], int] | None:
    """How many tokens a text is, special tokens parsed, by the server's own tokenizer; None where
    the server has no tokenizer route. vLLM's ``/tokenize`` shape for engines not in TOKENIZERS."""
    path, request, adds_bos = TOKENIZERS.get(engine, VLLM_TOKENIZER)

    def count(text: str) -> int:
        return len(client.post_json(path, request(model, text))["tokens"])

    try:
        base = count("") if adds_bos else 0
        count("def")  # the route exists and answers in this shape
    except (RemoteError, KeyError, TypeError) as exc:
        log.info("the server has no tokenizer route for FIM markers: %s", exc)
        return None
    return lambda text: count(text) - base
