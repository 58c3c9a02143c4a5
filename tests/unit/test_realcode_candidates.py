"""The fourth real-code set's candidate orders (benchmarks/completion/realcode_candidates.py) on
hand-made rows: the PyPI and npm filters, the names earlier records hold, the keyword groups, the
hash orders, and the licence readings. No network, no model."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.completion import realcode_candidates as c


def pypi(name: str, version: str = "0.1.0", month: str = "2026-03", summary: str = "A tool") -> c.PypiRow:
    return c.PypiRow(name, version, month, summary)


def npm(name: str, summary: str = "", downloads: int | None = 100) -> c.NpmRow:
    return c.NpmRow(name, "1.0.0", downloads, summary)


def test_the_order_key_is_the_hash_of_the_salted_name():
    assert c.order_key("pypi", "abc") == hashlib.sha256(b"realcode-fourth/pypi/abc").hexdigest()
    assert c.order_key("npm", "@s/x") == hashlib.sha256(b"realcode-fourth/npm/@s/x").hexdigest()


def test_pypi_rows_pass_by_month_summary_version_and_words():
    assert c.pypi_row_passes(pypi("a"))
    assert c.pypi_row_passes(pypi("a", "1.0.3", "2026-01"))
    assert c.pypi_row_passes(pypi("a", "1.0", "2026-05"))
    assert not c.pypi_row_passes(pypi("a", month="2025-12"))
    assert not c.pypi_row_passes(pypi("a", month="2026-06"))
    assert not c.pypi_row_passes(pypi("a", summary=""))
    assert not c.pypi_row_passes(pypi("a", "1.1.0"))
    assert not c.pypi_row_passes(pypi("a", "1.01"))
    assert not c.pypi_row_passes(pypi("a", "2.0.0"))
    for summary in ("Python SDK for X", "An API client for Y", "Auto generated models", "Rust bindings", "A thin wrapper", "Placeholder", "demo app", "Tutorial code", "A test package"):
        assert not c.pypi_row_passes(pypi("a", summary=summary)), summary
    assert c.pypi_row_passes(pypi("a", summary="Democratic generator of clients"))  # whole words only


def test_the_pypi_order_puts_the_listed_names_first_and_leaves_out_held_ones():
    rows = [pypi(n) for n in ("zeta", "alpha", "held-one", "mfget", "beta")] + [pypi("late", month="2026-07")]
    order = c.pypi_order(rows, held={"held-one"}, first=("rep2nb", "mfget"))
    assert order[:2] == ["rep2nb", "mfget"]
    assert order[2:] == sorted(["zeta", "alpha", "beta"], key=lambda n: c.order_key("pypi", n))


def test_held_names_come_from_any_word_of_the_records():
    text = "Kept: `vinted-cli` 0.1.6 (github.com/Paatsu/Vinted_CLI), @scope/pkg, spectus. And django-mimsms;"
    names = {"vinted-cli", "vinted_cli", "spectus", "django-mimsms", "paatsu", "other", "pkg"}
    assert c.held_names([text], names, c.normalize) == {"vinted-cli", "vinted_cli", "spectus", "django-mimsms", "paatsu", "pkg"}
    assert c.held_names([text], {"@scope/pkg", "@scope/other"}) == {"@scope/pkg"}


def test_npm_rows_pass_by_downloads_platform_and_scope():
    assert c.npm_row_passes(npm("tool", downloads=49_999))
    assert not c.npm_row_passes(npm("tool", downloads=50_000))
    assert not c.npm_row_passes(npm("tool", downloads=None))
    assert not c.npm_row_passes(npm("tool-linux-x64"))
    assert not c.npm_row_passes(npm("@types/node"))
    assert not c.npm_row_passes(npm("@vercel/thing"))
    assert c.npm_row_passes(npm("@typesafe/thing"))


def test_npm_keywords_match_short_words_whole_and_group_one_first():
    assert c.npm_keywords("my-mcp-server", "") == (2, ["MCP"])
    assert c.npm_keywords("mcpe-tools", "")[0] is None
    assert c.npm_keywords("x", "An MCP server for OpenCode")[0] == 1
    assert c.npm_keywords("ralphie", "")[0] is None
    assert c.npm_keywords("ralph-loop", "") == (1, ["ralph"])
    assert c.npm_keywords("myopenclawplugin", "") == (1, ["OpenClaw"])
    assert c.npm_keywords("x", "Works with Claude Code and claude-code hooks")[1] == ["Claude Code"]
    assert c.npm_keywords("x", "A plugin for Vite 8")[0] == 1
    assert c.npm_keywords("x", "A plugin for vite 80")[0] is None
    assert c.npm_keywords("x", "Send an invite 8 times")[0] is None
    assert c.npm_keywords("x", "Next.js 16 cache handler")[1] == ["Next.js 16"]
    assert c.npm_keywords("x", "Hooks for React 19")[1] == ["React 19"]
    assert c.npm_keywords("x", "For Preact 19")[0] is None
    assert c.npm_keywords("x", "tailwindcss v4 preset")[1] == ["Tailwind 4 / v4"]
    assert c.npm_keywords("x", "an agent client protocol adapter")[1] == ["ACP (agent client protocol)"]
    assert c.npm_keywords("x", "[tested here: pin 1.0, MCP] a plain library")[0] is None


def test_the_npm_order_is_group_one_by_hash_then_group_two_by_hash():
    rows = [npm("a-mcp", "x"), npm("b", "An MCP tool"), npm("c-opencode"), npm("d", "x402 payments"), npm("e", "nothing new"), npm("f-mcp", downloads=90_000), npm("g-mcp")]
    order = c.npm_order(rows, held={"g-mcp"})
    one = sorted(["c-opencode", "d"], key=lambda n: c.order_key("npm", n))
    two = sorted(["a-mcp", "b"], key=lambda n: c.order_key("npm", n))
    assert order == [(1, n) for n in one] + [(2, n) for n in two]


def test_licences_are_read_from_names_expressions_and_texts():
    assert c.licence_name("MIT") == "MIT"
    assert c.licence_name("MIT License") == "MIT"
    assert c.licence_name("Apache Software License") == "Apache-2.0"
    assert c.licence_name("BSD-3-Clause") == "BSD-3-Clause"
    assert c.licence_name("Copyright (c) 2026 X. All rights reserved.\nRedistribution and use in source and binary forms, with or without") == "BSD"
    assert c.licence_name("GPL-3.0-or-later") == "GPL"
    assert c.licence_name("GNU Lesser General Public License v3") == "GPL"
    assert c.licence_name("MIT OR GPL-3.0") == "MIT"
    assert c.licence_name("MPL-2.0") == "not permissive"
    assert c.licence_name("Proprietary") == "not permissive"
    assert c.licence_name("UNKNOWN") is None
    assert c.licence_name("see the file") is None
    for value in ("License", "Other"):
        assert not c.is_permissive(c.licence_name(value))


def test_npm_licences_are_the_rules_list_or_or_expressions_of_it():
    assert c.npm_licence({"license": "MIT"}) == "MIT"
    assert c.npm_licence({"license": "(MIT OR Apache-2.0)"}) == "(MIT OR Apache-2.0)"
    assert c.npm_licence({"license": "BSD-3-Clause"}) == "BSD-3-Clause"
    assert c.npm_licence({"license": {"type": "ISC"}}) == "ISC"
    assert c.npm_licence({"license": "MIT AND CC-BY-4.0"}) is None
    assert c.npm_licence({"license": "UNLICENSED"}) is None
    assert c.npm_licence({}) is None


def test_the_line_rule_needs_460_lines_in_two_files():
    assert c.lines_verdict(c.Lines(lines=460, files=2)) is None
    assert c.lines_verdict(c.Lines(lines=459, files=5)) == "small (459 lines in 5 files)"
    assert c.lines_verdict(c.Lines(lines=900, files=1)) == "one file only"


def test_source_lines_follow_the_builders_file_rules():
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(60))
    members = [
        ("pkg/a.py", body.encode()),
        ("pkg/b.py", (body + "\n").encode()),
        ("pkg/b_copy.py", (body + "\n").encode()),  # a duplicate of b.py
        ("pkg/tests/test_a.py", body.encode()),  # a test folder
        ("pkg/c.js", b"const a = 1;\n" * 10),  # not Python
        ("pkg/bad.py", b"def (:\n" * 10),  # does not parse
    ]
    lines = c.source_lines("pypi", members)
    assert (lines.files, lines.ecosystem_files) == (2, 5)
    assert lines.lines == len(body.splitlines()) + len((body + "\n").splitlines())
    assert lines.counted == ("pkg/a.py", "pkg/b.py")
