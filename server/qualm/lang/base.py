"""What the engine needs from a programming language, and the language-neutral types it returns.

A language is one :class:`Language` value: how to find functions in a document, which parts of
the text are comments or docstrings, how to build a completion prompt at a cursor, and the words
the paper's prompts use for it. ``qualm.lang`` keeps the registry; ``qualm.lang.python`` is the
first entry.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..prompts import ChatPrompt
from ..trace import Scope, Trace


class SourceError(ValueError):
    """The source does not parse, or a named function is not in it."""


@dataclass(frozen=True)
class ImportRoots:
    """Where a file's imports resolve when its code runs in the sandbox: folders put first on the
    module path (mounted read-only there), and the package the file is in. Empty for text with no
    file (an unsaved document), whose imports find installed packages only."""

    folders: tuple[str, ...] = ()
    package: str = ""  # dotted; "" outside a package


@dataclass(frozen=True)
class FunctionSource:
    """One function of a document: where it is, the problem it states, its own text.

    The *problem description* is what the paper gives the model: the file's imports, then the
    function's signature and docstring. The *candidate* is the function's own source.
    """

    name: str  # qualified: "Class.method" for methods
    line: int  # 1-based line of the definition (decorators above it are not part of the function here)
    end_line: int
    col: int
    source: str  # the function's text, dedented
    header: str  # signature and docstring, dedented
    body_offset: int  # character offset in ``source`` where the body after the docstring starts
    imports: str  # the file's top-level import statements
    language: str = "python"  # the registry name of the language it was found in
    # The file's module-level definitions the function uses, directly or through each other
    # (helper functions, classes, constants), in file order: without them its tests fail on a
    # NameError that says nothing about the function. Filled by find_function, function_at and
    # runnable_functions (what assessments run); empty in functions_in's list, which a code lens reads.
    support: str = ""
    support_names: tuple[str, ...] = ()
    # A method of a module-level class runs inside its class: the class's text as in the file (from
    # its first line, decorators included), where that starts, the def line's indentation, and
    # what of the class the model is shown before the method (its header, docstring, __init__).
    # Empty for a function, and for a method that cannot run (of a nested class, a nested def).
    owner: str = ""
    owner_line: int = 0
    indent: str = ""
    owner_context: str = ""
    test_example: str = ""  # a method's test as the prompt shows its form: `obj = Stack(); assert obj.pop() == ...`
    decorators: str = ""  # a method's decorator lines as in the file (`@staticmethod`): its problem shows them

    @property
    def is_method(self) -> bool:
        return "." in self.name

    @property
    def probe_name(self) -> str:
        """The name its calls are recorded under (``run_probes``): ``Class.method`` for a method that
        runs in its class, else the short name."""
        return self.name if self.owner else self.name.split(".")[-1]

    @property
    def runs(self) -> bool:
        """Whether its tests can run: a module-level function, or a method with its class."""
        return not self.is_method or bool(self.owner)

    @property
    def problem_description(self) -> str:
        header = self.header.rstrip() + "\n"
        if self.owner:  # the method inside its class, as far as the model needs to see it
            header = self.owner_context.rstrip("\n") + "\n\n" + self.decorators + "".join(self.indent + line if line.strip() else line for line in header.splitlines(keepends=True))
        return "\n".join([self.imports, header]) if self.imports else header

    @property
    def program(self) -> str:
        """What the sandbox runs: the function with the file's imports and the definitions it uses."""
        return self.program_with(self.source)

    def program_with(self, source: str) -> str:
        """The program with ``source`` (another version of the function, dedented) in the function's
        place: for a method, in its class."""
        if self.owner and source == self.source:
            source = self.owner  # the class as in the file
        elif self.owner:
            lines = self.owner.splitlines(keepends=True)
            start, end = self.line - self.owner_line, self.end_line - self.owner_line + 1
            body = "".join(self.indent + line if line.strip() else line for line in source.splitlines(keepends=True))
            source = "".join(lines[:start]) + body.rstrip("\n") + "\n" + "".join(lines[end:])
        return self.imports + "\n" + (self.support + "\n" if self.support else "") + source


@dataclass(frozen=True)
class CompletionContext:
    """What the model is asked at a cursor, and how its answer is placed back into the document."""

    prompt: ChatPrompt
    function: str | None  # the enclosing function's name, if any
    indent: str  # the function's own indentation, removed in the prompt; put back on insertion
    written: str  # the code before the cursor (dedented)
    # Whitespace right before the cursor, left out of the prompt: a prompt that ends in spaces makes
    # the model start with an odd token (" #" after four spaces instead of "    #"). The model writes
    # it again and the completion drops it.
    heal: str = ""


