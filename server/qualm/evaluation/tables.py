"""``table.md``: the paper's main table (AUROC and PRAUC per data set, rows grouped by family, best
value per column in bold and second underlined), then pass@1, the Top-K sweep and token-scope
tables, the cost table and the correlations between the three axes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .formatting import mark_best, md_row, unique
from .results import (
    CODE_ONLY,
    COMMENTS_ONLY,
    FAMILIES,
    FAMILY_TITLES,
    LEX,
    PAPER_K,
    is_k_sweep,
    is_token_scope,
    k_of,
    measured,
    order_methods,
)
from .summary import RunSummary

# The token-scope ablation is a table of its own in the paper (code vs comment entropy).
TOKEN_SCOPE = ((LEX, "All tokens"), (CODE_ONLY, "Code only"), (COMMENTS_ONLY, "Comments only"))

def _families(summaries: Sequence[RunSummary]) -> dict[str, str]:
    """Method name -> family, as the harness first reported it."""
    out: dict[str, str] = {}
    for s in summaries:
        for m in s.run.methods:
            out.setdefault(m.name, m.family)
    return out


def _metric_columns(summaries: Sequence[RunSummary]) -> list[tuple[str, Callable[[str], float | None]]]:
    """(header, row name -> value) for AUROC and PRAUC per dataset, plus an average over datasets
    when there are several (defined only for a method measured on every one of them)."""
    columns: list[tuple[str, Callable[[str], float | None]]] = []

    def getter(s: RunSummary, metric: str) -> Callable[[str], float | None]:
        return lambda name: getattr(s.metrics[name], metric) if name in s.metrics else None

    for s in summaries:
        for metric in ("auroc", "prauc"):
            columns.append((f"{s.run.dataset} {metric.upper()}", getter(s, metric)))
    if len(summaries) > 1:
        for metric in ("auroc", "prauc"):
            per_dataset = [getter(s, metric) for s in summaries]

            def average(name: str, per_dataset=per_dataset) -> float | None:
                values = [get(name) for get in per_dataset]
                return None if any(v is None for v in values) else sum(values) / len(values)

            columns.append((f"Average {metric.upper()}", average))
    return columns


def _metric_table(
    summaries: Sequence[RunSummary],
    rows: Sequence[tuple[str, str]],
    sections: Sequence[tuple[str, int]] = (),
    first_header: str = "Method",
) -> list[str]:
    """A Markdown table of AUROC/PRAUC per dataset. rows: (method name, label shown); sections:
    (title, index of the row it precedes) for the family headers. Bold and underline are computed
    over all rows of the table, column by column."""
    columns = _metric_columns(summaries)
    grid = [[get(name) for _, get in columns] for name, _ in rows]
    marked_columns = [mark_best([grid[r][c] for r in range(len(rows))]) for c in range(len(columns))]
    lines = [md_row([first_header, *(h for h, _ in columns)]), md_row(["---"] + [":---:"] * len(columns))]
    titles = dict((index, title) for title, index in sections)
    for r, (_, label) in enumerate(rows):
        if r in titles:
            lines.append(md_row([f"*{titles[r]}*", *([""] * len(columns))]))
        lines.append(md_row([label, *(marked_columns[c][r] for c in range(len(columns)))]))
    return lines


def _main_rows(summaries: Sequence[RunSummary]) -> tuple[list[tuple[str, str]], list[tuple[str, int]]]:
    families = _families(summaries)
    names = [n for n in order_methods(list(families)) if not is_k_sweep(n) and not is_token_scope(n)]
    # Families in the paper's order; one the harness invents goes last, under its own name.
    order = list(FAMILIES) + [f for f in unique(list(families.values())) if f not in FAMILIES]
    rows: list[tuple[str, str]] = []
    sections: list[tuple[str, int]] = []
    for family in order:
        members = [n for n in names if families[n] == family]
        if members:
            sections.append((FAMILY_TITLES.get(family, family), len(rows)))
            rows.extend((n, n) for n in members)
    return rows, sections


def _model_tables(summaries: Sequence[RunSummary]) -> list[str]:
    lines = ["## Main results (AUROC and PRAUC; positive = correct, score = −U)", ""]
    lines.append("Best value per column in **bold**, second <u>underlined</u>. Average is over the datasets "
                 "and shown only for a method measured on all of them.")
    for model in unique([s.run.model for s in summaries]):
        group = [s for s in summaries if s.run.model == model]
        rows, sections = _main_rows(group)
        lines += ["", f"### {model}", ""]
        lines += _metric_table(group, rows, sections)
        missing = [
            f"- {m.name} on {s.run.dataset}: {m.missing} of {m.n} scores unavailable, imputed with the "
            "method's mean (a neutral score) so that all methods are evaluated on the same problems"
            for s in group for m in s.metrics.values() if m.missing
        ]
        if missing:
            lines += ["", "Unavailable scores:", "", *missing]
    return lines


def _k_sweep_tables(summaries: Sequence[RunSummary]) -> list[str]:
    lines: list[str] = []
    for model in unique([s.run.model for s in summaries]):
        group = [s for s in summaries if s.run.model == model]
        names = [n for n in order_methods([m for s in group for m in s.metrics]) if is_k_sweep(n)]
        if names:
            lines += ["", f"### {model}", ""]
            lines += _metric_table(group, [(n, str(k_of(n))) for n in names], first_header="K")
    return (["", "## Top-K entropy: sensitivity to K"] + lines) if lines else []


def _token_scope_tables(summaries: Sequence[RunSummary]) -> list[str]:
    lines: list[str] = []
    for model in unique([s.run.model for s in summaries]):
        group = [s for s in summaries if s.run.model == model]
        present = {m for s in group for m in s.metrics}
        rows = [(name, label) for name, label in TOKEN_SCOPE if name in present]
        if any(is_token_scope(name) for name, _ in rows):
            lines += ["", f"### {model}", ""]
            lines += _metric_table(group, rows, first_header=f"Token scope (Top-{PAPER_K} entropy)")
    return (["", "## Code vs comment entropy"] + lines) if lines else []


def _pass_at_1_table(summaries: Sequence[RunSummary]) -> list[str]:
    lines = ["", "## pass@1 (greedy candidate, official hidden tests)", "",
             md_row(["Dataset", "Model", "Problems", "pass@1"]), md_row(["---", "---", "---:", "---:"])]
    for s in summaries:
        value = "–" if s.pass_at_1 is None else f"{s.pass_at_1:.3f}"
        lines.append(md_row([s.run.dataset, s.run.model, str(len(s.run.labels)), value]))
    return lines


def _cost_tables(summaries: Sequence[RunSummary]) -> list[str]:
    lines = ["", "## Cost (mean wall-clock seconds per problem)", "",
             "— : not measured on this machine (every problem's steps for the method were computed on "
             "another one, the step files say where), so no cost is claimed."]
    for model in unique([s.run.model for s in summaries]):
        group = [s for s in summaries if s.run.model == model]
        names = [n for n in order_methods([m for s in group for m in s.metrics]) if not is_k_sweep(n)]
        lines += ["", f"### {model}", "",
                  md_row(["Method", *(s.run.dataset for s in group)]), md_row(["---"] + ["---:"] * len(group))]
        for name in names:
            cells = [_cost_cell(s.metrics[name].seconds_per_problem) if name in s.metrics else "–" for s in group]
            lines.append(md_row([name, *cells]))
    return lines


def _cost_cell(seconds: float | None) -> str:
    return f"{seconds:.2f}" if measured(seconds) else "—"


def _correlation_table(summaries: Sequence[RunSummary]) -> list[str]:
    lines = ["", "## Correlation between the three axes (raw uncertainty, problems where both are available)", "",
             md_row(["Dataset", "Model", "Pair", "Pearson r", "Spearman ρ", "Pairs"]),
             md_row(["---", "---", "---", "---:", "---:", "---:"])]
    for s in summaries:
        for c in s.correlations:
            r = "–" if c.pearson is None else f"{c.pearson:.4f}"
            rho = "–" if c.spearman is None else f"{c.spearman:.4f}"
            lines.append(md_row([s.run.dataset, s.run.model, c.pair, r, rho, str(c.n)]))
    return lines


def render_table(summaries: Sequence[RunSummary]) -> str:
    commands = unique([s.run.command for s in summaries])
    lines = ["# Evaluation results", "", "Produced by:", "", *(f"    {c}" for c in commands), ""]
    lines += _model_tables(summaries)
    lines += _pass_at_1_table(summaries)
    lines += _k_sweep_tables(summaries)
    lines += _token_scope_tables(summaries)
    lines += _cost_tables(summaries)
    lines += _correlation_table(summaries)
    return "\n".join(lines) + "\n"
