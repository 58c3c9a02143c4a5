"""Shannon entropy and top alternatives of a full next-token distribution, from raw logits.

This runs once per generated token over the whole vocabulary (151,936 entries for Qwen2.5),
so it avoids copies: two preallocated float32 buffers, float64 accumulation for accuracy,
and the top-k found among a small candidate set instead of sorting the vocabulary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Tokens more than this many nats below the best logit have probability below e^-20 (2e-9)
# relative to the best: they can only be among the top-k when fewer than k tokens are closer.
CANDIDATE_MARGIN = 20.0


@dataclass(frozen=True)
class Distribution:
    entropy: float  # nats
    top_ids: np.ndarray  # the k most probable token ids, most probable first
    top_probs: np.ndarray
    log_z: float  # log partition function relative to the max logit
    max_logit: float
    candidates: np.ndarray  # token ids within CANDIDATE_MARGIN nats of the best (or all of them)

    def prob_of(self, logits: np.ndarray, token_id: int) -> float:
        return math.exp(float(logits[token_id]) - self.max_logit - self.log_z)


class EntropyMeter:
    """Reusable per-vocabulary workspace; not thread-safe (one per decoding loop)."""

    def __init__(self, vocab_size: int, top_k: int = 5):
        self.vocab_size = vocab_size
        self.top_k = top_k
        self._shifted = np.empty(vocab_size, dtype=np.float32)
        self._exp = np.empty(vocab_size, dtype=np.float32)

    def measure(self, logits: np.ndarray) -> Distribution:
        """Entropy H = log Z - sum(e_i * s_i) / Z with s = logits - max, e = exp(s), Z = sum(e)."""
        if logits.shape != (self.vocab_size,):
            raise ValueError(f"expected {self.vocab_size} logits, got shape {logits.shape}")
        top = int(np.argmax(logits))
        m = float(logits[top])
        if not math.isfinite(m):
            raise ValueError("logits contain no finite maximum")
        s = np.subtract(logits, np.float32(m), out=self._shifted, dtype=np.float32)
        e = np.exp(s, out=self._exp)
        z = float(np.add.reduce(e, dtype=np.float64))
        with np.errstate(invalid="ignore"):  # -inf * 0 is handled below
            np.multiply(e, s, out=s)  # reuse the buffer: s now holds e*s
        weighted = float(np.add.reduce(s, dtype=np.float64))
        if not math.isfinite(weighted):
            # Masked-out tokens (-inf logits) give -inf * 0 = nan; they contribute nothing.
            s = logits.astype(np.float64) - m
            finite = np.isfinite(s)
            weighted = float(np.dot(e[finite], s[finite]))
        log_z = math.log(z)
        entropy = max(0.0, log_z - weighted / z)
        candidates = np.flatnonzero(logits >= np.float32(m - CANDIDATE_MARGIN))
        ids, probs = self._top(logits, top, m, log_z, candidates)
        return Distribution(entropy=entropy, top_ids=ids, top_probs=probs, log_z=log_z, max_logit=m, candidates=candidates)

    def _top(self, logits: np.ndarray, best: int, m: float, log_z: float, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = min(self.top_k, self.vocab_size)
        if k <= 1:
            ids = np.array([best], dtype=np.int64)[:k]
        else:
            if candidates.size < k:
                candidates = np.arange(self.vocab_size)
            vals = logits[candidates]
            if candidates.size > k:
                part = np.argpartition(-vals, k - 1)[:k]
                candidates, vals = candidates[part], vals[part]
            # Stable order: by logit descending, ties by token id (matches argmax's choice).
            order = np.lexsort((candidates, -vals.astype(np.float64)))
            ids = candidates[order]
        probs = np.exp(logits[ids].astype(np.float64) - m - log_z)
        return ids, probs


def sample_top_p(logits: np.ndarray, d: Distribution, temperature: float, top_p: float, rng: np.random.Generator) -> int:
    """Temperature, then nucleus (top-p), then a draw: the paper's (vLLM's) sampling order.

    Works on the candidate set of ``d``: for temperature <= 1 every token outside it has weight
    below e^-20 of the best, at most 2e-6 of the mass over a 152k vocabulary, so the nucleus is
    the same as over the full vocabulary. Hotter sampling widens the set accordingly.
    """
    if temperature > 1.0:
        ids = np.flatnonzero(logits >= np.float32(d.max_logit - CANDIDATE_MARGIN * temperature))
    else:
        ids = d.candidates
    z = (logits[ids].astype(np.float64) - d.max_logit) / temperature
    order, w = _nucleus(z, top_p)
    ids = ids[order]
    return int(ids[rng.choice(w.size, p=w / w.sum())]) if w.size > 1 else int(ids[0])


def _nucleus(z: np.ndarray, top_p: float) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the nucleus in descending order (ties by position) and their weights exp(z).

    The candidate set holds tens of thousands of tokens at T = 0.8, and sorting all of them cost
    more than a GPU decode step; the nucleus is rarely more than a few dozen tokens. So only the
    top k are sorted, k growing until they hold the top_p mass, with ties at the cut kept whole:
    the same tokens in the same order as a full stable sort.
    """
    w_all = np.exp(z)
    total = float(w_all.sum())
    sel = None
    if top_p < 1.0:
        k = 32
        while k < z.size:
            part = np.argpartition(z, z.size - k)[z.size - k :]
            sel = np.flatnonzero(z >= z[part].min())  # ascending positions, ties at the cut included
            # a hair of slack so that float rounding can never put the crossing token outside
            if float(w_all[sel].sum()) >= top_p * total * (1.0 + 1e-9):
                break
            sel, k = None, k * 4
    if sel is None:
        sel = np.arange(z.size)
    order = sel[np.argsort(-z[sel], kind="stable")]
    w = w_all[order]
    if top_p < 1.0:
        cum = np.cumsum(w) / total
        keep = int(np.searchsorted(cum, top_p, side="left")) + 1  # the token that crosses top_p stays
        order, w = order[:keep], w[:keep]
    return order, w
