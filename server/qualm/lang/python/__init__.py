"""Python: everything qualm knows that is specific to Python, behind one :class:`Language` value."""

from __future__ import annotations

from ..base import Language
from .completion import DISPLAY_NAME, FENCE, completion_context
from .imports import import_roots
from .scopes import scope_spans
from .source import docstring_of, functions_in, method_source, parses, with_support

PYTHON = Language(
    name="python",
    display_name=DISPLAY_NAME,
    language_ids=("python",),
    file_suffixes=(".py", ".pyi"),
    fence=FENCE,
    functions_in=functions_in,
    scope_spans=scope_spans,
    completion_context=completion_context,
    runs_tests=True,  # the sandbox runs the model's assert tests with this interpreter
    parses=parses,
    docstring=docstring_of,
    with_support=with_support,
    method_source=method_source,
    import_roots=import_roots,
)

__all__ = ["PYTHON"]
