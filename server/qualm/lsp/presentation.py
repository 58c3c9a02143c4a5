"""What the editor shows, computed from engine results: plain functions, no LSP objects.

Kept apart from the handlers so that the words and tables can be tested without a running server.
An assessment's sentences are ``qualm.summary``'s, shared with the command line; here they become
Markdown.
"""

from __future__ import annotations

from typing import Any

from ..engine import Assessment, PlacedToken
from ..summary import Code, Piece, Section, summarize
from ..trace import surprisal
from ..wording import CHANCE_BASIS, LEVEL_WORDS


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


def _markdown(pieces: tuple[Piece, ...]) -> str:
    return "".join(f"`{p.text}`" if isinstance(p, Code) else p for p in pieces)


def _section_lines(section: Section) -> list[str]:
    """A section of the hover: the title in bold, then its lines as a list (at most ten steps of a plan)."""
    lines = [f"\n**{section.title}**{section.text}\n"]
    if section.numbered:
        return lines + [f"{i}. {_markdown(item.pieces)}" for i, item in enumerate(section.items[:10], 1)]
    for item in section.items:
        mark = "" if item.status is None else ("✓ " if item.status == "passed" else "✗ ")
        lines.append(f"- {mark}{_markdown(item.pieces)}" + (f" — {item.failure}" if item.failure else ""))
    return lines


def assessment_hover(a: Assessment, stale: bool = False, headline: str = "chance") -> str:
    s = summarize(a)
    lines = [f"**qualm assessment** of `{s.function}`" + (" · *the function changed since: re-assess*" if stale else "")]
    ens = f"**{s.ensemble_line}** {s.ensemble_said}" if s.ensemble_line is not None else None
    chance_md = f"**{s.chance_line}** · {s.chance_words}\n\n*{s.chance_said}*" if s.chance_line is not None else f"*{s.chance_said}*"
    first, second = (chance_md, ens) if headline == "chance" else (ens, chance_md)
    lines += [f"\n{x}" for x in (first, second) if x]
    lines.append(f"\n*{s.calibration_note}*\n")
    lines.append("| axis | raw | percentile | basis |\n|---|---|---|---|")
    lines += [f"| {ax.name} | {ax.raw} | {ax.percentile} | {ax.note} |" for ax in s.axes]
    for section in s.sections:
        lines += _section_lines(section)
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
    s = summarize(a)
    if headline == "chance" and s.chance_line is not None:
        parts = [f"qualm: {s.chance_line} (benchmark fit)"]
    else:
        parts = [f"qualm {s.ensemble:.2f} {s.ensemble_words}" if s.ensemble is not None else "qualm (raw)"]
    # Where to read first: the line the model least expected (the hover lists the next ones).
    if s.suspect is not None:
        parts.append(f"suspect: line {s.suspect}")
    if s.lexical_raw is not None:
        parts.append(f"lexical {s.lexical_raw:.2f}")
    if s.algorithmic_raw is not None:
        parts.append(f"plans {s.algorithmic_raw:.2f}")
    if s.tests_run:
        parts.append(f"tests {s.tests_failed}/{s.tests_run} failed")
    elif not s.functional_available:
        parts.append("tests n/a")
    # The author's own examples failing is the plainest fact an assessment finds.
    if s.examples_failing is not None:
        parts.append(s.examples_failing)
    # Facts, not a score: inputs where the code answers unlike most of the model's own solutions
    # (on the tests' calls and on varied ones), each listed in the hover. The chance does not use
    # them all, so the lens names them where a user sees them first.
    if n := s.unlike_inputs:
        parts.append(f"unlike the model's solutions on {n} input{'s' if n != 1 else ''}")
    # A swap that passes more tests points at the line to read first.
    if s.better_swap is not None:
        token, line = s.better_swap
        parts.append(f"'{token}' on line {line} passes more tests")
    return " · ".join(parts)
