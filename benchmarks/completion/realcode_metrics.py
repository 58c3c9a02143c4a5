"""The metrics of the real-code completion benchmark (results/realcode-completion/rules.md).

Each takes one task (``document``, ``cursor``, ``truth``, ``language``) and one completion, the text
the editor would insert at the cursor, and says nothing about how it was written. As CrossCodeEval
(Ding et al. 2023) and SAFIM (Gong et al. 2024) define them:

  exact_match     the completion's first line equals the truth's first line (both stripped)
  edit_similarity rapidfuzz's normalized Levenshtein similarity of the completion to the truth (0-1)
  parses          the file with the completion accepted in place of the truth parses: no ERROR or
                  MISSING node in tree-sitter, and ``ast.parse`` for Python (Python 3.10's grammar)
  runs_on         the completion writes again the first non-empty line that follows the truth (more
                  often than the truth itself writes that line)
  runs_on_closers_placed
                  the same, but a line of closing brackets alone counts only at the same indentation
                  (reported from the fresh test set of results/realcode-fresh on)
  empty           the completion is only white space

``summarize`` gives each metric's mean over tasks with a 95 % bootstrap interval over packages
(packages are resampled, with all their tasks), overall, by language and by situation.

    .venv/bin/python -m benchmarks.completion.realcode_metrics TASKS.jsonl COMPLETIONS.jsonl [--split test]

COMPLETIONS.jsonl has one row per task: ``{"id": ..., "completion": ...}``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path

import numpy as np
import tree_sitter
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript
from rapidfuzz.distance import Levenshtein

LANGUAGES = ("python", "javascript", "typescript")
METRICS = ("exact_match", "edit_similarity", "parses", "runs_on", "runs_on_closers_placed", "empty")
RESAMPLES = 2000
# the Python grammar ast.parse is held to, whatever Python runs it: the oldest qualm supports, so that
# a newer interpreter neither builds other tasks nor judges completions otherwise
PYTHON_VERSION = (3, 10)


@cache
def grammar(language: str) -> tree_sitter.Language:
    if language == "python":
        return tree_sitter.Language(tree_sitter_python.language())
    if language == "javascript":
        return tree_sitter.Language(tree_sitter_javascript.language())
    if language == "typescript":
        return tree_sitter.Language(tree_sitter_typescript.language_typescript())
    raise ValueError(f"unknown language {language!r}")


def parse_tree(text: str, language: str) -> tree_sitter.Tree:
    return tree_sitter.Parser(grammar(language)).parse(text.encode("utf-8"))


def tree_has_error(tree: tree_sitter.Tree) -> bool:
    """Whether tree-sitter had to make up an ERROR or a MISSING node anywhere."""
    return tree.root_node.has_error  # true where the node or any node under it is ERROR or MISSING


def text_parses(text: str, language: str, tree: tree_sitter.Tree | None = None) -> bool:
    """tree-sitter finds no error (in ``tree``, when the caller parsed it already); for Python
    ``ast.parse`` accepts it too."""
    if tree_has_error(tree or parse_tree(text, language)):
        return False
    if language == "python":
        try:
            ast.parse(text, feature_version=PYTHON_VERSION)
        except (SyntaxError, ValueError):
            return False
    return True


def first_line(text: str) -> str:
    """The first line with something on it, stripped (a completion that starts with a line break
    writes its first line below the cursor)."""
    for line in text.split("\n"):
        if line.strip():
            return line.strip()
    return ""


def exact_match(completion: str, truth: str) -> bool:
    return first_line(completion) == first_line(truth)


def edit_similarity(completion: str, truth: str) -> float:
    """rapidfuzz's normalized Levenshtein similarity, trailing white space left out of both."""
    return float(Levenshtein.normalized_similarity(completion.rstrip(), truth.rstrip()))


def accepted(document: str, cursor: int, completion: str) -> str:
    """The file once the completion is accepted at the cursor."""
    return document[:cursor] + completion + document[cursor:]


def parses(document: str, cursor: int, completion: str, language: str) -> bool:
    return text_parses(accepted(document, cursor, completion), language)


def next_line(document: str, cursor: int) -> str:
    """The first non-empty line that follows the truth: the rest of the cursor's line does not count
    (it continues the line the completion ends), the lines below do."""
    for line in document[cursor:].split("\n")[1:]:
        if line.strip():
            return line.strip()
    return ""


def runs_on(document: str, cursor: int, completion: str, truth: str | None = None, closers_placed: bool = False) -> bool:
    """Whether a line of the completion (read with the text before the cursor on its line) is the
    first non-empty line after the truth: the completion went past the hole into code that is there.
    Given the truth, the completion must write that line more often than the truth does (a block that
    ends in ``}`` may hold a ``}`` line of its own before the ``}`` that follows it).

    ``closers_placed`` (``runs_on_closers_placed``, first reported for the fresh test set of
    results/realcode-fresh/rules.md): where that line holds only closing brackets and separators
    (``}``, ``});``), a line counts only with the same indentation too, since such a line alone
    does not say which block it closes (a completion's own ``if`` block closed by ``  }`` above a
    function's ``}`` did not go past the hole)."""
    after = next_line(document, cursor)
    if not after:
        return False
    line_start = document.rfind("\n", 0, cursor) + 1
    placed = closers_placed and not after.strip(CLOSERS)
    after_line = next(line for line in document[cursor:].split("\n")[1:] if line.strip()).rstrip()

    def same(line: str) -> bool:
        return line.rstrip() == after_line if placed else line.strip() == after

    def count(text: str) -> int:
        return sum(1 for line in (document[line_start:cursor] + text).split("\n") if same(line))

    return count(completion) > (count(truth) if truth is not None else 0)


