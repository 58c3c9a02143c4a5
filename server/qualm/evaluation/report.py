"""Writing an evaluation's results the way the paper presents them, plus everything needed to
check them.

``write_report`` takes one :class:`EvalRun` per (dataset, model) and writes into a folder:

* ``results.json``: every per-problem score and label, the metrics and the command, so anyone can
  recompute the metrics from the file alone;
* ``table.md``: the paper's main table (AUROC and PRAUC per dataset, rows grouped by family, best
  value per column in bold and second underlined), then pass@1, the Top-K sweep and token-scope
  tables, the cost table and the correlations between the three axes;
* ``roc_<dataset>.png``, ``auroc_vs_k_<dataset>.png``, ``auroc_vs_cost_<dataset>.png``: plots (one
  panel per model where there are several); a plot with nothing to draw is not written;
* ``claims.md``: each of the paper's claims and whether it held in each run, with the numbers.

Plots are drawn on matplotlib's Agg canvas directly (no pyplot), so no global backend or figure
state is touched.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from qualm.evaluation.metrics import (
    MethodMetrics,
    complete_pairs_count,
    evaluate_method,
    is_missing,
    pass_at_1,
    pearson,
    roc_points,
    spearman,
)

# Method names the harness uses (exact strings).
MEAN_ENTROPY = "Mean Entropy"
MAX_ENTROPY = "Max Entropy"
MEAN_PROBABILITY = "Mean Probability"
MAX_PROBABILITY = "Max Probability"
LEX = "Top-5 Entropy"
CODE_ONLY = "Top-5 Entropy (code only)"
COMMENTS_ONLY = "Top-5 Entropy (comments only)"
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

# The token-scope ablation is a table of its own in the paper (code vs comment entropy).
TOKEN_SCOPE = ((LEX, "All tokens"), (CODE_ONLY, "Code only"), (COMMENTS_ONLY, "Comments only"))

# The methods of the paper's main table, drawn in the ROC plot.
ROC_METHODS = (MEAN_ENTROPY, CONSISTENCY_BLEU, CONSISTENCY_VR, SYMBOLIC_CLUSTERING, LEX, ALGO, FUNC, ENSEMBLE)

# The paper's orthogonality table: Pseudo vs Test, Pseudo vs Entropy, Test vs Entropy.
AXIS_PAIRS = ((ALGO, FUNC, "ALGO vs FUNC"), (ALGO, LEX, "ALGO vs LEX"), (FUNC, LEX, "FUNC vs LEX"))

HELD = "held"
NOT_HELD = "not held"
NOT_TESTED = "not tested"


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


@dataclass(frozen=True)
class Correlation:
    pair: str
    a: str
    b: str
    pearson: float | None
    spearman: float | None
    n: int  # problems where both axes have a score


@dataclass(frozen=True)
class Claim:
    key: str
    statement: str
    verdict: str  # HELD, NOT_HELD or NOT_TESTED
    detail: str


@dataclass(frozen=True)
class RunSummary:
    run: EvalRun
    metrics: dict[str, MethodMetrics]
    pass_at_1: float | None
    correlations: list[Correlation]
    claims: list[Claim]


# ---------------------------------------------------------------------------------------------
# Summaries and claims


def summarise(run: EvalRun) -> RunSummary:
    metrics = {
        m.name: evaluate_method(m.name, m.family, run.labels, m.uncertainty, m.seconds) for m in run.methods
    }
    return RunSummary(
        run=run,
        metrics=metrics,
        pass_at_1=pass_at_1(run.labels) if run.labels else None,
        correlations=axis_correlations(run),
        claims=check_claims(metrics),
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


def _auroc_of(metrics: dict[str, MethodMetrics], name: str) -> tuple[float | None, str]:
    """A method's AUROC, or None and why it is unavailable."""
    if name not in metrics:
        return None, f"{name} was not run"
    value = metrics[name].auroc
    if value is None:
        return None, f"{name}'s AUROC is undefined (one class, or no scores)"
    return value, ""


def _beats(metrics: dict[str, MethodMetrics], winner: str, rivals: Sequence[str]) -> tuple[str, str]:
    """Verdict and numbers for "winner has a strictly higher AUROC than every rival".

    One rival beating or tying the winner decides "not held"; otherwise a rival (or the winner)
    without an AUROC leaves the claim "not tested", with the comparisons that could be made listed.
    """
    win, why = _auroc_of(metrics, winner)
    if win is None:
        return NOT_TESTED, why
    compared, untested, lost = [], [], False
    for rival in rivals:
        value, reason = _auroc_of(metrics, rival)
        if value is None:
            untested.append(reason)
            continue
        lost = lost or not win > value
        compared.append(f"{rival} {_fmt(value)} ({_points(win - value)})")
    detail = f"{winner} {_fmt(win)} " + (f"vs {'; '.join(compared)}" if compared else "with no rival measured")
    if untested:
        detail += ". Not compared: " + "; ".join(untested)
    if lost:
        return NOT_HELD, detail
    return (NOT_TESTED if untested else HELD), detail


