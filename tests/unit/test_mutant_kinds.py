"""The mutant kinds for locating a bug (qualm.evaluation.mutants, issue 55 item 5): each new kind's
exact mutants of a hand-written function, with the changed line; that ``mutants(src, name)`` with its
default arguments still returns what it did before they existed (literal data, computed before the
change, on HumanEval reference solutions); and that every mutant's ``lines`` are the lines it changes.
No model and no sandbox are used."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from qualm.evaluation.mutants import KINDS, LOCALIZATION_KINDS, Mutant, mutants

NEW_KINDS = LOCALIZATION_KINDS[len(KINDS) :]


def _made(source: str, kind: str, entry_point: str = "f") -> list[tuple[str, tuple[int, ...], str]]:
    """(description, lines, mutant source) of each mutant of one kind."""
    return [(m.description, m.lines, m.source) for m in mutants(source, entry_point, kinds=(kind,))]


def _edit(source: str, line: int, old: str, new: str) -> str:
    """``source`` with the first ``old`` on 1-based ``line`` replaced by ``new``."""
    lines = source.splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    return "".join(lines)


def _drop(source: str, line: int) -> str:
    lines = source.splitlines(keepends=True)
    return "".join(lines[: line - 1] + lines[line:])


def _twice(source: str, line: int) -> str:
    lines = source.splitlines(keepends=True)
    return "".join(lines[:line] + [lines[line - 1]] + lines[line:])


# ---------------------------------------------------------------------------------------------
# Each new kind: the exact mutants


def test_kinds_are_the_old_ones_then_the_new_ones():
    assert LOCALIZATION_KINDS[: len(KINDS)] == KINDS
    assert NEW_KINDS == ("wrong_variable", "swapped_arguments", "missing_statement", "extra_statement")
    with pytest.raises(ValueError):
        mutants("def f(a):\n    return a\n", "f", kinds=("renamed",))
    with pytest.raises(ValueError):
        mutants("def f(a):\n    return a\n", "f", kinds="wrong_variable")  # a string, not a sequence of kinds


WRONG_VARIABLE_SRC = (
    "def f(xs, n):\n"
    "    total = 0\n"
    "    for i in range(n):\n"
    "        for j in range(i):\n"
    "            total += xs[i] * xs[j]\n"
    "    return total\n"
)


def test_wrong_variable():
    src = WRONG_VARIABLE_SRC
    # line 5 first (two loop indices match best), then the next best reads, one per line, three in all;
    # `xs` (a list) is never put for a number nor a number for it
    assert _made(src, "wrong_variable") == [
        ("`n` → `total`", (3,), _edit(src, 3, "range(n)", "range(total)")),
        ("`i` → `total`", (4,), _edit(src, 4, "range(i)", "range(total)")),
        ("`i` → `j`", (5,), _edit(src, 5, "xs[i]", "xs[j]")),
    ]
    m = mutants(src, "f", kinds=("wrong_variable",))[2]
    assert (m.line, m.column, m.before, m.after) == (5, 24, "i", "j")


def test_wrong_variable_only_uses_the_functions_own_variables_bound_earlier():
    src = (
        "def f(items, limit):\n"
        "    seen = []\n"
        "    for k in range(limit):\n"
        "        seen.append(len([x for x in items if x > k]))\n"
        "    later = sorted(seen)\n"
        "    return f(later, limit) if limit > k else later\n"
    )
    made = mutants(src, "f", kinds=("wrong_variable",))
    assert [(m.line, m.before, m.after) for m in made] == [(4, "seen", "items"), (5, "seen", "items"), (6, "later", "seen")]
    # never a builtin, the function's name, the comprehension's `x`, nor `later` before line 6; the
    # called `f` and the comprehension's own `x` are never replaced
    assert all(m.after in {"items", "limit", "seen", "k", "later"} for m in made)


SWAP_SRC = (
    "def f(s, a, b, xs):\n"
    "    t = s.replace(a, b)\n"
    "    if isinstance(t, str) and max(a, b) > 0:\n"
    '        return pow(a, b) + g(a, a) + len(s.split(",", 1)) + len(list(map(int, xs)))\n'
    "    return t\n"
)


def test_swapped_arguments():
    src = SWAP_SRC
    # not isinstance (a type test), max (symmetric), g(a, a) (the same text), split(",", 1) (a
    # string and an int), map(int, xs) (a type name)
    assert _made(src, "swapped_arguments") == [
        ("swapped arguments: `s.replace(a, b)` → `s.replace(b, a)`", (2,), _edit(src, 2, "(a, b)", "(b, a)")),
        ("swapped arguments: `pow(a, b)` → `pow(b, a)`", (4,), _edit(src, 4, "pow(a, b)", "pow(b, a)")),
    ]


MISSING_SRC = (
    "def f(xs):\n"
    '    """Doc."""\n'
    "    out = []\n"
    "    count = 0\n"
    "    for x in xs:\n"
    "        if x < 0:\n"
    "            continue\n"
    "        x = x * 2\n"
    "        count += 1\n"
    "        out.append(x)\n"
    "    return out, count\n"
)
MISSING_WHILE_SRC = (
    "def g(xs, t):\n"
    "    i = 0\n"
    "    while i < len(xs):\n"
    "        if xs[i] == t:\n"
    "            print(i)\n"
    "            return i\n"
    "        i += 1\n"
    "    return -1\n"
)


def test_missing_statement():
    src = MISSING_SRC
    # not the docstring, `out = []` and `count = 0` (their names' only bindings: a NameError), the
    # `continue` (the only statement of its block), nor the last `return`
    assert _made(src, "missing_statement") == [
        ("removed `x = x * 2`", (8,), _drop(src, 8)),
        ("removed `count += 1`", (9,), _drop(src, 9)),
        ("removed `out.append(x)`", (10,), _drop(src, 10)),
    ]
    m = mutants(src, "f", kinds=("missing_statement",))[0]
    assert (m.line, m.column, m.before, m.after) == (8, 0, "        x = x * 2\n", "")
    # a `return` that is not the function's last statement; not `i += 1` (the loop would not end)
    src = MISSING_WHILE_SRC
    assert _made(src, "missing_statement", "g") == [
        ("removed `print(i)`", (5,), _drop(src, 5)),
        ("removed `return i`", (6,), _drop(src, 6)),
    ]


EXTRA_SRC = (
    "def f(xs, k):\n"
    "    out = []\n"
    "    total = 0\n"
    "    for x in xs:\n"
    "        total += x\n"
    "        total |= 1\n"
    "        out.append(x)\n"
    "        out.sort()\n"
    "        total = total * 2\n"
    "    while k != 0:\n"
    "        k -= 1\n"
    "    i = 0\n"
    "    while i < k:\n"
    "        i += 1\n"
    "    return out, total, i\n"
)


def test_extra_statement():
    src = EXTRA_SRC
    # not `total |= 1` nor `out.sort()` (the same twice), nor `k -= 1` (it could step over `k != 0`);
    # `i += 1` under `while i < k` still ends
    assert _made(src, "extra_statement") == [
        ("duplicated `total += x`", (5,), _twice(src, 5)),
        ("duplicated `out.append(x)`", (7,), _twice(src, 7)),
        ("duplicated `total = total * 2`", (9,), _twice(src, 9)),
        ("duplicated `i += 1`", (14,), _twice(src, 14)),
    ]
    m = mutants(src, "f", kinds=("extra_statement",))[0]
    assert (m.line, m.column, m.before, m.after) == (5, 0, "", "        total += x\n")


def test_statement_kinds_keep_crlf_and_a_last_line_without_line_end():
    src = "def f(xs):\r\n    out = []\r\n    for x in xs:\r\n        out.append(x)\r\n        out.append(-x)"
    assert _made(src, "missing_statement") == [
        ("removed `out.append(x)`", (4,), "def f(xs):\r\n    out = []\r\n    for x in xs:\r\n        out.append(-x)"),
        ("removed `out.append(-x)`", (5,), "def f(xs):\r\n    out = []\r\n    for x in xs:\r\n        out.append(x)\r\n"),
    ]
    assert [(lines, text) for _, lines, text in _made(src, "extra_statement")] == [
        ((4,), src.replace("        out.append(x)\r\n", "        out.append(x)\r\n" * 2)),
        ((5,), src + "\r\n        out.append(-x)"),
    ]


def test_statements_sharing_a_line_are_left_alone():
    src = "def f(xs):\n    out = []\n    for x in xs: out.append(x); out.append(x)\n    out.append(0)\n    return out\n"
    assert [lines for _, lines, _ in _made(src, "missing_statement")] == [(4,)]
    assert [lines for _, lines, _ in _made(src, "extra_statement")] == [(4,)]


def test_the_old_kinds_keep_their_mutants_when_the_new_ones_are_asked_for():
    for src in (WRONG_VARIABLE_SRC, SWAP_SRC, MISSING_SRC, EXTRA_SRC):
        every = mutants(src, "f", kinds=LOCALIZATION_KINDS)
        assert [m for m in every if m.kind in KINDS] == mutants(src, "f")
        assert [m.kind for m in every] == sorted((m.kind for m in every), key=LOCALIZATION_KINDS.index)
        assert len({m.source for m in every}) == len(every)


def test_lines_of_the_old_kinds():
    src = "def f(x):\n    if x > 0:\n        y = 1\n        return y\n    else:\n        return -1\n"
    made = [(m.description, m.lines) for m in mutants(src, "f")]
    # the two bodies swapped: their lines change, `else:` between them only moves
    assert ("swapped the `if` and `else` branches of `if x > 0`", (3, 4, 6)) in made
    assert ("`>` → `>=`", (2,)) in made and ("`1` → `2`", (3,)) in made and ("`1` → `2`", (6,)) in made
    # bodies that end alike: the last line does not change
    src = "def f(x):\n    if x:\n        y = 1\n        x += y\n    else:\n        y = 2\n        x += y\n    return x\n"
    assert ("swapped the `if` and `else` branches of `if x`", (3, 6)) in [(m.description, m.lines) for m in mutants(src, "f")]


# ---------------------------------------------------------------------------------------------
# HumanEval: the default is unchanged; lines point at the change


# mutants(prompt + canonical_solution, entry_point) as (kind, description, line, column, before,
# after), computed before the new kinds were added (2026-12, at 878ba12's mutants.py).
BEFORE = {
'HumanEval/0': [
    ('operator', '`-` → `+`', 15, 36, '-', '+'),
    ('comparison', '`!=` → `==`', 14, 19, '!=', '=='),
    ('comparison', '`<` → `<=`', 16, 28, '<', '<='),
    ('constant', '`True` → `False`', 17, 27, 'True', 'False'),
    ('constant', '`False` → `True`', 19, 11, 'False', 'True'),
    ('swapped_branches', 'negated the `if` condition `idx != idx2`', 14, 15, 'idx != idx2', 'not idx != idx2'),
    ('swapped_branches', 'negated the `if` condition `distance < threshold`', 16, 19, 'distance < threshold', 'not distance < threshold'),
],
'HumanEval/24': [
    ('operator', '`%` → `//`', 9, 13, '%', '//'),
    ('comparison', '`==` → `!=`', 9, 17, '==', '!='),
    ('constant', '`0` → `1`', 9, 20, '0', '1'),
    ('constant', '`0` → `-1`', 9, 20, '0', '-1'),
    ('off_by_one', 'range stop: `range(n)` → `range(n + 1)`', 8, 28, 'n', 'n + 1'),
    ('off_by_one', 'range stop: `range(n)` → `range(n - 1)`', 8, 28, 'n', 'n - 1'),
    ('off_by_one', 'range start: `range(n)` → `range(1, n)`', 8, 28, 'n', '1, n'),
    ('swapped_branches', 'negated the `if` condition `n % i == 0`', 9, 11, 'n % i == 0', 'not n % i == 0'),
],
'HumanEval/70': [
    ('operator', 'removed `not`', 17, 17, 'not ', ''),
    ('constant', '`True` → `False`', 13, 22, 'True', 'False'),
    ('constant', '`1` → `0`', 16, 24, '1', '0'),
    ('off_by_one', 'index: `res[-1]` → `res[0]`', 16, 23, '-1', '0'),
    ('off_by_one', 'index: `res[-1]` → `res[-2]`', 16, 23, '-1', '-2'),
    ('swapped_branches', 'swapped the two values of `min(lst) if switch else max(lst)`', 15, 19, 'min(lst) if switch else max(lst)', 'max(lst) if switch else min(lst)'),
    ('swapped_branches', "negated the conditional expression's condition `switch`", 15, 31, 'switch', 'not switch'),
],
'HumanEval/93': [
    ('operator', '`+` → `-`', 17, 42, '+', '-'),
    ('comparison', '`in` → `not in`', 19, 43, 'in', 'not in'),
    ('constant', '`2` → `3`', 17, 44, '2', '3'),
    ('constant', '`2` → `1`', 17, 44, '2', '1'),
    ('off_by_one', 'index: `vowels_replace[i]` → `vowels_replace[i + 1]`', 19, 35, 'i', 'i + 1'),
    ('off_by_one', 'index: `vowels_replace[i]` → `vowels_replace[i - 1]`', 19, 35, 'i', 'i - 1'),
    ('swapped_branches', 'swapped the two values of `vowels_replace[i] if i in vowels else i`', 19, 20, 'vowels_replace[i] if i in vowels else i', 'i if i in vowels else vowels_replace[i]'),
    ('swapped_branches', "negated the conditional expression's condition `i in vowels`", 19, 41, 'i in vowels', 'not i in vowels'),
],
'HumanEval/150': [
    ('operator', '`%` → `//`', 14, 13, '%', '//'),
    ('comparison', '`==` → `!=`', 11, 9, '==', '!='),
    ('comparison', '`==` → `!=`', 14, 17, '==', '!='),
    ('constant', '`1` → `2`', 11, 12, '1', '2'),
    ('constant', '`1` → `0`', 11, 12, '1', '0'),
    ('constant', '`0` → `1`', 14, 20, '0', '1'),
    ('constant', '`0` → `-1`', 14, 20, '0', '-1'),
    ('off_by_one', 'range start: `range(2, n)` → `range(3, n)`', 13, 19, '2', '3'),
    ('off_by_one', 'range start: `range(2, n)` → `range(1, n)`', 13, 19, '2', '1'),
    ('off_by_one', 'range stop: `range(2, n)` → `range(2, n + 1)`', 13, 22, 'n', 'n + 1'),
    ('off_by_one', 'range stop: `range(2, n)` → `range(2, n - 1)`', 13, 22, 'n', 'n - 1'),
    ('swapped_branches', 'negated the `if` condition `n == 1`', 11, 7, 'n == 1', 'not n == 1'),
    ('swapped_branches', 'negated the `if` condition `n % i == 0`', 14, 11, 'n % i == 0', 'not n % i == 0'),
],
}
# sha256 over every mutant of all 164 problems (see _digest), computed at the same time: 2490 mutants.
BEFORE_DIGEST = "e6517740dc79d32486b8143e9d0fe7e0ada02a30a4802377ac4588a3e3e6ab35"
BEFORE_COUNTS = {"operator": 453, "comparison": 266, "constant": 977, "off_by_one": 539, "swapped_branches": 255}


def _source(problem: dict) -> str:
    return problem["prompt"] + problem["canonical_solution"]


def test_default_mutants_are_unchanged_on_humaneval(humaneval):
    for task_id, expected in BEFORE.items():
        p = humaneval[task_id]
        got = [(m.kind, m.description, m.line, m.column, m.before, m.after) for m in mutants(_source(p), p["entry_point"])]
        assert got == expected, task_id


def test_default_mutants_are_unchanged_on_all_of_humaneval(humaneval):
    digest = hashlib.sha256()
    counts: Counter[str] = Counter()
    for task_id, p in humaneval.items():
        for m in mutants(_source(p), p["entry_point"]):
            counts[m.kind] += 1
            digest.update(json.dumps([task_id, m.kind, m.description, m.line, m.column, m.before, m.after, m.source]).encode())
    assert dict(counts) == BEFORE_COUNTS
    assert digest.hexdigest() == BEFORE_DIGEST


def _check_lines(m: Mutant, src: str) -> None:
    """``m.lines`` are the lines ``m`` changes: the original and the mutant agree line by line before
    the first and after the last, and differ on both; a removed statement's lines are gone, a
    duplicated statement's lines are there twice."""
    old, new = src.splitlines(keepends=True), m.source.splitlines(keepends=True)
    lo, hi = min(m.lines), max(m.lines)
    assert list(m.lines) == sorted(set(m.lines)) and 1 <= lo <= hi <= len(old)
    if m.kind == "missing_statement":
        assert list(m.lines) == list(range(lo, hi + 1)) and new == old[: lo - 1] + old[hi:]
    elif m.kind == "extra_statement":
        assert list(m.lines) == list(range(lo, hi + 1)) and new == old[:hi] + old[lo - 1 : hi] + old[hi:]
    else:
        tail = len(old) - hi
        assert new[: lo - 1] == old[: lo - 1] and new[len(new) - tail :] == old[hi:]
        assert new[lo - 1] != old[lo - 1] and new[len(new) - tail - 1] != old[hi - 1]
    # line and column still say where the edit starts
    start = sum(len(ln) for ln in old[: m.line - 1]) + m.column
    assert src[start : start + len(m.before)] == m.before
    assert m.source == src[:start] + m.after + src[start + len(m.before) :]


