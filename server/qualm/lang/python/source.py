"""Functions in a Python source file (the standard ``ast``): where they are, their header, their body."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from dataclasses import replace

from ..base import FunctionSource, SourceError


def parse_module(text: str, filename: str = "<source>") -> ast.Module:
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        where = f"{filename}:{exc.lineno}" if exc.lineno else filename
        raise SourceError(f"{where}: the file does not parse: {exc.msg}") from exc


def parses(text: str) -> bool:
    """Whether ``text`` is a module Python can compile (a token swap that breaks the syntax is not tried)."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):  # ValueError: a null byte
        return False
    return True


def module_imports(tree: ast.Module, lines: list[str]) -> str:
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append("".join(lines[node.lineno - 1 : node.end_lineno]).rstrip("\n"))
    return "\n".join(out) + ("\n" if out else "")


_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign | ast.AnnAssign | ast.AugAssign


def module_definitions(tree: ast.Module) -> dict[str, list[_Definition]]:
    """The names a module's top level defines with a def, a class or an assignment, and where.
    Other top-level statements (a loop, a call, ``if __name__ == ...``) are not run with a function."""
    defined: dict[str, list[_Definition]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name) and (not isinstance(node, ast.AnnAssign) or node.value is not None):
            names = [node.target.id]
        else:
            continue
        for name in names:
            defined.setdefault(name, []).append(node)
    return defined


