"""Languages qualm understands, by name, LSP language id or file suffix.

Adding a language is one module (``qualm/lang/<name>.py`` or a package) that defines a
:class:`Language`, one entry in :data:`LANGUAGES`, and its tests (README, "Adding a language").
"""

from __future__ import annotations

from .base import CompletionContext, FunctionSource, ImportRoots, Language, SourceError
from .javascript import JAVASCRIPT, TSX, TYPESCRIPT
from .python import PYTHON

LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (PYTHON, JAVASCRIPT, TYPESCRIPT, TSX)}
DEFAULT_LANGUAGE = PYTHON


class UnsupportedLanguage(ValueError):
    pass


def language_ids() -> list[str]:
    """Every LSP language id the server handles (what a client's document selector should name)."""
    return [i for lang in LANGUAGES.values() for i in lang.language_ids]


def language_named(name: str) -> Language:
    try:
        return LANGUAGES[name]
    except KeyError:
        raise UnsupportedLanguage(f"qualm does not know the language {name!r} (known: {', '.join(LANGUAGES)})") from None


def language_for(language_id: str | None = None, filename: str | None = None) -> Language:
    """The language of a document from its LSP language id, else its file name; Python when neither says."""
    if language_id:
        for lang in LANGUAGES.values():
            if language_id in lang.language_ids:
                return lang
        raise UnsupportedLanguage(f"qualm does not handle {language_id!r} documents (it handles: {', '.join(language_ids())})")
    if filename:
        for lang in LANGUAGES.values():
            if filename.endswith(lang.file_suffixes):
                return lang
    return DEFAULT_LANGUAGE


__all__ = [
    "CompletionContext",
    "DEFAULT_LANGUAGE",
    "FunctionSource",
    "ImportRoots",
    "JAVASCRIPT",
    "LANGUAGES",
    "PYTHON",
    "TSX",
    "TYPESCRIPT",
    "Language",
    "SourceError",
    "UnsupportedLanguage",
    "language_for",
    "language_ids",
    "language_named",
]
