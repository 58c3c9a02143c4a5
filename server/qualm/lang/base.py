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

from ..prompts import ChatPrompt
from ..trace import Scope, Trace


class SourceError(ValueError):
    """The source does not parse, or a named function is not in it."""


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

    @property
    def problem_description(self) -> str:
        parts = [self.imports, self.header.rstrip() + "\n"] if self.imports else [self.header.rstrip() + "\n"]
        return "\n".join(parts)

    @property
    def program(self) -> str:
        """What the sandbox runs: the function with the file's imports and the definitions it uses."""
        return self.program_with(self.source)

    def program_with(self, source: str) -> str:
        """The program with ``source`` (another version of the function) in the function's place."""
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
    parses: Callable[[str], bool] | None = None  # a syntax check of a source text (None: none here)
    # (a function's source, its name) -> its docstring, whose examples run as tests (None: not read)
    docstring: Callable[[str, str], str | None] | None = None
    # (the document's text, functions found in it) -> the functions with the file's definitions each
    # uses (FunctionSource.support): for the functions that run, not for every one a code lens lists
    with_support: Callable[[str, Sequence[FunctionSource]], list[FunctionSource]] | None = None

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
