"""Right/wrong function pairs for benchmarking (issue 23, item 5): a reference solution and
single-edit mutants of it that fail the problem's official tests.

Mutants
-------
:func:`mutants` edits the body of one function (the problem's entry point; its signature and
docstring are left alone) one place at a time. Each edit is made on the source text at the exact
span of the syntax node it changes (positions from :mod:`ast`, operator tokens from
:mod:`tokenize`), so everything else stays byte-identical, as a person's one-token slip would.
Kinds (:data:`KINDS`, what :func:`mutants` makes by default):

``operator``
    ``+`` ↔ ``-``; ``*`` → ``/`` or ``//``; ``/`` → ``*`` or ``//``; ``//`` → ``*`` or ``/``;
    ``%`` → ``//``; ``**`` → ``*``; ``<<`` ↔ ``>>``; ``&`` ↔ ``|``; the same in augmented
    assignments (``+=`` ↔ ``-=`` ...); ``and`` ↔ ``or`` (one connective); a ``not`` removed.
    Arithmetic next to a non-numeric literal (``s + "x"``, ``[0] * n``) is left alone: its
    mutant would only raise TypeError.
``comparison``
    ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``, ``in`` ↔ ``not in``, ``is`` ↔ ``is not``.
``constant``
    an integer literal n → n + 1 and n - 1; ``True`` ↔ ``False``. Strings and floats are not changed.
``off_by_one``
    a ``range`` bound ± 1 (``range(b)`` also → ``range(1, b)``), a slice bound ± 1, an index ± 1.
    ``n - 1`` plus one is written ``n``, ``x[2]`` minus one ``x[1]``: the edit a person would make.
``swapped_branches``
    the ``if``/``else`` bodies (or a conditional expression's two values) swapped; an ``if``
    (``elif``, conditional expression) condition negated (``c`` → ``not c``, ``not c`` → ``c``).

Kinds a one-token swap does not revert, for locating a bug (issue 55): :data:`LOCALIZATION_KINDS` is
:data:`KINDS` and these, made only when asked for (``mutants(source, name, kinds=LOCALIZATION_KINDS)``),
so that what ``mutants(source, name)`` returns, and the pairs built from it, do not change:

``wrong_variable``
    one read of a variable (a parameter or a name the function's own body binds; not a global, an
    import, a builtin, the function's name, a nested function's or comprehension's own variable)
    replaced by another such variable first bound on an earlier line (a parameter: always). Roles
    are guessed from use (``range``/``enumerate`` loop variable or subscript: index; arithmetic or
    ordering: number; iterated, indexed, ``len``, list methods: container; string methods: string;
    called: callable); a replacement must share a role and not be a container for a number or a
    callable for a non-callable; the best-matching (two loop indices first), most recently bound
    one is taken; at most :data:`WRONG_VARIABLE_PER_FUNCTION` reads a function, on distinct lines,
    the best-matching first. A called name (``key(x)``) is not replaced.
``swapped_arguments``
    the first two positional arguments of a call swapped (``range(1, n)`` → ``range(n, 1)``); not
    when they are the same text, a ``*args``, a type name or a lambda, two literals of different
    types, nor for type tests, attribute access, symmetric functions (``max``, ``min``, ``gcd``),
    ``map``/``filter`` and ``print``.
``missing_statement``
    one statement deleted, its whole lines: an assignment, augmented assignment, expression
    statement (not a bare string: never a docstring), ``continue``, ``break``, or a ``return`` that
    is not the function's last statement. Never the only statement of its block, never one that
    shares a line; not an assignment of a name bound nowhere else or never read (a NameError or no
    change), nor one that assigns a name a surrounding ``while`` condition reads (the loop would not
    end).
``extra_statement``
    one statement written twice, its whole lines, where that changes what it does: an augmented
    assignment (not ``|=``, ``&=``, ``%=``, ``+= 0``, ``*= 1``), a call statement of ``append``,
    ``extend``, ``insert``, ``pop``, ``remove``, ``reverse``, ``heappush``, ``next`` and the like, or
    an assignment whose value reads its target (``n = n // 10``, ``a, b = b, a + b``, ``s = s[1:]``);
    not one that assigns a name a surrounding ``while`` reads unless that condition is only
    orderings (``i < n``: stepping twice still ends; ``k != 0``, ``while k:`` might not).

Every mutant compiles and differs from the original in its syntax tree; one that two kinds would
both make is kept once, under the more specific kind (swapped_branches, off_by_one, comparison,
operator, constant, then swapped_arguments, wrong_variable, missing_statement, extra_statement: the
kinds of :data:`KINDS` always win, so asking for more kinds never moves a mutant out of them). The
order is deterministic: by kind as in :data:`LOCALIZATION_KINDS`, then by position.

:attr:`Mutant.line` and :attr:`Mutant.column` are where the edit starts (``before`` is replaced by
``after`` there; a duplicated statement is ``after`` inserted at the start of its first line, with
``before`` empty). :attr:`Mutant.lines` are the 1-based lines of the original source that the edit
changes, the bug's lines: those the replaced text lies on and whose text changes (swapped ``if``/``else``
bodies: the bodies' lines that differ, not the ``else:`` between them); a removed or duplicated
statement's own lines.

Pairs
-----
:func:`build_pairs` runs the reference against the official tests in qualm's sandbox
(:func:`qualm.evaluation.labels.official_label`), then tries mutants in a random order seeded by the
task id (so adding problems changes nothing for the others) and keeps up to ``per_problem`` that
fail, at most one per kind (of ``kinds``, :data:`KINDS` by default); a mutant that still passes is an
equivalent mutant (for these tests) and is discarded and counted. A row carries the mutant's fields,
``lines`` among them (rows written before it existed lack it: read ``row.get("lines", [row["line"]])``).
Problems go to ``tune`` or ``holdout`` (:func:`split_of`) by a hash of the task id, so a problem's
pairs are all on one side.

Only HumanEval and MBPP task_ids 511-974 are allowed (:func:`check_allowed`). MBPP 11-510 is the
evaluation's test split and 1-10 its prompt examples: both are refused before anything runs.
The one exception is a test set (``test_split=True``): pairs of MBPP 11-510 only, marked split
``"test"``, which a fit refuses (:func:`qualm.fitting.chance_fit.check_fit_split`) and only a held-out
measurement reads.
"""

