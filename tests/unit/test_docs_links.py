"""The documentation's links hold: every relative link in README.md, CONTRIBUTING.md and docs/*.md
points at a file that exists and, for a `#anchor` into a Markdown file, at one of its headings (the
anchors GitHub makes); and the README stays a front page of at most 300 lines. No model, no network:
links with a scheme (https:, mailto:) are not followed."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 300


def documentation_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [f for f in files if f.is_file()]


# -- reading Markdown ---------------------------------------------------------------------------

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) for every line outside fenced code blocks."""
    out, fence = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) <= {fence[0]}:
                fence = None
            continue
        out.append((number, line))
    return out


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline link, image and reference definition outside code."""
    found = []
    for number, line in prose_lines(text):
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            targets.append(definition.group(1))
        found.extend((number, t[1:-1] if t.startswith("<") else t) for t in targets)
    return found


def heading_text(raw: str) -> str:
    """A heading's text as GitHub renders it: code spans kept literally, links reduced to their text,
    images, HTML tags and emphasis markers dropped."""
    parts, last = [], 0
    for m in CODE_SPAN.finditer(raw):
        parts.append(("md", raw[last:m.start()]))
        parts.append(("code", m.group(2).strip()))
        last = m.end()
    parts.append(("md", raw[last:]))
    rendered = []
    for kind, part in parts:
        if kind == "md":
            part = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", part)
            part = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", part)
            part = re.sub(r"<[^>]+>", "", part)
            part = re.sub(r"(?<!\w)[*_]+|[*_]+(?!\w)", "", part)
        rendered.append(part)
    return "".join(rendered)


def github_slug(text: str) -> str:
    """GitHub's heading anchor (github-slugger): lower case, every character that is not a letter, a
    digit, '_', '-' or a space removed, each space made a '-'."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor GitHub gives a Markdown file: its headings' slugs, a repeated slug numbered -1,
    -2, ..., and explicit <a name=...> / <a id=...> anchors."""
    seen: dict[str, int] = {}
    result: set[str] = set()
    lines = prose_lines(text)
    for index, (number, line) in enumerate(lines):
        result.update(HTML_ANCHOR.findall(line))
        title = None
        match = ATX_HEADING.match(line)
        if match:
            title = match.group(2) or ""
        elif (
            re.match(r"^ {0,3}(=+|-+)[ \t]*$", line)
            and index > 0
            and lines[index - 1][0] == number - 1
            and lines[index - 1][1].strip()
            and not re.match(r"^ {0,3}([-*+>|]|\d+[.)]|#)", lines[index - 1][1])
        ):
            title = lines[index - 1][1]
        if title is None:
            continue
        slug = github_slug(heading_text(title))
        if slug in seen:
            seen[slug] += 1
            result.add(f"{slug}-{seen[slug]}")
        else:
            seen[slug] = 0
            result.add(slug)
    return result


# -- the checks ---------------------------------------------------------------------------------


def broken_links(path: Path) -> list[str]:
    problems = []
    text = path.read_text(encoding="utf-8")
    for number, target in links(text):
        if SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        file_part = unquote(file_part)
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            problems.append(f"{where}: no such file")
            continue
        if anchor and resolved.is_file() and resolved.suffix.lower() == ".md":
            if unquote(anchor).lower() not in anchors(resolved.read_text(encoding="utf-8")):
                problems.append(f"{where}: no heading with that anchor in {resolved.relative_to(ROOT)}")
    return problems


@pytest.mark.parametrize("path", documentation_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path):
    assert broken_links(path) == []


def test_the_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; reference belongs in docs/"


def test_the_documentation_is_found():
    names = {str(p.relative_to(ROOT)) for p in documentation_files()}
    assert {"README.md", "CONTRIBUTING.md", "docs/README.md"} <= names


# -- the reader itself, on known cases ----------------------------------------------------------


def test_slugs_follow_github():
    assert github_slug(heading_text("`qualm check`: a gate for CI and pre-commit")) == "qualm-check-a-gate-for-ci-and-pre-commit"
    assert github_slug(heading_text("Evaluation: `qualm eval`")) == "evaluation-qualm-eval"
    assert github_slug(heading_text("Benchmark of assessment quality (issue 23)")) == "benchmark-of-assessment-quality-issue-23"
    assert github_slug(heading_text("Libraries, and why")) == "libraries-and-why"
    assert github_slug(heading_text("The docstring's examples (2026-11-26)")) == "the-docstrings-examples-2026-11-26"
    assert github_slug(heading_text("`n_gpu_layers` and *emphasis*")) == "n_gpu_layers-and-emphasis"
    assert github_slug(heading_text("See [the guide](editor.md) — twice")) == "see-the-guide--twice"
    assert github_slug(heading_text("Ünïcode stays")) == "ünïcode-stays"


def test_repeated_headings_are_numbered_and_code_is_not_a_heading():
    text = "# Tests\n\n## Tests\n\n```bash\n# not a heading\n```\n\nSetext\n------\n\n<a name=\"here\"></a>\n"
    assert anchors(text) == {"tests", "tests-1", "setext", "here"}


def test_links_in_code_are_not_links():
    text = (
        "[a](a.md) ![b](b.png \"title\") `[c](c.md)` [d](<d e.md>) [e](https://x.org/f.md)\n"
        "```\n[g](g.md)\n```\n[h]: h.md\n"
    )
    assert [t for _, t in links(text)] == ["a.md", "b.png", "d e.md", "https://x.org/f.md", "h.md"]
