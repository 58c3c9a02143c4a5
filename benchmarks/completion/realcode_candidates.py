"""The fourth real-code test set's candidates (results/realcode-fourth/rules.md): the ordered PyPI
and npm candidate lists, and the automatic checks each candidate gets in that order. No model.

    .venv/bin/python -m benchmarks.completion.realcode_candidates order --out DIR          # DIR/pypi_order.txt, DIR/npm_order.txt
    .venv/bin/python -m benchmarks.completion.realcode_candidates pypi --out DIR --next 20 # the next 20 of the PyPI order checked
    .venv/bin/python -m benchmarks.completion.realcode_candidates npm --out DIR --next 50   # the next 50 of the npm order packed and checked
    .venv/bin/python -m benchmarks.completion.realcode_candidates look --out DIR NAME      # what the manual look reads
    .venv/bin/python -m benchmarks.completion.realcode_candidates repo GITDIR NAME         # a repository snapshot's dates

**order.** PyPI: first the 16 names the rules list (results/realcode-third/packages.md, "Checked but
not needed", in that order), then the rows of the library's ``pypi.tsv`` whose ``month`` is 2026-01
to 2026-05, with a summary, a version 0.x or 1.0.x, whose summary does not say SDK, API client,
generated, bindings, wrapper, placeholder, demo, tutorial or test package (whole words, plurals
too), and whose name no earlier record holds, ordered by the SHA-256 of
``realcode-fourth/pypi/<name>``. npm: the rows of ``npm.tsv`` under 50,000 downloads a month (a
row without a count is left out), not platform-binary packages, not of the excluded scopes, whose
name no earlier record holds, and whose name or summary names one of the rules' two keyword
groups; group 1 before group 2, each ordered by the SHA-256 of ``realcode-fourth/npm/<name>``.

A name an earlier record holds: any word of the three earlier manifests' names and of the records
(results/realcode-completion/rules.md, results/realcode-fresh/packages.md,
results/realcode-third/packages.md) that is also a row's name in the list (PyPI names compared
after PEP 503 normalization, npm names in lower case). That is wider than the names those records
meant, never narrower.

**pypi.** PyPI's JSON page: the earliest upload of any file of any version must fall from
2026-01-01 to 2026-05-31; the archive is the newest version's pure-Python wheel, else its sdist; a
permissive, non-GPL licence (the metadata's licence expression, licence field or classifiers, else
the licence file in the archive); at least 460 source lines (``str.splitlines``) in at least 2
files after realcode.py's own file rules (folders, names, sizes, generated markers, duplicates, the
parse check). **npm.** ``npm pack NAME`` (the newest version); a licence in package.json of MIT,
ISC, BSD, Apache-2.0 or OR-expressions of these; at least 460 JS/TS lines in at least 2 JS/TS files
after the same file rules; no more than 400 JS/TS files. Each check appends one JSON row to
DIR/pypi_checks.jsonl or DIR/npm_checks.jsonl (resumable: a name already there is not checked
again) and keeps the archive in DIR/archives. The npm draw stops after 700 tarballs are packed.
What the checks cannot decide (a licence or header dated 2024 or earlier, a republished or
repackaged project, the repository's dates, bundler output) is read by hand: ``look`` and
``repo`` print what that look reads.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import time
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from benchmarks.completion.realcode import archive_members, language_of, sha256_of, skip_reason, source_parses

ROOT = Path(__file__).resolve().parents[2]
PYPI_TSV = Path("/usr/share/package-lists/pypi.tsv")
NPM_TSV = Path("/usr/share/package-lists/npm.tsv")
MANIFESTS = ("realcode_packages.json", "realcode_packages_fresh.json", "realcode_packages_third.json")
RECORDS = ("results/realcode-completion/rules.md", "results/realcode-fresh/packages.md", "results/realcode-third/packages.md")
SALT = "realcode-fourth"
WINDOW = ("2026-01-01", "2026-05-31")
MONTHS = ("2026-01", "2026-02", "2026-03", "2026-04", "2026-05")
MIN_LINES = 460
MIN_FILES = 2
MAX_JS_FILES = 400
MAX_NPM_DOWNLOADS = 50_000
MAX_PACKED = 700

# results/realcode-third/packages.md, "Checked but not needed", in the order written there
FIRST_PYPI = (
    "rep2nb", "mfget", "policyflux", "mikoshi-bio", "solohq-cli", "resp-server", "django-mimsms", "activepandasquery",
    "fastapi-import-export", "ppmi-calc", "zen-fronts", "jupyter-cli", "llmcap", "ha-xthings-cloud", "promptcache-ai", "parfold",
)  # fmt: skip

PYPI_EXCLUDED_WORDS = re.compile(r"\b(sdks?|api[\s-]+clients?|generated|bindings?|wrappers?|placeholders?|demos?|tutorials?|test[\s-]+packages?)\b", re.I)
PYPI_VERSION = re.compile(r"^(0\.|1\.0($|\.|[a-z+-]))", re.I)

NPM_BINARY = ("-linux-", "-darwin-", "-win32-", "-android-", "-freebsd-")
NPM_SCOPES = ("@github", "@google", "@anthropic-ai", "@modelcontextprotocol", "@mariozechner", "@openclaw", "@types", "@microsoft", "@aws-sdk", "@azure", "@vercel")
TESTED_HERE = re.compile(r"^\[tested here:[^\]]*\]\s*", re.I)

# A keyword: a regular expression over the lower-cased name and summary. A word of up to 5
# characters matches only as a whole word (no letter or digit either side); a name with a version
# number matches with a whole word before it and no digit after the number; longer words and
# phrases match anywhere, a space in them standing for a space, a hyphen, an underscore or nothing.
_GAP = r"[\s_-]?"
_B = r"(?<![a-z0-9])"
_E = r"(?![a-z0-9])"
_N = r"(?![0-9])"


def _word(w: str) -> str:
    return _B + re.escape(w) + _E


def _phrase(*words: str) -> str:
    return _GAP.join(re.escape(w) for w in words)


def _versioned(name: str, number: str) -> str:
    return _B + name + _GAP + "v?" + number + _N


NPM_GROUPS: tuple[tuple[tuple[str, str], ...], ...] = (
    (  # group 1: from late 2025 or 2026
        ("OpenClaw", "openclaw"),
        ("Moltbot", "moltbot"),
        ("Clawdbot", "clawdbot"),
        ("OpenCode", "opencode"),
        ("Antigravity", "antigravity"),
        ("Claude Code", _phrase("claude", "code")),
        ("Codex CLI", _phrase("codex", "cli")),
        ("Gemini CLI", _phrase("gemini", "cli")),
        ("Gemini 3", _versioned("gemini", "3")),
        ("GPT-5", _versioned("gpt", "5")),
        ("Sonnet 4.5", _versioned("sonnet", r"4[.-]5")),
        ("Opus 4.5", _versioned("opus", r"4[.-]5")),
        ("agent skills", _B + "agents?" + _GAP + "skills?"),
        ("x402", _word("x402")),
        ("A2UI", _word("a2ui")),
        ("MCP Apps", _B + "mcp" + _GAP + "apps?" + _E),
        ("ACP (agent client protocol)", _word("acp") + "|" + _phrase("agent", "client", "protocol")),
        ("ralph", _word("ralph")),
        ("beads", _word("beads")),
        ("oxlint", "oxlint"),
        ("oxfmt", _word("oxfmt")),
        ("rolldown", "rolldown"),
        ("tsgo", _word("tsgo")),
        ("Vite 8", _versioned("vite", "8")),
        ("Astro 6", _versioned("astro", "6")),
        ("Nuxt 4", _versioned("nuxt", "4")),
        ("Next.js 16", _versioned(r"next\.?js", "16")),
        ("Prisma 7", _versioned("prisma", "7")),
        ("Vitest 4", _versioned("vitest", "4")),
        ("Expo SDK 54/55", _versioned("expo" + _GAP + "sdk", "5[45]")),
        ("TanStack Start", _phrase("tanstack", "start")),
        ("liquid glass", _phrase("liquid", "glass")),
    ),
    (  # group 2: 2025
        ("MCP", _word("mcp")),
        ("Model Context Protocol", _phrase("model", "context", "protocol")),
        ("Zod 4", _versioned("zod", "4")),
        ("Tailwind 4 / v4", _versioned("tailwind(css)?", "4")),
        ("React 19", _versioned("react", "19")),
        ("AI SDK 5 / v5", _versioned("ai" + _GAP + "sdk", "5")),
        ("Mastra", "mastra"),
        ("LangGraph", "langgraph"),
        ("Bun 1.2/1.3", _versioned("bun", r"1\.[23]")),
        ("Deno 2", _versioned("deno", "2")),
        ("Svelte 5 runes", _versioned("svelte", "5") + "|" + _B + "svelte" + _E + ".*" + _word("runes")),
        ("Hono", _word("hono")),
    ),
)
_NPM_PATTERNS = [[(label, re.compile(pattern)) for label, pattern in group] for group in NPM_GROUPS]


# ---------------------------------------------------------------------------------------------
# the lists and the orders


@dataclass(frozen=True)
class PypiRow:
    name: str
    version: str
    month: str
    summary: str


@dataclass(frozen=True)
class NpmRow:
    name: str
    version: str
    downloads: int | None
    summary: str


def _tsv_cells(path: Path, width: int) -> Iterator[list[str]]:
    """Each data row of a library list (its header skipped), padded to ``width`` cells."""
    with path.open(encoding="utf-8", errors="replace") as f:
        next(f)
        for line in f:
            cells = line.rstrip("\n").split("\t")
            yield cells + [""] * (width - len(cells))


def read_pypi(path: Path = PYPI_TSV) -> list[PypiRow]:
    return [PypiRow(c[0], c[1], c[2], c[4].strip()) for c in _tsv_cells(path, 5)]


def read_npm(path: Path = NPM_TSV) -> list[NpmRow]:
    return [NpmRow(c[0], c[1], int(c[2]) if c[2].strip().isdigit() else None, c[3].strip()) for c in _tsv_cells(path, 4)]


def normalize(name: str) -> str:
    """A PyPI name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def order_key(ecosystem: str, name: str) -> str:
    return hashlib.sha256(f"{SALT}/{ecosystem}/{name}".encode()).hexdigest()