from __future__ import annotations

import ast
import hashlib
import io
import random
import re
import time
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from qualm_sandbox import SandboxConfig

from ..fitting.reference_data import MBPP_CALIBRATION_IDS, MBPP_TEST_IDS
from ..lang.python.source import docstring_of
from .labels import official_label
from .problems import Problem

KINDS = ("operator", "comparison", "constant", "off_by_one", "swapped_branches")
# The kinds a bug-localization benchmark asks for (opt in with ``mutants(..., kinds=LOCALIZATION_KINDS)``):
# KINDS first, in the same order, then the edits that a one-token swap does not revert.
LOCALIZATION_KINDS = KINDS + ("wrong_variable", "swapped_arguments", "missing_statement", "extra_statement")
# Which kind keeps a mutant that two kinds make (e.g. `range(0, 10)` → `range(0, 11)`). The kinds of
# LOCALIZATION_KINDS come after all of KINDS, so opting in to them never takes a mutant from a kind of KINDS.
_PRIORITY = ("swapped_branches", "off_by_one", "comparison", "operator", "constant",
             "swapped_arguments", "wrong_variable", "missing_statement", "extra_statement")
# At most this many wrong_variable mutants per function (the best-matching uses, on distinct lines).
WRONG_VARIABLE_PER_FUNCTION = 3
HOLDOUT_FRACTION = 0.3
DEFAULT_PER_PROBLEM = 2
DEFAULT_BUDGET_S = 60.0


class ForbiddenProblem(ValueError):
    """A problem this benchmark must not read or mutate (MBPP's test split or prompt examples)."""


@dataclass(frozen=True)
class Mutant:
    kind: str  # one of LOCALIZATION_KINDS
    description: str  # the edit in words, e.g. "`<` → `<=`"
    line: int  # 1-based line of the edit's start in the whole source
    column: int  # 0-based character column of the edit's start
    before: str  # the original text the edit replaced
    after: str  # what replaced it
    source: str  # the whole program with this one edit
    # 1-based lines of the ORIGINAL source that the edit changes (the bug's lines), ascending; a removed
    # or duplicated statement's own lines. Empty only for a Mutant built by hand without it.
    lines: tuple[int, ...] = ()


# --------------------------------------------------------------------------------------------
# Policy: which problems, which split


def check_allowed(problem: Problem, test_split: bool = False) -> None:
    """Raise :class:`ForbiddenProblem` unless ``problem`` is HumanEval or MBPP 511-974, or, for a
    test set (``test_split``), MBPP 11-510 and nothing else."""
    if test_split:
        number = problem.task_id.rsplit("/", 1)[-1]
        if problem.dataset == "mbpp" and number.isdigit() and int(number) in MBPP_TEST_IDS:
            return
        raise ForbiddenProblem(f"{problem.task_id}: a test set of pairs is made from MBPP task_ids 11-510 only")
    if problem.dataset == "humaneval":
        return
    if problem.dataset in ("mbpp", "mbpp-sanitized"):
        try:
            number = int(problem.task_id.rsplit("/", 1)[-1])
        except ValueError:
            raise ForbiddenProblem(f"{problem.task_id}: not an MBPP task id") from None
        if number in MBPP_CALIBRATION_IDS:
            return
        if number in MBPP_TEST_IDS:
            raise ForbiddenProblem(f"{problem.task_id}: MBPP task_ids 11-510 are the evaluation's test split; mutants are never made from them")
        raise ForbiddenProblem(f"{problem.task_id}: only MBPP task_ids 511-974 may be used (1-10 are prompt examples)")
    raise ForbiddenProblem(f"{problem.task_id}: data set {problem.dataset!r}; mutant pairs are made from HumanEval and MBPP 511-974 only")


def split_of(task_id: str) -> str:
    """``"holdout"`` for about :data:`HOLDOUT_FRACTION` of problems, else ``"tune"``: a stable hash
    of the task id, so a problem's pairs never straddle the split."""
    digest = hashlib.sha256(f"qualm-mutants/{task_id}".encode()).digest()
    return "holdout" if int.from_bytes(digest[:8], "big") / 2**64 < HOLDOUT_FRACTION else "tune"


def problem_seed(task_id: str, seed: int = 0) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}/{task_id}".encode()).digest()[:8], "big")


# --------------------------------------------------------------------------------------------
# Source positions


class _Text:
    """The source with ast positions (line, UTF-8 byte column) and tokens as character offsets."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        self.tokens = self._tokens()

    def _line(self, lineno: int) -> str:
        end = self.starts[lineno] if lineno < len(self.starts) else len(self.text)
        return self.text[self.starts[lineno - 1] : end]

    def offset(self, lineno: int, col: int) -> int:
        line = self._line(lineno)
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def seg(self, node: ast.AST) -> str:
        a, b = self.span(node)
        return self.text[a:b]

    def line_col(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:  # the last line start at or before offset
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.starts[lo]

    def _tokens(self) -> list[tuple[int, int, str]]:
        """(start, end, text) of each operator and name token. Lines are fed with a bare "\\r"
        ending written as "\\n" (same length), so positions match ``starts``."""
        lines = [self._line(i) for i in range(1, len(self.starts) + 1)]
        lines = [ln[:-1] + "\n" if ln.endswith("\r") and not ln.endswith("\r\n") else ln for ln in lines]
        out = []
        try:
            for tok in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
                if tok.type in (tokenize.OP, tokenize.NAME):
                    (r1, c1), (r2, c2) = tok.start, tok.end
                    if r1 <= len(self.starts) and r2 <= len(self.starts):
                        out.append((self.starts[r1 - 1] + c1, self.starts[r2 - 1] + c2, tok.string))
        except (tokenize.TokenError, SyntaxError):
            return []
        return out

    def tokens_between(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """Tokens wholly inside [start, end), parentheses left out."""
        return [t for t in self.tokens if t[0] >= start and t[1] <= end and t[2] not in ("(", ")")]


def _short(text: str, cap: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= cap else text[: cap - 1] + "…"


@dataclass(frozen=True)
class _Edit:
    kind: str
    start: int
    end: int
    after: str
    description: str
    lines: tuple[int, ...] = ()  # the changed lines when not simply those the span [start, end) covers


# --------------------------------------------------------------------------------------------
# The operators


_BINOP_SYMBOL = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.MatMult: "@",
}
_BINOP_SWAPS = {
    "+": ("-",), "-": ("+",), "*": ("/", "//"), "/": ("*", "//"), "//": ("*", "/"), "%": ("//",), "**": ("*",),
    "<<": (">>",), ">>": ("<<",), "&": ("|",), "|": ("&",),
}
_COMPARE_SYMBOL = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}
_COMPARE_SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "in": "not in", "not in": "in", "is": "is not", "is not": "is"}
# Expressions that need parentheses before `+ 1` or after `not` is put in front of them.
_LOW_PRECEDENCE = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr, ast.Compare)
_NON_NUMERIC = (ast.JoinedStr, ast.List, ast.ListComp, ast.Tuple, ast.Dict, ast.DictComp, ast.Set, ast.SetComp, ast.GeneratorExp)


def _non_numeric(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, (int, float, complex)) or isinstance(node.value, bool)
    return isinstance(node, _NON_NUMERIC)


def _int_const(node: ast.AST) -> int | None:
    """The value of an integer literal, or of a negated one (``-1``)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return None


