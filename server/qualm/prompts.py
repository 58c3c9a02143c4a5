"""The paper's prompts (appendix A), as chat messages plus a pre-filled assistant turn.

The paper's assistant turn starts with ``<think></think>``, which is how Qwen3's template
switches thinking off. Models whose chat template has no thinking mode (Qwen2.5-Coder, the
default) would see it as literal text, so it is added only when the template knows ``<think>``.
"""

from __future__ import annotations

from dataclasses import dataclass

CODE_FENCE = "```"

CODE_GENERATION = """Complete the following Python Code:

{problem_description}

Output only the complete code with brief comments, when you output ```,
the code should be complete and executable and you should stop immediately."""

CODE_GENERATION_PREFILL = "Here are the complete codes for this problem:\n```python\n"


@dataclass(frozen=True)
class ChatPrompt:
    """A user message and the start of the assistant's reply; generation continues the reply."""

    user: str
    assistant_prefix: str
    stop: tuple[str, ...] = (CODE_FENCE,)
    name: str = "custom"


def code_generation(problem_description: str) -> ChatPrompt:
    return ChatPrompt(
        user=CODE_GENERATION.format(problem_description=problem_description.strip("\n")),
        assistant_prefix=CODE_GENERATION_PREFILL,
        stop=(CODE_FENCE,),
        name="code_generation",
    )


def thinking_off_marker(chat_template: str) -> str:
    """The paper's ``<think></think>`` prefix, for templates that have a thinking mode."""
    return "<think></think>\n" if "<think>" in chat_template else ""
