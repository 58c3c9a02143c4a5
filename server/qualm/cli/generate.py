"""``qualm generate``: the model writes a solution; each token shown with its uncertainty."""

from __future__ import annotations

import json
from dataclasses import asdict

import typer

from .. import engine
from ..model import GenerationOptions
from ..terminal import console, highlighted, legend, lexical_table, uncertain_tokens_table
from .common import CliError, ModelFlags, load_backend, read_source, with_model_flags


@with_model_flags
def generate(
    source: str | None = typer.Argument(None, help="A file with a function stub or problem text; '-' for stdin."),
    prompt: str | None = typer.Option(None, "--prompt", "-p", help="The problem text itself, instead of a file."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole trace as JSON."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", help="Generation budget (default 1024)."),
    temperature: float = typer.Option(0.0, "--temperature", "-t", help="0 for greedy (default); otherwise sampled."),
    top_p: float = typer.Option(1.0, "--top-p", help="Nucleus sampling threshold when sampling."),
    seed: int | None = typer.Option(None, "--seed", help="Sampling seed (default 42)."),
    *,
    flags: ModelFlags,
) -> None:
    """Generate a solution and show each token's uncertainty."""
    if prompt is None and source is None:
        raise CliError("give a file, '-' for stdin, or --prompt TEXT")
    problem = prompt if prompt is not None else read_source(source)[0]  # type: ignore[arg-type]
    if not problem.strip():
        raise CliError("the problem text is empty")
    settings = flags.settings(max_tokens=max_tokens, seed=seed)
    backend = load_backend(settings)
    g = settings.generation
    options = GenerationOptions(max_tokens=g.max_tokens, temperature=temperature, top_p=top_p, seed=g.seed, top_alternatives=g.top_alternatives)
    out = console()
    if as_json:
        trace = engine.generate_solution(backend, problem, settings, options)
        lex = engine.lexical_report(trace, settings.lexical.top_k)
        print(json.dumps({"trace": trace.to_dict(), "lexical": asdict(lex)}, indent=1))
        return
    thresholds = settings.lexical.level_thresholds
    err = console(stderr=True)
    with err.status("generating…") as status:
        trace = engine.generate_solution(
            backend, problem, settings, options, on_token=lambda r: status.update(f"generating… {r.index + 1} tokens")
        )
    out.print(highlighted(trace, thresholds))
    out.print()
    out.print(legend(thresholds))
    lex = engine.lexical_report(trace, settings.lexical.top_k)
    out.print(uncertain_tokens_table(trace.tokens, trace.text, 8, thresholds))
    out.print(lexical_table(lex, f"lexical uncertainty ({len(trace.tokens)} tokens, larger = less sure)"))
    rate = len(trace.tokens) / trace.seconds if trace.seconds else 0.0
    out.print(f"[dim]{trace.model} · {len(trace.tokens)} tokens in {trace.seconds:.1f} s ({rate:.1f} tokens/s) · stopped: {trace.stop_reason}[/dim]")