class _Maker:
    def __init__(self, src: _Text, nodes: list[tuple[ast.AST, ast.AST | None]], fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None, kinds: Sequence[str] = KINDS):
        self.src = src
        self.nodes = nodes
        self.fn = fn
        self.kinds = tuple(kinds)
        self.edits: list[_Edit] = []

    def add(self, kind: str, start: int, end: int, after: str, description: str, lines: tuple[int, ...] = ()) -> None:
        self.edits.append(_Edit(kind, start, end, after, description, lines))

    def run(self) -> list[_Edit]:
        for node, parent in self.nodes:
            self.operator(node)
            self.comparison(node)
            self.constant(node, parent)
            self.off_by_one(node)
            self.swapped_branches(node)
        if self.fn is not None:
            if "wrong_variable" in self.kinds:
                self.wrong_variable(self.fn)
            if "swapped_arguments" in self.kinds:
                for node, _ in self.nodes:
                    self.swapped_arguments(node)
            if "missing_statement" in self.kinds or "extra_statement" in self.kinds:
                self.statements(self.fn)
        return [e for e in self.edits if e.kind in self.kinds]

    def _span_lines(self, start: int, end: int) -> tuple[int, ...]:
        """The 1-based lines that the characters [start, end) lie on (the start's line when empty)."""
        first = self.src.line_col(start)[0]
        return tuple(range(first, self.src.line_col(max(start, end - 1))[0] + 1))

    # --- operator -----------------------------------------------------------------------
    def _swap_token(self, kind: str, gap_start: int, gap_end: int, expected: str, replacements: Iterable[str], suffix: str = "") -> None:
        toks = self.src.tokens_between(gap_start, gap_end)
        if len(toks) != 1 or toks[0][2] != expected + suffix:
            return
        start, end, text = toks[0]
        for new in replacements:
            self.add(kind, start, end, new + suffix, f"`{text}` → `{new + suffix}`")

    def operator(self, node: ast.AST) -> None:
        src = self.src
        if isinstance(node, ast.BinOp):
            symbol = _BINOP_SYMBOL.get(type(node.op))
            if symbol in _BINOP_SWAPS and not (_non_numeric(node.left) or _non_numeric(node.right)):
                self._swap_token("operator", src.span(node.left)[1], src.span(node.right)[0], symbol, _BINOP_SWAPS[symbol])
        elif isinstance(node, ast.AugAssign):
            symbol = _BINOP_SYMBOL.get(type(node.op))
            if symbol in _BINOP_SWAPS and not _non_numeric(node.value):
                self._swap_token("operator", src.span(node.target)[1], src.span(node.value)[0], symbol, _BINOP_SWAPS[symbol], "=")
        elif isinstance(node, ast.BoolOp):
            word = "and" if isinstance(node.op, ast.And) else "or"
            for left, right in zip(node.values, node.values[1:]):
                self._swap_token("operator", src.span(left)[1], src.span(right)[0], word, ("or" if word == "and" else "and",))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self._drop_not("operator", node, "removed `not`")

    def _drop_not(self, kind: str, node: ast.UnaryOp, description: str) -> None:
        start, _ = self.src.span(node)
        operand_start = self.src.span(node.operand)[0]
        toks = self.src.tokens_between(start, operand_start)
        if not toks or toks[0][2] != "not" or toks[0][0] != start:
            return
        end = toks[0][1]
        while end < operand_start and self.src.text[end] in " \t":
            end += 1
        self.add(kind, start, end, "", description)

    # --- comparison ---------------------------------------------------------------------
    def comparison(self, node: ast.AST) -> None:
        if not isinstance(node, ast.Compare):
            return
        lefts = [node.left, *node.comparators[:-1]]
        for op, left, right in zip(node.ops, lefts, node.comparators):
            symbol = _COMPARE_SYMBOL[type(op)]
            toks = self.src.tokens_between(self.src.span(left)[1], self.src.span(right)[0])
            if " ".join(t[2] for t in toks) != symbol:
                continue
            new = _COMPARE_SWAP[symbol]
            self.add("comparison", toks[0][0], toks[-1][1], new, f"`{symbol}` → `{new}`")

    # --- constant -----------------------------------------------------------------------
    def constant(self, node: ast.AST, parent: ast.AST | None) -> None:
        if not isinstance(node, ast.Constant):
            return
        start, end = self.src.span(node)
        text = self.src.text[start:end]
        if isinstance(node.value, bool):
            new = "False" if node.value else "True"
            self.add("constant", start, end, new, f"`{text}` → `{new}`")
        elif type(node.value) is int:
            negated = isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)
            for value in (node.value + 1, node.value - 1):
                if value < 0 and negated:
                    continue  # `-0` → `--1`
                self.add("constant", start, end, str(value), f"`{text}` → `{value}`")

    # --- off by one ---------------------------------------------------------------------
    def _shifted(self, node: ast.AST, delta: int) -> tuple[int, int, str] | None:
        """(start, end, replacement) that adds ``delta`` to the integer expression ``node``."""
        src = self.src
        start, end = src.span(node)
        value = _int_const(node)
        if value is not None:
            return start, end, str(value + delta)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and (k := _int_const(node.right)) is not None and isinstance(node.right, ast.Constant):
            offset = k if isinstance(node.op, ast.Add) else -k
            toks = src.tokens_between(src.span(node.left)[1], src.span(node.right)[0])
            if len(toks) != 1:
                return None
            if offset + delta == 0:  # `n - 1` plus one: `n`
                cut = toks[0][0]
                while cut > 0 and src.text[cut - 1] in " \t":
                    cut -= 1
                return cut, end, ""
            if (offset + delta > 0) == (offset > 0):
                c_start, c_end = src.span(node.right)
                return c_start, c_end, str(abs(offset + delta))
            return None
        if isinstance(node, (ast.Starred, ast.Slice, ast.Tuple)) or _non_numeric(node):
            return None
        text = src.text[start:end]
        low = isinstance(node, _LOW_PRECEDENCE) or (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor))) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
        if low or "\n" in text or "\r" in text:
            text = f"({text})"
        return start, end, f"{text} {'+' if delta > 0 else '-'} {abs(delta)}"

    def _shift_both(self, node: ast.AST, what: str, context: ast.AST) -> None:
        """Add and subtract one; described on ``context`` (the call or subscript), before and after."""
        c_start, c_end = self.src.span(context)
        text = self.src.text
        for delta in (1, -1):
            got = self._shifted(node, delta)
            if got is not None:
                start, end, after = got
                changed = text[c_start:start] + after + text[end:c_end]
                self.add("off_by_one", start, end, after, f"{what}: `{_short(text[c_start:c_end])}` → `{_short(changed)}`")

    def off_by_one(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and not node.keywords and 1 <= len(node.args) <= 3 and not any(isinstance(a, ast.Starred) for a in node.args):
            if len(node.args) == 1:
                self._shift_both(node.args[0], "range stop", node)
                start, end = self.src.span(node.args[0])
                text = self.src.text[start:end]
                self.add("off_by_one", start, end, f"1, {text}", f"range start: `{_short(self.src.seg(node))}` → `range(1, {_short(text)})`")
            else:
                self._shift_both(node.args[0], "range start", node)
                self._shift_both(node.args[1], "range stop", node)
        elif isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                if node.slice.lower is not None:
                    self._shift_both(node.slice.lower, "slice start", node)
                if node.slice.upper is not None:
                    self._shift_both(node.slice.upper, "slice stop", node)
            elif isinstance(node.slice, (ast.Name, ast.BinOp, ast.UnaryOp, ast.Call)) or _int_const(node.slice) is not None:
                self._shift_both(node.slice, "index", node)

    # --- swapped branches ---------------------------------------------------------------
    def _negate(self, test: ast.AST, what: str) -> None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            self._drop_not("swapped_branches", test, f"negated the {what} condition: removed `not`")
            return
        start, end = self.src.span(test)
        text = self.src.text[start:end]
        after = f"not ({text})" if isinstance(test, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)) else f"not {text}"
        self.add("swapped_branches", start, end, after, f"negated the {what} condition `{_short(text)}`")

    def _swap(self, first: tuple[int, int], second: tuple[int, int], description: str, lines: tuple[int, ...] = ()) -> None:
        (a1, a2), (b1, b2) = first, second
        text = self.src.text
        self.add("swapped_branches", a1, b2, text[b1:b2] + text[a2:b1] + text[a1:a2], description, lines)

    def swapped_branches(self, node: ast.AST) -> None:
        src = self.src
        if isinstance(node, ast.If):
            keyword = "elif" if src.text.startswith("elif", src.span(node)[0]) else "if"
            is_elif_chain = len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and src.text.startswith("elif", src.span(node.orelse[0])[0])
            if node.orelse and not is_elif_chain:
                body = (src.span(node.body[0])[0], src.span(node.body[-1])[1])
                orelse = (src.span(node.orelse[0])[0], src.span(node.orelse[-1])[1])
                # the bodies' lines change; the `else:` between them is only moved
                lines = tuple(sorted({*self._span_lines(*body), *self._span_lines(*orelse)}))
                self._swap(body, orelse, f"swapped the `{keyword}` and `else` branches of `{keyword} {_short(src.seg(node.test))}`", lines)
            self._negate(node.test, f"`{keyword}`")
        elif isinstance(node, ast.IfExp):
            self._swap(src.span(node.body), src.span(node.orelse), f"swapped the two values of `{_short(src.seg(node))}`")
            self._negate(node.test, "conditional expression's")

    # --- wrong variable -----------------------------------------------------------------
    def wrong_variable(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """One read of a variable replaced by another variable of the function bound on an earlier
        line, of the most similar role; the best :data:`WRONG_VARIABLE_PER_FUNCTION` reads, one a line."""
        scope = _Scope(fn)
        picks: list[tuple[int, int, int, ast.Name, str]] = []
        for node, shadow in scope.loads:
            old = node.id
            if old not in scope.variables or old in shadow:
                continue
            best: tuple[int, int, str] | None = None
            for new in scope.variables:
                if new == old or new in shadow or scope.first[new] >= node.lineno:
                    continue
                affinity = scope.affinity(old, new)
                if affinity < 1:
                    continue
                key = (-affinity, -scope.first[new], new)  # most alike, then the most recently bound
                if best is None or key < best:
                    best = key
            if best is not None:
                picks.append((best[0], node.lineno, node.col_offset, node, best[2]))
        lines: set[int] = set()
        for _, line, _, node, new in sorted(picks, key=lambda p: p[:3]):
            if line in lines:
                continue
            lines.add(line)
            start, end = self.src.span(node)
            self.add("wrong_variable", start, end, new, f"`{node.id}` → `{new}`")
            if len(lines) == WRONG_VARIABLE_PER_FUNCTION:
                break

    # --- swapped arguments --------------------------------------------------------------
    def swapped_arguments(self, node: ast.AST) -> None:
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            return
        first, second = node.args[:2]
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name in _NO_SWAP_CALLS or any(isinstance(a, ast.Starred) or _type_like(a) for a in (first, second)):
            return
        if isinstance(first, ast.Constant) and isinstance(second, ast.Constant) and type(first.value) is not type(second.value):
            return  # `s.split(",", 1)` → `s.split(1, ",")` could only raise TypeError
        src = self.src
        (a1, a2), (b1, b2) = src.span(first), src.span(second)
        text = src.text
        if text[a1:a2] == text[b1:b2]:
            return
        after = text[b1:b2] + text[a2:b1] + text[a1:a2]
        c_start, c_end = src.span(node)
        changed = text[c_start:a1] + after + text[b2:c_end]
        self.add("swapped_arguments", a1, b2, after, f"swapped arguments: `{_short(text[c_start:c_end])}` → `{_short(changed)}`")

    # --- missing and extra statements ---------------------------------------------------
    def _own_lines(self, stmt: ast.stmt) -> tuple[int, int] | None:
        """(start of the statement's first line, start of the line after its last) when the statement
        is alone on its lines (a comment may follow it); None when it shares a line (`;`, `if c: x`)."""
        src = self.src
        start, end = src.span(stmt)
        line_start = src.starts[stmt.lineno - 1]
        line_end = src.starts[stmt.end_lineno] if stmt.end_lineno < len(src.starts) else len(src.text)  # type: ignore[operator]
        if src.text[line_start:start].strip(" \t\f") or not re.fullmatch(r"[ \t\f]*(#[^\r\n]*)?(\r\n|\r|\n)?", src.text[end:line_end]):
            return None
        return line_start, line_end

    def statements(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        scope = _Scope(fn)
        parents = {id(child): node for node in ast.walk(fn) for child in ast.iter_child_nodes(node)}
        text = self.src.text
        newline = m.group() if (m := re.search(r"\r\n|\r|\n", text)) else "\n"
        for owner in ast.walk(fn):
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(owner, field_name, None)
                if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                    continue
                for stmt in block:
                    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                        continue  # a docstring, or a bare string or `...`
                    own = self._own_lines(stmt)
                    if own is None:
                        continue
                    line_start, line_end = own
                    seg = _short(self.src.seg(stmt))
                    if "missing_statement" in self.kinds and len(block) >= 2 and _removable(stmt, owner, block, scope, parents):
                        self.add("missing_statement", line_start, line_end, "", f"removed `{seg}`")
                    if "extra_statement" in self.kinds and _repeatable(stmt) and not _ends_loop(stmt, parents, ordered_ok=True):
                        copy = text[line_start:line_end]
                        if not copy.endswith(("\n", "\r")):
                            copy += newline  # the last line of a source without a final line end
                        lines = tuple(range(stmt.lineno, stmt.end_lineno + 1))  # type: ignore[operator]
                        self.add("extra_statement", line_start, line_start, copy, f"duplicated `{seg}`", lines)


# --------------------------------------------------------------------------------------------
# The new kinds' rules: which calls, statements and variables


# Calls whose first two arguments are not swapped: type tests and attribute access (the swap could only
# raise TypeError), symmetric functions (the swap changes nothing), output only, a function and its data.
_NO_SWAP_CALLS = frozenset({
    "isinstance", "issubclass", "getattr", "setattr", "hasattr", "delattr", "super", "print",
    "max", "min", "gcd", "lcm", "hypot", "map", "filter",
})
_TYPE_NAMES = frozenset({"int", "float", "complex", "str", "bytes", "bool", "list", "dict", "set", "frozenset", "tuple", "type", "object"})
# Call statements that do something else when repeated (`xs.sort()` twice is `xs.sort()`).
_REPEAT_CALLS = frozenset({
    "append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft", "popitem", "remove",
    "reverse", "rotate", "heappush", "heappop", "heappushpop", "next",
})
# Operators that give the same result applied twice (`x |= m`, `x %= k`): a duplicate changes nothing.
_IDEMPOTENT_OPS = (ast.BitOr, ast.BitAnd, ast.Mod)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_CONTAINER_CALLS = frozenset({"len", "sorted", "sum", "set", "list", "tuple", "dict", "reversed", "enumerate", "zip", "any", "all", "max", "min", "Counter"})
_CONTAINER_METHODS = frozenset({
    "append", "appendleft", "extend", "insert", "pop", "popleft", "remove", "index", "count", "sort",
    "reverse", "copy", "keys", "values", "items", "get", "add", "update", "discard", "setdefault",
})
_STRING_METHODS = frozenset({
    "split", "rsplit", "strip", "lstrip", "rstrip", "lower", "upper", "replace", "startswith", "endswith",
    "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "join", "find", "rfind", "swapcase", "capitalize",
})
_NUMBER_CALLS = frozenset({"len", "sum", "abs", "int", "round", "ord", "float"})
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _type_like(node: ast.AST) -> bool:
    """A type name or a function literal: an argument that a swap could only make raise TypeError."""
    return isinstance(node, ast.Lambda) or (isinstance(node, ast.Name) and node.id in _TYPE_NAMES)


def _target_names(target: ast.AST) -> list[str]:
    """The names a target binds (``a``, ``a, (b, *c)``); not those of ``x[i]`` or ``o.a``."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _target_names(elt)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _arithmetic_names(node: ast.AST | None) -> list[ast.Name]:
    """``i`` of ``i``, ``n - 1 - i``, ``-k``; not the names inside calls or subscripts (``len(s)``)."""
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.BinOp):
        return _arithmetic_names(node.left) + _arithmetic_names(node.right)
    if isinstance(node, ast.UnaryOp):
        return _arithmetic_names(node.operand)
    return []


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    return None


class _Scope:
    """The variables of one function (its parameters and the names its own body binds; not those of
    nested functions, lambdas or comprehensions), the line each is first bound on, their reads, and a
    cheap guess at each one's role from how it is used."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef):
        self.first: dict[str, int] = {}  # the line of the first binding; 0 for a parameter
        self.bindings: dict[str, int] = {}  # how many plain bindings (not `x += ...`), parameters included
        self.read: set[str] = set()  # names read anywhere in the function's own scope
        self.loads: list[tuple[ast.Name, frozenset[str]]] = []  # each read, with the names nested scopes bind there
        self._other: set[str] = {fn.name}  # globals, nonlocals, imports, nested functions and classes, `except ... as e`
        self._called: set[int] = set()
        a = fn.args
        for arg in (*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])):
            self._bind(arg.arg, 0)
        body = fn.body[1:] if ast.get_docstring(fn, clean=False) is not None else fn.body
        for stmt in body:
            self._visit(stmt, frozenset())
        self.variables = sorted(n for n in self.first if n not in self._other and n not in ("self", "cls"))
        self.loads = [(n, shadow) for n, shadow in self.loads if id(n) not in self._called]  # `key(x)`: a callable stays
        self.roles = _roles(fn)

    def _bind(self, name: str, line: int, plain: bool = True) -> None:
        self.first[name] = min(self.first.get(name, line), line)
        if plain:
            self.bindings[name] = self.bindings.get(name, 0) + 1

    def _visit(self, node: ast.AST, shadow: frozenset[str]) -> None:
        if isinstance(node, ast.JoinedStr):
            return  # f-string parts have unreliable positions before Python 3.12
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._other.add(node.name)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            self._other.update(node.names)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self._other.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
            return
        if isinstance(node, ast.ExceptHandler) and node.name:
            self._other.add(node.name)
        if isinstance(node, ast.Lambda):
            a = node.args
            for default in (*a.defaults, *a.kw_defaults):
                if default is not None:
                    self._visit(default, shadow)
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} | {p.arg for p in (a.vararg, a.kwarg) if p}
            self._visit(node.body, shadow | params)
            return
        if isinstance(node, _COMPREHENSIONS):
            inner = shadow | {n for g in node.generators for n in _target_names(g.target)}
            for i, g in enumerate(node.generators):
                self._visit(g.iter, shadow if i == 0 else inner)  # the first iterable is read outside
                for cond in g.ifs:
                    self._visit(cond, inner)
            for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
                self._visit(part, inner)
            return
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self._bind(node.target.id, node.lineno, plain=False)
            self.read.add(node.target.id)
            self._visit(node.value, shadow)
            return
        if isinstance(node, ast.Call):
            self._called.add(id(node.func))
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store) and node.id not in shadow:
                self._bind(node.id, node.lineno)
            elif isinstance(node.ctx, ast.Load):
                self.loads.append((node, shadow))
                if node.id not in shadow:
                    self.read.add(node.id)
            return
        for child in ast.iter_child_nodes(node):
            self._visit(child, shadow)

    def affinity(self, a: str, b: str) -> int:
        """How alike two variables' roles are: the roles they share (two loop indices count one more);
        0 when they share none, or one is called, or one is only a sequence and the other only a number."""
        ra, rb = self.roles.get(a, set()), self.roles.get(b, set())
        if ("callable" in ra) != ("callable" in rb):
            return 0
        seq, num = {"container", "string"}, {"number", "index"}
        if (ra & seq and not ra & num and rb & num and not rb & seq) or (rb & seq and not rb & num and ra & num and not ra & seq):
            return 0
        shared = ra & rb
        return len(shared) + ("index" in shared)