ScopeSpans = Callable[[str], list[tuple[int, int, Scope]]]


@dataclass(frozen=True)
class Language:
    name: str  # registry key: "python"
    display_name: str  # the paper's prompt words: "Complete the following Python Code"
    language_ids: tuple[str, ...]  # LSP languageId values of documents in this language
    file_suffixes: tuple[str, ...]
    fence: str  # a code fence's info string: ```python
    functions_in: Callable[[str, str], list[FunctionSource]]  # (text, filename); SourceError if it cannot
    scope_spans: ScopeSpans  # comment and docstring spans of a text (works on broken code)
    completion_context: Callable[[str, int], CompletionContext]  # (document text, cursor offset)
    runs_tests: bool  # the functional axis can run this language's self-tests in the sandbox
    # How a comment starts: an alternative that would begin one is not offered in place of code.
    comment_starts: tuple[str, ...] = ("#",)
    parses: Callable[[str], bool] | None = None  # a syntax check of a source text (None: none here)
    # (a function's source, its name) -> its docstring, whose examples run as tests (None: not read)
    docstring: Callable[[str, str], str | None] | None = None
    # (the document's text, functions found in it) -> the functions with the file's definitions each
    # uses (FunctionSource.support): for the functions that run, not for every one a code lens lists
    with_support: Callable[[str, Sequence[FunctionSource]], list[FunctionSource]] | None = None
    # (a model's answer, class name, method name) -> that method's source in the answer, dedented
    # (None: not there, or the answer does not parse): a method's solution runs in the file's class
    method_source: Callable[[str, str, str], str | None] | None = None
    # (the file, the workspace's folders) -> where its imports resolve when its tests run (None:
    # this language's tests do not run)
    import_roots: Callable[[Path, Sequence[Path]], ImportRoots] | None = None

    def program_of_answer(self, fn: FunctionSource) -> Callable[[str], str] | None:
        """How a model's answer for ``fn`` runs: None for a function (the answer is the program); for
        a method, the answer's version of it in the file's class, beside the class's other methods."""
        if not fn.owner or self.method_source is None:
            return None
        owner, method = fn.probe_name.split(".")
        find = self.method_source

        def program(answer: str) -> str:
            found = find(answer, owner, method)
            return fn.program_with(found) if found is not None else answer

        return program

    def function_at(self, text: str, line: int, filename: str = "<source>") -> FunctionSource:
        """The innermost function whose lines (1-based, definition to its last line) hold ``line``."""
        inside = [fn for fn in self.functions_in(text, filename) if fn.line <= line <= fn.end_line]
        if not inside:
            raise SourceError(f"{filename}: line {line} is not inside a function")
        return self._supported(text, max(inside, key=lambda fn: fn.line))

    def find_function(self, text: str, name: str, filename: str = "<source>") -> FunctionSource:
        """A function by qualified name, or by its short name when that is unique."""
        functions = self.functions_in(text, filename)
        for fn in functions:
            if fn.name == name:
                return self._supported(text, fn)
        matches = [fn for fn in functions if fn.name.split(".")[-1] == name]
        if len(matches) == 1:
            return self._supported(text, matches[0])
        known = ", ".join(fn.name for fn in functions) or "none"
        if len(matches) > 1:
            raise SourceError(f"{filename}: '{name}' is ambiguous; use one of {', '.join(m.name for m in matches)}")
        raise SourceError(f"{filename}: no function named '{name}' (functions here: {known})")

    def runnable_functions(self, text: str, filename: str = "<source>") -> list[FunctionSource]:
        """Every function, each with the file's definitions it uses: what an assessment of a whole
        file runs (``qualm assess FILE``, ``qualm check --assess``)."""
        functions = self.functions_in(text, filename)
        return self.with_support(text, functions) if self.with_support is not None else functions

    def _supported(self, text: str, fn: FunctionSource) -> FunctionSource:
        return self.with_support(text, [fn])[0] if self.with_support is not None else fn

    def annotate_scopes(self, trace: Trace) -> Trace:
        """The trace with each token's ``scope`` set (by its first non-blank character)."""
        spans = self.scope_spans(trace.text)
        starts = [s for s, _, _ in spans]
        tokens = []
        for rec in trace.tokens:
            lead = len(rec.text) - len(rec.text.lstrip())
            at = rec.start + lead if lead < len(rec.text) else rec.start
            i = bisect_right(starts, at) - 1
            scope: Scope = "code"
            if i >= 0 and spans[i][0] <= at < spans[i][1]:
                scope = spans[i][2]
            tokens.append(replace(rec, scope=scope))
        return trace.with_tokens(tuple(tokens))