def _names_read(node: ast.AST) -> set[str]:
    # every name the node loads, locals included: a local that shadows a module name only brings
    # in a definition that is not needed, which runs harmlessly
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def with_support(text: str, functions: Sequence[FunctionSource]) -> list[FunctionSource]:
    """``functions`` (found in ``text``) with the module-level definitions each uses
    (``support_of``): the module is parsed once and each definition's names read once, however many
    functions are asked for. A method or a nested function gets none: its tests do not run."""
    tree = parse_module(text)
    defined = module_definitions(tree)
    nodes = {n.lineno: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    lines = text.splitlines(keepends=True)
    reads: dict[int, set[str]] = {}
    out = []
    for fn in functions:
        if not fn.is_method:
            node = nodes.get(fn.line)
            if node is not None:
                support, names = support_of(node, defined, lines, reads)
                fn = replace(fn, support=support, support_names=names)
        elif (found := _owning_class(classes, fn)) is not None:
            owner, method = found
            support, names = support_of(owner, defined, lines, reads)
            first = _first_line(owner)
            fn = replace(
                fn, support=support, support_names=names,
                owner="".join(lines[first - 1 : owner.end_lineno]), owner_line=first,
                indent=lines[fn.line - 1][: fn.col], owner_context=_class_context(owner, fn.line, lines),
                test_example=_test_example(owner, method), decorators="".join(lines[_first_line(method) - 1 : fn.line - 1]),
            )
        out.append(fn)
    return out


_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _owning_class(classes: dict[str, ast.ClassDef], fn: FunctionSource) -> tuple[ast.ClassDef, _Function] | None:
    """The module-level class whose method ``fn`` is (``Class.method``, defined in the class body),
    and the method's node; None for a nested def or a method of a nested class, whose tests do not run."""
    owner_name, _, method = fn.name.partition(".")
    owner = classes.get(owner_name)
    if owner is None or "." in method:
        return None
    node = next((n for n in owner.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == method and n.lineno == fn.line), None)
    return (owner, node) if node is not None else None


def _needs_arguments(args: ast.arguments, skip: int) -> bool:
    positional = [*args.posonlyargs, *args.args][skip:]
    required = len(positional) - len(args.defaults)
    return required > 0 or any(d is None for d in args.kw_defaults)


def _test_example(owner: ast.ClassDef, method: _Function) -> str:
    """A method's test in the form the prompt shows, with `()` where a call needs no argument: the
    0.5B model copied `Solution(...)` literally where the class takes none."""
    kinds = {d.id for d in method.decorator_list if isinstance(d, ast.Name)}
    static = "staticmethod" in kinds
    call = f"{method.name}({'...' if _needs_arguments(method.args, 0 if static else 1) else ''})"
    if static or "classmethod" in kinds:
        return f"assert {owner.name}.{call} == ..."
    init = next((n for n in owner.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is not None:
        needs = _needs_arguments(init.args, 1)
    else:  # a base class or a decorator (a dataclass) may take arguments
        needs = bool(owner.bases or owner.keywords or owner.decorator_list)
    return f"obj = {owner.name}({'...' if needs else ''}); assert obj.{call} == ..."


def _class_context(owner: ast.ClassDef, method_line: int, lines: list[str]) -> str:
    """What the model is shown of a method's class: its header and docstring, its class-level fields,
    ``__init__`` whole, and every other method's signature and docstring (``...`` where it has none):
    enough to build an instance and call the method, without the bodies of its neighbours."""
    parts = ["".join(lines[_first_line(owner) - 1 : _first_line(owner.body[0]) - 1])]  # up to the first member's decorators
    for node in owner.body:
        start, end = _first_line(node), node.end_lineno or node.lineno
        if node.lineno == method_line:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name != "__init__":
            first = node.body[0]
            if first.lineno == node.lineno:  # `def f(self): return 1`, on one line
                signature = "".join(lines[start - 1 : node.lineno - 1]) + lines[node.lineno - 1][: first.col_offset].rstrip() + "\n"
            else:
                signature = "".join(lines[start - 1 : first.lineno - 1])
            has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
            if has_doc and first.lineno != node.lineno:
                parts.append(signature + "".join(lines[first.lineno - 1 : first.end_lineno]))
            else:
                parts.append(signature + lines[node.lineno - 1][: node.col_offset] + "    ...\n")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts.append("\n" + "".join(lines[start - 1 : end]) + "\n")
        elif isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign)):
            parts.append("".join(lines[start - 1 : end]))
    return "".join(parts).replace("\n\n\n", "\n\n")


def support_of(node: ast.AST, defined: dict[str, list[_Definition]], lines: list[str], reads: dict[int, set[str]] | None = None) -> tuple[str, tuple[str, ...]]:
    """The module-level definitions (``module_definitions``) that ``node`` reads, directly or through
    each other, as source text in file order, and their names. ``node`` itself is left out (a
    recursive function). ``reads`` keeps each definition's names between calls on one module."""
    reads = reads if reads is not None else {}
    wanted: list[str] = sorted(_names_read(node))
    chosen: dict[int, _Definition] = {}
    names: set[str] = set()
    while wanted:
        name = wanted.pop()
        for d in defined.get(name, []):
            if d is node or id(d) in chosen:
                continue
            chosen[id(d)] = d
            names.add(name)
            if id(d) not in reads:
                reads[id(d)] = _names_read(d)
            wanted.extend(reads[id(d)] - names)
    spans = sorted({(_first_line(d), d.end_lineno or d.lineno) for d in chosen.values()})
    text = "".join("".join(lines[start - 1 : end]).rstrip("\n") + "\n" for start, end in spans)
    return text, tuple(sorted(names))


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def functions_in(text: str, filename: str = "<source>") -> list[FunctionSource]:
    tree = parse_module(text, filename)
    lines = text.splitlines(keepends=True)
    imports = module_imports(tree, lines)
    found: list[FunctionSource] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(_function(node, prefix + node.name, lines, imports))
                visit(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")

    visit(tree.body, "")
    return found


def method_source(text: str, owner: str, method: str) -> str | None:
    """The source of ``owner.method`` in ``text`` (a model's answer), dedented, from its ``def`` line:
    what takes the method's place in the file's class. None when it is not there or does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == owner:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method:
                    return textwrap.dedent("".join(lines[item.lineno - 1 : item.end_lineno]))
    return None


def docstring_of(text: str, name: str | None = None) -> str | None:
    """The docstring of function ``name`` in ``text``, or of the module itself without a name
    (MBPP's task text is a bare string literal); None when there is none or it does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    if name is None:
        return ast.get_docstring(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ast.get_docstring(node)
    return None


def with_docstring(text: str, name: str, doc: str) -> str:
    """``text`` with ``doc`` as the docstring of function ``name`` where it has none: how a function
    looks once its task is written down, as a user's function carries its task into an assessment.
    Unchanged when the function has a docstring, is not there, or keeps its body on the ``def`` line."""
    tree = parse_module(text)
    node = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None)
    if node is None or ast.get_docstring(node) is not None:
        return text
    first = node.body[0]
    if first.lineno == node.lineno:
        return text  # `def f(x): return x`: no line to put a docstring on
    lines = text.splitlines(keepends=True)
    line = lines[first.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    body = doc.strip("\n").replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    block = textwrap.indent(f'"""{body}\n"""\n', indent, lambda _: True)
    # right under the signature, above any comment lines that open the body; where that would not
    # parse (a comment inside a multi-line signature), just before the first statement
    at = first.lineno - 1
    while at - 1 > node.lineno - 1 and (not lines[at - 1].strip() or lines[at - 1].lstrip().startswith("#")):
        at -= 1
    for k in (at, first.lineno - 1):
        out = "".join(lines[:k]) + block + "".join(lines[k:])
        if docstring_of(out, name) is not None:
            return out
    return text


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str, lines: list[str], imports: str) -> FunctionSource:
    start, end = node.lineno, node.end_lineno or node.lineno
    source = textwrap.dedent("".join(lines[start - 1 : end]))
    # The header ends after the docstring if there is one, else after the signature.
    first = node.body[0]
    has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    header_end = (first.end_lineno or start) if has_doc else max(start, first.lineno - 1)
    # The def line has the smallest indentation of the function, so dedenting the header
    # removes the same margin as dedenting the whole: the header is a prefix of the source.
    header = textwrap.dedent("".join(lines[start - 1 : header_end]))
    if not header.endswith("\n"):
        header += "\n"
    return FunctionSource(
        name=name,
        line=start,
        end_line=end,
        col=node.col_offset,
        source=source,
        header=header,
        body_offset=len(header) if source.startswith(header) else 0,
        imports=imports,
    )
