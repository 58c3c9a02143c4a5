"""The real-code benchmark's metrics (benchmarks/completion/realcode_metrics.py): exact match of the
first line, edit similarity, whether the accepted file parses, whether the completion runs on into the
code after the hole, the empty rate, and the bootstrap over packages. No model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.completion import realcode_metrics as m

PY_ORIGINAL = "def f(xs):\n    total = sum(xs)\n    return total / len(xs)\n\n\nprint(f([1, 2]))\n"
PY_TRUTH = "total = sum(xs)"
PY_CURSOR = PY_ORIGINAL.index(PY_TRUTH)
PY_DOC = PY_ORIGINAL[:PY_CURSOR] + PY_ORIGINAL[PY_CURSOR + len(PY_TRUTH) :]
PY_TASK = {"document": PY_DOC, "cursor": PY_CURSOR, "truth": PY_TRUTH, "language": "python"}


def test_exact_match_reads_the_first_line_stripped():
    assert m.exact_match("total = sum(xs)", PY_TRUTH)
    assert m.exact_match("\n   total = sum(xs)  \n    extra()", "total = sum(xs)\nmore()")
    assert not m.exact_match("total = sum(ys)", PY_TRUTH)
    assert not m.exact_match("", PY_TRUTH)
    assert m.first_line("\n\n  a\nb") == "a"


def test_edit_similarity_is_rapidfuzz_normalized_levenshtein():
    assert m.edit_similarity(PY_TRUTH, PY_TRUTH) == 1.0
    assert m.edit_similarity("total = sum(xs)  \n", PY_TRUTH) == 1.0  # trailing white space left out
    got = m.edit_similarity("total = max(xs)", PY_TRUTH)
    assert got == pytest.approx(Levenshtein.normalized_similarity("total = max(xs)", PY_TRUTH))
    assert 0.0 < got < 1.0
    assert m.edit_similarity("", PY_TRUTH) == 0.0


def test_the_truth_parses_and_a_broken_completion_does_not():
    assert m.parses(PY_DOC, PY_CURSOR, PY_TRUTH, "python")
    assert not m.parses(PY_DOC, PY_CURSOR, "total = sum(xs", "python")
    assert not m.parses(PY_DOC, PY_CURSOR, "total = sum(xs)\n  x = 1", "python")  # bad indentation: ast.parse says no
    assert not m.parses(PY_DOC, PY_CURSOR, "type T = int", "python")  # Python 3.12's syntax, held to 3.10's grammar


@pytest.mark.parametrize(
    ("language", "text", "good", "bad"),
    [
        ("javascript", "function f(a) {\n  \n  return b;\n}\n", "const b = a + 1;", "const b = a +;"),
        ("typescript", "function f(a: number): number {\n  \n  return b;\n}\n", "const b: number = a + 1;", "const b: = a;"),
    ],
)
def test_parses_in_javascript_and_typescript(language, text, good, bad):
    cursor = text.index("\n  \n") + 3
    assert m.parses(text, cursor, good, language)
    assert not m.parses(text, cursor, bad, language)


def test_runs_on_when_the_completion_writes_the_next_line_again():
    assert m.next_line(PY_DOC, PY_CURSOR) == "return total / len(xs)"
    assert m.runs_on(PY_DOC, PY_CURSOR, "total = sum(xs)\n    return total / len(xs)")
    assert not m.runs_on(PY_DOC, PY_CURSOR, "total = sum(xs)")
    assert not m.runs_on(PY_DOC, PY_CURSOR, "")


def test_runs_on_reads_a_mid_line_completion_with_its_line():
    doc = "x = call(\ny = 2\n"
    cursor = doc.index("(") + 1
    # the rest of the cursor's line is not the next line; the line below is
    assert m.next_line(doc, cursor) == "y = 2"
    assert m.runs_on(doc, cursor, "1)\ny = 2")
    assert not m.runs_on(doc, cursor, "1)")
    # at the end of a file there is nothing to run on into
    assert not m.runs_on("a = 1\n", 6, "b = 2\nc = 3")


def test_runs_on_counts_against_the_truth():
    doc = "function f(a) {\n  if (a) {\n    \n  }\n}\n"
    cursor = doc.index("    \n") + 4
    truth = "g();\n  }\n  if (b) {\n    h();"  # a block whose own lines include the `}` that also follows it
    assert m.next_line(doc, cursor) == "}"
    assert m.runs_on(doc, cursor, truth)  # without the truth, its own `}` looks like running on
    assert not m.runs_on(doc, cursor, truth, truth)
    assert m.runs_on(doc, cursor, truth + "\n  }", truth)


def test_empty():
    assert m.empty("")
    assert m.empty(" \n\t")
    assert not m.empty("x")


def test_score_has_every_metric():
    s = m.score(PY_TASK, PY_TRUTH)
    assert set(s) == set(m.METRICS)
    assert s == {"exact_match": True, "edit_similarity": 1.0, "parses": True, "runs_on": False, "runs_on_closers_placed": False, "empty": False}
    s = m.score(PY_TASK, "")
    assert s["empty"] and not s["exact_match"] and s["parses"]  # the file without the line still parses


def test_bootstrap_resamples_packages():
    values = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    groups = ["a", "a", "a", "b", "b", "c"]
    mean, low, high = m.bootstrap_over_groups(values, groups, resamples=500, seed=1)
    assert mean == pytest.approx(0.5)
    assert 0.0 <= low <= mean <= high <= 1.0
    assert (mean, low, high) == m.bootstrap_over_groups(values, groups, resamples=500, seed=1)
    # every task the same: no spread
    assert m.bootstrap_over_groups([0.7] * 4, ["a", "b", "a", "c"], resamples=200) == pytest.approx((0.7, 0.7, 0.7))
    # one package only: resampling it changes nothing, however many tasks it has
    assert m.bootstrap_over_groups([0.0, 1.0], ["a", "a"], resamples=200) == pytest.approx((0.5, 0.5, 0.5))
    assert all(np.isnan(x) for x in m.bootstrap_over_groups([], []))


def test_summarize_by_language_kind_and_situation():
    rows = []
    for i in range(6):
        rows.append(
            {
                "package": f"p{i % 3}",
                "language": "python" if i < 4 else "typescript",
                "kind": "line" if i % 2 else "block",
                "situations": ["method"] if i < 2 else ["file_end"],
                **m.score(PY_TASK, PY_TRUTH if i % 2 else ""),
            }
        )
    s = m.summarize(rows, resamples=100)
    assert s["all"]["n"] == 6 and s["all"]["packages"] == 3
    assert set(s["language"]) == {"python", "typescript"} and s["language"]["python"]["n"] == 4
    assert set(s["situation"]) == {"method", "file_end"}
    assert set(s["kind"]) == {"line", "block"}
    assert s["all"]["exact_match"][0] == pytest.approx(0.5)
    assert s["kind"]["line"]["exact_match"][:3] == pytest.approx([1.0, 1.0, 1.0])
    lines: list[str] = []
    m.print_summary(s, out=lines.append)
    assert lines[0].startswith("| | tasks | packages | exact_match")
    assert any(line.startswith("| situation") is False and "| method |" in line for line in lines)


def test_the_cli_scores_a_completions_file(tmp_path, capsys):
    task = {**PY_TASK, "id": "t1", "package": "p", "kind": "line", "situations": ["function"], "split": "test"}
    other = {**task, "id": "t2", "split": "tune"}
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(task) + "\n" + json.dumps(other) + "\n")
    completions = tmp_path / "completions.jsonl"
    completions.write_text(json.dumps({"id": "t1", "completion": PY_TRUTH}) + "\n")
    m.main([str(tasks), str(completions), "--split", "test", "--json", "--resamples", "50"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["all"]["n"] == 1 and summary["all"]["exact_match"][0] == 1.0
    with pytest.raises(SystemExit, match="no completion for task t2"):
        m.main([str(tasks), str(completions)])


def test_summarize_joins_javascript_and_typescript():
    rows = [{"package": f"p{i}", "language": lang, "kind": "line", "situations": [], **m.score(PY_TASK, PY_TRUTH)} for i, lang in enumerate(("javascript", "typescript", "typescript"))]
    s = m.summarize(rows, resamples=50)
    assert s["language"]["javascript+typescript"]["n"] == 3 and s["language"]["javascript+typescript"]["packages"] == 3


def test_runs_on_with_closers_placed_tells_a_completion_s_own_brace_from_the_function_s():
    # the completion writes an `if` block of its own, closed by `  }`, above the function's `}`
    doc = "function f(parts, data) {\n  parts.push(1);\n  \n}\n"
    cursor = doc.index("  \n}") + 2
    truth = "return parts.join(' ');"
    completion = "if (data.x) {\n    parts.push(data.x);\n  }\n  return parts.join(' ');"
    assert m.runs_on(doc, cursor, completion, truth)  # as committed: a `}` line is a `}` line
    assert not m.runs_on(doc, cursor, completion, truth, closers_placed=True)
    # a `}` at the function's own indentation is the code after the hole, written again
    assert m.runs_on(doc, cursor, "return parts.join(' ');\n}", truth, closers_placed=True)
    # lines with code are compared without their indentation, as before
    doc2 = "def f(xs):\n    \n    return total\n"
    assert m.runs_on(doc2, doc2.index("    \n") + 4, "total = 1\n        return total", "total = 1", closers_placed=True)