def _claim_ensemble_beats_best(metrics: dict[str, MethodMetrics]) -> tuple[str, str]:
    ens, why = _auroc_of(metrics, ENSEMBLE)
    if ens is None:
        return NOT_TESTED, why
    singles = [m for m in metrics.values() if m.family != ENSEMBLE_FAMILY and m.auroc is not None]
    if not singles:
        return NOT_TESTED, "no non-ensemble method has an AUROC in this run"
    best = max(singles, key=lambda m: m.auroc)
    detail = (
        f"{ENSEMBLE} {_fmt(ens)} vs best single signal {best.name} {_fmt(best.auroc)} "
        f"({_points(ens - best.auroc)}; {len(singles)} non-ensemble methods compared)"
    )
    return (HELD if ens > best.auroc else NOT_HELD), detail


def _claim_comments_worse_than_random(metrics: dict[str, MethodMetrics]) -> tuple[str, str]:
    value, why = _auroc_of(metrics, COMMENTS_ONLY)
    if value is None:
        return NOT_TESTED, why
    return (HELD if value < 0.5 else NOT_HELD), f"{COMMENTS_ONLY} AUROC {_fmt(value)} vs chance .500"


def _measured(seconds: float | None) -> bool:
    """None: no problem's time was measured on this machine (methods.py, _Column), its steps were
    computed elsewhere, so the cost table, the cost plot and claim (f) leave it out."""
    return seconds is not None


def _claim_lexical_cheaper(metrics: dict[str, MethodMetrics]) -> tuple[str, str]:
    lex, vr = metrics.get(LEX), metrics.get(CONSISTENCY_VR)
    if lex is None or vr is None:
        return NOT_TESTED, f"{LEX if lex is None else CONSISTENCY_VR} was not run"
    if not (_measured(lex.seconds_per_problem) and _measured(vr.seconds_per_problem)):
        return NOT_TESTED, "no wall time on this machine (the steps were computed on another one)"
    ratio = vr.seconds_per_problem / lex.seconds_per_problem
    detail = (
        f"{LEX} {lex.seconds_per_problem:.2f} s vs {CONSISTENCY_VR} {vr.seconds_per_problem:.2f} s "
        f"per problem ({ratio:.1f}× cheaper)"
    )
    return (HELD if ratio > 3 else NOT_HELD), detail


# (key, statement, check). The statements say how each claim of the paper was read.
CLAIMS: tuple[tuple[str, str, Callable[[dict[str, MethodMetrics]], tuple[str, str]]], ...] = (
    ("a", f"{LEX} beats {MEAN_ENTROPY} (AUROC): Top-K filtering beats plain mean entropy.",
     lambda m: _beats(m, LEX, (MEAN_ENTROPY,))),
    ("b-lex", f"Lexical axis: {LEX} beats every single-pass baseline ({', '.join(SINGLE_PASS_BASELINES)}).",
     lambda m: _beats(m, LEX, SINGLE_PASS_BASELINES)),
    ("b-algo", f"Algorithmic axis: {ALGO} beats every multi-pass consistency baseline "
               f"({', '.join(MULTI_PASS_BASELINES)}).",
     lambda m: _beats(m, ALGO, MULTI_PASS_BASELINES)),
    ("b-func", f"Functional axis: {FUNC} beats every multi-pass consistency baseline "
               f"({', '.join(MULTI_PASS_BASELINES)}).",
     lambda m: _beats(m, FUNC, MULTI_PASS_BASELINES)),
    ("c", f"The ensemble ({ENSEMBLE}) beats the best single signal among all non-ensemble methods.",
     _claim_ensemble_beats_best),
    ("d", f"Removing any axis degrades the ensemble: {ENSEMBLE} beats each of {', '.join(DROP_ONE)}.",
     lambda m: _beats(m, ENSEMBLE, DROP_ONE)),
    ("e", f"Comment-only entropy is worse than random: {COMMENTS_ONLY} has AUROC below 0.5.",
     _claim_comments_worse_than_random),
    ("f", f"{LEX} costs over 3× less per problem than {CONSISTENCY_VR}.",
     _claim_lexical_cheaper),
)

