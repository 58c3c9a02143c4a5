"""The sampled plans as programs: the algorithmic axis seen through behaviour.

The paper's plans are text written from the problem alone, and text cannot see a one-token edit of
the code: the code's own plan compared with them as text is at chance on right/wrong pairs (README,
issue 23). Here the model implements each sampled plan (greedy, the solutions' prompt and budget
with "Follow this plan:" and the plan), the code's tests run on each program, and the code is
compared with them (:mod:`qualm.signals.agreement`, the programs in the solutions' place):

* ``plan_agreement`` = 1 - the mean share of the tests' inputs where a plan's program answers as the
  code does: does the code do what the model's plans do? (larger = more doubt)
* ``plan_weighted``: the code's failed share of its tests, each weighted by the share of the plans'
  programs that pass it.

The programs depend on the problem and the plan alone, so they are kept with the plans between
assessments (``SampleCache``). On by ``algorithmic.plan_programs`` (programs beside the model's
solutions) or ``functional.solutions_from_plans`` (the programs are the solutions after the first).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import prompts
from ..lang import Language
from ..model import GenerationOptions
from ..settings import Settings
from .samples import Job
from .solutions import solution_jobs, solution_start

PLAN_PROGRAM_SEED = 3000  # added to the generation seed (greedy, so only a cache key's part)


def plan_program_jobs(problem: str, plans: Sequence[str], settings: Settings, language: Language) -> list[Job]:
    """One greedy program per plan with text, written under the function's header as the solutions are."""
    f = settings.functional
    start = solution_start(problem, settings)
    options = GenerationOptions(max_tokens=f.solution_max_tokens, temperature=0.0, seed=settings.generation.seed + PLAN_PROGRAM_SEED, top_alternatives=1, reuse_cache=True)
    return [(prompts.plan_program(problem, plan, language.display_name, language.fence, start), options) for plan in plans if plan.strip()]


def solutions_of(problem: str, plans: Sequence[str], settings: Settings, language: Language) -> list[Job]:
    """The model's solutions as an assessment decodes them: with ``functional.solutions_from_plans``
    the greedy one from the problem and then the plans' programs (at most ``n_solutions`` in all),
    else the solutions from the problem alone. No plan with text: the solutions from the problem."""
    jobs = solution_jobs(problem, settings, language)
    programs = plan_program_jobs(problem, plans, settings, language) if settings.functional.solutions_from_plans else []
    return jobs[:1] + programs[: len(jobs) - 1] if programs and jobs else jobs


def programs_among(jobs: Sequence[Job]) -> int:
    """How many of ``jobs`` (the solutions' jobs of :func:`solutions_of`) are plans' programs."""
    return sum(prompt.name == "plan_program" for prompt, _ in jobs)


def checked_programs(problem: str, plans: Sequence[str], settings: Settings, language: Language, among_solutions: int = 0) -> list[Job]:
    """The plans' programs an assessment runs the code's tests against: the first
    ``algorithmic.plan_programs``, or every one among the solutions where those are more (decoded
    with the solutions, they come back from the ``SampleCache``)."""
    return plan_program_jobs(problem, plans, settings, language)[: max(settings.algorithmic.plan_programs, among_solutions)]