def _roles(fn: ast.AST) -> dict[str, set[str]]:
    """Roles of names by how they are used: ``index`` (a ``range`` or ``enumerate`` loop variable, a
    subscript), ``number`` (arithmetic, ordering, a numeric value), ``container`` (iterated, indexed,
    ``len``, list methods), ``string`` (string methods, a string value), ``element`` (a loop variable
    over something else), ``callable``."""
    roles: dict[str, set[str]] = {}

    def add(node: ast.AST | None, role: str) -> None:
        if isinstance(node, ast.Name):
            roles.setdefault(node.id, set()).add(role)

    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            it, target = node.iter, node.target
            if _call_name(it) == "range" and isinstance(it, ast.Call) and isinstance(it.func, ast.Name):
                for n in ast.walk(target):
                    add(n, "index")
            elif _call_name(it) == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                add(target.elts[0], "index")
                add(target.elts[1], "element")
            else:
                for n in ast.walk(target):
                    add(n, "element")
            add(it, "container")
        elif isinstance(node, ast.Subscript):
            add(node.value, "container")
            sl = node.slice
            for part in (sl.lower, sl.upper, sl.step) if isinstance(sl, ast.Slice) else (sl,):
                for n in _arithmetic_names(part):
                    add(n, "index")
        elif isinstance(node, ast.Call):
            name = _call_name(node)
            if isinstance(node.func, ast.Name):
                add(node.func, "callable")
                if name in _CONTAINER_CALLS and len(node.args) == 1:
                    add(node.args[0], "container")
                elif name == "range":
                    for arg in node.args:
                        add(arg, "number")
            elif isinstance(node.func, ast.Attribute):
                if name in _CONTAINER_METHODS:
                    add(node.func.value, "container")
                elif name in _STRING_METHODS:
                    add(node.func.value, "string")
        elif isinstance(node, ast.BinOp) and not (_non_numeric(node.left) or _non_numeric(node.right)):
            add(node.left, "number")
            add(node.right, "number")
        elif isinstance(node, ast.AugAssign) and not _non_numeric(node.value):
            add(node.target, "number")
            add(node.value, "number")
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:]):
                if isinstance(op, _ORDERING):
                    add(left, "number")
                    add(right, "number")
                elif isinstance(op, (ast.In, ast.NotIn)):
                    add(left, "element")
                    add(right, "container")
        elif isinstance(node, ast.Assign):
            value = node.value
            role = None
            if isinstance(value, ast.Constant):
                role = "string" if isinstance(value.value, str) else "number" if isinstance(value.value, (int, float)) and not isinstance(value.value, bool) else None
            elif isinstance(value, (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp)) or _call_name(value) in ("list", "sorted", "set", "dict", "tuple", "Counter"):
                role = "container"
            elif _call_name(value) in _NUMBER_CALLS:
                role = "number"
            elif _call_name(value) == "str" or isinstance(value, ast.JoinedStr):
                role = "string"
            if role is not None:
                for target in node.targets:
                    add(target, role)
    return roles


