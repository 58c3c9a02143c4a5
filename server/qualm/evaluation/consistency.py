"""The paper's code-consistency baselines over plain strings: Consistency (BLEU), (VR) and (VRO).

The harness caches the model's outputs; every function here takes code strings and returns a frozen
result whose ``uncertainty`` is a float (higher = less trustworthy) or None when it cannot be
computed. Nothing here loads a model.

Definitions (the paper's Baselines paragraph: "Consistency (Basic) and Consistency (VR) [Huang et
al. 2025], both using pairwise CodeBLEU"):

* ``codebleu_similarity(a, b)``: CodeBLEU from the ``codebleu`` package (lang "python", default
  weights 0.25 each), symmetrised as the mean of both directions because CodeBLEU's syntax and
  data-flow terms are computed against the reference side only. Two strings equal after stripping
  (what ``calc_codebleu`` compares) score 1.0: for snippets under four tokens BLEU-4's smoothing
  gives identical text less than 1. An exception inside ``codebleu`` scores 0.0 (the pair counts as
  maximal disagreement, never silently dropped); tree-sitter is error tolerant, so unparsable code
  still gets an ordinary score and this is only a last guard. Package quirk, kept as is: the
  combined score uses ``dataflow_match or 1``, so a pair with no data flow in the reference, or
  with none of it matched, gets the full data-flow quarter while a partial match gets part of it
  (k4black/codebleu issue #59); unrelated snippets can therefore score above partly related ones.
* Consistency (VR), Huang et al.'s variation ratio over the N samples s_1..s_N:
  ``VR = 1 - sum_{i != j} sim(s_i, s_j) / (N (N - 1))``; with a symmetric ``sim`` this is
  1 - the mean over the N(N-1)/2 unordered pairs (``pairwise_mean``).
* Consistency (VRO), Huang et al.'s variation ratio against the original (greedy) output g:
  ``VRO = 1 - (1/N) sum_i sim(g, s_i)``.
* Consistency (BLEU), the paper's "Consistency (Basic)" (its tables say "Consistency (BLEU)"):
  ``1 - mean pairwise BLEU`` among the N samples, BLEU being CodeBLEU's n-gram term (BLEU-4,
  symmetrised) alone: agreement of the surface text only, where VR adds CodeBLEU's weighted n-gram,
  syntax and data-flow terms. This reading is qualm's: the paper names the row without a formula and
  Huang et al.'s text could not be read here; it keeps Basic distinct from both VR and VRO.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

T = TypeVar("T")
GREEDY = -1  # index that stands for the greedy output in ConsistencyResult.pairs

_log = logging.getLogger(__name__)


class _DegenerateDataflowWarning(logging.Filter):
    """codebleu logs a root-logger warning for every pair whose reference has no data flow (a
    one-line return): expected here, and thousands of them buried a run's progress lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "data-flow match score degenerates" not in record.getMessage()


_QUIET_DATAFLOW = _DegenerateDataflowWarning()


def _codebleu(reference: str, prediction: str, term: str = "codebleu") -> float:
    from codebleu import calc_codebleu  # noqa: PLC0415 - imported late: tree-sitter loads on first use

    root = logging.getLogger()
    root.addFilter(_QUIET_DATAFLOW)
    try:
        return float(calc_codebleu([reference], [prediction], lang="python")[term])
    finally:
        root.removeFilter(_QUIET_DATAFLOW)


def bleu_similarity(a: str, b: str) -> float:
    """Symmetrised BLEU-4 (CodeBLEU's n-gram term) in [0, 1]; equal strings 1.0, failures 0.0."""
    if a.strip() == b.strip():
        return 1.0
    try:
        return 0.5 * (_codebleu(a, b, "ngram_match_score") + _codebleu(b, a, "ngram_match_score"))
    except Exception as exc:  # noqa: BLE001 - any failure inside codebleu means "not comparable"
        _log.warning("BLEU failed (%s: %s); similarity 0.0", type(exc).__name__, exc)
        return 0.0


def codebleu_similarity(a: str, b: str) -> float:
    """Symmetrised CodeBLEU in [0, 1] (the module docstring says why and what the guards do)."""
    if a.strip() == b.strip():
        return 1.0
    try:
        return 0.5 * (_codebleu(a, b) + _codebleu(b, a))
    except Exception as exc:  # noqa: BLE001 - any failure inside codebleu means "not comparable"
        _log.warning("CodeBLEU failed (%s: %s); similarity 0.0", type(exc).__name__, exc)
        return 0.0


def _pairwise(items: Sequence[T], sim: Callable[[T, T], float]) -> list[tuple[int, int, float]]:
    return [(i, j, sim(items[i], items[j])) for i, j in combinations(range(len(items)), 2)]


def pairwise_mean(items: Sequence[T], sim: Callable[[T, T], float]) -> float | None:
    """Mean of ``sim`` over the unordered pairs i < j; None with fewer than two items."""
    pairs = _pairwise(items, sim)
    return sum(s for _, _, s in pairs) / len(pairs) if pairs else None


@dataclass(frozen=True)
class ConsistencyResult:
    method: str  # "Consistency (VR)" | "Consistency (VRO)" | "Consistency (BLEU)"
    uncertainty: float | None  # 1 - mean_similarity; None: not enough outputs
    mean_similarity: float | None
    pairs: tuple[tuple[int, int, float], ...]  # (i, j, similarity); i == GREEDY for the greedy output
    samples: int  # number of samples given


def consistency_vr(samples: Sequence[str], sim: Callable[[str, str], float] = codebleu_similarity) -> ConsistencyResult:
    """Huang et al.'s VR: 1 - mean pairwise similarity among the samples (None with fewer than 2)."""
    pairs = _pairwise(samples, sim)
    return _consistency("Consistency (VR)", pairs, len(samples))


def consistency_vro(
    greedy: str, samples: Sequence[str], sim: Callable[[str, str], float] = codebleu_similarity
) -> ConsistencyResult:
    """Huang et al.'s VRO: 1 - mean similarity between the greedy output and each sample (None
    without samples)."""
    pairs = [(GREEDY, j, sim(greedy, s)) for j, s in enumerate(samples)]
    return _consistency("Consistency (VRO)", pairs, len(samples))


def consistency_bleu(samples: Sequence[str], sim: Callable[[str, str], float] = bleu_similarity) -> ConsistencyResult:
    """The paper's Consistency (Basic) / (BLEU): 1 - mean pairwise BLEU among the samples."""
    return _consistency("Consistency (BLEU)", _pairwise(samples, sim), len(samples))


def _consistency(method: str, pairs: list[tuple[int, int, float]], samples: int) -> ConsistencyResult:
    if not pairs:
        return ConsistencyResult(method, None, None, (), samples)
    mean = sum(s for _, _, s in pairs) / len(pairs)
    return ConsistencyResult(method, 1.0 - mean, mean, tuple(pairs), samples)