CLAIMS_INTERPRETATION = f"""\
How the paper's claims were read:

* "Beats" means a strictly higher AUROC on this run (a tie does not hold). All comparisons use
  AUROC, the paper's headline metric; the numbers in brackets are the margin in AUROC points.
* (b) The paper says each axis "outperforms NL-derived baselines" on the property it targets. The
  lexical axis is single-pass, so it is compared with the single-pass baselines
  ({', '.join(SINGLE_PASS_BASELINES)}); the algorithmic and functional axes cost several
  generations, so each is compared with the multi-pass consistency baselines
  ({', '.join(MULTI_PASS_BASELINES)}). {CONSISTENCY_VRO} is not one of the paper's baselines and
  is left out.
* (c) "Best single signal" is the highest AUROC among every method in the run whose family is not
  "ensemble", including the K-sweep, token-scope and beyond-the-paper rows.
* (d)-(f) are further claims of the paper's analysis section (drop-one ablation, code vs comment
  entropy, cost), checked where the run measured them.
* A claim that names a method the run did not measure, or whose AUROC is undefined (all labels of
  one class), is "{NOT_TESTED}", never "{NOT_HELD}", unless a comparison that could be made already
  fails, which decides "{NOT_HELD}".
"""


def check_claims(metrics: dict[str, MethodMetrics]) -> list[Claim]:
    out = []
    for key, statement, check in CLAIMS:
        verdict, detail = check(metrics)
        out.append(Claim(key=key, statement=statement, verdict=verdict, detail=detail))
    return out


# ---------------------------------------------------------------------------------------------
# Formatting


def _fmt(value: float | None) -> str:
    """Three decimals without the leading zero, as in the paper (".813"); "–" when undefined."""
    if value is None:
        return "–"
    text = f"{value:.3f}"
    return text[1:] if text.startswith("0.") else text.replace("-0.", "-.")


def _points(delta: float) -> str:
    return f"{delta * 100:+.1f} points"


def _mark_best(values: Sequence[float | None]) -> list[str]:
    """Each value formatted, the best in bold and the second best underlined. Ranks go by the value
    as printed, so values that print the same tie (both bold, as in the paper's "tied-best")."""
    shown = [None if v is None else round(v, 3) for v in values]
    distinct = sorted({v for v in shown if v is not None}, reverse=True)
    best = distinct[0] if distinct else None
    second = distinct[1] if len(distinct) > 1 else None
    cells = []
    for v in shown:
        text = _fmt(v)
        if v is not None and v == best:
            text = f"**{text}**"
        elif v is not None and v == second:
            text = f"<u>{text}</u>"
        cells.append(text)
    return cells


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "dataset"


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _is_k_sweep(name: str) -> bool:
    return TOP_K_PATTERN.match(name) is not None


def _is_token_scope(name: str) -> bool:
    return name in (CODE_ONLY, COMMENTS_ONLY)


def _order_methods(names: Sequence[str]) -> list[str]:
    rank = {name: i for i, name in enumerate(METHOD_ORDER)}
    first_seen = {name: i for i, name in enumerate(_unique(names))}
    return sorted(first_seen, key=lambda n: (rank.get(n, len(rank)), first_seen[n]))


def _families(summaries: Sequence[RunSummary]) -> dict[str, str]:
    """Method name -> family, as the harness first reported it."""
    out: dict[str, str] = {}
    for s in summaries:
        for m in s.run.methods:
            out.setdefault(m.name, m.family)
    return out


# ---------------------------------------------------------------------------------------------
# table.md


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
    marked_columns = [_mark_best([grid[r][c] for r in range(len(rows))]) for c in range(len(columns))]
    lines = [_md_row([first_header, *(h for h, _ in columns)]), _md_row(["---"] + [":---:"] * len(columns))]
    titles = dict((index, title) for title, index in sections)
    for r, (_, label) in enumerate(rows):
        if r in titles:
            lines.append(_md_row([f"*{titles[r]}*", *([""] * len(columns))]))
        lines.append(_md_row([label, *(marked_columns[c][r] for c in range(len(columns)))]))
    return lines