_TOKEN = re.compile(r"[@\w][\w.@/+-]*")


def words_of(text: str) -> set[str]:
    """Every word of a text that could be a package name: the tokens of name characters, each also
    without its trailing punctuation and split at its slashes (``github.com/o/name`` gives ``name``
    too; ``@scope/name`` is kept whole as well)."""
    out: set[str] = set()
    for token in _TOKEN.findall(text):
        for t in {token, token.rstrip(".,:;-/")}:
            if not t:
                continue
            out.add(t)
            out.update(part.strip(".,:;-") for part in t.split("/") if part.strip(".,:;-"))
    return out


def record_texts(root: Path = ROOT) -> list[str]:
    """The earlier sets' manifests (their package names) and records, as texts."""
    texts = []
    for manifest in MANIFESTS:
        packages = json.loads((root / "benchmarks" / "completion" / manifest).read_text())["packages"]
        texts.append("\n".join(p["name"] for p in packages))
    texts += [(root / record).read_text(encoding="utf-8") for record in RECORDS]
    return texts


def held_names(texts: Iterable[str], names: Iterable[str], norm=str.lower) -> set[str]:
    """The names of ``names`` (as written) that some word of ``texts`` holds, compared by ``norm``."""
    words = {norm(w) for text in texts for w in words_of(text)}
    return {name for name in names if norm(name) in words}


