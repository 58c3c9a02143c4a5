"""Terminal rendering of traces and scores with rich (colours by uncertainty level)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .levels import LEVELS, Level, level_of
from .model import ModelInfo
from .signals.lexical import LexicalReport, LexicalScores
from .trace import TokenRecord, Trace

LEVEL_STYLES: dict[Level, str] = {
    "confident": "",
    "low": "black on #d7d787",
    "medium": "black on #ffaf5f",
    "high": "bold white on #d70000",
}


def legend(thresholds: tuple[float, float, float]) -> Text:
    text = Text("levels: ")
    bounds = (0.0, *thresholds)
    for i, name in enumerate(LEVELS):
        label = f" {name} "
        text.append(label, style=LEVEL_STYLES[name] or "dim")
        upper = f"<{bounds[i + 1]:g}" if i + 1 < len(bounds) else ""
        text.append(f" ≥{bounds[i]:g}{upper} nats  " if i else f" <{bounds[1]:g} nats  ")
    return text


def highlighted(trace: Trace, thresholds: tuple[float, float, float], start: int = 0) -> Text:
    out = Text(trace.text[:start])
    for rec in trace.tokens:
        if rec.end <= start:
            continue
        piece = rec.text if rec.start >= start else rec.text[start - rec.start :]
        out.append(piece, style=LEVEL_STYLES[level_of(rec.entropy, thresholds)])
    return out


def uncertain_tokens_table(
    tokens: list[TokenRecord] | tuple[TokenRecord, ...], text: str, limit: int, thresholds, first_line: int = 1
) -> Table:
    table = Table(title=f"most uncertain tokens (top {limit})", title_justify="left")
    for col in ("line", "token", "entropy", "p", "level", "alternatives (probability)"):
        table.add_column(col, justify="right" if col in ("line", "entropy", "p") else "left")
    for rec in sorted(tokens, key=lambda t: -t.entropy)[:limit]:
        line = text.count("\n", 0, rec.start) + first_line
        alts = ", ".join(f"{a.text!r} {a.prob:.2f}" for a in rec.alternatives)
        level = level_of(rec.entropy, thresholds)
        table.add_row(str(line), repr(rec.text), f"{rec.entropy:.3f}", f"{rec.prob:.3f}", Text(level, style=LEVEL_STYLES[level]), alts)
    return table


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def lexical_table(report: LexicalReport, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("scope")
    table.add_column("tokens", justify="right")
    table.add_column(f"top-{report.all.k} entropy", justify="right")
    for col in ("max entropy", "mean entropy", "mean 1-p", "max 1-p"):
        table.add_column(col, justify="right")
    for s in (report.all, report.code, report.comment):
        table.add_row(s.scope, str(s.n_tokens), _fmt(s.top_k_entropy), _fmt(s.max_entropy), _fmt(s.mean_entropy), _fmt(s.mean_probability), _fmt(s.max_probability))
    return table


def scores_row(s: LexicalScores) -> list[str]:
    return [_fmt(s.top_k_entropy), _fmt(s.max_entropy), _fmt(s.mean_entropy), _fmt(s.mean_probability), _fmt(s.max_probability)]


def model_lines(info: ModelInfo, sha256: str) -> Text:
    rows = [
        ("name", info.name),
        ("path", info.path),
        ("size", f"{info.size_bytes:,} bytes"),
        ("sha256", sha256),
        ("context length", f"{info.context_length:,} tokens (trained for {info.trained_context_length:,})"),
        ("vocabulary", f"{info.vocab_size:,} tokens"),
        ("threads", str(info.n_threads)),
        ("GPU layers", str(info.n_gpu_layers)),
        ("backend", info.backend),
        ("build", info.build),
    ]
    out = Text()
    for k, v in rows:
        out.append(f"{k:<15}", style="bold")
        out.append(f"{v}\n")
    return out


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=True)
