"""The command line's rendering with rich: traces and scores (colours by uncertainty level), a model's
facts, an assessment (``qualm.summary``'s sentences, as the editor's hover has them) and the log of
a long run."""

from __future__ import annotations

import statistics

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine import Assessment
from ..levels import LEVELS, Level, level_of
from ..model import ModelInfo
from ..signals.lexical import IMPROBABLE, LexicalReport
from ..summary import Code, Piece, Section, number, summarize
from ..trace import TokenRecord, Trace

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


def lexical_table(report: LexicalReport, title: str, surprisal: bool = False) -> Table:
    """The lexical scores per scope; ``surprisal`` adds how surprising the text's own tokens were
    (for scored code: the model did not write it)."""
    table = Table(title=title, title_justify="left")
    table.add_column("scope")
    table.add_column("tokens", justify="right")
    table.add_column(f"top-{report.all.k} entropy", justify="right")
    for col in ("max entropy", "mean entropy", "mean 1-p", "max 1-p"):
        table.add_column(col, justify="right")
    if surprisal:
        table.add_column(f"top-{report.all.k} surprisal", justify="right")
        table.add_column(f"p < {IMPROBABLE:g}", justify="right")
    for s in (report.all, report.code, report.comment):
        row = [s.scope, str(s.n_tokens), number(s.top_k_entropy), number(s.max_entropy), number(s.mean_entropy), number(s.mean_probability), number(s.max_probability)]
        if surprisal:
            row += [number(s.top_k_surprisal), str(s.improbable_tokens)]
        table.add_row(*row)
    return table


def model_lines(info: ModelInfo) -> Text:
    """The model's facts for people: what every backend has, then the backend's own details."""
    identity = info.identity
    rows = [
        ("name", info.name),
        ("backend", info.backend),
        ("identity", f"{identity.kind} · {'sha256' if identity.kind == 'gguf' else 'fingerprint'} {identity.digest}"),
        ("capabilities", info.capabilities.describe()),
        ("context length", f"{info.context_length:,} tokens"),
        ("vocabulary", f"{info.vocab_size:,} tokens"),
        *info.details,
    ]
    width = max(len(k) for k, _ in rows) + 2
    out = Text()
    for k, v in rows:
        out.append(f"{k:<{width}}", style="bold")
        out.append(f"{v}\n")
    return out


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


STATUS_MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("!", "red"), "timeout": ("⏱", "yellow")}


def _plain(pieces: tuple[Piece, ...]) -> str:
    return "".join(p.text if isinstance(p, Code) else p for p in pieces)


def _section_text(section: Section) -> Text:
    """A section of the report: the title in bold, then its lines, indented."""
    out = Text(section.title, style="bold")
    out.append(f"{section.text}\n")
    for i, item in enumerate(section.items, 1):
        if section.numbered:
            out.append(f"  {i}. {_plain(item.pieces)}\n")
            continue
        out.append("  ")
        if item.status is not None:
            mark, style = STATUS_MARKS.get(item.status, ("?", ""))
            out.append(f"{mark} ", style=style)
        out.append(_plain(item.pieces))
        if item.failure:
            out.append(f"  — {item.failure}", style="dim")
        out.append("\n")
    return out


def assessment_report(a: Assessment, where: str) -> list:
    """Renderables for one Assessment (qualm.engine.assess_function): ``qualm.summary``'s sentences."""
    s = summarize(a)
    head = Text()
    head.append(f"{where}::{s.function}", style="bold")
    head.append(f" (line {s.line}) · {s.model} · {s.seconds:.1f} s\n")
    if s.chance_line is not None:
        head.append(f"{s.chance_line} · {s.chance_words}\n", style="bold")
    if s.suspect is not None:
        head.append(f"suspect: line {s.suspect} (the Suspect lines below)\n")
    head.append(f"{s.chance_said}\n", style="dim")
    if s.ensemble_line is not None:
        head.append(s.ensemble_line, style="bold")
        head.append(f" {s.ensemble_said}\n")
    head.append(s.calibration_note, style="dim")
    out: list = [head]
    table = Table(title_justify="left")
    for col in ("axis", "raw", "percentile", "weight used", "time", "basis"):
        table.add_column(col, justify="right" if col in ("raw", "percentile", "weight used", "time") else "left")
    for ax in s.axes:
        table.add_row(ax.name, ax.raw, ax.percentile, ax.weight_used, ax.seconds, ax.note)
    out.append(table)
    # the model's dropped tests where no solution ran: after the self-tests, before the plans' programs
    dropped = Text(s.dropped, style="dim") if s.dropped is not None and s.section("solutions") is None else None
    later = ("plan_programs", "swaps")
    for section in [x for x in s.sections if x.key not in later]:
        text = _section_text(section)
        if section.key == "tests" and s.sandbox:
            text.append(f"  sandbox: {s.sandbox}\n", style="dim")
        out.append(text)
    if dropped is not None:
        out.append(dropped)
    out += [_section_text(x) for x in s.sections if x.key in later]
    return out


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class ProblemLog:
    """One line per finished problem with the time left, for runs whose stderr is a log file.

    rich draws no live bar when stderr is not a terminal, so a background `qualm eval` would be
    silent for hours. The estimate uses only problems that took computing: ones read back from the
    cache finish in milliseconds and would make it far too hopeful.
    """

    CACHED_BELOW_S = 1.0

    def __init__(self, write, clock) -> None:
        self._write = write
        self._clock = clock
        self._last = clock()
        self._computed: list[float] = []

    def finished(self, done: int, total: int, task_id: str, detail: str = "") -> None:
        now = self._clock()
        took, self._last = now - self._last, now
        if took >= self.CACHED_BELOW_S:
            self._computed.append(took)
        line = f"[{done}/{total}] {task_id}: {'cached' if took < self.CACHED_BELOW_S else _duration(took)}"
        if detail:
            line += f" · {detail}"
        if self._computed and done < total:
            # the median, so that one problem held up (a suspended run, a slow sandbox) does not
            # swing the estimate for hours
            left = statistics.median(self._computed) * (total - done)
            line += f" · about {_duration(left)} left"
        self._write(line)
