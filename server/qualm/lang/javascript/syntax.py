"""JavaScript and TypeScript syntax trees from tree-sitter's grammars, in the text's own offsets.

tree-sitter works on UTF-8 bytes; everything qualm does is in Python string offsets, so a parse
carries the conversion. A :class:`tree_sitter.Parser` is stateful, so each parse makes its own
(cheap); the grammar objects are immutable and loaded once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from ..base import SourceError

# tree-sitter-typescript ships two grammars: TSX allows JSX and so forbids `<T>x` casts.
Dialect = Literal["javascript", "typescript", "tsx"]

# Nodes that are a function's value (a const's initialiser, a class field's value).
FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
FUNCTION_DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration"})
CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
VARIABLES = frozenset({"lexical_declaration", "variable_declaration"})
CLASS_FIELDS = frozenset({"field_definition", "public_field_definition"})


@cache
def grammar(dialect: Dialect) -> tree_sitter.Language:
    if dialect == "javascript":
        return tree_sitter.Language(tree_sitter_javascript.language())
    if dialect == "typescript":
        return tree_sitter.Language(tree_sitter_typescript.language_typescript())
    return tree_sitter.Language(tree_sitter_typescript.language_tsx())


@dataclass(frozen=True)
class Parsed:
    text: str
    tree: tree_sitter.Tree
    # character offset of each byte offset (None: the text is ASCII, bytes are characters)
    chars: np.ndarray | None

    @property
    def root(self) -> tree_sitter.Node:
        return self.tree.root_node

    def char(self, byte: int) -> int:
        return byte if self.chars is None else int(self.chars[byte])

    def start(self, node: tree_sitter.Node) -> int:
        return self.char(node.start_byte)

    def end(self, node: tree_sitter.Node) -> int:
        return self.char(node.end_byte)

    def text_of(self, node: tree_sitter.Node) -> str:
        return self.text[self.start(node) : self.end(node)]


def parse(text: str, dialect: Dialect) -> Parsed:
    data = text.encode("utf-8")
    tree = tree_sitter.Parser(grammar(dialect)).parse(data)
    if len(data) == len(text):
        return Parsed(text, tree, None)
    # a byte that does not continue a multi-byte character starts one: counting them gives the
    # character offset of every byte offset (one more entry for the end of the text)
    starts = (np.frombuffer(data, dtype=np.uint8) & 0xC0) != 0x80
    return Parsed(text, tree, np.concatenate(([0], np.cumsum(starts))))


def walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Every node under ``node`` (itself included) in document order, without recursion (deep
    expressions would exceed Python's stack)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def first_error(parsed: Parsed) -> tree_sitter.Node | None:
    """The first node tree-sitter could not fit into the grammar (an ERROR or a MISSING token)."""
    node = parsed.root
    if not node.has_error:
        return None
    while True:
        for child in node.children:
            if child.is_missing or child.type == "ERROR":
                return child
            if child.has_error:
                node = child
                break
        else:
            return node  # the error is this node itself


def raise_on_error(parsed: Parsed, filename: str) -> None:
    """:class:`SourceError` naming the line, column and what is wrong, when the text does not parse."""
    node = first_error(parsed)
    if node is None:
        return
    line, _ = node.start_point
    column = parsed.start(node) - (parsed.text.rfind("\n", 0, parsed.start(node)) + 1)
    if node.is_missing:
        what = f"missing {node.type!r}"
    else:
        snippet = parsed.text_of(node).strip().split("\n")[0][:30]
        what = f"unexpected {snippet!r}" if snippet else "unexpected end of the file"
    raise SourceError(f"{filename}:{line + 1}:{column + 1}: the file does not parse: {what}")


def module_imports(parsed: Parsed) -> str:
    """The file's top-level imports: ``import`` statements and ``const x = require(...)``."""
    out = []
    for node in parsed.root.named_children:
        if node.type == "import_statement" or (node.type in VARIABLES and _requires(node)):
            out.append(parsed.text_of(node))
    return "\n".join(out) + ("\n" if out else "")


def _requires(declaration: tree_sitter.Node) -> bool:
    for declarator in declaration.named_children:
        value = declarator.child_by_field_name("value") if declarator.type == "variable_declarator" else None
        fn = value.child_by_field_name("function") if value is not None and value.type == "call_expression" else None
        if fn is not None and fn.type == "identifier" and fn.text == b"require":
            return True
    return False
