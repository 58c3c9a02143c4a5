"""The algorithmic axis with fewer plans: what N loses, and the calibration reference at that N.

    .venv/bin/python -m benchmarks.assessment.plans_reference [--fit-inputs results/chance-of-passing/fit-inputs.json] [--n-plans 3] [--write]

The tune split's rows keep each function's sampled plans (``detail.plans``, N = 5, seeds
``seed + i``). The paper's dispersion with the first n of them is the dispersion an assessment with
``algorithmic.n_plans = n`` computes (the same seeds; up to the floating point of a smaller batch).
This script

1. checks that the first ``n_plans`` plans (as the file records) give back the calibration file's
   reference exactly (so the rows are the reference's functions; before ``--write`` the shipped
   files held 5);
2. prints, on the tune problems whose greedy code has a label (the fit's generated rows, and for
   the default model the evaluation's HumanEval and MBPP 511-600 results), the AUROC of the dispersion with n = 2..5 plans against that label (the
   paper's use of the axis: does the greedy code pass its hidden tests?);
3. ``--write``: the calibration file's algorithmic reference becomes the dispersion of the first
   ``--n-plans`` plans, and its recorded ``n_plans`` that number. The pass model is untouched: it
   uses no plan signal.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from sklearn.metrics import roc_auc_score

from benchmarks.common.paths import ROOT
from qualm.calibration_file import SHIPPED_DIR
from qualm.fitting.fit_inputs import FitInputs
from qualm.fitting.pairs import read_results
from qualm.signals.algorithmic import StepRouge, algorithmic_uncertainty

# the default model's greedy code, labelled by the official tests (qualm eval): tune problems only
EVALUATED = {"qwen2.5-coder-0.5b-instruct-q4_k_m": [ROOT / "results/qwen2.5-coder-0.5b/stages/humaneval/results.json", ROOT / "results/qwen2.5-coder-0.5b/stages/mbpp-calibration-axes/results.json"]}


def tune_plans(inputs: FitInputs) -> dict[tuple[str, str], list[str]]:
    """Each tune function's plans: the tune files' functions, the plans of the last file that has them."""
    plans: dict[tuple[str, str], list[str]] = {}
    for path in inputs.tune:
        plans.update({key: row["detail"].get("plans") or [] for key, row in read_results(path).items() if row.get("axes") == "all"})
    for path in inputs.tune_extra:
        for key, row in read_results(path).items():
            if key in plans and (found := (row.get("detail") or {}).get("plans")):
                plans[key] = found
    return plans


def dispersion(plans: list[str], n: int, rouge: StepRouge) -> float | None:
    return algorithmic_uncertainty(plans[:n], rouge).uncertainty


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fit-inputs", type=Path, default=ROOT / "results/chance-of-passing/fit-inputs.json")
    ap.add_argument("--n-plans", type=int, default=3)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    inputs = FitInputs.read(args.fit_inputs)
    path = SHIPPED_DIR / f"{inputs.model_key}.json"
    data = json.loads(path.read_text())
    rouge = StepRouge()
    plans = tune_plans(inputs)
    stored_n = int(data["settings"]["n_plans"])
    fewest = min(len(p) for p in plans.values())
    print(f"{path.name}: {len(plans)} tune functions, {fewest}-{max(len(p) for p in plans.values())} plans each; the file records n_plans {stored_n}")
    reference = data["scores"]["algorithmic"]
    if len(plans) == int(data.get("problems", -1)):
        at_stored = [u for p in plans.values() if (u := dispersion(p, stored_n, rouge)) is not None]
        same = Counter(round(x, 9) for x in at_stored) == Counter(round(x, 9) for x in reference)
        print(f"the first {stored_n} plans give back the file's algorithmic reference: {same}")
    else:
        # the reference is the functions the file was written from (its "problems"); a manifest
        # refitted on more rows since holds others, and the scores carry no names to match them by
        print(f"not compared: the file's reference holds {len(reference)} functions ({data.get('problems')} problems), the manifest's tune rows {len(plans)}")

    # the model's own greedy code of tune problems and whether it passes: the fit's generated rows,
    # and for the default model the evaluation's
    labels: dict[str, bool] = {}
    for path in inputs.tune_generated:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row.get("passed") is not None:
                labels[row["task_id"]] = bool(row["passed"])
    for results in EVALUATED.get(inputs.model_key or "", []):
        for run in json.loads(results.read_text())["runs"]:
            labels.update({s["task_id"]: bool(s["label"]) for s in run["samples"]})
    problems = {pid.split("#")[0]: p for (pid, _), p in plans.items()}
    labelled = sorted(t for t in problems if t in labels)
    print(f"tune problems whose greedy code has a label: {len(labelled)} ({sum(labels[t] for t in labelled)} pass)")
    for n in range(2, fewest + 1):
        scored = [(u, labels[t]) for t in labelled if (u := dispersion(problems[t], n, rouge)) is not None]
        auroc = roc_auc_score([int(ok) for _, ok in scored], [-u for u, _ in scored])
        print(f"  N = {n}: AUROC of -U_algo for 'the greedy code passes' {auroc:.3f} ({len(scored)} problems)")

    if args.write:
        if args.n_plans > fewest:
            raise SystemExit(f"the rows have only {fewest} plans for some function")
        reference = sorted(u for p in plans.values() if (u := dispersion(p, args.n_plans, rouge)) is not None)
        data["scores"]["algorithmic"] = reference
        data["settings"]["n_plans"] = args.n_plans
        path.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {path}: algorithmic reference of {len(reference)} functions with the first {args.n_plans} plans")


if __name__ == "__main__":
    main()
