"""Does the docstring argue against a token? Teacher-forced scores of a function with and without it.

    .venv/bin/python -m benchmarks.assessment.spec_conditioned --split tune --stride 2 --limit 100 \
        --cache benchmarks/out/spec-conditioned-tune.jsonl

Within a right/wrong pair the mutant is nearly always the more surprising function (mean surprisal:
98 % of tune pairs), but across functions a person's style moves every surprisal up or down, and
the lexical axis stays near 0.70. A token that is unusual *style* is about as unlikely whether or
not the model has read the docstring; a token that is *wrong* is one the docstring makes unlikely
(``<`` where the task says "closer than"). So each body token is scored twice: given the problem
(signature and docstring, as the lexical axis does) and given the signature alone (the docstring
removed from the prompt and from the forced function), and the difference

    spec loss = (-log p(token | signature, docstring)) - (-log p(token | signature))

is how much the docstring lowered that token. Prints the AUROC for "fails" of the largest spec
loss, its Top-5 mean and a few others beside the lexical axis's signal, and whether a logistic
model of the lexical signal with one of them does better (cross-validated by problem); per-token numbers kept in
``--cache`` (resumable). Tune split for choosing; the holdout once, for the figure.
"""

from __future__ import annotations

import argparse
import ast
from dataclasses import replace
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from benchmarks.common.pair_tokens import DATA, SIDES, body_logps, measured, model_loader, signal_table
from qualm import prompts
from qualm.fitting.pairs import prepared, read_pairs
from qualm.lang import PYTHON
from qualm.settings import Settings
from qualm.signals.lexical import top_k_mean


def without_docstring(source: str) -> tuple[str, str, int] | None:
    """(signature-only header, source without its docstring, where the body starts in it)."""
    tree = ast.parse(source)
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or not fn.body:
        return None
    doc = fn.body[0]
    if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)) or len(fn.body) < 2:
        return None
    lines = source.splitlines(keepends=True)
    kept = lines[: doc.lineno - 1] + lines[doc.end_lineno :]
    header = "".join(lines[: doc.lineno - 1])
    body_start = len("".join(lines[: fn.body[1].lineno - 1])) - len("".join(lines[doc.lineno - 1 : doc.end_lineno]))
    return header, "".join(kept), body_start


def measure(backend, settings: Settings, row: dict, side: str) -> dict | None:
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    bare = without_docstring(fn.source)
    if bare is None:
        return None
    header, source, body_start = bare
    k = settings.generation.top_alternatives
    with_doc = body_logps(backend.score(prompts.code_generation(fn.problem_description), fn.source, top_alternatives=k), fn.body_offset)
    without = body_logps(backend.score(prompts.code_generation(replace(fn, header=header).problem_description), source, top_alternatives=k), body_start)
    keys = [key for key in with_doc if key in without]
    return {"pair_id": row["pair_id"], "side": side, "tokens": [[s, e, with_doc[(s, e)], without[(s, e)]] for s, e in keys], "unaligned": len(with_doc) - len(keys)}


def signals(v: dict) -> dict[str, float]:
    w = np.array([t[2] for t in v["tokens"]])
    wo = np.array([t[3] for t in v["tokens"]])
    loss = wo - w  # surprisal with the docstring minus without
    return {
        "max surprisal (the lexical axis)": float(-w.min()),
        "max surprisal without the docstring": float(-wo.min()),
        "largest spec loss": float(loss.max()),
        "Top-5 spec loss": top_k_mean(loss, 5),
        "sum of positive spec loss": float(np.clip(loss, 0, None).sum()),
        "spec loss at the least likely token": float(loss[int(np.argmin(w))]),
        "max surprisal + largest spec loss": float(-w.min() + loss.max()),
        "mean spec loss": float(loss.mean()),
        "mean surprisal": float(-w.mean()),
    }


def cross_validated(sig: dict, fails: list[bool], sets: list[list[str]]) -> list[tuple[float, list[str]]]:
    """AUROC of a logistic model of "fails" on each set of signals, 5-fold by problem: does a spec
    signal add to the lexical axis's?"""
    keys = list(sig)
    groups = [k[0].split("#")[0] for k in keys]
    y = np.array(fails)
    out = []
    for names in sets:
        x = np.array([[sig[k][n] for n in names] for k in keys])
        p = np.zeros(len(y))
        for train, test in GroupKFold(5).split(x, y, groups):
            fit = make_pipeline(StandardScaler(), LogisticRegression()).fit(x[train], y[train])
            p[test] = fit.predict_proba(x[test])[:, 1]
        out.append((float(roc_auc_score(y, p)), names))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    rows = read_pairs(DATA, args.split, args.stride, args.limit)
    settings = Settings()
    model = model_loader(settings)
    done = measured(rows, args.cache, lambda row, side: measure(model(), settings, row, side), every=10)
    pairs = [r["pair_id"] for r in rows if done.get((r["pair_id"], "original")) and done.get((r["pair_id"], "mutant"))]
    sig = {(p, s): signals(done[(p, s)]) for p in pairs for s in SIDES}
    fails = [k[1] == "mutant" for k in sig]
    print(f"{len(sig)} functions of {len(pairs)} pairs ({args.split}; {len(rows) - len(pairs)} pairs without a docstring to remove)")
    signal_table(sig, pairs)
    names = list(sig[next(iter(sig))])
    lex = names[0]
    sets = [[lex]] + [[lex, n] for n in names[1:] if n != lex] + [[lex, "Top-5 spec loss", "mean surprisal"]]
    print("logistic models, 5-fold cross-validation by problem (AUROC):")
    for auc, chosen in cross_validated(sig, fails, sets):
        print(f"  {auc:.3f}  {' + '.join(chosen)}")


if __name__ == "__main__":
    main()