def _removable(stmt: ast.stmt, owner: ast.AST, block: list[ast.stmt], scope: _Scope, parents: dict[int, ast.AST]) -> bool:
    """Whether ``missing_statement`` may delete ``stmt`` (of ``block``, a list of ``owner``'s)."""
    if isinstance(stmt, ast.Return):
        return not (isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)) and block is owner.body and stmt is block[-1])
    if isinstance(stmt, (ast.Continue, ast.Break)):
        return True
    if isinstance(stmt, ast.Expr):
        return True  # bare constants were left out before
    if isinstance(stmt, ast.AugAssign) or (isinstance(stmt, ast.AnnAssign) and stmt.value is not None):
        names = _target_names(stmt.target)
    elif isinstance(stmt, ast.Assign):
        names = [n for t in stmt.targets for n in _target_names(t)]
    else:
        return False
    if not isinstance(stmt, ast.AugAssign):
        # the only binding of a name: deleting it leaves a NameError, not a bug to find; a name never read:
        # deleting it changes nothing
        if any(scope.bindings.get(n, 0) < 2 or n not in scope.read for n in names):
            return False
    return not _ends_loop(stmt, parents)


def _assigned(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, ast.Assign):
        return {n for t in stmt.targets for n in _target_names(t)}
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        return set(_target_names(stmt.target))
    return set()


