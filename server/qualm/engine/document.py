"""A document as the engine sees it: its text, its name and its language.

Editor actions speak in this document's own coordinates: character offsets into ``text``. A front
end (the language server, the CLI) turns its positions into offsets and back; the engine never
sees lines and UTF-16 columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lang import DEFAULT_LANGUAGE, FunctionSource, Language


@dataclass(frozen=True)
class Document:
    text: str
    name: str = "<source>"  # a path or URI, for messages
    language: Language = field(default=DEFAULT_LANGUAGE)

    def functions(self) -> list[FunctionSource]:
        """Every function, outermost first; :class:`SourceError` when the text does not parse."""
        return self.language.functions_in(self.text, self.name)

    def function(self, target: str | int) -> FunctionSource:
        """A function by name (``Class.method``, or a unique short name) or by a 1-based line inside it."""
        if isinstance(target, int):
            return self.language.function_at(self.text, target, self.name)
        return self.language.find_function(self.text, target, self.name)