def pypi_row_passes(row: PypiRow) -> bool:
    return row.month in MONTHS and bool(row.summary) and bool(PYPI_VERSION.match(row.version)) and not PYPI_EXCLUDED_WORDS.search(row.summary)


def pypi_order(rows: Sequence[PypiRow], held: set[str], first: Sequence[str] = FIRST_PYPI) -> list[str]:
    """The rules' (1) names, then the drawn rows that pass the filters and no record holds, by hash."""
    firsts = {normalize(n) for n in first}
    drawn = {r.name for r in rows if pypi_row_passes(r) and r.name not in held and normalize(r.name) not in firsts}
    return list(first) + sorted(drawn, key=lambda n: order_key("pypi", n))


def npm_summary(summary: str) -> str:
    """The authors' summary: the library's own ``[tested here: ...]`` note taken off."""
    return TESTED_HERE.sub("", summary)


def npm_row_passes(row: NpmRow) -> bool:
    name = row.name.lower()
    if row.downloads is None or row.downloads >= MAX_NPM_DOWNLOADS:
        return False
    if any(b in name for b in NPM_BINARY):
        return False
    return not any(name == s or name.startswith(s + "/") for s in NPM_SCOPES)


def npm_keywords(name: str, summary: str) -> tuple[int | None, list[str]]:
    """The first group (1 or 2) whose keywords the name or the summary names, and those keywords."""
    text = f"{name}\n{npm_summary(summary)}".lower()
    for number, group in enumerate(_NPM_PATTERNS, start=1):
        hits = [label for label, pattern in group if pattern.search(text)]
        if hits:
            return number, hits
    return None, []


