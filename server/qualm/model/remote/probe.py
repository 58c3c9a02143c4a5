"""What an inference server is and can do, asked once at start-up.

Which engine (each answers a route the others lack: llama.cpp ``/props``, vLLM ``/version``,
SGLang ``/get_model_info``; llama-cpp-python lists its models as owned by "me"), which model it
serves, its vocabulary and context, its chat template where it gives one, how many alternatives a
token may carry, whether it can score text it did not write (prompt log-probabilities), and a
fingerprint of its answers: the model's identity for calibration files and the evaluation cache.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from .client import RemoteClient, RemoteError

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
