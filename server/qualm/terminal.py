"""Terminal rendering of traces and scores with rich (colours by uncertainty level)."""

from __future__ import annotations

import statistics

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .chance import CHANCE_BASIS, chance_words
from .levels import LEVELS, Level, ensemble_words, level_of
from .model import ModelInfo
from .signals.lexical import IMPROBABLE, LexicalReport
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
        row = [s.scope, str(s.n_tokens), _fmt(s.top_k_entropy), _fmt(s.max_entropy), _fmt(s.mean_entropy), _fmt(s.mean_probability), _fmt(s.max_probability)]
        if surprisal:
            row += [_fmt(s.top_k_surprisal), str(s.improbable_tokens)]
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


def _pct(p: float | None) -> str:
    return "—" if p is None else f"{100 * p:.0f}%"


def assessment_report(a, where: str) -> list:
    """Renderables for one Assessment (qualm.engine.assess_function)."""
    out: list = []
    head = Text()
    head.append(f"{where}::{a.function}", style="bold")
    head.append(f" (line {a.line}) · {a.model} · {a.seconds:.1f} s\n")
    if a.chance_of_passing is not None:
        head.append(f"chance it passes: {100 * a.chance_of_passing:.0f} %", style="bold")
        head.append(f" · {chance_words(a.chance_of_passing, a.failed_tests())}\n", style="bold")
    head.append(f"({a.chance_note})\n", style="dim")
    if a.chance_of_passing is not None:
        head.append(f"The chance was {CHANCE_BASIS}.\n", style="dim")
    if a.ensemble is not None:
        head.append("ensemble ", style="bold")
        head.append(f"{a.ensemble:.2f} {ensemble_words(a.ensemble)}", style="bold")
        head.append("  (weighted percentile; 0 = as sure as the model ever is, 1 = as unsure)\n")
    head.append(a.calibration_note, style="dim")
    out.append(head)
    table = Table(title_justify="left")
    for col in ("axis", "raw", "percentile", "weight used", "time", "basis"):
        table.add_column(col, justify="right" if col in ("raw", "percentile", "weight used", "time") else "left")
    for ax in a.axes():
        table.add_row(
            ax.name,
            _fmt(ax.raw),
            _pct(ax.percentile),
            f"{a.weights_used.get(ax.name, 0.0):.2f}" if a.weights_used else "—",
            f"{ax.seconds:.1f} s",
            ax.note,
        )
    out.append(table)
    if a.plans:
        plans = Text("plans ", style="bold")
        lengths = [len(p.steps) for p in a.plans]
        plans.append(f"({len(a.plans)} sampled, {min(lengths)}–{max(lengths)} steps)\n")
        for i, step in enumerate(a.plans[0].steps, 1):
            plans.append(f"  {i}. {step}\n")
        out.append(plans)
    if a.candidate_plan is not None and a.candidate_plan.steps:
        own = Text("the code's own plan ", style="bold")
        far = f"{a.candidate_distance:.2f} from the sampled plans" if a.candidate_distance is not None else "not comparable"
        own.append(f"({far})\n")
        for i, step in enumerate(a.candidate_plan.steps, 1):
            own.append(f"  {i}. {step}\n")
        out.append(own)
    if a.examples is not None and a.examples.outcomes:
        ex = Text("the docstring's examples", style="bold")
        ex.append(f" (the author's, run as tests): {a.examples.note}\n")
        for o in a.examples.outcomes:
            mark, style = STATUS_MARKS.get(o.status, ("?", ""))
            ex.append(f"  {mark} ", style=style)
            ex.append(f"{o.example.call} → {o.example.expected}")
            if o.status != "passed":
                ex.append(f"  — {o.status}: {o.message}", style="dim")
            ex.append("\n")
        out.append(ex)
    if a.tests:
        tests = Text("self-tests\n", style="bold")
        for t in a.tests:
            mark, style = STATUS_MARKS.get(t.status, ("?", ""))
            tests.append(f"  {mark} ", style=style)
            tests.append(t.code.replace("\n", " ⏎ "))
            if t.status != "passed":
                tests.append(f"  — {t.status}: {t.message}", style="dim")
            tests.append("\n")
        if a.sandbox:
            tests.append(f"  sandbox: {a.sandbox}\n", style="dim")
        out.append(tests)
    sol = a.solutions
    if sol is not None and sol.solutions:
        origin = f"; the first from the problem, the other {sol.from_plans} its plans written as code" if sol.from_plans else ""
        own = Text(f"the model's own solutions ({len(sol.solutions)}{origin})\n", style="bold")
        own.append(f"  {sol.agreement_note}\n  tests weighted by the solutions that pass them: {_fmt(sol.weighted)} ({sol.weighted_note})\n")
        for test, mine, theirs in sol.disagreements[:5]:
            own.append(f"  ≠ {test.replace(chr(10), ' ⏎ ')}: this code gives {mine}, most solutions {theirs}\n")
        if sol.differential_note != "off":
            own.append(f"  varied inputs: {sol.differential_note}\n")
            for call, mine, theirs in sol.differences[:5]:
                own.append(f"  ≠ {call}: this code gives {mine}, most solutions {theirs}\n")
        out.append(own)
    elif a.dropped_tests:
        out.append(Text(f"self-tests: none usable; {len(a.dropped_tests)} dropped (e.g. {a.dropped_tests[0][1]})", style="dim"))
    progs = a.plan_programs
    if progs is not None and progs.solutions:
        plan_text = Text(f"the plans as programs ({len(progs.solutions)})\n", style="bold")
        agree = progs.answers_as()
        plan_text.append(f"  {agree}; tests weighted by them: {_fmt(progs.weighted)}; tests passed: {', '.join(f'{p.passed}/{p.ran}' for p in progs.solutions)}\n")
        for test, mine, theirs in progs.disagreements[:3]:
            plan_text.append(f"  ≠ {test.replace(chr(10), ' ⏎ ')}: this code gives {mine}, most plans' programs {theirs}\n")
        out.append(plan_text)
    if a.swaps is not None and a.swaps.outcomes:
        swaps = Text("token swaps", style="bold")
        swaps.append(f" (the model's likelier token at the code's least likely places): {a.swaps.note}\n")
        for o in a.swaps.ranked()[:4]:
            swaps.append(f"  line {o.line_in(a.candidate, a.line)}: {o.describe()}\n")
        out.append(swaps)
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