def npm_order(rows: Sequence[NpmRow], held: set[str]) -> list[tuple[int, str]]:
    """(group, name) of every candidate: group 1 by hash, then group 2 by hash."""
    groups: dict[int, set[str]] = {1: set(), 2: set()}
    for row in rows:
        if not npm_row_passes(row) or row.name in held:
            continue
        group, _ = npm_keywords(row.name, row.summary)
        if group is not None:
            groups[group].add(row.name)
    return [(g, n) for g in (1, 2) for n in sorted(groups[g], key=lambda n: order_key("npm", n))]


def write_orders(out: Path, root: Path = ROOT) -> tuple[list[str], list[tuple[int, str]]]:
    texts = record_texts(root)
    pypi_rows, npm_rows = read_pypi(), read_npm()
    pypi_held = held_names(texts, {r.name for r in pypi_rows}, normalize)
    npm_held = held_names(texts, {r.name for r in npm_rows})
    pypi = pypi_order(pypi_rows, pypi_held)
    npm = npm_order(npm_rows, npm_held)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pypi_order.txt").write_text("".join(n + "\n" for n in pypi))
    (out / "npm_order.txt").write_text("".join(f"{g}\t{n}\n" for g, n in npm))
    passing = [r for r in pypi_rows if pypi_row_passes(r)]
    print(f"pypi: {len(passing)} rows pass the filters, {sum(r.name in pypi_held for r in passing)} of them held by a record; order {len(pypi)} names ({len(FIRST_PYPI)} first)", file=sys.stderr)
    print(
        f"npm: {sum(npm_row_passes(r) for r in npm_rows)} rows pass the filters; group 1 {sum(g == 1 for g, _ in npm)}, group 2 {sum(g == 2 for g, _ in npm)} (after {len(npm_held)} held names)",
        file=sys.stderr,
    )
    return pypi, npm


# ---------------------------------------------------------------------------------------------
# licences


PERMISSIVE_NPM = re.compile(r"^(mit|isc|0bsd|bsd(-[0-9a-z-]+)?|apache-2\.0)$", re.I)
_COPYLEFT = re.compile(r"\b(a?gpl|lgpl|gnu (affero |lesser |library )?general public)", re.I)
_NOT_PERMISSIVE = re.compile(r"\b(mpl|mozilla public|eupl|cddl|epl|eclipse public|sspl|busl|business source|commons clause|non-?commercial|polyform|cc-by-nc)", re.I)
_RESERVED = re.compile(r"\b(proprietary|all rights reserved)", re.I)  # not permissive unless a permissive grant is there too (BSD texts say it)


