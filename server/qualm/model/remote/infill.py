"""A fill-in-the-middle prompt as a shared server takes it.

llama.cpp's server takes the parts (``/infill``) and builds the prompt from the model's own FIM
tokens; it tokenizes the parts without special tokens, so a marker typed in a file stays text there.
Other servers take the prompt as text (``/v1/completions`` with :func:`qualm.model.fim.prompt_text`)
and parse special tokens in it: a marker in the user's text would be read as a marker. Context chunks
holding one are then left out, and a prefix or suffix holding one is refused (:class:`FimMarkersInText`).
"""

from __future__ import annotations

from dataclasses import replace

from ...prompts import ContextChunk, InfillPrompt
from .. import fim
from ..backend import GenerationOptions, ModelRuntimeError


class FimMarkersInText(ModelRuntimeError):
    """The code around the cursor holds a FIM marker of the served model, which a server that takes
    the prompt as text would read as the marker."""


def infill_body(prompt: InfillPrompt, options: GenerationOptions, n_probs: int, sampling: dict) -> dict:
    """llama.cpp's streamed ``/infill`` request. ``prompt`` stays empty: llama.cpp appends it to the
    prefix, and the prefix already ends at the cursor."""
    return {
        "input_prefix": prompt.prefix,
        "input_suffix": prompt.suffix,
        "input_extra": [{"filename": c.filename, "text": c.text} for c in prompt.extra],
        "prompt": "",
        "n_predict": options.max_tokens,
        "n_probs": n_probs,
        "stream": True,
        "cache_prompt": True,  # keystroke after keystroke, the prompt's opening stays cached
        "timings_per_token": True,  # every event says the prompt's length and cached part
        **sampling,
    }


def describe_infill(prompt: InfillPrompt) -> str:
    """What ``/infill`` was sent, for people: the server builds the model's prompt from these parts."""
    parts = [f"[input_extra: {c.filename}]\n{c.text}" for c in prompt.extra]
    parts += [f"[input_prefix]\n{prompt.prefix}", f"[input_suffix]\n{prompt.suffix}", "[the middle: llama.cpp's /infill puts the parts between the model's FIM tokens]"]
    return "\n".join(parts)


def fim_text(prompt: InfillPrompt, fmt: fim.FimFormat) -> str:
    """The prompt as FIM text in ``fmt``, without the context chunks that hold a marker."""
    return fim.prompt_text(without_markers(prompt, fmt), fmt)


def without_markers(prompt: InfillPrompt, fmt: fim.FimFormat) -> InfillPrompt:
    """``prompt`` safe to send as text: chunks holding a marker left out (they are only context), a
    document name holding one dropped; raises FimMarkersInText where the prefix or suffix holds one."""
    for part, text in (("before", prompt.prefix), ("after", prompt.suffix)):
        marker = _marker_in(text, fmt)
        if marker:
            raise FimMarkersInText(
                f"the code {part} the cursor holds {marker!r}, the served model's fill-in-the-middle marker, which this server would read as the marker:"
                " no completion from a FIM prompt here (qualm.editor.completion_prompt 'chat' uses the chat prompt; llama.cpp's server keeps such text as text)"
            )
    extra = tuple(c for c in prompt.extra if not _chunk_has_markers(c, fmt))
    filename = "" if fim.has_markers(prompt.filename, fmt) else prompt.filename
    return prompt if (extra, filename) == (prompt.extra, prompt.filename) else replace(prompt, extra=extra, filename=filename)


def _chunk_has_markers(chunk: ContextChunk, fmt: fim.FimFormat) -> bool:
    return fim.has_markers(chunk.filename, fmt) or fim.has_markers(chunk.text, fmt)


def _marker_in(text: str, fmt: fim.FimFormat) -> str:
    return next((m for m in fmt.markers if m in text), "")
