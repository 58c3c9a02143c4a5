"""Right/wrong function pairs for benchmarking (issue 23, item 5): a reference solution and
single-edit mutants of it that fail the problem's official tests.

Mutants
-------
:func:`mutants` edits the body of one function (the problem's entry point; its signature and
docstring are left alone) one place at a time. Each edit is made on the source text at the exact
span of the syntax node it changes (positions from :mod:`ast`, operator tokens from
:mod:`tokenize`), so everything else stays byte-identical, as a person's one-token slip would.
Kinds (:data:`KINDS`):

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

Every mutant compiles and differs from the original in its syntax tree; one that two kinds would
both make is kept once, under the more specific kind (swapped_branches, off_by_one, comparison,
operator, constant). The order is deterministic: by kind as in :data:`KINDS`, then by position.

Pairs
-----
:func:`build_pairs` runs the reference against the official tests in qualm's sandbox
(:func:`qualm.evaluation.labels.official_label`), then tries mutants in a random order seeded by the
task id (so adding problems changes nothing for the others) and keeps up to ``per_problem`` that
fail, at most one per kind; a mutant that still passes is an equivalent mutant (for these tests)
and is discarded and counted. Problems go to ``tune`` or ``holdout`` (:func:`split_of`) by a hash
of the task id, so a problem's pairs are all on one side.

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
# Which kind keeps a mutant that two kinds make (e.g. `range(0, 10)` → `range(0, 11)`).
_PRIORITY = ("swapped_branches", "off_by_one", "comparison", "operator", "constant")
HOLDOUT_FRACTION = 0.3
DEFAULT_PER_PROBLEM = 2
DEFAULT_BUDGET_S = 60.0


class ForbiddenProblem(ValueError):
    """A problem this benchmark must not read or mutate (MBPP's test split or prompt examples)."""


@dataclass(frozen=True)
class Mutant:
    kind: str  # one of KINDS
    description: str  # the edit in words, e.g. "`<` → `<=`"
    line: int  # 1-based line of the edit's start in the whole source
    column: int  # 0-based character column of the edit's start
    before: str  # the original text the edit replaced
    after: str  # what replaced it
    source: str  # the whole program with this one edit


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
    def __init__(self, src: _Text, nodes: list[tuple[ast.AST, ast.AST | None]]):
        self.src = src
        self.nodes = nodes
        self.edits: list[_Edit] = []

    def add(self, kind: str, start: int, end: int, after: str, description: str) -> None:
        self.edits.append(_Edit(kind, start, end, after, description))

    def run(self) -> list[_Edit]:
        for node, parent in self.nodes:
            self.operator(node)
            self.comparison(node)
            self.constant(node, parent)
            self.off_by_one(node)
            self.swapped_branches(node)
        return self.edits

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

    def _swap(self, first: tuple[int, int], second: tuple[int, int], description: str) -> None:
        (a1, a2), (b1, b2) = first, second
        text = self.src.text
        self.add("swapped_branches", a1, b2, text[b1:b2] + text[a2:b1] + text[a1:a2], description)

    def swapped_branches(self, node: ast.AST) -> None:
        src = self.src
        if isinstance(node, ast.If):
            keyword = "elif" if src.text.startswith("elif", src.span(node)[0]) else "if"
            is_elif_chain = len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and src.text.startswith("elif", src.span(node.orelse[0])[0])
            if node.orelse and not is_elif_chain:
                body = (src.span(node.body[0])[0], src.span(node.body[-1])[1])
                orelse = (src.span(node.orelse[0])[0], src.span(node.orelse[-1])[1])
                self._swap(body, orelse, f"swapped the `{keyword}` and `else` branches of `{keyword} {_short(src.seg(node.test))}`")
            self._negate(node.test, f"`{keyword}`")
        elif isinstance(node, ast.IfExp):
            self._swap(src.span(node.body), src.span(node.orelse), f"swapped the two values of `{_short(src.seg(node))}`")
            self._negate(node.test, "conditional expression's")


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


def mutants(source: str, entry_point: str) -> list[Mutant]:
    """Every single-edit mutant of function ``entry_point``'s body in ``source`` (see the module
    docstring); empty when the function is not there or the source does not parse."""
    tree = _parse(source)
    fn = _target(tree, entry_point) if tree is not None else None
    if fn is None:
        return []
    src = _Text(source)
    if not src.tokens:
        return []
    original = ast.dump(tree)
    edits = _Maker(src, _body_nodes(fn)).run()
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
        kept.append(Mutant(e.kind, e.description, line, column, source[e.start : e.end], e.after, text))
    kept.sort(key=lambda m: (KINDS.index(m.kind), m.line, m.column))
    return kept


def problem_mutants(problem: Problem) -> list[Mutant]:
    """:func:`mutants` of the problem's reference solution, refusing forbidden problems."""
    check_allowed(problem)
    if problem.reference is None or problem.entry_point is None:
        return []
    return mutants(problem.reference, problem.entry_point)


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
) -> ProblemPairs:
    """Label the reference, then mutants in a seeded order until ``per_problem`` fail (one per kind)
    or the ``budget_s`` (reference included) is spent. ``test_split``: a test set's pair (see the
    module's docstring), split ``"test"``."""
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
    candidates = mutants(problem.reference, problem.entry_point)
    result.candidates = len(candidates)
    rng = random.Random(problem_seed(problem.task_id, seed))
    by_kind: dict[str, list[Mutant]] = {}
    for m in candidates:
        by_kind.setdefault(m.kind, []).append(m)
    for pool in by_kind.values():
        rng.shuffle(pool)
    task = task_text(problem)
    while len(result.rows) < per_problem:
        open_kinds = [k for k in KINDS if by_kind.get(k)]
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
    result.rows.sort(key=lambda r: KINDS.index(r["kind"]))
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
) -> list[ProblemPairs]:
    """:func:`pairs_for_problem` for each problem (``jobs`` at a time; the sandbox runs each in its
    own processes), in the problems' order. Every problem is checked before any runs."""
    for p in problems:
        check_allowed(p, test_split)
    ids = [p.task_id for p in problems]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate task ids")

    def one(p: Problem) -> ProblemPairs:
        return pairs_for_problem(p, per_problem=per_problem, budget_s=budget_s, config=config, seed=seed, test_split=test_split)

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