def licence_name(text: str) -> str | None:
    """The permissive licence a licence statement names (an SPDX name), "GPL" for the GPL family,
    "not permissive" for another known licence, None where it names none."""
    t = text.strip()
    if not t or t.upper() in ("UNKNOWN", "NONE", "OTHER"):
        return None
    alternatives = re.split(r"\s+OR\s+", t.strip("()")) if len(t) < 200 else [t]
    if len(alternatives) > 1:
        names = [licence_name(a) for a in alternatives]
        good = [n for n in names if n not in (None, "GPL", "not permissive")]
        return " OR ".join(good) if good else next((n for n in names if n is not None), None)
    low = t.lower()
    if _COPYLEFT.search(low):
        return "GPL"
    if _NOT_PERMISSIVE.search(low):
        return "not permissive"
    if "apache" in low:
        return "Apache-2.0"
    if re.search(r"\bmit\b", low) or "permission is hereby granted, free of charge" in low:
        return "MIT"
    if re.search(r"\b0?bsd\b", low) or "redistribution and use in source and binary forms" in low:
        m = re.search(r"\bbsd[- ]([0-9])[- ]clause", low)
        return f"BSD-{m.group(1)}-Clause" if m else "BSD"
    if re.search(r"\bisc\b", low) or "permission to use, copy, modify, and/or distribute" in low:
        return "ISC"
    if "unlicense" in low or "free and unencumbered" in low:
        return "Unlicense"
    if re.search(r"\bpsf\b|python software foundation", low):
        return "PSF-2.0"
    if re.search(r"\bzlib\b", low):
        return "Zlib"
    if _RESERVED.search(low):
        return "not permissive"
    return None


def is_permissive(name: str | None) -> bool:
    return name is not None and name not in ("GPL", "not permissive")


def npm_licence(package_json: dict) -> str | None:
    """package.json's licence where it is MIT, ISC, BSD, Apache-2.0 or an OR-expression of these."""
    value = package_json.get("license")
    if isinstance(value, dict):
        value = value.get("type")
    if value is None and isinstance(package_json.get("licenses"), list) and package_json["licenses"]:
        first = package_json["licenses"][0]
        value = first.get("type") if isinstance(first, dict) else first
    if not isinstance(value, str):
        return None
    parts = [p.strip() for p in re.split(r"\s+OR\s+", value.strip().strip("()"))]
    return value if parts and all(PERMISSIVE_NPM.match(p) for p in parts) else None


LICENCE_FILE = re.compile(r"(^|/)(licen[cs]e|copying|notice)([.-][^/]*)?$", re.I)


def licence_files(members: Sequence[tuple[str, bytes]]) -> list[tuple[str, str]]:
    return [(path, data.decode("utf-8", "replace")) for path, data in members if LICENCE_FILE.search(path)]


# ---------------------------------------------------------------------------------------------
# the source lines, by realcode.py's own file rules


def members_of(name: str, data: bytes) -> list[tuple[str, bytes]]:
    """realcode.archive_members of an archive, a gzipped tarball unpacked first: tarfile reads a
    gzip stream's members in name order by decompressing it again from the start for each one,
    which takes minutes for a tarball of thousands of files."""
    if name.endswith((".tgz", ".tar.gz")):
        data = gzip.decompress(data)
    return list(archive_members(name, data))


@dataclass
class Lines:
    lines: int = 0
    files: int = 0
    ecosystem_files: int = 0  # every file of the ecosystem's languages in the archive (npm: JS/TS)
    counted: tuple[str, ...] = ()


def source_lines(ecosystem: str, members: Sequence[tuple[str, bytes]]) -> Lines:
    """The lines and files of an archive that realcode.py would draw tasks from: .py of a PyPI
    archive, .js/.ts of an npm tarball, after its folder, name, size, generated, duplicate and
    parse rules."""
    out = Lines()
    seen: set[str] = set()
    counted = []
    for path, content in members:
        language = language_of(path)
        if language is None or (ecosystem == "pypi") != (language == "python"):
            continue
        out.ecosystem_files += 1
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            continue
        text = text.removeprefix("\ufeff").replace("\r\n", "\n")
        if skip_reason(path, text) is not None:
            continue
        digest = sha256_of(text.encode())
        if digest in seen:
            continue
        seen.add(digest)
        if not source_parses(text, language):
            continue
        out.lines += len(text.splitlines())
        out.files += 1
        counted.append(path)
    out.counted = tuple(counted)
    return out


def lines_verdict(lines: Lines) -> str | None:
    if lines.files < MIN_FILES and lines.lines >= MIN_LINES:
        return "one file only"
    if lines.lines < MIN_LINES or lines.files < MIN_FILES:
        return f"small ({lines.lines} lines in {lines.files} files)"
    return None


# ---------------------------------------------------------------------------------------------
# the checks


