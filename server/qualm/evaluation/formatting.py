"""Numbers and Markdown as the paper prints them, shared by the tables, the claims and the plots."""

from __future__ import annotations

import re
from collections.abc import Sequence


def fmt(value: float | None) -> str:
    """Three decimals without the leading zero, as in the paper (".813"); "–" when undefined."""
    if value is None:
        return "–"
    text = f"{value:.3f}"
    return text[1:] if text.startswith("0.") else text.replace("-0.", "-.")


def points(delta: float) -> str:
    return f"{delta * 100:+.1f} points"


def mark_best(values: Sequence[float | None]) -> list[str]:
    """Each value formatted, the best in bold and the second best underlined. Ranks go by the value
    as printed, so values that print the same tie (both bold, as in the paper's "tied-best")."""
    shown = [None if v is None else round(v, 3) for v in values]
    distinct = sorted({v for v in shown if v is not None}, reverse=True)
    best = distinct[0] if distinct else None
    second = distinct[1] if len(distinct) > 1 else None
    cells = []
    for v in shown:
        text = fmt(v)
        if v is not None and v == best:
            text = f"**{text}**"
        elif v is not None and v == second:
            text = f"<u>{text}</u>"
        cells.append(text)
    return cells


def md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "dataset"


def unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))
