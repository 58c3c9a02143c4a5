"""What an evaluation produces: per method, an uncertainty per problem (:class:`MethodResult`), and
per (data set, model) the labels and every method (:class:`EvalRun`); plus the method names the
harness uses and the order the paper's tables list them in."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Method names the harness uses (exact strings).
MEAN_ENTROPY = "Mean Entropy"
MAX_ENTROPY = "Max Entropy"
MEAN_PROBABILITY = "Mean Probability"
MAX_PROBABILITY = "Max Probability"
PAPER_K = 5  # the paper's K: the rows named after it are always computed with it
LEX = f"Top-{PAPER_K} Entropy"
CODE_ONLY = f"Top-{PAPER_K} Entropy (code only)"
COMMENTS_ONLY = f"Top-{PAPER_K} Entropy (comments only)"
CONSISTENCY_BLEU = "Consistency (BLEU)"
CONSISTENCY_VR = "Consistency (VR)"
CONSISTENCY_VRO = "Consistency (VRO)"
SYMBOLIC_CLUSTERING = "Symbolic Clustering"
ALGO = "Pseudo Consistency (ALGO)"
FUNC = "Generated Tests (FUNC)"
ENSEMBLE = "Ensemble (LEX+ALGO+FUNC)"
DROP_LEX = "Ensemble − LEX"
DROP_ALGO = "Ensemble − ALGO"
DROP_FUNC = "Ensemble − FUNC"
MULTI_CANDIDATE_TESTS = "Multi-candidate Tests"
P_PASS = "P(pass), calibrated"
AXES = (LEX, ALGO, FUNC)  # the three axes in the order of the ensemble's weights


def top_k_name(k: int) -> str:
    return f"Top-K Entropy (K={k})"


TOP_K_PATTERN = re.compile(r"^Top-K Entropy \(K=(\d+)\)$")

SINGLE_PASS_BASELINES = (MEAN_ENTROPY, MAX_ENTROPY, MEAN_PROBABILITY, MAX_PROBABILITY)
MULTI_PASS_BASELINES = (CONSISTENCY_BLEU, CONSISTENCY_VR, SYMBOLIC_CLUSTERING)
DROP_ONE = (DROP_LEX, DROP_ALGO, DROP_FUNC)

FAMILIES = ("single-pass", "multi-pass", "ours", "ensemble", "beyond the paper")
FAMILY_TITLES = {
    "single-pass": "Single-pass baselines",
    "multi-pass": "Multi-pass baselines",
    "ours": "Three axes (ours)",
    "ensemble": "Ensemble (ours) and drop-one ablations",
    "beyond the paper": "Beyond the paper",
}
ENSEMBLE_FAMILY = "ensemble"

# Row order inside a family; a name not listed here follows in the order it first appears.
METHOD_ORDER = (
    MEAN_ENTROPY, MAX_ENTROPY, MEAN_PROBABILITY, MAX_PROBABILITY,
    CONSISTENCY_BLEU, CONSISTENCY_VR, CONSISTENCY_VRO, SYMBOLIC_CLUSTERING,
    LEX, ALGO, FUNC,
    ENSEMBLE, DROP_LEX, DROP_ALGO, DROP_FUNC,
    MULTI_CANDIDATE_TESTS, P_PASS,
    *(top_k_name(k) for k in range(1, 11)),
    CODE_ONLY, COMMENTS_ONLY,
)


@dataclass(frozen=True)
class MethodResult:
    name: str
    family: str
    uncertainty: list[float | None]  # one per problem, aligned with EvalRun.task_ids
    seconds: float | None  # mean wall time per problem of this method; None: not measured here


@dataclass(frozen=True)
class EvalRun:
    dataset: str
    model: str
    task_ids: list[str]
    labels: list[bool]  # True: the candidate passes the official hidden tests
    methods: list[MethodResult]
    command: str

    def __post_init__(self) -> None:
        where = f"{self.dataset} / {self.model}"
        if len(self.task_ids) != len(self.labels):
            raise ValueError(f"{where}: {len(self.task_ids)} task ids but {len(self.labels)} labels")
        names = [m.name for m in self.methods]
        if len(set(names)) != len(names):
            raise ValueError(f"{where}: a method is listed twice: {names}")
        for method in self.methods:
            if len(method.uncertainty) != len(self.labels):
                raise ValueError(
                    f"{where}: {method.name} has {len(method.uncertainty)} scores for {len(self.labels)} problems"
                )

    def method(self, name: str) -> MethodResult | None:
        return next((m for m in self.methods if m.name == name), None)


def measured(seconds: float | None) -> bool:
    """None: no problem's time was measured on this machine (methods.py, _Column), its steps were
    computed elsewhere, so the cost table, the cost plot and claim (f) leave it out."""
    return seconds is not None


def k_of(name: str) -> int | None:
    """K of a Top-K sweep row, None for any other method."""
    match = TOP_K_PATTERN.match(name)
    return int(match.group(1)) if match else None


def is_k_sweep(name: str) -> bool:
    return k_of(name) is not None


def is_token_scope(name: str) -> bool:
    return name in (CODE_ONLY, COMMENTS_ONLY)


def order_methods(names: Sequence[str]) -> list[str]:
    """Distinct names in the tables' order (:data:`METHOD_ORDER`), unknown ones as first seen."""
    rank = {name: i for i, name in enumerate(METHOD_ORDER)}
    first_seen = {name: i for i, name in enumerate(dict.fromkeys(names))}
    return sorted(first_seen, key=lambda n: (rank.get(n, len(rank)), first_seen[n]))
