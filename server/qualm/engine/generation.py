"""The model writes code for a problem: the paper's code prompt, continued greedily by default."""

from __future__ import annotations

from .. import prompts
from ..lang import DEFAULT_LANGUAGE, Language
from ..model import CancelToken, GenerationOptions, ModelBackend
from ..model.backend import OnToken
from ..settings import Settings
from ..trace import Trace


def greedy_options(settings: Settings) -> GenerationOptions:
    g = settings.generation
    return GenerationOptions(max_tokens=g.max_tokens, temperature=0.0, seed=g.seed, top_alternatives=g.top_alternatives)


def generate_solution(
    backend: ModelBackend,
    problem_description: str,
    settings: Settings,
    options: GenerationOptions | None = None,
    on_token: OnToken | None = None,
    cancel: CancelToken | None = None,
    language: Language = DEFAULT_LANGUAGE,
) -> Trace:
    """The paper's code-generation prompt, continued by the model (greedy unless options say otherwise)."""
    trace = backend.generate(
        prompts.code_generation(problem_description, language.display_name, language.fence),
        options or greedy_options(settings),
        on_token=on_token,
        cancel=cancel,
    )
    return language.annotate_scopes(trace)
