"""The code's own plan written from the code alone: does it then see the edit?

    .venv/bin/python -m benchmarks.assessment.candidate_plan_code_only results/chance-of-passing/assess-quality-tune-all.jsonl \
        --cache benchmarks/out/candidate-plan-code-only-tune.jsonl [--reference benchmarks/out/candidate-plan-code-only-reference-tune.jsonl]

The shipped code's own plan is written from the problem and the code "that solves it";
the plans the model writes for a right function and its one-edit mutant are near copies of the
docstring (HumanEval/0 with its `-` turned into `+` is still "calculate the absolute difference"),
so their distance to the sampled plans cannot tell them apart (``candidate_distance`` of the
rows, 0.476 on the tune pairs). Here the model gets the code alone, without its comments and
docstrings (``code_only``), asked what it does,
exactly, in the paper's plan format (greedy, the setting's plan budget, stopped after the last
step). Its distance to the plans the full run sampled from the problem (the shipped step-aware
ROUGE-L) sets a description of the code against descriptions of the task. Prints the AUROC for
"fails" and how often the mutant's plan is the farther of its pair, beside the rows' (shipped)
``candidate_distance``, and the same set against the plans' own spread. ``--unparse`` gives the
model the code as ``ast.unparse`` prints it instead (the experiment's first form). ``--reference`` also writes
the model's greedy solution of each problem and its code-only plan, and compares with that (a
per-problem yardstick). The plans are kept in the cache files (resumable). Tune split unless
``--split holdout``.
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics as st
from dataclasses import replace
from pathlib import Path

from sklearn.metrics import roc_auc_score

from benchmarks.common.pair_tokens import SIDES, measured, model_loader, with_plans
from qualm.answer_ends import plan_end
from qualm.engine.solutions import solution_jobs, solution_start
from qualm.fitting.pairs import prepared
from qualm.lang import PYTHON, Language, SourceError
from qualm.model import GenerationOptions
from qualm.prompts import PLAN_FORMAT, PLAN_GENERATION_PREFILL, ChatPrompt
from qualm.settings import Settings
from qualm.signals.algorithmic import StepRouge, algorithmic_uncertainty, candidate_distance

# The experiment's prompt: the paper's plan format, asked of the code alone.
CODE_ONLY_PLAN = """Read the code and describe what it does in a step-by-step plan. Describe exactly what the code does, with its exact comparisons and values, even where it may be wrong.

Code:
```{fence}
{code}
```

""" + PLAN_FORMAT.replace("{what}", "- Describes what this code does, in order")


def code_only(language: Language, source: str, unparse: bool = False) -> str:
    """``source`` without its comments and docstrings (the language's scope spans); a line left
    with nothing but a removal goes too. ``unparse``: Python re-printed by ``ast.unparse`` without
    its docstrings (formatting normalised, comments gone)."""
    if unparse:
        tree = ast.parse(source)
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
        return ast.unparse(tree)
    cut = "\0"
    kept, at = [], 0
    for start, end, _scope in language.scope_spans(source):
        kept.append(source[at:start] + cut)
        at = max(at, end)
    kept.append(source[at:])
    lines = [line.replace(cut, "").rstrip() for line in "".join(kept).split("\n") if not (cut in line and not line.replace(cut, "").strip())]
    return "\n".join(lines).strip("\n") + "\n"


def code_only_plan(code: str) -> ChatPrompt:
    return ChatPrompt(user=CODE_ONLY_PLAN.format(code=code.strip("\n"), fence="python"), assistant_prefix=PLAN_GENERATION_PREFILL, stop=(), name="candidate_plan_code_only")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=Path, help="a full run's rows (assess_quality.py --axes all): their plans and the shipped distance")
    ap.add_argument("--split", default="tune", choices=["tune", "holdout"])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--unparse", action="store_true", help="the code as ast.unparse prints it (the first form)")
    ap.add_argument("--reference", type=Path, default=None, help="also the model's greedy solution of each problem and its code-only plan, kept here")
    args = ap.parse_args()
    settings = Settings()
    rows, plans = with_plans(args.rows, args.split)
    shipped = {(v["pair_id"], v["side"]): v["values"].get("candidate_distance") for v in map(json.loads, args.rows.read_text().splitlines())}
    model = model_loader(settings)
    a = settings.algorithmic
    options = GenerationOptions(max_tokens=a.max_tokens, temperature=0.0, seed=settings.generation.seed, top_alternatives=1)

    def described(row: dict, side: str, source: str) -> dict:
        code = code_only(PYTHON, source, args.unparse)
        plan = model().generate(replace(code_only_plan(code), ends=plan_end if a.stop_after_last_step else None), options)
        return {"pair_id": row["pair_id"], "side": side, "code": code, "plan": plan.text}

    def function(row: dict, side: str) -> dict:
        return described(row, side, PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"]).source)

    done = measured(rows, args.cache, function, every=5)

    def reference(row: dict, side: str) -> dict | None:
        # once per problem (kept under the original's key): the model's own greedy solution, and
        # its code-only plan, the same kind of description as the code's
        if side != "original":
            return None
        fn = PYTHON.find_function(prepared(row["original"], row), row["entry_point"], row["pair_id"])
        prompt, opts = solution_jobs(fn.problem_description, settings, PYTHON)[0]
        program = solution_start(fn.problem_description, settings) + model().generate(prompt, opts).text
        try:
            own = PYTHON.find_function(program, row["entry_point"], "solution")
        except SourceError:  # a solution that does not parse has no plan
            return None
        return described(row, side, own.source)

    refs = measured(rows, args.reference, reference, every=5) if args.reference else {}
    rouge = StepRouge()
    keys = [(r["pair_id"], s) for r in rows for s in SIDES]
    fails = [k[1] == "mutant" for k in keys]
    signals = {
        "code-only plan's distance": {k: candidate_distance(done[k]["plan"], plans[k], rouge).distance for k in keys},
        "shipped candidate_distance": {k: shipped.get(k) for k in keys},
    }
    # the same plan set against the plans' own spread: is it farther than they are from each other?
    spread = {k: algorithmic_uncertainty(plans[k], rouge).uncertainty for k in keys}
    own = signals["code-only plan's distance"]

    def less(other: dict) -> dict:
        return {k: None if None in (own[k], other[k]) else own[k] - other[k] for k in keys}

    signals["code-only distance - the plans' dispersion"] = less(spread)
    if refs:
        ref = {k: refs.get((k[0], "original")) for k in keys}
        ref_d = {k: None if ref[k] is None else candidate_distance(ref[k]["plan"], plans[k], rouge).distance for k in keys}
        signals["code-only distance - the solution's"] = less(ref_d)
        signals["distance to the solution's code-only plan"] = {k: None if ref[k] is None else candidate_distance(done[k]["plan"], [ref[k]["plan"]], rouge).distance for k in keys}
    print(f"{len(keys)} functions of {len(rows)} {args.split} pairs; the code-only plans had {st.mean(len(done[k]['plan']) for k in keys):.0f} characters on average")
    for name, values in signals.items():
        kept = [(f, values[k]) for f, k in zip(fails, keys) if values[k] is not None]
        wins = [1.0 if m > o else 0.5 if m == o else 0.0 for r in rows if None not in (m := values[(r["pair_id"], "mutant")], o := values[(r["pair_id"], "original")])]
        print(f"  {name:40} AUROC {roc_auc_score([f for f, _ in kept], [x for _, x in kept]):.3f} ({len(kept)} functions)  mutant farther in {st.mean(wins):.3f} of {len(wins)} pairs")


if __name__ == "__main__":
    main()
