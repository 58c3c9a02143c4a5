"""``qualm score``: teacher-forced lexical scores of code that is already written."""

from __future__ import annotations

import json
from dataclasses import asdict

import typer

from .. import engine
from .common import ModelFlags, load_backend, target_functions, with_model_flags
from .terminal import console, highlighted, legend, lexical_table, uncertain_tokens_table


@with_model_flags
def score(
    target: str = typer.Argument(..., help="FILE or FILE::FUNCTION (a method as Class.method)."),
    as_json: bool = typer.Option(False, "--json", help="Print scores and traces as JSON."),
    top_k: int | None = typer.Option(None, "--k", help="K of the Top-K entropy (default 5)."),
    *,
    flags: ModelFlags,
) -> None:
    """Teacher-forced lexical scores of existing code, per function."""
    name, functions = target_functions(target, "score")
    settings = flags.settings()
    if top_k is not None:
        settings = settings.with_overrides(lexical={"top_k": top_k})
    backend = load_backend(settings)
    results = [engine.score_function(backend, fn, settings) for fn in functions]
    if as_json:
        print(json.dumps([{"function": r.function, "line": r.line, "body_offset": r.body_offset, "lexical": asdict(r.lexical), "trace": r.trace.to_dict()} for r in results], indent=1))
        return
    out = console()
    thresholds = settings.lexical.level_thresholds
    for r in results:
        out.rule(f"{name}::{r.function} (line {r.line})")
        out.print(highlighted(r.trace, thresholds, start=r.body_offset))
        body = [t for t in r.trace.tokens if t.start >= r.body_offset]
        out.print(uncertain_tokens_table(body, r.trace.text, 5, thresholds, first_line=r.line))
        out.print(lexical_table(r.lexical, f"lexical uncertainty of the body ({r.lexical.all.n_tokens} tokens)", surprisal=True))
    out.print(legend(thresholds))
