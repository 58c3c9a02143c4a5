"""benchmarks/ is a package whose modules run as `python -m benchmarks.<group>.<name>`: every module
imports without running anything, none imports another by its bare name (which works only when run
as a file), every benchmark path or module named in the documentation exists, and the index
(benchmarks/README.md) lists every module. No model: importing a benchmark loads none."""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
if str(ROOT) not in sys.path:  # `pytest` alone does not put the checkout's root on the path
    sys.path.insert(0, str(ROOT))


def module_files() -> list[Path]:
    """Every Python file of the package, benchmarks/data and caches (benchmarks/out) left out."""
    skip = {BENCHMARKS / "data", BENCHMARKS / "out"}
    return sorted(p for p in BENCHMARKS.rglob("*.py") if not any(s in p.parents for s in skip) and "__pycache__" not in p.parts)


def dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = [dotted(p) for p in module_files()]
BENCHMARK_MODULES = [m for m in MODULES if m.count(".") == 2 and m.split(".")[-1] != "__init__"]


def test_the_package_has_its_groups():
    assert "benchmarks" in MODULES
    for group in ("common", "completion", "assessment", "chance", "runtime"):
        assert f"benchmarks.{group}" in MODULES, f"benchmarks/{group}/__init__.py is missing"
    flat = sorted(p.name for p in BENCHMARKS.glob("*.py") if p.name != "__init__.py")
    assert not flat, f"benchmarks at the top of benchmarks/, not in a group: {flat}"


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports(name):
    module = importlib.import_module(name)
    path = Path(module.__file__)
    if path.name != "__init__.py" and "common" not in name.split("."):
        source = path.read_text()
        assert re.search(r'^if __name__ == "__main__":\n    main\(\)', source, re.M), f"{name}: no `if __name__ == \"__main__\": main()`"


def bare_imports(path: Path, names: set[str]) -> list[str]:
    """The imports of `path` that name a benchmarks module by its bare name, or relatively."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] in names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append(f"line {node.lineno}: relative import from {'.' * node.level}{node.module or ''}")
            elif node.module and node.module.split(".")[0] in names:
                found.append(f"line {node.lineno}: from {node.module} import ...")
    return found


def test_no_benchmark_imports_another_by_its_bare_name():
    names = {p.stem for p in module_files() if p.stem != "__init__"} | {p.parent.name for p in module_files() if p.stem == "__init__" and p.parent != BENCHMARKS}
    bad = {str(p.relative_to(ROOT)): found for p in module_files() if (found := bare_imports(p, names))}
    assert not bad, f"import them as benchmarks.<group>.<name>: {bad}"


def documentation_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "results").rglob("README.md"), *BENCHMARKS.rglob("README.md")]
    return sorted(f for f in set(files) if f.is_file())


# a path to a benchmark file, or a dotted module name; not part of a longer path or name
PATH_MENTION = re.compile(r"(?<![\w/.-])benchmarks/[\w/.-]*?\.py\b")
MODULE_MENTION = re.compile(r"(?<![\w/.-])benchmarks(?:\.[A-Za-z_]\w*)+")


def resolves(module: str) -> bool:
    base = ROOT.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def test_every_benchmark_named_in_the_documentation_exists():
    missing = []
    for doc in documentation_files():
        for number, line in enumerate(doc.read_text().splitlines(), start=1):
            where = f"{doc.relative_to(ROOT)}:{number}"
            missing += [f"{where}: {m}" for m in PATH_MENTION.findall(line) if not (ROOT / m).is_file()]
            missing += [f"{where}: {m}" for m in MODULE_MENTION.findall(line) if not resolves(m)]
    assert not missing, "\n".join(missing)


def test_the_index_lists_every_module():
    index = (BENCHMARKS / "README.md").read_text()
    listed = set(MODULE_MENTION.findall(index))
    absent = [m for m in BENCHMARK_MODULES if m not in listed]
    assert not absent, f"benchmarks/README.md does not list {absent}"


def test_the_mention_patterns_find_both_forms():
    line = "run `.venv/bin/python -m benchmarks.chance.fit_chance` (benchmarks/chance/fit_chance.py), not results/benchmarks/x.py"
    assert MODULE_MENTION.findall(line) == ["benchmarks.chance.fit_chance"]
    assert PATH_MENTION.findall(line) == ["benchmarks/chance/fit_chance.py"]
