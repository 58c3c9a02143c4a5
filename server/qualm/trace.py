"""The model trace: what the model wrote, token by token, with its uncertainty.

This is the one schema that the CLI prints as JSON, the language server sends and the
evaluation caches (README, "Trace JSON").
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

Scope = Literal["code", "comment", "docstring"]
Mode = Literal["greedy", "sampled", "scored"]
# A probability of 0 (a token outside the float range) is read as this: a finite surprisal.
MIN_PROB = 1e-12


def surprisal(prob: float) -> float:
    """-log p in nats: how unlikely the model found a token."""
    return -math.log(max(prob, MIN_PROB))


# "complete": the answer ended in its format (a plan's last step, the M-th test: qualm.answer_ends)
StopReason = Literal["fence", "complete", "eos", "length", "cancelled", "end_of_text"]


@dataclass(frozen=True)
class Alternative:
    token_id: int
    text: str
    prob: float


@dataclass(frozen=True)
class TokenRecord:
    """One generated (or teacher-forced) token.

    ``start``/``end`` are character offsets into :attr:`Trace.text`; concatenating the
    ``text`` of all records in order rebuilds ``Trace.text`` exactly. A token that carries only
    part of a multi-byte character has empty ``text`` and ``start == end``; the character lands
    on the token that completes it.
    ``entropy`` is the Shannon entropy (nats) of the full next-token distribution at
    temperature 1; ``prob`` is the chosen token's probability under that distribution.
    A remote engine returns only the top N probabilities (``qualm.entropy_bounds``): then
    ``entropy`` is the documented point estimate, ``entropy_bounds`` the (lower, upper) range the
    true entropy lies in, and ``tail_mass`` the probability the N alternatives leave unexplained.
    Both are None where the entropy is exact (the full distribution was seen). ``token_id`` is -1
    where the engine names tokens by their text only.
    """

    index: int
    token_id: int
    text: str
    start: int
    end: int
    entropy: float
    prob: float
    alternatives: tuple[Alternative, ...]
    scope: Scope | None = None
    entropy_bounds: tuple[float, float] | None = None
    tail_mass: float | None = None


@dataclass(frozen=True)
class Trace:
    text: str
    tokens: tuple[TokenRecord, ...]
    model: str
    mode: Mode
    prompt: str = ""
    prompt_tokens: int = 0
    vocab_size: int = 0
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    stop_reason: StopReason = "end_of_text"
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def entropies(self) -> list[float]:
        return [t.entropy for t in self.tokens]

    def with_tokens(self, tokens: tuple[TokenRecord, ...]) -> Trace:
        return replace(self, tokens=tokens)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        tokens = tuple(
            TokenRecord(
                **{
                    **t,
                    "alternatives": tuple(Alternative(**a) for a in t.get("alternatives", ())),
                    "entropy_bounds": tuple(t["entropy_bounds"]) if t.get("entropy_bounds") is not None else None,
                }
            )
            for t in data.get("tokens", ())
        )
        return cls(**{**data, "tokens": tokens})