def test_lines_point_at_the_change_for_every_kind_on_humaneval(humaneval):
    counts: Counter[str] = Counter()
    for p in humaneval.values():
        src = _source(p)
        for m in mutants(src, p["entry_point"], kinds=LOCALIZATION_KINDS):
            counts[m.kind] += 1
            _check_lines(m, src)
    assert set(counts) == set(LOCALIZATION_KINDS)
    assert all(counts[k] >= 40 for k in NEW_KINDS), counts


def test_asking_for_the_new_kinds_leaves_the_old_ones_alone_on_humaneval(humaneval):
    for task_id, p in humaneval.items():
        every = mutants(_source(p), p["entry_point"], kinds=LOCALIZATION_KINDS)
        assert [m for m in every if m.kind in KINDS] == mutants(_source(p), p["entry_point"]), task_id


# ---------------------------------------------------------------------------------------------
# Pairs: the kinds are passed on, and a row carries the lines (labels faked: no sandbox)


def test_pairs_of_the_new_kinds_carry_their_lines(monkeypatch, humaneval):
    from types import SimpleNamespace

    from qualm.evaluation import mutants as module
    from qualm.evaluation.problems import OfficialTests, Problem

    p = humaneval["HumanEval/5"]
    problem = Problem("HumanEval/5", "humaneval", p["prompt"], p["entry_point"], OfficialTests("asserts", entry_point=p["entry_point"], asserts=("assert True",)), _source(p))

    def label(problem, source, config=None):  # the reference passes, every mutant fails
        passed = source == problem.reference
        return SimpleNamespace(passed=passed, status="passed" if passed else "failed", detail="")

    monkeypatch.setattr(module, "official_label", label)
    result = module.pairs_for_problem(problem, per_problem=len(NEW_KINDS), kinds=NEW_KINDS)
    candidates = mutants(_source(p), p["entry_point"], kinds=NEW_KINDS)
    assert result.candidates == len(candidates) and {m.kind for m in candidates} == {"wrong_variable", "missing_statement", "extra_statement"}
    assert [r["kind"] for r in result.rows] == ["wrong_variable", "missing_statement", "extra_statement"]  # one each, in kind order
    for row in result.rows:
        m = next(m for m in candidates if m.source == row["mutant"])
        assert row["lines"] == list(m.lines) and row["line"] == m.line and row["description"] == m.description
    # the default still makes only the old kinds
    assert {r["kind"] for r in module.pairs_for_problem(problem, per_problem=5).rows} <= set(KINDS)
