"""One run summarised: every method's metrics, pass@1, the correlations between the three axes and
the claims' verdicts; what the tables, the claims and the plots are drawn from."""

from __future__ import annotations

from dataclasses import dataclass

from .claims import Claim, check_claims
from .metrics import MethodMetrics, complete_pairs_count, evaluate_method, pass_at_1, pearson, spearman
from .results import ALGO, FUNC, LEX, EvalRun

# The paper's orthogonality table: Pseudo vs Test, Pseudo vs Entropy, Test vs Entropy.
AXIS_PAIRS = ((ALGO, FUNC, "ALGO vs FUNC"), (ALGO, LEX, "ALGO vs LEX"), (FUNC, LEX, "FUNC vs LEX"))


@dataclass(frozen=True)
class Correlation:
    pair: str
    a: str
    b: str
    pearson: float | None
    spearman: float | None
    n: int  # problems where both axes have a score


@dataclass(frozen=True)
class RunSummary:
    run: EvalRun
    metrics: dict[str, MethodMetrics]
    pass_at_1: float | None
    correlations: list[Correlation]
    claims: list[Claim]


def summarise(run: EvalRun) -> RunSummary:
    metrics = {
        m.name: evaluate_method(m.name, m.family, run.labels, m.uncertainty, m.seconds) for m in run.methods
    }
    return RunSummary(
        run=run,
        metrics=metrics,
        pass_at_1=pass_at_1(run.labels) if run.labels else None,
        correlations=axis_correlations(run),
        claims=check_claims(run, metrics),
    )


def axis_correlations(run: EvalRun) -> list[Correlation]:
    """Pearson and Spearman between the three axes' raw scores (pairwise complete problems).

    A pair with an axis the run did not compute is left out rather than shown as an empty row."""
    out = []
    for a, b, pair in AXIS_PAIRS:
        ma, mb = run.method(a), run.method(b)
        if ma is None or mb is None:
            continue
        out.append(
            Correlation(
                pair, a, b,
                pearson(ma.uncertainty, mb.uncertainty),
                spearman(ma.uncertainty, mb.uncertainty),
                complete_pairs_count(ma.uncertainty, mb.uncertainty),
            )
        )
    return out