def _main_rows(summaries: Sequence[RunSummary]) -> tuple[list[tuple[str, str]], list[tuple[str, int]]]:
    families = _families(summaries)
    names = [n for n in _order_methods(list(families)) if not _is_k_sweep(n) and not _is_token_scope(n)]
    # Families in the paper's order; one the harness invents goes last, under its own name.
    order = list(FAMILIES) + [f for f in _unique(list(families.values())) if f not in FAMILIES]
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
    for model in _unique([s.run.model for s in summaries]):
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
    for model in _unique([s.run.model for s in summaries]):
        group = [s for s in summaries if s.run.model == model]
        names = [n for n in _order_methods([m for s in group for m in s.metrics]) if _is_k_sweep(n)]
        if names:
            lines += ["", f"### {model}", ""]
            lines += _metric_table(group, [(n, TOP_K_PATTERN.match(n).group(1)) for n in names], first_header="K")
    return (["", "## Top-K entropy: sensitivity to K"] + lines) if lines else []


def _token_scope_tables(summaries: Sequence[RunSummary]) -> list[str]:
    lines: list[str] = []
    for model in _unique([s.run.model for s in summaries]):
        group = [s for s in summaries if s.run.model == model]
        present = {m for s in group for m in s.metrics}
        rows = [(name, label) for name, label in TOKEN_SCOPE if name in present]
        if any(_is_token_scope(name) for name, _ in rows):
            lines += ["", f"### {model}", ""]
            lines += _metric_table(group, rows, first_header="Token scope (Top-5 entropy)")
    return (["", "## Code vs comment entropy"] + lines) if lines else []


def _pass_at_1_table(summaries: Sequence[RunSummary]) -> list[str]:
    lines = ["", "## pass@1 (greedy candidate, official hidden tests)", "",
             _md_row(["Dataset", "Model", "Problems", "pass@1"]), _md_row(["---", "---", "---:", "---:"])]
    for s in summaries:
        value = "–" if s.pass_at_1 is None else f"{s.pass_at_1:.3f}"
        lines.append(_md_row([s.run.dataset, s.run.model, str(len(s.run.labels)), value]))
    return lines


def _cost_tables(summaries: Sequence[RunSummary]) -> list[str]:
    lines = ["", "## Cost (mean wall-clock seconds per problem)", "",
             "— : not measured on this machine (every problem's steps for the method were computed on "
             "another one, the step files say where), so no cost is claimed."]
    for model in _unique([s.run.model for s in summaries]):
        group = [s for s in summaries if s.run.model == model]
        names = [n for n in _order_methods([m for s in group for m in s.metrics]) if not _is_k_sweep(n)]
        lines += ["", f"### {model}", "",
                  _md_row(["Method", *(s.run.dataset for s in group)]), _md_row(["---"] + ["---:"] * len(group))]
        for name in names:
            cells = [_cost_cell(s.metrics[name].seconds_per_problem) if name in s.metrics else "–" for s in group]
            lines.append(_md_row([name, *cells]))
    return lines


def _cost_cell(seconds: float | None) -> str:
    return f"{seconds:.2f}" if _measured(seconds) else "—"


def _correlation_table(summaries: Sequence[RunSummary]) -> list[str]:
    lines = ["", "## Correlation between the three axes (raw uncertainty, problems where both are available)", "",
             _md_row(["Dataset", "Model", "Pair", "Pearson r", "Spearman ρ", "Pairs"]),
             _md_row(["---", "---", "---", "---:", "---:", "---:"])]
    for s in summaries:
        for c in s.correlations:
            r = "–" if c.pearson is None else f"{c.pearson:.4f}"
            rho = "–" if c.spearman is None else f"{c.spearman:.4f}"
            lines.append(_md_row([s.run.dataset, s.run.model, c.pair, r, rho, str(c.n)]))
    return lines


def render_table(summaries: Sequence[RunSummary]) -> str:
    commands = _unique([s.run.command for s in summaries])
    lines = ["# Evaluation results", "", "Produced by:", "", *(f"    {c}" for c in commands), ""]
    lines += _model_tables(summaries)
    lines += _pass_at_1_table(summaries)
    lines += _k_sweep_tables(summaries)
    lines += _token_scope_tables(summaries)
    lines += _cost_tables(summaries)
    lines += _correlation_table(summaries)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# claims.md


def render_claims(summaries: Sequence[RunSummary]) -> str:
    lines = ["# The paper's claims, checked on this evaluation", "", CLAIMS_INTERPRETATION]
    for s in summaries:
        counts = {v: sum(c.verdict == v for c in s.claims) for v in (HELD, NOT_HELD, NOT_TESTED)}
        lines += [f"## {s.run.dataset} · {s.run.model}", "",
                  f"{len(s.run.labels)} problems; {counts[HELD]} {HELD}, {counts[NOT_HELD]} {NOT_HELD}, "
                  f"{counts[NOT_TESTED]} {NOT_TESTED}.", ""]
        for c in s.claims:
            lines.append(f"- ({c.key}) {c.statement} — **{c.verdict}**: {c.detail}.")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# results.json