def _ends_loop(stmt: ast.stmt, parents: dict[int, ast.AST], ordered_ok: bool = False) -> bool:
    """Whether ``stmt`` assigns a name that the condition of a ``while`` around it reads: without it
    the loop would not end, and done twice it could step over the end of ``while i != n`` or ``while
    k:`` (``ordered_ok``: a condition of ``<``, ``<=``, ``>``, ``>=`` alone still ends)."""
    names = _assigned(stmt)
    node: ast.AST | None = stmt
    while names and (node := parents.get(id(node))) is not None:
        if isinstance(node, ast.While) and _names_read(node.test) & names:
            if not (ordered_ok and _ordered(node.test)):
                return True
    return False


def _ordered(test: ast.AST) -> bool:
    """Whether ``test`` is comparisons with ordering operators only, joined by ``and``/``or`` (``i < n``,
    ``i < n and j >= 0``): a counter stepped twice still passes such a bound."""
    if isinstance(test, ast.BoolOp):
        return all(_ordered(v) for v in test.values)
    return isinstance(test, ast.Compare) and all(isinstance(op, _ORDERING) for op in test.ops)


def _repeatable(stmt: ast.stmt) -> bool:
    """Whether ``extra_statement`` duplicates ``stmt``: a statement that does something else twice."""
    if isinstance(stmt, ast.AugAssign):
        value = stmt.value
        if isinstance(stmt.op, _IDEMPOTENT_OPS):
            return False
        if isinstance(value, ast.Constant) and not isinstance(value.value, bool) and value.value == (0 if isinstance(stmt.op, (ast.Add, ast.Sub)) else 1):
            return False  # `x += 0`, `x *= 1`
        return True
    if isinstance(stmt, ast.Expr):
        return _call_name(stmt.value) in _REPEAT_CALLS
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        names = set(_target_names(stmt.targets[0]))
        value = stmt.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, _IDEMPOTENT_OPS):
            return False
        # `n = n // 10`, `a, b = b, a + b`, `s = s[1:]`: the value reads what it assigns
        return bool(names) and isinstance(value, (ast.BinOp, ast.Tuple, ast.Subscript)) and bool(_names_read(value) & names)
    return False