CLOSERS = ")]};, \t"


def empty(completion: str) -> bool:
    return not completion.strip()


def score(task: dict, completion: str) -> dict:
    """Every metric of one completion of one task."""
    document, cursor, truth = task["document"], task["cursor"], task["truth"]
    return {
        "exact_match": exact_match(completion, truth),
        "edit_similarity": edit_similarity(completion, truth),
        "parses": parses(document, cursor, completion, task["language"]),
        "runs_on": runs_on(document, cursor, completion, truth),
        "runs_on_closers_placed": runs_on(document, cursor, completion, truth, closers_placed=True),
        "empty": empty(completion),
    }


def bootstrap_over_groups(values: Sequence[float], groups: Sequence[str], resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float, float]:
    """The mean over tasks and its 95 % percentile interval when whole groups (packages) are resampled
    with replacement; each resample's mean is over the tasks of the packages drawn."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    names = sorted(set(groups))
    index = {g: i for i, g in enumerate(names)}
    g = np.array([index[x] for x in groups])
    sums = np.bincount(g, weights=v, minlength=len(names))
    counts = np.bincount(g, minlength=len(names)).astype(float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(names), size=(resamples, len(names)))
    means = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return (float(v.mean()), float(low), float(high))


def summarize(rows: Iterable[dict], resamples: int = RESAMPLES, seed: int = 0) -> dict:
    """``rows``: one per task, its metrics with ``package``, ``language`` and ``situations``.
    Returns {"all": ..., "language": {..}, "kind": {..}, "situation": {..}}, each {metric: [mean, low, high],
    "n": tasks, "packages": n}; the languages include "javascript+typescript" where both are there."""
    rows = list(rows)

    def block(selected: list[dict]) -> dict:
        out: dict = {"n": len(selected), "packages": len({r["package"] for r in selected})}
        for metric in METRICS:
            out[metric] = list(bootstrap_over_groups([float(r[metric]) for r in selected], [r["package"] for r in selected], resamples, seed))
        return out

    by_language = {lang: block([r for r in rows if r["language"] == lang]) for lang in sorted({r["language"] for r in rows})}
    if {"javascript", "typescript"} <= set(by_language):
        by_language["javascript+typescript"] = block([r for r in rows if r["language"] in ("javascript", "typescript")])
    situations = sorted({s for r in rows for s in r["situations"]})
    by_situation = {s: block([r for r in rows if s in r["situations"]]) for s in situations}
    by_kind = {k: block([r for r in rows if r["kind"] == k]) for k in sorted({r["kind"] for r in rows})}
    return {"all": block(rows), "language": by_language, "kind": by_kind, "situation": by_situation}


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def score_rows(tasks: list[dict], completions: dict[str, str], split: str | None) -> list[dict]:
    rows = []
    for task in tasks:
        if split and task["split"] != split:
            continue
        if task["id"] not in completions:
            raise SystemExit(f"no completion for task {task['id']}")
        rows.append({"id": task["id"], "package": task["package"], "language": task["language"], "kind": task["kind"], "situations": task["situations"], **score(task, completions[task["id"]])})
    return rows


def _fmt(cell: list[float]) -> str:
    return f"{cell[0]:.3f} ({cell[1]:.3f}-{cell[2]:.3f})"


def print_summary(summary: dict, out: Callable[[str], None] = print) -> None:
    head = "| | tasks | packages | " + " | ".join(METRICS) + " |"
    out(head)
    out("|" + "---|" * (3 + len(METRICS)))
    sections = [("all", {"all": summary["all"]}), ("language", summary["language"]), ("kind", summary["kind"]), ("situation", summary["situation"])]
    for _, groups in sections:
        for name, cells in groups.items():
            out(f"| {name} | {cells['n']} | {cells['packages']} | " + " | ".join(_fmt(cells[m]) for m in METRICS) + " |")


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tasks", type=Path, help="the tasks (benchmarks.completion.realcode build)")
    p.add_argument("completions", type=Path, help='JSONL rows {"id": ..., "completion": ...}')
    p.add_argument("--split", choices=("tune", "test"), help="only this split's tasks")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--resamples", type=int, default=RESAMPLES)
    args = p.parse_args(argv)
    completions = {r["id"]: r["completion"] for r in _read_jsonl(args.completions)}
    rows = score_rows(_read_jsonl(args.tasks), completions, args.split)
    summary = summarize(rows, args.resamples)
    if args.json:
        json.dump(summary, sys.stdout, indent=1)
        print()
    else:
        print_summary(summary)


if __name__ == "__main__":
    main()