def _get(url: str, timeout: int = 120) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "qualm-realcode-candidates"})
    for attempt in range(3):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read()
        except OSError:
            if attempt == 2:
                raise
            time.sleep(2 * (attempt + 1))
    raise AssertionError("unreachable")


def first_upload(releases: dict) -> tuple[str, str] | None:
    """(time, version) of the earliest upload of any file of any version."""
    uploads = [(f["upload_time_iso_8601"], version) for version, files in releases.items() for f in files if f.get("upload_time_iso_8601")]
    return min(uploads) if uploads else None


def choose_archive(files: Sequence[dict]) -> dict | None:
    """The pure-Python wheel, else the sdist."""
    wheels = [f for f in files if f["filename"].endswith(("-py3-none-any.whl", "-py2.py3-none-any.whl"))]
    sdists = [f for f in files if f.get("packagetype") == "sdist"]
    return (wheels or sdists or [None])[0]


def metadata_licence(info: dict) -> str | None:
    for value in (info.get("license_expression"), info.get("license")):
        if value:
            name = licence_name(value)
            if name is not None:
                return name
    for classifier in info.get("classifiers") or []:
        if classifier.startswith("License ::"):
            name = licence_name(classifier.split("::")[-1])
            if name is not None:
                return name
    return None


def check_pypi(name: str, work: Path) -> dict:
    row: dict = {"name": name}
    try:
        meta = json.loads(_get(f"https://pypi.org/pypi/{name}/json", timeout=60))
    except OSError as e:
        return {**row, "result": f"no PyPI JSON ({e})"}
    info = meta["info"]
    row |= {"version": info["version"], "summary": info.get("summary") or "", "author": info.get("author") or info.get("author_email") or "", "home_page": info.get("home_page") or "",
            "project_urls": info.get("project_urls") or {}, "releases": len(meta["releases"])}  # fmt: skip
    first = first_upload(meta["releases"])
    if first is None:
        return {**row, "result": "no file uploaded"}
    row |= {"first_upload": first[0], "first_release": first[0][:10], "first_version": first[1]}
    if not WINDOW[0] <= first[0][:10] <= WINDOW[1]:
        return {**row, "result": f"first release outside the window ({first[0][:10]})"}
    chosen = choose_archive(meta["releases"].get(info["version"]) or meta.get("urls") or [])
    if chosen is None:
        return {**row, "result": "no pure-Python wheel or sdist for the newest version"}
    data = _get(chosen["url"])
    digest = sha256_of(data)
    if digest != chosen["digests"]["sha256"]:
        return {**row, "result": "sha256 differs from PyPI's"}
    path = work / "archives" / "pypi" / chosen["filename"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    row |= {"archive": chosen["filename"], "url": chosen["url"], "sha256": digest, "size": len(data)}
    members = members_of(chosen["filename"], data)
    licence, source = metadata_licence(info), "metadata"
    if licence is None:
        for _, text in licence_files(members):
            licence, source = licence_name(text[:3000]), "licence file"
            if licence is not None:
                break
    row |= {"licence": licence, "licence_from": source}
    lines = source_lines("pypi", members)
    row |= {"lines": lines.lines, "files": lines.files}
    if licence == "GPL":
        return {**row, "result": "GPL licence"}
    if not is_permissive(licence):
        return {**row, "result": "no permissive licence statement" if licence is None else f"licence not permissive ({licence})"}
    return {**row, "result": lines_verdict(lines) or "pass"}


def tarball_url(name: str, version: str) -> str:
    base = name.split("/")[-1]
    return f"https://registry.npmjs.org/{name}/-/{base}-{version}.tgz"


def repository_of(package_json: dict) -> str:
    repo = package_json.get("repository")
    if isinstance(repo, dict):
        repo = repo.get("url") or ""
    return repo if isinstance(repo, str) else ""


def check_npm(name: str, work: Path) -> dict:
    row: dict = {"name": name}
    folder = work / "archives" / "npm"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["npm", "pack", name, "--json", "--ignore-scripts", "--pack-destination", str(folder)], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {**row, "result": "npm pack timed out"}
    if done.returncode != 0:
        return {**row, "result": f"npm pack failed: {(done.stderr.strip().splitlines() or ['?'])[-1][:200]}"}
    packed = json.loads(done.stdout)[0]
    path = folder / packed["filename"]
    if not path.is_file():  # npm's JSON masks what looks like a secret in the name (a UUID: ***)
        path = max(folder.glob("*.tgz"), key=lambda p: p.stat().st_mtime)
    data = path.read_bytes()
    row |= {"packed": True, "version": packed["version"], "archive": path.name, "url": tarball_url(name, packed["version"]), "sha256": sha256_of(data), "size": len(data)}
    members = members_of(path.name, data)
    package_json: dict = {}
    for member, content in members:
        if PurePosixPath(member).parts[1:] == ("package.json",):
            try:
                package_json = json.loads(content)
            except ValueError:
                package_json = {}
            break
    licence = npm_licence(package_json)
    js_ts = sum(1 for member, _ in members if language_of(member) in ("javascript", "typescript"))
    row |= {"licence": licence, "licence_field": package_json.get("license"), "repository": repository_of(package_json), "summary": package_json.get("description") or "", "js_ts_files": js_ts}
    # the cheap verdicts first: a tarball of thousands of files is not parsed file by file for nothing
    if licence is None:
        return {**row, "result": "licence missing or not permissive"}
    if js_ts > MAX_JS_FILES:
        return {**row, "result": f"tarball of more than {MAX_JS_FILES} JS/TS files ({js_ts})"}
    lines = source_lines("npm", members)
    row |= {"lines": lines.lines, "files": lines.files}
    verdict = lines_verdict(lines)
    if verdict is not None:
        return {**row, "result": verdict}
    if not row["repository"]:
        return {**row, "result": "no repository URL in package.json"}
    return {**row, "result": "pass"}


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []


def run_checks(ecosystem: str, work: Path, count: int, max_packed: int = MAX_PACKED) -> None:
    """The next ``count`` unchecked names of the order, checked and appended; npm stops once
    ``max_packed`` tarballs are packed (the rules' 700, or more where their size rule continues the
    order because the built set has too few JavaScript/TypeScript tasks)."""
    if ecosystem == "pypi":
        names = (work / "pypi_order.txt").read_text().split()
    else:
        names = [line.split("\t")[1] for line in (work / "npm_order.txt").read_text().splitlines() if line]
    out = work / f"{ecosystem}_checks.jsonl"
    rows = read_rows(out)
    done = {r["name"] for r in rows}
    packed = sum(1 for r in rows if r.get("packed"))
    todo = [n for n in names if n not in done][:count]
    with out.open("a") as f:
        for name in todo:
            if ecosystem == "npm" and packed >= max_packed:
                print(f"{max_packed} tarballs packed: the npm draw stops here", file=sys.stderr)
                break
            try:
                row = check_pypi(name, work) if ecosystem == "pypi" else check_npm(name, work)
            except (OSError, ValueError, KeyError, tarfile.TarError) as e:
                row = {"name": name, "result": f"check failed: {type(e).__name__}: {e}"}
            row["position"] = names.index(name) + 1
            packed += bool(row.get("packed"))
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            f.flush()
            print(f"{row['position']:4d} {name}: {row['result']}" + (f" ({row.get('lines')} lines, {row.get('files')} files)" if "lines" in row else ""), file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# what the manual look reads


YEARS = re.compile(r"copyright|\(c\)|©|\b(19[0-9]{2}|20[0-2][0-9])\b", re.I)
BUNDLER = re.compile(r"__esModule|__webpack_require__|__awaiter|__generator|__toESM|__importDefault|__createBinding|exports\.\w+ = void 0|\brequire_\w+ = __commonJS")


def look(name: str, work: Path, out=print) -> None:
    rows = {r["name"]: r for r in read_rows(work / "pypi_checks.jsonl") + read_rows(work / "npm_checks.jsonl")}
    row = rows[name]
    ecosystem = "npm" if "packed" in row else "pypi"
    out(json.dumps({k: v for k, v in row.items() if k not in ("url",)}, ensure_ascii=False, indent=1))
    path = work / "archives" / ecosystem / row["archive"]
    members = members_of(path.name, path.read_bytes())
    out(f"\n-- files ({len(members)})")
    for member, content in members:
        out(f"  {member} ({len(content)} bytes)")
    out("\n-- licence files")
    for member, text in licence_files(members):
        head = [line for line in text.splitlines() if line.strip()][:3]
        out(f"  {member}: " + " | ".join(head)[:300])
        out("    " + "; ".join(line.strip() for line in text.splitlines() if re.search(r"copyright|\(c\)|©", line, re.I))[:400])
    counted = set(source_lines(ecosystem, members).counted)
    out(f"\n-- copyright and year lines in the {len(counted)} counted files (first 40)")
    shown = 0
    for member, content in members:
        if member not in counted:
            continue
        for number, line in enumerate(content.decode("utf-8", "replace").splitlines(), 1):
            if YEARS.search(line) and shown < 40:
                out(f"  {member}:{number}: {line.strip()[:160]}")
                shown += 1
        if ecosystem == "npm":
            text = content.decode("utf-8", "replace")
            signs = sorted(set(BUNDLER.findall(text)))
            stem = PurePosixPath(member).with_suffix("")
            twin = any(PurePosixPath(m).with_suffix("") == stem and m != member and m.endswith(".ts") for m, _ in members)
            if signs or (member.endswith((".js", ".mjs", ".cjs")) and twin):
                out(f"  BUNDLER/TSC SIGN {member}: {signs}{' (a .ts of the same name beside it)' if twin else ''}")


def repo_dates(git_dir: str, name: str, out=print) -> None:
    """A repository snapshot's first commits, its earliest dates, its tags by date, and the first
    commits that set the package's name or a version in package.json or pyproject.toml."""

    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True, timeout=300).stdout

    log = git("log", "--all", "--format=%H %aI %cI %s").splitlines()
    out(f"{len(log)} commits")
    roots = git("rev-list", "--all", "--max-parents=0").split()
    for root in roots:
        out("root: " + git("log", "-1", "--format=%H author %aI committer %cI %s", root).strip())
    if log:
        out(f"earliest author date {min(line.split()[1] for line in log)}; earliest committer date {min(line.split()[2] for line in log)}")
    tags = git("for-each-ref", "--sort=creatordate", "--format=%(creatordate:iso-strict) %(refname:short)", "refs/tags").splitlines()
    out(f"{len(tags)} tags" + (": first " + "; ".join(tags[:5]) if tags else ""))
    for pattern in (f'"name": "{name}"', f'name = "{name}"'):
        hits = git("log", "--all", "--reverse", "--format=%h %aI %s", "-S", pattern).splitlines()
        if hits:
            out(f"first commit adding {pattern!r}: {hits[0]}")
    hits = git("log", "--all", "--reverse", "--format=%h %aI %s", "-G", r'"version": "|^version = "', "--", "package.json", "*/package.json", "pyproject.toml").splitlines()
    if hits:
        out(f"first commit touching a version line: {hits[0]}")


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    o = sub.add_parser("order", help="write DIR/pypi_order.txt and DIR/npm_order.txt")
    o.add_argument("--out", type=Path, required=True)
    for ecosystem in ("pypi", "npm"):
        c = sub.add_parser(ecosystem, help=f"check the next names of the {ecosystem} order")
        c.add_argument("--out", type=Path, required=True, help="the folder of `order`")
        c.add_argument("--next", type=int, default=10)
        if ecosystem == "npm":
            c.add_argument(
                "--max-packed", type=int, default=MAX_PACKED, help=f"stop after this many tarballs (default {MAX_PACKED}, the rules' stop; more only where the size rule continues the order)"
            )
    lk = sub.add_parser("look", help="print what the manual look reads of a checked package")
    lk.add_argument("--out", type=Path, required=True)
    lk.add_argument("name")
    r = sub.add_parser("repo", help="a git snapshot's first commit, tags and version commits")
    r.add_argument("git_dir")
    r.add_argument("name")
    args = p.parse_args(argv)
    if args.command == "order":
        write_orders(args.out)
    elif args.command in ("pypi", "npm"):
        run_checks(args.command, args.out, args.next, getattr(args, "max_packed", MAX_PACKED))
    elif args.command == "look":
        look(args.name, args.out)
    else:
        repo_dates(args.git_dir, args.name)


if __name__ == "__main__":
    main()
