"""The engine's entry points: plain functions from source text to traces and scores.

The CLI and the language server call these; they know nothing about terminals or LSP.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import prompts
from .model import CancelToken, GenerationOptions, ModelBackend
from .model.backend import OnToken
from .pysource import FunctionSource
from .scopes import annotate_scopes
from .settings import Settings
from .signals.lexical import LexicalReport, lexical_report
from .trace import Trace


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
) -> Trace:
    """The paper's code-generation prompt, continued by the model (greedy unless options say otherwise)."""
    trace = backend.generate(
        prompts.code_generation(problem_description),
        options or greedy_options(settings),
        on_token=on_token,
        cancel=cancel,
    )
    return annotate_scopes(trace)


@dataclass(frozen=True)
class FunctionScore:
    function: str
    line: int
    trace: Trace  # teacher-forced over the whole function source
    body_offset: int  # tokens starting here or later are the body the scores describe
    lexical: LexicalReport


def score_function(
    backend: ModelBackend, fn: FunctionSource, settings: Settings, cancel: CancelToken | None = None
) -> FunctionScore:
    """Teacher-forced lexical scores of an existing function, as if the model had written it.

    The model sees the problem description (imports, signature, docstring) and is then forced
    through the function's source. The signature and docstring are copied from the prompt, so
    the scores cover only the body's tokens.
    """
    trace = annotate_scopes(backend.score(prompts.code_generation(fn.problem_description), fn.source, cancel=cancel))
    body = trace.with_tokens(tuple(t for t in trace.tokens if t.start >= fn.body_offset))
    return FunctionScore(
        function=fn.name,
        line=fn.line,
        trace=trace,
        body_offset=fn.body_offset,
        lexical=lexical_report(body, settings.lexical.top_k),
    )
