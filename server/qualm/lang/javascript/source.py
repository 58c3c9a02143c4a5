"""Functions in a JavaScript or TypeScript file (tree-sitter): where they are, their header, their body.

A function here is what a person would name as one: a ``function`` declaration, an arrow function
or function expression assigned to a ``const``/``let``/``var``, a class method or a class field
holding an arrow function (``Class.method``, as Python's methods), exported or not, and the same
nested inside a function's body (``outer.inner``) or a TypeScript namespace (``N.f``). Type-only
declarations (interfaces, type aliases, overload signatures, ``declare``, abstract methods) have no
body and are not functions.

The problem description is the paper's: the file's imports, then the function's JSDoc comment
(``/** … */`` right above it: JavaScript's docstring) and its signature up to the body's ``{`` (or
an arrow's ``=>``). The function's source starts at its own first line, as a Python function's
starts at ``def`` and not at its decorators, so that its line is where the editor puts the lens.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from ..base import FunctionSource
from .syntax import CLASS_FIELDS, CLASSES, FUNCTION_DECLARATIONS, FUNCTION_VALUES, VARIABLES, Dialect, Parsed, module_imports, parse, raise_on_error


@dataclass(frozen=True)
class FoundFunction:
    name: str  # qualified: "Class.method", "outer.inner"
    statement: tree_sitter.Node  # what the function's lines are: `export const f = …;`, a method
    function: tree_sitter.Node  # the node with the parameters and the body


def find_functions(parsed: Parsed) -> Iterator[FoundFunction]:
    """Every function of the tree, outer before inner, in document order."""
    yield from _visit(parsed, parsed.root.named_children, "")


def _visit(parsed: Parsed, nodes: list[tree_sitter.Node], prefix: str) -> Iterator[FoundFunction]:
    for node in nodes:
        statement = node
        if node.type == "export_statement":
            inner = node.child_by_field_name("declaration") or node.child_by_field_name("value")
            if inner is None:
                continue
            node = inner
        if node.type == "expression_statement" and node.named_child_count == 1:
            node = node.named_children[0]  # a TypeScript namespace is parsed as an expression
        if node.type in FUNCTION_DECLARATIONS or (node.type in FUNCTION_VALUES and statement is not node):
            yield from _function(parsed, prefix + _name(parsed, node), statement, node)
        elif node.type in VARIABLES:
            for declarator in node.named_children:
                name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                if name is not None and name.type == "identifier" and value is not None and value.type in FUNCTION_VALUES:
                    yield from _function(parsed, prefix + parsed.text_of(name), statement, value)
        elif node.type in CLASSES:
            body = node.child_by_field_name("body")
            if body is not None:
                yield from _members(parsed, body, prefix + _name(parsed, node) + ".")
        elif node.type in ("internal_module", "module"):
            body = node.child_by_field_name("body")
            if body is not None:
                yield from _visit(parsed, body.named_children, prefix + _name(parsed, node) + ".")


def _members(parsed: Parsed, body: tree_sitter.Node, prefix: str) -> Iterator[FoundFunction]:
    for member in body.named_children:
        if member.type == "method_definition":
            yield from _function(parsed, prefix + _name(parsed, member), member, member)
        elif member.type in CLASS_FIELDS:
            value = member.child_by_field_name("value")
            name = member.child_by_field_name("name") or member.child_by_field_name("property")
            if value is not None and value.type in FUNCTION_VALUES and name is not None:
                yield from _function(parsed, prefix + parsed.text_of(name), member, value)


def _function(parsed: Parsed, name: str, statement: tree_sitter.Node, function: tree_sitter.Node) -> Iterator[FoundFunction]:
    body = function.child_by_field_name("body")
    if body is None:
        return  # a method without a body (an overload, a TypeScript abstract method)
    yield FoundFunction(name, statement, function)
    if body.type == "statement_block":
        yield from _visit(parsed, body.named_children, name + ".")


def _name(parsed: Parsed, node: tree_sitter.Node) -> str:
    name = node.child_by_field_name("name")
    return parsed.text_of(name) if name is not None else "default"  # `export default function () {}`


def first_line_node(statement: tree_sitter.Node) -> tree_sitter.Node:
    """The node that starts the function's own first line: decorators above it are not part of it."""
    for child in statement.children:
        if child.type != "decorator":
            return child if child.start_point[0] != statement.start_point[0] else statement
    return statement


def jsdoc_above(parsed: Parsed, statement: tree_sitter.Node) -> tree_sitter.Node | None:
    """The ``/** … */`` comment right above a function (decorators between them allowed), if any."""
    node = statement.prev_sibling
    while node is not None and node.type == "decorator":
        node = node.prev_sibling
    if node is None or node.type != "comment" or not parsed.text_of(node).startswith("/**"):
        return None
    return node


def header_end(parsed: Parsed, function: tree_sitter.Node) -> int:
    """Where the body starts: after the body's ``{`` (an arrow's ``=>`` for an expression body), and
    after the rest of that line when nothing else is on it (a header of whole lines, as Python's)."""
    body = function.child_by_field_name("body")
    assert body is not None
    if body.type == "statement_block":
        end = parsed.start(body) + 1
    else:
        arrow = next((c for c in function.children if c.type == "=>"), None)
        end = parsed.end(arrow) if arrow is not None else parsed.start(body)
    line_end = parsed.text.find("\n", end)
    if line_end >= 0 and not parsed.text[end:line_end].strip():
        return line_end + 1
    return end


def line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def margin_of(text: str) -> str:
    """The leading whitespace common to every non-blank line (what ``textwrap.dedent`` removes)."""
    margins = [line[: len(line) - len(line.lstrip(" \t"))] for line in text.split("\n") if line.strip()]
    if not margins:
        return ""
    common = margins[0]
    for m in margins[1:]:
        while not m.startswith(common):
            common = common[:-1]
    return common


def dedent(text: str, margin: str) -> str:
    """``text`` without ``margin`` at the start of each line; blank lines lose all their whitespace."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if not body.strip():
            out.append(line[len(body) :])
        else:
            out.append(line[len(margin) :] if line.startswith(margin) else line)
    return "".join(out)


def functions_in(text: str, filename: str = "<source>", *, dialect: Dialect, language: str) -> list[FunctionSource]:
    parsed = parse(text, dialect)
    raise_on_error(parsed, filename)
    imports = module_imports(parsed)
    return [_source(parsed, found, imports, language) for found in find_functions(parsed)]


def _source(parsed: Parsed, found: FoundFunction, imports: str, language: str) -> FunctionSource:
    text = parsed.text
    first = first_line_node(found.statement)
    start = line_start(text, parsed.start(first))
    end = text.find("\n", parsed.end(found.statement))
    end = len(text) if end < 0 else end + 1
    margin = margin_of(text[start:end])
    source = dedent(text[start:end], margin)
    h = header_end(parsed, found.function)
    doc = jsdoc_above(parsed, found.statement)
    header_from = line_start(text, parsed.start(doc)) if doc is not None else start
    header = dedent(text[header_from:h], margin)
    return FunctionSource(
        name=found.name,
        line=first.start_point[0] + 1,
        end_line=found.statement.end_point[0] + 1,
        col=parsed.start(first) - start,
        source=source,
        header=header if header.endswith("\n") else header + "\n",
        body_offset=len(dedent(text[start:h], margin)),
        imports=imports,
        language=language,
    )
