"""Writing an evaluation's results the way the paper presents them, plus everything needed to
check them, and reading them back.

``write_report`` takes one :class:`EvalRun` per (dataset, model) and writes into a folder:

* ``results.json``: every per-problem score and label, the metrics and the command, so anyone can
  recompute the metrics from the file alone (written and read back here);
* ``table.md``: the paper's tables (``tables``);
* ``claims.md``: each of the paper's claims and whether it held in each run, with the numbers and
  a paired bootstrap interval over problems for each difference judged (``claims``);
* ``roc_<dataset>.png``, ``auroc_vs_k_<dataset>.png``, ``auroc_vs_cost_<dataset>.png`` (``plots``).

``load_runs`` reads a ``results.json`` back into runs, so reports can be rebuilt and combined
without the model or the pipeline cache.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from .bootstrap import LEVEL, RESAMPLES, SEED
from .claims import render_claims
from .formatting import slug, unique
from .metrics import is_missing
from .plots import PLOTS
from .results import EvalRun, MethodResult
from .summary import RunSummary, summarise
from .tables import render_table


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
        ("claims.md", render_claims([(s.run, s.claims) for s in summaries])),
    ):
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    for dataset in unique([s.run.dataset for s in summaries]):
        group = [s for s in summaries if s.run.dataset == dataset]
        for prefix, plot in PLOTS:
            path = out_dir / f"{prefix}_{slug(dataset)}.png"
            if plot(group, path):
                written.append(path)
    return written


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
            "claims": f"each comparison's low/high: paired bootstrap {int(LEVEL * 100)} % percentile interval of the "
                      f"difference over problems ({RESAMPLES} resamples with replacement, seed {SEED}); "
                      "verdicts as in claims.md",
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
