"""What the editor shows, computed from engine results: plain functions, no LSP objects.

Kept apart from the handlers so that the words and tables can be tested (and reused by other
front ends) without a running server.
"""

from __future__ import annotations

from typing import Any

from ..chance import CHANCE_BASIS, chance_words
from ..engine import Assessment, PlacedToken
from ..levels import LEVEL_WORDS, ensemble_words
from ..trace import surprisal


def token_json(t: PlacedToken, origin_offset: int = 0) -> dict[str, Any]:
    """A token as the client gets it: its text, where it is (relative to ``origin_offset``) and its
    level. The numbers stay on the server, for the hover."""
    return {"text": t.text, "start": t.start - origin_offset, "end": t.end - origin_offset, "level": t.level}


def _show(text: str) -> str:
    """A token's text for Markdown: visible whitespace, escaped pipes and backticks."""
    shown = text.replace("\n", "⏎").replace("\t", "⇥")
    if shown.strip() == "":
        shown = shown.replace(" ", "·")
    return shown.replace("|", "\\|").replace("`", "ˋ")


def doubt_words(info: PlacedToken) -> str:
    """Which doubt a mark shows: the model unsure before the token, or the token one it would not
    have written (scored code only)."""
    if info.doubt == "unexpected":
        return f"the model would not have written this ({LEVEL_WORDS[info.level]}: surprisal {surprisal(info.prob):.2f} nats)"
    return f"the model was {LEVEL_WORDS[info.level]} here"


def diagnostic_message(info: PlacedToken, top: int = 3) -> str:
    alts = [a for a in info.alternatives if a.text != info.text][:top]
    others = ", ".join(f"'{_show(a.text)}' {a.prob:.0%}" for a in alts)
    verb = "gave the token in the file" if info.origin == "score" else "chose it with"
    head = f"'{_show(info.text.strip() or info.text)}': {doubt_words(info)} ({info.entropy:.2f} nats, {verb} p = {info.prob:.2f})"
    return head + (f"; it also considered {others}" if others else "")


def surprise_line(info: PlacedToken) -> str:
    """For code the model did not write: how surprising the token in the file was to it, and what it
    would have written instead. The level says how unsure it was before the token (entropy); this
    says whether it would have written the token at all (surprisal, −log p)."""
    nats = surprisal(info.prob)
    best = info.alternatives[0] if info.alternatives else None
    if best is None or best.text == info.text:
        return f"the token in the file: p = {info.prob:.3f}, surprisal {nats:.2f} nats · the model would have written it too"
    return f"the token in the file: p = {info.prob:.3f}, surprisal **{nats:.2f}** nats · the model would have written `{_show(best.text)}` ({best.prob:.0%})"


def token_hover(info: PlacedToken, alternatives: int) -> str:
    """The hover of one token: its level, entropy and probability, and the model's top
    ``alternatives`` choices there (the ``generation.top_alternatives`` setting)."""
    shown = info.alternatives[:alternatives]
    rows = "\n".join(
        f"| {'**' if a.text == info.text else ''}`{_show(a.text)}`{'**' if a.text == info.text else ''} | {a.prob:.1%} |"
        for a in shown
    )
    kind = f"\n\n{surprise_line(info)}" if info.origin == "score" else ""
    return (
        f"**qualm** · token `{_show(info.text)}` · {doubt_words(info)}\n\n"
        f"entropy **{info.entropy:.3f}** nats · probability **{info.prob:.3f}** · from {info.origin}{kind}\n\n"
        f"| the model's top {len(shown)} | probability |\n|---|---|\n{rows}\n"
    )


