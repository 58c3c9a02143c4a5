"""Fill-in-the-middle: which markers a model was trained with, and a prompt in them.

A GGUF's tokenizer names its FIM tokens (llama.cpp reads them into ``llama_vocab_fim_pre`` and the
rest: Qwen's ``<|fim_prefix|>``, CodeLlama's ``<PRE>``, StarCoder's ``<fim_prefix>``, DeepSeek's
``<｜fim▁begin｜>``), so the local backend asks the model itself and builds the prompt in token ids:
the user's text is tokenized without special tokens, and a marker typed in a file stays text. A
served model is reached by text (``/v1/completions``), so :data:`FORMATS` spells the markers of the
families we know; llama.cpp's server builds the prompt itself from the same parts (``/infill``).

The order is prefix-suffix-middle, the one these models were trained on. Extra context, where there
is any, comes first, in the repository pattern where the model has one (Qwen2.5-Coder, StarCoder2)::

    <|repo_name|>{repo}\\n<|file_sep|>{path}\\n{code}...<|file_sep|>{this file}\\n<|fim_prefix|>...

and otherwise as snippets separated the way llama.cpp's server separates them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..prompts import ContextChunk, InfillPrompt

# llama.cpp's separator between extra chunks for models without a file separator (server /infill).
SNIPPET_SEPARATOR = "\n\n--- snippet ---\n\n"
REPO_NAME = "project"  # the repository's name in the pattern: qualm does not know a better one


@dataclass(frozen=True)
class FimFormat:
    """The marker strings of one model family; ``repo``/``file_sep`` empty where it has none."""

    name: str
    prefix: str
    suffix: str
    middle: str
    repo: str = ""
    file_sep: str = ""

    @property
    def markers(self) -> tuple[str, ...]:
        return tuple(m for m in (self.prefix, self.suffix, self.middle, self.repo, self.file_sep) if m)


FORMATS: dict[str, FimFormat] = {
    "qwen": FimFormat("qwen", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|repo_name|>", "<|file_sep|>"),
    "starcoder": FimFormat("starcoder", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<repo_name>", "<file_sep>"),
    "codellama": FimFormat("codellama", "<PRE>", "<SUF>", "<MID>"),
    "deepseek": FimFormat("deepseek", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"),
}


def format_for_model_name(name: str) -> FimFormat | None:
    """A served model's format guessed from its name (where its tokenizer cannot be asked)."""
    low = name.lower()
    if "qwen" in low and "coder" in low:
        return FORMATS["qwen"]
    if "starcoder" in low:
        return FORMATS["starcoder"]
    if "codellama" in low or "code-llama" in low:
        return FORMATS["codellama"]
    if "deepseek" in low and "coder" in low:
        return FORMATS["deepseek"]
    return None


@dataclass(frozen=True)
class FimTokenIds:
    """The FIM token ids of a loaded model (-1: absent)."""

    prefix: int
    suffix: int
    middle: int
    repo: int = -1
    file_sep: int = -1

    @property
    def usable(self) -> bool:
        return min(self.prefix, self.suffix, self.middle) >= 0


def chunk_header(chunk: ContextChunk) -> str:
    return chunk.filename + "\n"


def prompt_ids(prompt: InfillPrompt, ids: FimTokenIds, tokenize: Callable[[str], list[int]], bos: Sequence[int] = ()) -> list[int]:
    """The prompt in token ids: text parts tokenized without special tokens, markers as ids."""
    out = list(bos)
    if ids.file_sep >= 0 and prompt.extra:
        if ids.repo >= 0:
            out += [ids.repo] + tokenize(REPO_NAME + "\n")
        for chunk in prompt.extra:
            out += [ids.file_sep] + tokenize(chunk_header(chunk) + chunk.text)
        out += [ids.file_sep] + tokenize((prompt.filename or "file") + "\n")
    elif prompt.extra:
        out += tokenize("".join(SNIPPET_SEPARATOR + chunk.text for chunk in prompt.extra) + SNIPPET_SEPARATOR)
    return out + [ids.prefix] + tokenize(prompt.prefix) + [ids.suffix] + tokenize(prompt.suffix) + [ids.middle]


def prompt_text(prompt: InfillPrompt, fmt: FimFormat) -> str:
    """The same prompt as text, for servers that take text (the markers must be special tokens of
    the served model's tokenizer; :func:`qualm.model.remote` checks that before using it)."""
    head = ""
    if fmt.file_sep and prompt.extra:
        if fmt.repo:
            head += fmt.repo + REPO_NAME + "\n"
        head += "".join(fmt.file_sep + chunk_header(c) + c.text for c in prompt.extra)
        head += fmt.file_sep + (prompt.filename or "file") + "\n"
    elif prompt.extra:
        head = "".join(SNIPPET_SEPARATOR + c.text for c in prompt.extra) + SNIPPET_SEPARATOR
    return head + fmt.prefix + prompt.prefix + fmt.suffix + prompt.suffix + fmt.middle


def has_markers(text: str, fmt: FimFormat) -> bool:
    """Whether user text holds a marker of ``fmt`` (sent as text, it would be read as the marker)."""
    return any(m in text for m in fmt.markers)
