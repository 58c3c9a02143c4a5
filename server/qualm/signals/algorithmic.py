"""Algorithmic uncertainty: disagreement among N natural-language solution plans.

Step-aware ROUGE-L (the paper, section 2.3), as implemented here. A plan z is split into its
numbered steps s_1..s_m. For two plans A = (a_1..a_m) and B = (b_1..b_n), with RL(a, b) the
token-level ROUGE-L F-measure of two steps (``rouge-score``'s tokens: lower-cased alphanumeric):

    RL_step(A, B) = 1/2 * ( sum_i max_j RL(a_i, b_j) + sum_j max_i RL(a_i, b_j) )   (bidirectional max matching)
    sim(A, B)     = 2 * RL_step(A, B) / (m + n)                                       (the paper's equation 3)
    U_algo        = 1 - 2 / (N (N - 1)) * sum_{i<j} sim(z_i, z_j)                      (equation 4)

so sim is 1 for plans with the same steps in any order, 0 for plans with no word in common, and
symmetric. Plans that yield no steps cannot be compared: with fewer than two usable plans the
axis is unavailable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

from rapidfuzz.distance import LCSseq

from ..answer_ends import STEP_START


def split_steps(plan: str) -> list[str]:
    """The numbered steps of a plan; continuation lines belong to the step above them.

    A plan with no numbered lines falls back to its non-empty lines (one step each).
    """
    steps: list[str] = []
    current: list[str] | None = None
    for line in plan.splitlines():
        m = STEP_START.match(line)
        if m:
            if current is not None:
                steps.append(" ".join(current).strip())
            current = [line[m.end() :].strip()]
        elif current is not None and line.strip():
            current.append(line.strip())
    if current is not None:
        steps.append(" ".join(current).strip())
    steps = [s for s in steps if _has_words(s)]
    if steps:
        return steps
    return [line.strip() for line in plan.splitlines() if _has_words(line)]


def _has_words(text: str) -> bool:
    return bool(re.search(r"[A-Za-z0-9]", text))


class StepRouge:
    """Token ROUGE-L F-measure between steps: ``rouge-score``'s tokenizer and F-measure, with the
    longest common subsequence from ``rapidfuzz`` (C++). rouge-score's own LCS is a pure-Python
    table, and ten plans of ten steps are ~4,500 step pairs: 1.3 s an assessment at the median on
    two cores, 30 ms this way (20 HumanEval plan sets), with the same numbers (a test compares them
    with rouge-score's on plan-like and random text)."""

    def __init__(self) -> None:
        # rouge-score's tokenize module, not its tokenizers: DefaultTokenizer(use_stemmer=False) is
        # tokenize.tokenize(text, None), but its module imports NLTK's stemmer, and NLTK loads SciPy
        # where it is installed (the server never loads SciPy: tests/unit/test_import_contract.py).
        from rouge_score import scoring, tokenize  # noqa: PLC0415 - when plans are compared, not when qualm starts

        self._tokenize = tokenize.tokenize
        self._fmeasure = scoring.fmeasure

    def tokens(self, text: str) -> list[str]:
        return self._tokenize(text, None)

    def step(self, a: str, b: str) -> float:
        return self._f(self.tokens(a), self.tokens(b))

    def _f(self, a: list[str], b: list[str]) -> float:
        if not a or not b:
            return 0.0
        lcs = LCSseq.similarity(a, b)
        return self._fmeasure(lcs / len(b), lcs / len(a))

    def plans(self, a: list[str], b: list[str]) -> float:
        """sim(A, B) above, for two plans given as step lists (each non-empty)."""
        if not a or not b:
            raise ValueError("a plan without steps cannot be compared")
        ta, tb = [self.tokens(x) for x in a], [self.tokens(y) for y in b]
        matrix = [[self._f(x, y) for y in tb] for x in ta]
        forward = sum(max(row) for row in matrix)
        backward = sum(max(matrix[i][j] for i in range(len(a))) for j in range(len(b)))
        rl_step = 0.5 * (forward + backward)
        return 2.0 * rl_step / (len(a) + len(b))


@dataclass(frozen=True)
class AlgorithmicResult:
    uncertainty: float | None  # None: fewer than two plans with steps
    mean_similarity: float | None
    plans_used: int
    pairwise: list[tuple[int, int, float]]  # (i, j, sim) over the plans used
    steps: list[list[str]]


@dataclass(frozen=True)
class CandidateDistance:
    """How far the candidate's own plan is from the plans sampled for the problem."""

    distance: float | None  # 1 - mean sim(candidate plan, sampled plan); None: no comparable plans
    similarities: list[float]  # to each sampled plan that has steps
    steps: list[str]  # the candidate plan's steps


def candidate_distance(candidate_plan: str, plans: list[str], rouge: StepRouge | None = None) -> CandidateDistance:
    """``1 − mean_i sim(c, z_i)`` with ``sim`` the paper's step-aware similarity: 0 when the code does
    what every sampled plan says, towards 1 when it does something none of them describes. Unlike
    the plans' dispersion, it changes when the code changes."""
    rouge = rouge or StepRouge()
    own = split_steps(candidate_plan)
    sampled = [s for s in (split_steps(p) for p in plans) if s]
    if not own or not sampled:
        return CandidateDistance(None, [], own)
    sims = [rouge.plans(own, s) for s in sampled]
    return CandidateDistance(1.0 - sum(sims) / len(sims), sims, own)


def algorithmic_uncertainty(plans: list[str], rouge: StepRouge | None = None) -> AlgorithmicResult:
    rouge = rouge or StepRouge()
    steps = [split_steps(p) for p in plans]
    usable = [i for i, s in enumerate(steps) if s]
    if len(usable) < 2:
        return AlgorithmicResult(None, None, len(usable), [], steps)
    pairwise = [(i, j, rouge.plans(steps[i], steps[j])) for i, j in combinations(usable, 2)]
    mean = sum(s for _, _, s in pairwise) / len(pairwise)
    return AlgorithmicResult(1.0 - mean, mean, len(usable), pairwise, steps)
