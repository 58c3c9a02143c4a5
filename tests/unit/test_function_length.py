"""No function of the engine (server/qualm/engine) is longer than 80 lines, so that each step of an
assessment can be read, and changed, on its own (issue 49). A function counts from its first
decorator to its last line, its docstring and nested functions included."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "server" / "qualm" / "engine"
MOST_LINES = 80


def function_lengths(root: Path) -> list[tuple[str, int]]:
    """``(path:line name, lines)`` for every function and method under ``root``, nested ones too."""
    out = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                out.append((f"{path.relative_to(root.parents[2])}:{node.lineno} {node.name}", node.end_lineno - first + 1))
    return out


def test_the_engine_is_read_in_functions_of_at_most_80_lines():
    lengths = function_lengths(ENGINE)
    assert lengths, f"no functions found under {ENGINE}"
    too_long = [f"{where} is {n} lines" for where, n in lengths if n > MOST_LINES]
    assert not too_long, f"functions over {MOST_LINES} lines: " + "; ".join(too_long)


def test_the_count_runs_from_the_first_decorator_to_the_last_line(tmp_path):
    package = tmp_path / "server" / "qualm" / "engine"
    package.mkdir(parents=True)
    (package / "m.py").write_text("@a\n@b\ndef f():\n    x = 1\n\n    return x\n\n\nclass C:\n    def g(self):\n        pass\n")
    assert dict(function_lengths(package)) == {"server/qualm/engine/m.py:3 f": 6, "server/qualm/engine/m.py:10 g": 2}