# --------------------------------------------------------------------------------------------
# Public: mutants of a function


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():  # old references have invalid escapes like "\d"
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _target(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    funcs = (ast.FunctionDef, ast.AsyncFunctionDef)
    top = next((n for n in tree.body if isinstance(n, funcs) and n.name == name), None)
    return top or next((n for n in ast.walk(tree) if isinstance(n, funcs) and n.name == name), None)


def _body_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[ast.AST, ast.AST | None]]:
    """(node, parent) for every node of the body, docstring, annotations and f-strings left out
    (f-string parts have unreliable positions before Python 3.12)."""
    body = fn.body[1:] if ast.get_docstring(fn, clean=False) is not None else fn.body
    out: list[tuple[ast.AST, ast.AST | None]] = []

    def visit(node: ast.AST, parent: ast.AST | None) -> None:
        if isinstance(node, ast.JoinedStr):
            return
        out.append((node, parent))
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns", "decorator_list", "type_comment"):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    visit(child, node)

    for stmt in body:
        visit(stmt, fn)
    return out


def mutants(source: str, entry_point: str, *, kinds: Sequence[str] = KINDS) -> list[Mutant]:
    """Every single-edit mutant of function ``entry_point``'s body in ``source`` of the given ``kinds``
    (see the module docstring; :data:`KINDS` by default, :data:`LOCALIZATION_KINDS` for all); empty
    when the function is not there or the source does not parse."""
    if isinstance(kinds, str) or any(k not in LOCALIZATION_KINDS for k in kinds):
        raise ValueError(f"unknown mutant kinds {kinds!r}: choose from {', '.join(LOCALIZATION_KINDS)}")
    tree = _parse(source)
    fn = _target(tree, entry_point) if tree is not None else None
    if fn is None:
        return []
    src = _Text(source)
    if not src.tokens:
        return []
    original = ast.dump(tree)
    edits = _Maker(src, _body_nodes(fn), fn, kinds).run()
    edits.sort(key=lambda e: (_PRIORITY.index(e.kind), e.start))  # stable: generation order within a place
    seen: set[str] = set()
    kept: list[Mutant] = []
    for e in edits:
        text = source[: e.start] + e.after + source[e.end :]
        if text in seen:
            continue
        seen.add(text)
        mutated = _parse(text)
        if mutated is None or ast.dump(mutated) == original:
            continue
        try:
            compile(mutated, "<mutant>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue  # e.g. `return` swapped out of a function is a compile-time error
        line, column = src.line_col(e.start)
        lines = e.lines or tuple(range(line, src.line_col(max(e.start, e.end - 1))[0] + 1))
        if e.kind not in ("missing_statement", "extra_statement") and len(lines) > 1:
            lines = _changed(lines, source, text)
        kept.append(Mutant(e.kind, e.description, line, column, source[e.start : e.end], e.after, text, lines))
    kept.sort(key=lambda m: (LOCALIZATION_KINDS.index(m.kind), m.line, m.column))
    return kept


def _changed(lines: tuple[int, ...], source: str, mutated: str) -> tuple[int, ...]:
    """Of an edit's ``lines``, those whose text it changes: where the line count stays, the lines that
    differ (swapped bodies that end alike); else those between the common first and last lines."""
    old, new = source.splitlines(keepends=True), mutated.splitlines(keepends=True)
    if len(old) == len(new):
        return tuple(n for n in lines if old[n - 1] != new[n - 1])
    head = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    tail = next((i for i, (a, b) in enumerate(zip(reversed(old), reversed(new))) if a != b), min(len(old), len(new)))
    return tuple(n for n in lines if head < n <= len(old) - tail)


def problem_mutants(problem: Problem, *, kinds: Sequence[str] = KINDS) -> list[Mutant]:
    """:func:`mutants` of the problem's reference solution, refusing forbidden problems."""
    check_allowed(problem)
    if problem.reference is None or problem.entry_point is None:
        return []
    return mutants(problem.reference, problem.entry_point, kinds=kinds)


# --------------------------------------------------------------------------------------------
# Pairs


@dataclass
class ProblemPairs:
    """What :func:`build_pairs` did with one problem."""

    task_id: str
    dataset: str
    split: str
    status: str  # "ok", "reference_failed" (its own tests fail), "no_candidates", "no_failing_mutant"
    reference_detail: str
    candidates: int = 0  # mutants there were
    tried: int = 0  # mutants labelled
    equivalent: int = 0  # labelled mutants that still passed (discarded)
    out_of_time: bool = False
    seconds: float = 0.0
    rows: list[dict] = field(default_factory=list)


def task_text(problem: Problem) -> str:
    """The task in words, as calibration puts it into a solution without a docstring: the entry
    point's docstring (HumanEval) or the prompt's text (MBPP)."""
    return (problem.entry_point and docstring_of(problem.prompt, problem.entry_point)) or docstring_of(problem.prompt) or ""


def pairs_for_problem(
    problem: Problem,
    *,
    per_problem: int = DEFAULT_PER_PROBLEM,
    budget_s: float = DEFAULT_BUDGET_S,
    config: SandboxConfig | None = None,
    seed: int = 0,
    test_split: bool = False,
    kinds: Sequence[str] = KINDS,
) -> ProblemPairs:
    """Label the reference, then mutants of ``kinds`` in a seeded order until ``per_problem`` fail
    (one per kind) or the ``budget_s`` (reference included) is spent. ``test_split``: a test set's
    pair (see the module's docstring), split ``"test"``."""
    check_allowed(problem, test_split)
    started = time.monotonic()
    result = ProblemPairs(problem.task_id, problem.dataset, "test" if test_split else split_of(problem.task_id), "ok", "")
    if problem.reference is None or problem.entry_point is None:
        result.status, result.reference_detail = "no_candidates", "no reference solution or entry point"
        return result
    reference = official_label(problem, problem.reference, config)
    result.reference_detail = reference.detail
    if not reference.passed:
        result.status = "reference_failed"
        result.seconds = time.monotonic() - started
        return result
    candidates = mutants(problem.reference, problem.entry_point, kinds=kinds)
    result.candidates = len(candidates)
    rng = random.Random(problem_seed(problem.task_id, seed))
    by_kind: dict[str, list[Mutant]] = {}
    for m in candidates:
        by_kind.setdefault(m.kind, []).append(m)
    for pool in by_kind.values():
        rng.shuffle(pool)
    task = task_text(problem)
    while len(result.rows) < per_problem:
        open_kinds = [k for k in LOCALIZATION_KINDS if k in kinds and by_kind.get(k)]
        if not open_kinds:
            break
        if time.monotonic() - started >= budget_s:
            result.out_of_time = True
            break
        kind = rng.choice(open_kinds)  # a kind first, so kinds with many candidates do not crowd out the rest
        m = by_kind[kind].pop()
        label = official_label(problem, m.source, config)
        result.tried += 1
        if label.passed:
            result.equivalent += 1
            continue
        by_kind[kind] = []  # at most one pair per kind
        result.rows.append({
            "pair_id": f"{problem.task_id}#{kind}",
            "dataset": problem.dataset,
            "task_id": problem.task_id,
            "split": result.split,
            "kind": kind,
            "description": m.description,
            "line": m.line,
            "column": m.column,
            "lines": list(m.lines),  # added with the localization kinds: a reader of older rows falls back to [line]
            "before": m.before,
            "after": m.after,
            "original": problem.reference,
            "mutant": m.source,
            "entry_point": problem.entry_point,
            "prompt": problem.prompt,
            "task": task,
            "mutant_status": label.status,
            "mutant_detail": label.detail,
        })
    if not candidates:
        result.status = "no_candidates"
    elif not result.rows:
        result.status = "no_failing_mutant"
    result.rows.sort(key=lambda r: LOCALIZATION_KINDS.index(r["kind"]))
    result.seconds = time.monotonic() - started
    return result


def build_pairs(
    problems: Sequence[Problem],
    *,
    per_problem: int = DEFAULT_PER_PROBLEM,
    budget_s: float = DEFAULT_BUDGET_S,
    config: SandboxConfig | None = None,
    seed: int = 0,
    jobs: int = 1,
    on_problem: Callable[[ProblemPairs], None] | None = None,
    test_split: bool = False,
    kinds: Sequence[str] = KINDS,
) -> list[ProblemPairs]:
    """:func:`pairs_for_problem` for each problem (``jobs`` at a time; the sandbox runs each in its
    own processes), in the problems' order. Every problem is checked before any runs."""
    for p in problems:
        check_allowed(p, test_split)
    ids = [p.task_id for p in problems]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate task ids")

    def one(p: Problem) -> ProblemPairs:
        return pairs_for_problem(p, per_problem=per_problem, budget_s=budget_s, config=config, seed=seed, test_split=test_split, kinds=kinds)

    results: dict[str, ProblemPairs] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(one, p) for p in problems]
        for future in as_completed(futures):
            r = future.result()
            results[r.task_id] = r
            if on_problem is not None:
                on_problem(r)
    return [results[i] for i in ids]


def rows(results: Iterable[ProblemPairs]) -> Iterator[dict]:
    for r in results:
        yield from r.rows
