"""JavaScript and TypeScript: functions, comment scopes and the completion prompt from tree-sitter's
grammars, behind three :class:`Language` values (one per grammar: TSX is TypeScript whose grammar
allows JSX, and so forbids ``<T>x`` casts, so ``.ts`` and ``.tsx`` cannot share one).

The sandbox runs Python only, so ``runs_tests`` is false: the functional axis of an assessment is
unavailable, with that reason; the lexical axis (teacher-forced scoring) and the algorithmic axis
(plans in natural language, no code run) work as for Python.
"""

from __future__ import annotations

from functools import partial

from ..base import Language
from .completion import completion_context
from .scopes import scope_spans
from .source import functions_in
from .syntax import Dialect


def _language(name: str, dialect: Dialect, display_name: str, fence: str, language_ids: tuple[str, ...], file_suffixes: tuple[str, ...]) -> Language:
    return Language(
        name=name,
        display_name=display_name,
        language_ids=language_ids,
        file_suffixes=file_suffixes,
        fence=fence,
        functions_in=partial(functions_in, dialect=dialect, language=name),
        scope_spans=partial(scope_spans, dialect=dialect),
        completion_context=partial(completion_context, dialect=dialect, display_name=display_name, fence=fence),
        runs_tests=False,  # the sandbox runs Python's assert tests only
        comment_starts=("//", "/*"),
    )


# JSX is part of tree-sitter's JavaScript grammar, so .jsx needs no grammar of its own.
JAVASCRIPT = _language("javascript", "javascript", "JavaScript", "javascript", ("javascript", "javascriptreact"), (".js", ".mjs", ".cjs", ".jsx"))
TYPESCRIPT = _language("typescript", "typescript", "TypeScript", "typescript", ("typescript",), (".ts", ".mts", ".cts"))
TSX = _language("tsx", "tsx", "TypeScript", "typescript", ("typescriptreact",), (".tsx",))

__all__ = ["JAVASCRIPT", "TSX", "TYPESCRIPT"]