def span_hover(span: list[PlacedToken], hovered: PlacedToken, alternatives: int) -> str:
    """The hover of a coloured span of several tokens: one line per token (its doubt, numbers and
    the model's first other choice), then the hovered token in full."""
    rows = []
    for t in span:
        other = next((a for a in t.alternatives if a.text != t.text), None)
        instead = f"`{_show(other.text)}` {other.prob:.0%}" if other is not None else "—"
        nats = f"surprisal {surprisal(t.prob):.2f}" if t.doubt == "unexpected" else f"entropy {t.entropy:.2f}"
        mark = "**" if t is hovered else ""
        doubt = "would not have written it" if t.doubt == "unexpected" else "unsure"
        rows.append(f"| {mark}`{_show(t.text)}`{mark} | {doubt} ({t.level}) | {nats} | {t.prob:.2f} | {instead} |")
    head = f"**qualm** · {len(span)} uncertain tokens in a row\n\n| token | doubt | nats | p | the model's next choice |\n|---|---|---|---|---|\n"
    return head + "\n".join(rows) + "\n\n---\n\n" + token_hover(hovered, alternatives)


def _num(x: float | None, pct: bool = False) -> str:
    if x is None:
        return "—"
    return f"{100 * x:.0f}%" if pct else f"{x:.3f}"


def chance_line(a: Assessment) -> str | None:
    if a.chance_of_passing is None:
        return None
    return f"chance it passes: {100 * a.chance_of_passing:.0f} %"


def assessment_hover(a: Assessment, stale: bool = False, headline: str = "chance") -> str:
    lines = [f"**qualm assessment** of `{a.function}`" + (" · *the function changed since: re-assess*" if stale else "")]
    chance = chance_line(a)
    ens = f"**{a.ensemble:.2f} · {ensemble_words(a.ensemble)}** (the paper's ensemble: weighted percentile against the model's reference problems)" if a.ensemble is not None else None
    if chance is not None and a.chance_of_passing is not None:
        chance_md = (
            f"**{chance}** · {chance_words(a.chance_of_passing, a.failed_tests())}\n\n"
            f"*The chance that the function passes its hidden tests, estimated from the signals below: {a.chance_note}. "
            f"It was {CHANCE_BASIS}.*"
        )
    else:
        chance_md = f"*No chance of passing: {a.chance_note}.*"
    first, second = (chance_md, ens) if headline == "chance" else (ens, chance_md)
    lines += [f"\n{x}" for x in (first, second) if x]
    lines.append(f"\n*{a.calibration_note}*\n")
    lines.append("| axis | raw | percentile | basis |\n|---|---|---|---|")
    for ax in a.axes():
        lines.append(f"| {ax.name} | {_num(ax.raw)} | {_num(ax.percentile, pct=True)} | {ax.note} |")
    if a.plans:
        steps = [len(p.steps) for p in a.plans]
        lines.append(f"\n**Plans** ({len(a.plans)} sampled, {min(steps)}–{max(steps)} steps); the first:\n")
        lines += [f"{i}. {s}" for i, s in enumerate(a.plans[0].steps[:10], 1)]
    if a.candidate_plan is not None and a.candidate_plan.steps:
        far = f"{a.candidate_distance:.2f} from the sampled plans (0: the same steps, 1: nothing in common)" if a.candidate_distance is not None else "not comparable"
        lines.append(f"\n**The code's own plan**, as the model reads the function: {far}\n")
        lines += [f"{i}. {s}" for i, s in enumerate(a.candidate_plan.steps[:10], 1)]
    if a.examples is not None and a.examples.outcomes:
        lines.append(f"\n**The docstring's examples** (written by the function's author, not the model; run as tests): {a.examples.note}\n")
        for o in a.examples.outcomes:
            mark = "✓" if o.status == "passed" else "✗"
            lines.append(f"- {mark} `{o.example.call}` → `{o.example.expected}`" + ("" if o.status == "passed" else f" — {o.status}: {o.message}"))
    sol = a.solutions
    weights = sol.test_weights if sol is not None and len(sol.test_weights) == len(a.tests) else None
    if a.tests:
        passed = sum(t.status == "passed" for t in a.tests)
        lines.append(f"\n**Self-tests**: {passed} of {len(a.tests)} passed" + (f"; in brackets, how many of the model's {len(sol.solutions)} own solutions pass each (a test none passes probably expects the wrong value)" if weights is not None and sol is not None else "") + "\n")
        for i, t in enumerate(a.tests):
            mark = "✓" if t.status == "passed" else "✗"
            code = t.code.replace("\n", " ⏎ ")
            share = f" ({round(weights[i] * len(sol.solutions))}/{len(sol.solutions)})" if weights is not None and sol is not None else ""
            lines.append(f"- {mark} `{code}`{share}" + ("" if t.status == "passed" else f" — {t.status}: {t.message}"))
    if sol is not None and sol.solutions:
        origin = f"; the first from the problem, the other {sol.from_plans} its sampled plans written as code" if sol.from_plans else ""
        lines.append(f"\n**The model's own solutions** ({len(sol.solutions)}{origin}): {sol.agreement_note}; tests weighted by them: {_num(sol.weighted)} ({sol.weighted_note})\n")
        for test, mine, theirs in sol.disagreements[:5]:
            lines.append(f"- `{test.replace(chr(10), ' ⏎ ')}`: this code gives `{mine}`, most of the model's solutions `{theirs}`")
        if sol.differential_note != "off":
            lines.append(f"\n**Varied inputs** (the tests' inputs changed by type): {sol.differential_note}\n")
            for call, mine, theirs in sol.differences[:5]:
                lines.append(f"- `{call}`: this code gives `{mine}`, most of the model's solutions `{theirs}`")
    progs = a.plan_programs
    if progs is not None and progs.solutions:
        agree = progs.answers_as()
        passing = ", ".join(f"{p.passed}/{p.ran}" for p in progs.solutions)
        lines.append(f"\n**The plans as programs** (each sampled plan written as code by the model and run on the self-tests; tests passed: {passing}): {agree}; tests weighted by them: {_num(progs.weighted)}\n")
        for test, mine, theirs in progs.disagreements[:3]:
            lines.append(f"- `{test.replace(chr(10), ' ⏎ ')}`: this code gives `{mine}`, most of the plans' programs `{theirs}`")
    if a.swaps is not None and a.swaps.outcomes:
        lines.append(f"\n**Token swaps** (the model's likelier token at the code's least likely places, run on the self-tests): {a.swaps.note}\n")
        for o in a.swaps.ranked()[:4]:
            lines.append(f"- line {o.line_in(a.candidate, a.line)}: {o.describe()}")
    return "\n".join(lines)


