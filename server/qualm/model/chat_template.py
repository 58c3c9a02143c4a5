"""Render a model's own chat template (the Jinja text stored in its GGUF) for one conversation.

The template comes from a file the user chose, so it is rendered in Jinja's sandbox.
Models without a template get ChatML, which Qwen and many other instruction models use.
"""

from __future__ import annotations

from functools import lru_cache

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..prompts import ChatPrompt, thinking_off_marker

CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class ChatTemplateError(ValueError):
    pass


@lru_cache(maxsize=8)
def _compile(template: str):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)

    def raise_exception(message: str) -> None:
        raise ChatTemplateError(message)

    env.globals["raise_exception"] = raise_exception
    return env.from_string(template)


def render_prompt(template: str, prompt: ChatPrompt) -> str:
    """The text a model continues for ``prompt``: its user turn in the template, thinking switched
    off where the template has the switch, then the start of the assistant's reply. Every backend
    that renders its own prompts renders them so, and a served model sees the same text as in process."""
    return render_chat(template, [{"role": "user", "content": prompt.user}]) + thinking_off_marker(template) + prompt.assistant_prefix


def render_chat(template: str, messages: list[dict[str, str]]) -> str:
    try:
        return _compile(template or CHATML).render(
            messages=messages, add_generation_prompt=True, bos_token="", eos_token="", tools=None
        )
    except TemplateError as exc:
        raise ChatTemplateError(f"the model's chat template failed to render: {exc}") from exc
