"""The report's plots: ``roc_<dataset>.png``, ``auroc_vs_k_<dataset>.png`` and
``auroc_vs_cost_<dataset>.png`` (one panel per model where there are several); a plot with nothing
to draw is not written.

matplotlib is imported inside the drawing functions, so reading or summarising results does not
load it, and figures are drawn on its Agg canvas directly (no pyplot), so no global backend or
figure state is touched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .formatting import fmt
from .metrics import roc_points
from .results import (
    ALGO,
    CONSISTENCY_BLEU,
    CONSISTENCY_VR,
    ENSEMBLE,
    FUNC,
    LEX,
    MEAN_ENTROPY,
    SYMBOLIC_CLUSTERING,
    is_k_sweep,
    k_of,
    measured,
    order_methods,
)
from .summary import RunSummary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The methods of the paper's main table, drawn in the ROC plot.
ROC_METHODS = (MEAN_ENTROPY, CONSISTENCY_BLEU, CONSISTENCY_VR, SYMBOLIC_CLUSTERING, LEX, ALGO, FUNC, ENSEMBLE)


def _figure(panels: int) -> tuple[Figure, list]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415 - see the module docstring
    from matplotlib.figure import Figure  # noqa: PLC0415 - as above

    fig = Figure(figsize=(5.5 * panels, 4.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, panels, squeeze=False)[0]
    return fig, list(axes)


def _plot_roc(group: Sequence[RunSummary], path: Path) -> bool:
    fig, axes = _figure(len(group))
    drawn = False
    for ax, s in zip(axes, group):
        for name in ROC_METHODS:
            method = s.run.method(name)
            points = None if method is None else roc_points(s.run.labels, method.uncertainty)
            if points is not None:
                ax.plot(points.fpr, points.tpr, label=f"{name} ({fmt(s.metrics[name].auroc)})")
                drawn = True
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8, label="chance")
        ax.set(xlim=(0, 1), ylim=(0, 1.02), title=f"{s.run.dataset} · {s.run.model}",
               xlabel="false positive rate (incorrect programs accepted)",
               ylabel="true positive rate (correct programs accepted)")
        ax.legend(fontsize=7, loc="lower right")
    if drawn:
        fig.savefig(path, dpi=110)
    return drawn


def _plot_auroc_vs_k(group: Sequence[RunSummary], path: Path) -> bool:
    fig, (ax,) = _figure(1)
    drawn = False
    for s in group:
        points = sorted(
            (k_of(m.name), m.auroc)
            for m in s.metrics.values() if is_k_sweep(m.name) and m.auroc is not None
        )
        if points:
            ax.plot([k for k, _ in points], [a for _, a in points], marker="o", label=s.run.model)
            drawn = True
    ax.axhline(0.5, linestyle="--", color="grey", linewidth=0.8)
    ax.set(xlabel="K (tokens of highest entropy averaged)", ylabel="AUROC",
           title=f"Top-K entropy vs K · {group[0].run.dataset}")
    ax.set_xticks(range(1, 11))
    if drawn:
        ax.legend(fontsize=8)
        fig.savefig(path, dpi=110)
    return drawn


def _sparse_seconds(x: float, _position: int) -> str:
    """Minor ticks labelled only at 2, 3 and 5 (x 10^n), so the labels do not overlap."""
    text = f"{x:g}"
    return text if text.lstrip("0.")[:1] in ("2", "3", "5") else ""


def _plot_auroc_vs_cost(group: Sequence[RunSummary], path: Path) -> bool:
    from matplotlib.ticker import FuncFormatter  # noqa: PLC0415 - see the module docstring

    fig, axes = _figure(len(group))
    drawn = False
    for ax, s in zip(axes, group):
        # A log axis cannot show zero cost; the K sweep would pile onto Top-5 Entropy's point.
        methods = [s.metrics[n] for n in order_methods(list(s.metrics)) if not is_k_sweep(n)]
        points = [m for m in methods if m.auroc is not None and measured(m.seconds_per_problem)]
        for m in points:
            ax.scatter(m.seconds_per_problem, m.auroc, s=25)
            ax.annotate(m.name, (m.seconds_per_problem, m.auroc), fontsize=6,
                        xytext=(3, 3), textcoords="offset points")
        drawn = drawn or bool(points)
        ax.set_xscale("log")
        # Plain seconds ("2", "0.5") rather than powers of ten on a range that is often narrow.
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(FuncFormatter(_sparse_seconds))
        ax.margins(x=0.15)
        ax.set(xlabel="seconds per problem (log scale)", ylabel="AUROC",
               title=f"{s.run.dataset} · {s.run.model}")
    if drawn:
        fig.savefig(path, dpi=110)
    return drawn


PLOTS: tuple[tuple[str, Callable[[Sequence[RunSummary], Path], bool]], ...] = (
    ("roc", _plot_roc),
    ("auroc_vs_k", _plot_auroc_vs_k),
    ("auroc_vs_cost", _plot_auroc_vs_cost),
)