def lens_tooltip(a: Assessment | None) -> str | None:
    if a is None or a.chance_of_passing is None:
        return None
    return f"The chance it passes its hidden tests was {CHANCE_BASIS}. Click to assess again."


def lens_title(a: Assessment | None, stale: bool, headline: str = "chance") -> str:
    if a is None:
        return "qualm: assess"
    if stale:
        return "qualm: re-assess"
    if headline == "chance" and a.chance_of_passing is not None:
        parts = [f"qualm: {chance_line(a)} (benchmark fit)"]
    else:
        parts = [f"qualm {a.ensemble:.2f} {ensemble_words(a.ensemble)}" if a.ensemble is not None else "qualm (raw)"]
    if a.lexical.raw is not None:
        parts.append(f"lexical {a.lexical.raw:.2f}")
    if a.algorithmic.raw is not None:
        parts.append(f"plans {a.algorithmic.raw:.2f}")
    if a.tests:
        failed = sum(t.status != "passed" for t in a.tests)
        parts.append(f"tests {failed}/{len(a.tests)} failed")
    elif not a.functional.available:
        parts.append("tests n/a")
    # The author's own examples failing is the plainest fact an assessment finds.
    if a.examples is not None and a.examples.failing:
        parts.append(a.examples.note)
    # Facts, not a score: inputs where the code answers unlike most of the model's own solutions
    # (on the tests' calls and on varied ones), each listed in the hover. The chance does not use
    # them all, so the lens names them where a user sees them first.
    if a.solutions is not None and (n := len(a.solutions.disagreements) + len(a.solutions.differences)):
        parts.append(f"unlike the model's solutions on {n} input{'s' if n != 1 else ''}")
    # A swap that passes more tests points at the line to read first.
    if a.swaps is not None and a.swaps.best is not None and a.swaps.best.gain > 0:
        best = a.swaps.best
        parts.append(f"'{best.swap.alternative.strip()}' on line {best.line_in(a.candidate, a.line)} passes more tests")
    return " · ".join(parts)
