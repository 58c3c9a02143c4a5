"""``qualm generate``: the model writes a solution; each token shown with its uncertainty."""

from __future__ import annotations

import json
from dataclasses import asdict

import typer

from .. import engine
from ..lang import language_for
from ..model import GenerationOptions
from .common import CliError, ModelFlags, load_backend, read_source, with_model_flags
from .terminal import console, highlighted, legend, lexical_table, uncertain_tokens_table


@with_model_flags
def generate(
    source: str | None = typer.Argument(None, help="A file with a function stub or problem text; '-' for stdin."),
    prompt: str | None = typer.Option(None, "--prompt", "-p", help="The problem text itself, instead of a file."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole trace as JSON."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", help="Generation budget (default 1024)."),
    temperature: float = typer.Option(0.0, "--temperature", "-t", help="0 for greedy (default); otherwise sampled."),
    top_p: float = typer.Option(1.0, "--top-p", help="Nucleus sampling threshold when sampling."),
    seed: int | None = typer.Option(None, "--seed", help="Sampling seed (default 42)."),
    at: str | None = typer.Option(None, "--at", help="LINE:COLUMN (1-based): complete the file at this cursor as the editor does (fill-in-the-middle where the model can)."),
    *,
    flags: ModelFlags,
) -> None:
    """Generate a solution and show each token's uncertainty; with --at, the editor's completion at a cursor."""
    if at is not None:
        _complete_at(source, at, as_json, max_tokens, temperature, top_p, seed, flags)
        return
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


def cursor_offset(text: str, at: str) -> int:
    """LINE:COLUMN (1-based, columns in characters) as an offset into ``text``."""
    try:
        line_s, col_s = at.split(":")
        line, col = int(line_s), int(col_s)
    except ValueError as exc:
        raise CliError(f"--at must be LINE:COLUMN (1-based), got {at!r}") from exc
    lines = text.split("\n")
    if not 1 <= line <= len(lines) or not 1 <= col <= len(lines[line - 1]) + 1:
        raise CliError(f"--at {at}: the file has {len(lines)} lines and line {min(max(line, 1), len(lines))} has {len(lines[min(max(line, 1), len(lines)) - 1])} characters")
    return sum(len(x) + 1 for x in lines[: line - 1]) + col - 1


def _complete_at(source: str | None, at: str, as_json: bool, max_tokens: int | None, temperature: float, top_p: float, seed: int | None, flags: ModelFlags) -> None:
    if source is None:
        raise CliError("--at needs a file (or '-' for stdin)")
    text, name = read_source(source)
    offset = cursor_offset(text, at)
    settings = flags.settings(seed=seed)
    backend = load_backend(settings)
    document = engine.Document(text, name, language_for(filename=name if name != "<stdin>" else "x.py"))
    options = engine.CompletionOptions(max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed)
    result = engine.complete(backend, document, offset, settings, options)
    if as_json:
        payload = {
            "prompt_kind": result.prompt_kind,
            "prompt": result.prompt,
            "offset": offset,
            "text": result.text,
            "stop_reason": result.stop_reason,
            "doubt": asdict(result.doubt) if result.doubt else None,
            "first_token_seconds": result.first_token_seconds,
            "seconds": result.seconds,
            "tokens": [{"start": t.start, "end": t.end, "text": t.text, "entropy": t.entropy, "prob": t.prob, "level": t.level, "alternatives": [asdict(a) for a in t.alternatives]} for t in result.tokens],
        }
        print(json.dumps(payload, indent=1))
        return
    out = console()
    out.print(f"[dim]{result.prompt_kind} prompt · {result.model} · {len(result.tokens)} tokens in {result.seconds:.1f} s · stopped: {result.stop_reason}[/dim]")
    out.print(result.text or "[dim](nothing to add here)[/dim]")
    if result.doubt is not None:
        d = result.doubt
        out.print(f"doubt: {d.level} · max entropy {d.max_entropy:.2f} nats · top-{settings.lexical.top_k} {d.top_k_entropy:.2f} · least p {d.min_prob:.2f}")