def _json_float(value: float | None) -> float | None:
    return None if is_missing(value) else float(value)


def _run_json(s: RunSummary) -> dict:
    run = s.run
    samples = [
        {
            "task_id": task_id,
            "label": bool(label),
            "uncertainty": {m.name: _json_float(m.uncertainty[i]) for m in run.methods},
        }
        for i, (task_id, label) in enumerate(zip(run.task_ids, run.labels))
    ]
    return {
        "dataset": run.dataset,
        "model": run.model,
        "command": run.command,
        "problems": len(run.labels),
        "pass_at_1": s.pass_at_1,
        "methods": [asdict(s.metrics[m.name]) for m in run.methods],
        "correlations": [asdict(c) for c in s.correlations],
        "claims": [asdict(c) for c in s.claims],
        "samples": samples,
    }


def render_results_json(summaries: Sequence[RunSummary]) -> str:
    data = {
        "definitions": {
            "label": "true iff the candidate passes the problem's official hidden tests",
            "auroc": "sklearn roc_auc_score(label, -uncertainty): positive class = correct",
            "prauc": "sklearn average_precision_score(label, -uncertainty): positive class = correct",
            "missing": "null uncertainties are imputed with the mean of the method's available values "
                       "before AUROC/PRAUC, so every method is evaluated on the same problems",
            "seconds_per_problem": "mean wall-clock time per problem of the method on the machine that "
                                   "ran the report; null where every problem's steps were computed on another",
        },
        "runs": [_run_json(s) for s in summaries],
    }
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def load_runs(path: Path) -> list[EvalRun]:
    """The runs of a results.json, exactly as they were reported: every per-problem score, label
    and method cost. ``write_report`` on them writes the same table, claims and plots again, so
    reports from separate runs (one per data set, per machine, per session) can be put together
    without the pipeline cache that produced them."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        runs = []
        for r in data["runs"]:
            samples = r["samples"]
            methods = [
                MethodResult(m["name"], m["family"], [s["uncertainty"].get(m["name"]) for s in samples], _json_float(m["seconds_per_problem"]))
                for m in r["methods"]
            ]
            runs.append(EvalRun(
                dataset=r["dataset"], model=r["model"],
                task_ids=[s["task_id"] for s in samples], labels=[bool(s["label"]) for s in samples],
                methods=methods, command=r["command"],
            ))
    except (OSError, ValueError, KeyError, TypeError) as exc:  # JSONDecodeError is a ValueError
        raise ValueError(f"{path}: not a qualm eval results.json ({type(exc).__name__}: {exc})") from exc
    return runs


# ---------------------------------------------------------------------------------------------
# Plots


def _figure(panels: int) -> tuple[Figure, list]:
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
                ax.plot(points.fpr, points.tpr, label=f"{name} ({_fmt(s.metrics[name].auroc)})")
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
            (int(TOP_K_PATTERN.match(m.name).group(1)), m.auroc)
            for m in s.metrics.values() if _is_k_sweep(m.name) and m.auroc is not None
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
    fig, axes = _figure(len(group))
    drawn = False
    for ax, s in zip(axes, group):
        # A log axis cannot show zero cost; the K sweep would pile onto Top-5 Entropy's point.
        methods = [s.metrics[n] for n in _order_methods(list(s.metrics)) if not _is_k_sweep(n)]
        points = [m for m in methods if m.auroc is not None and _measured(m.seconds_per_problem)]
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


# ---------------------------------------------------------------------------------------------


def write_report(runs: list[EvalRun], out_dir: Path) -> list[Path]:
    """Write results.json, table.md, claims.md and the plots into out_dir; return the paths
    written (a plot with nothing to draw, e.g. no K sweep in the runs, is left out)."""
    if not runs:
        raise ValueError("no runs to report")
    keys = [(r.dataset, r.model) for r in runs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"a (dataset, model) pair appears twice: {keys}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    summaries = [summarise(r) for r in runs]
    written = []
    for name, text in (
        ("results.json", render_results_json(summaries)),
        ("table.md", render_table(summaries)),
        ("claims.md", render_claims(summaries)),
    ):
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    for dataset in _unique([s.run.dataset for s in summaries]):
        group = [s for s in summaries if s.run.dataset == dataset]
        for prefix, plot in PLOTS:
            path = out_dir / f"{prefix}_{_slug(dataset)}.png"
            if plot(group, path):
                written.append(path)
    return written
