"""qualm's settings: one typed place, defaults taken from the paper's hyperparameters.

The CLI, the language server and the tests all build a :class:`Settings`; nothing else in
the engine reads configuration from the environment or from globals.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

from platformdirs import user_config_dir

from .backends import BACKENDS
from .signals.lexical import ASSESS_SIGNALS, GATE_SCORES


def default_threads() -> int:
    """Cores this process may run on (llama.cpp's own default is half of them)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class ModelSettings:
    """Which model and how to run it. ``backend`` picks the implementation (``qualm.backends``);
    ``path`` is what the local backends load, ``endpoint`` and what follows it are the openai
    backend's (a shared inference server); each backend ignores the others' knobs."""

    backend: str = "llama_cpp"
    # None means the default model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M, assembled in the cache).
    path: str | None = None
    n_gpu_layers: int = 0  # -1 offloads every layer; needs a CUDA/Metal build of llama-cpp-python
    n_threads: int | None = None  # None: every core this process may use
    n_ctx: int = 4096
    n_batch: int = 512
    # llama.cpp's extra CPU buffer types (weight repacking, AMX). "auto" turns them off only
    # when the build contains the AMX path, which segfaults on some CPUs (llama.cpp issue 20824).
    cpu_extra_buffers: str = "auto"  # "auto" | "on" | "off"
    # Tokens per decode step when scoring existing code. 64: 3 to 6 times faster than 1 on a CPU
    # (HumanEval/0's greedy solution 3.0 s against 9.5 s); 1 reproduces generation's entropies
    # exactly, larger chunks shift them by up to ~0.1 nats (llama.cpp's batched kernels).
    score_batch: int = 64
    # Parallel sampling (plans, self-tests): sequences decoded together in one unified KV cache.
    max_parallel_sequences: int = 16
    batch_n_ctx: int = 8192  # shared by all parallel sequences: prompts + every sample's tokens
    # -- the openai backend: an OpenAI-compatible server (README "Team setup") --
    endpoint: str = "http://127.0.0.1:8080"  # base URL, with or without /v1
    # The NAME of the environment variable that holds the API key: a key never sits in a settings
    # file in clear. Unset or empty: no Authorization header.
    api_key_env: str = "QUALM_API_KEY"
    name: str | None = None  # the served model; None: the only one the server lists
    engine: str = "auto"  # auto: probed at start-up; or llama.cpp, llama-cpp-python, vllm, sglang, openai
    timeout_s: float = 120.0  # longest wait for the next byte of an answer
    retries: int = 2  # further tries of a request that could not connect or got 429/5xx
    top_logprobs: int = 20  # N alternatives asked per token (the entropy bound rests on them)
    max_concurrency: int = 8  # requests in flight at once (samples, the evaluation's problems)
    entropy_estimate: str = "geometric"  # the point estimate from the top N (qualm.entropy_bounds)
    vocab_size: int | None = None  # where the server does not say; None: the probe's or 151,936
    chat_template: str | None = None  # a Jinja file that replaces the model's own template (the GGUF's or the server's)
    # The served model's fill-in-the-middle markers (qualm.model.fim.FORMATS): "auto" uses llama.cpp's
    # /infill, and elsewhere asks the server's tokenizer where it can, else goes by the model's name;
    # a named format sends the FIM text itself (on llama.cpp through /completion, without /infill's
    # fixed header); "none": no FIM (completions use the chat prompt). docs/completion-remote.md.
    fim_format: str = "auto"

    def threads(self) -> int:
        return self.n_threads if self.n_threads and self.n_threads > 0 else default_threads()


@dataclass(frozen=True)
class GenerationSettings:
    max_tokens: int = 1024  # the paper's code-generation budget
    seed: int = 42  # the paper's seed
    top_alternatives: int = 5


@dataclass(frozen=True)
class LexicalSettings:
    top_k: int = 5  # K of the Top-K entropy (the paper's default)
    # Token entropy thresholds in nats for the display levels low / medium / high.
    # A token below the first is "confident". See README "Uncertainty levels".
    level_thresholds: tuple[float, float, float] = (0.5, 1.0, 2.0)
    # The lexical axis of an assessment (code in the file, teacher-forced): which score of the body
    # (qualm.signals.lexical). Chosen by measurement on right/wrong pairs (README, issue 23: on 680
    # tune functions 0.718 against 0.697 for the least likely token alone); the paper's
    # top_k_entropy stays the score of generated code.
    assess_signal: str = "blended_surprisal"


@dataclass(frozen=True)
class AlgorithmicSettings:
    # The paper's N is 10 with 2048 tokens a plan; `qualm eval` reproduces it with N = 10 and 512
    # tokens (evaluation.runner.PAPER_PLANS). The editor's defaults are what an assessment costs
    # on a CPU: 3 plans of at most 256 tokens, each stopped after its last step (README, issue 23:
    # the plans' dispersion told nothing at N = 5 or 3 on the tune problems, and two fewer plans
    # are about 4-7 s of a 2-core CPU's assessment).
    n_plans: int = 3  # N
    temperature: float = 0.8
    top_p: float = 0.95
    max_tokens: int = 256  # a plan cut here keeps its steps
    stop_after_last_step: bool = True  # answer_ends.plan_end
    # How many of the sampled plans (the first with text) the model implements (greedy) to run on
    # the code's tests: whether the code behaves like the plans (plan_agreement, the candidate-aware
    # algorithmic signal; qualm.engine.plan_programs). 0: none. On the tune pairs one program told
    # right from wrong as well as five (AUROC 0.693 against 0.671) for a fifth of their cost (README,
    # issue 23). Plans already written as solutions (functional.solutions_from_plans) cost nothing.
    plan_programs: int = 1
    # The code's own plan (greedy), compared with the sampled plans as text (candidate_distance). At
    # chance on right/wrong pairs and on the model's own code, and one more sequence in the plans'
    # batch (about 7 s on two CPU cores): off; the plans' programs see the code instead (README,
    # issue 23).
    candidate_plan: bool = False


@dataclass(frozen=True)
class FunctionalSettings:
    n_tests: int = 10  # M
    temperature: float = 0.8
    top_p: float = 0.95
    max_tokens: int = 1024
    timeout: float = 4.0  # seconds per test
    memory_mb: int = 1024  # per test process
    sandbox_mode: str = "auto"  # "auto" | "bubblewrap" | "limits"
    # The Python that runs the tests: "" for the one running qualm. A project's own interpreter
    # (its virtual environment's python) lets code that imports the project's installed packages
    # run; the file's own folders are on the path either way (qualm.lang.python.imports).
    python: str = ""
    # The model's own solutions, run on the tests' inputs (qualm.signals.agreement): the first is
    # greedy, the others sampled. 0 turns them off (and the signals built on them).
    n_solutions: int = 6
    solution_temperature: float = 0.6
    solution_top_p: float = 0.95
    solution_max_tokens: int = 384
    # The solutions' code block opens with the function's header (signature and docstring), so the
    # model writes the body only instead of writing the docstring out again.
    solution_body_only: bool = True
    # The solutions after the first (greedy, from the problem) written from the sampled plans, one
    # greedy program a plan (qualm.engine.plan_programs): the plans' programs, and with them
    # plan_agreement, cost no decoding of their own; solution_temperature is then unused. Without
    # plans (the algorithmic axis off) the solutions come from the problem alone. Off: measured on
    # the pairs, the plans' programs are worse solutions than those sampled from the problem (the
    # chance of passing's holdout AUROC 0.834 against 0.866; README, issue 23).
    solutions_from_plans: bool = False
    # Calls with the tests' literal inputs varied by type, answered by the code and the solutions
    # (qualm.signals.differential); 0 turns it off.
    fuzz_inputs: int = 32
    # Where the docstring gives examples, the solutions that pass them are the witnesses of the
    # consistent signals, with calls varied from the examples' inputs too (qualm.engine.solutions;
    # issue 55, third round). Off: neither is computed (the examples' runs and calls are saved).
    consistent_solutions: bool = True
    # Token swaps (qualm.signals.swaps): at the body's swap_positions least likely code tokens, the
    # model's swap_alternatives likelier tokens at or above swap_floor, each run on the tests.
    # 0 positions turns it off. Chosen on the tune pairs (README, "Token swaps").
    swap_positions: int = 2
    swap_alternatives: int = 1
    swap_floor: float = 0.05
    # A likely fix (qualm.engine.fix): the model's likelier tokens at the body's fix_positions least
    # likely code tokens (fix_alternatives each, at or above swap_floor) and the suspect line written
    # again (fix_line), run on the examples and the self-tests; offered where one passes more of them.
    # 0 positions and fix_line false turn it off.
    fix_positions: int = 5
    fix_alternatives: int = 2
    fix_line: bool = True
    # The docstring's own examples (doctest `>>>` lines, `f(1) == 2` and `assert f(1) == 2` lines) run as tests
    # (qualm.signals.examples): shown in the hover, and where the docstring has one, the chance of
    # passing rests on them first. False: not run.
    docstring_examples: bool = True


@dataclass(frozen=True)
class AxisWeights:
    """The ensemble's weight of each axis (the paper's 0.2 / 0.4 / 0.4); 0 turns the algorithmic or
    functional axis off (not computed). Settings files may still give the older list form."""

    lexical: float = 0.2
    algorithmic: float = 0.4
    functional: float = 0.4

    @classmethod
    def from_sequence(cls, values: Any, where: str) -> AxisWeights:
        if not isinstance(values, (list, tuple)) or len(values) != 3:
            raise SettingsError(f"{where} must be an object {{lexical, algorithmic, functional}} or a list of 3 numbers")
        return _merge(cls(), dict(zip(("lexical", "algorithmic", "functional"), values)), where)

    def as_dict(self) -> dict[str, float]:
        return {"lexical": self.lexical, "algorithmic": self.algorithmic, "functional": self.functional}

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.lexical, self.algorithmic, self.functional)


@dataclass(frozen=True)
class EnsembleSettings:
    weights: AxisWeights = field(default_factory=AxisWeights)
    calibration_file: str | None = None  # None: qualm calibrate's file or the shipped one for the model


@dataclass(frozen=True)
class EditorSettings:
    """How the language server presents uncertainty."""

    diagnostic_level: str = "medium"  # lowest token level that gets a diagnostic: low | medium | high
    # Lowest level coloured in the editor (sent in qualm/marks): calm by default, only what the
    # thresholds call medium or high. Neighbouring tokens at or above it are one span with one hover.
    highlight_level: str = "medium"
    max_diagnostics: int = 50  # per document, the most uncertain first
    completion_max_tokens: int = 128
    # Completions (docs/completion.md): "auto" writes from a fill-in-the-middle prompt where the
    # model has FIM tokens, else from the paper's code prompt; "fim" or "chat" chooses one.
    completion_prompt: str = "auto"
    # The FIM prompt's windows, in the model's tokens: the code before the cursor, after it, and
    # chunks of other open documents and lately edited regions. Chosen by the real-code benchmark's
    # rule (results/realcode-completion): 1024/512 gave edit similarity 0.460 against 0.378 for
    # 512/128 (tune part, validation), at about 1.7 times the cold first token on a 2-core CPU;
    # lower them there for speed (docs/completion.md).
    completion_prefix_tokens: int = 1024
    completion_suffix_tokens: int = 512
    completion_context_tokens: int = 256
    # Cut the ghost text before its first very uncertain token (entropy at or above the "high"
    # threshold), so that Tab takes only what the model was sure of. Off: the infilling benchmark
    # (results/infilling) decides whether it helps.
    completion_doubt_cut: bool = False
    # What the code lens and the hover lead with: the calibrated chance of passing, or the paper's ensemble.
    headline: str = "chance"
    # Which doubt colours code the model did not write (scored): "surprisal", the model would not
    # have written this token (-log p); "entropy", the model was unsure at this place; "either", the
    # higher of the two levels. Completions are the model's own choice: always entropy.
    scored_doubt: str = "surprisal"
    # Acting on a marked token: alternatives at least this likely are offered as code actions, and
    # "regenerate from here" samples the rest at this temperature (the paper's sampling, 0.8).
    alternative_floor: float = 0.05
    regenerate_temperature: float = 0.8


@dataclass(frozen=True)
class CheckSettings:
    """The gate of ``qualm check`` (CI, pre-commit): a function fails it below this chance of passing
    (with --assess), or, scored only, above this lexical score. Defaults chosen on the tune pairs and
    measured on the holdout pairs of issue 23 (README, ``qualm check``)."""

    min_chance: float = 0.3
    # The score-only gate: the surprisal of the body's least likely token, -ln p_min (nats): the same
    # order as max_probability (the best single-token lexical signal measured on right/wrong pairs)
    # and the lexical feature of the shipped chance of passing, on a scale a threshold can use.
    score: str = "max_surprisal"
    max_score: float = 11.0


@dataclass(frozen=True)
class Settings:
    model: ModelSettings = field(default_factory=ModelSettings)
    generation: GenerationSettings = field(default_factory=GenerationSettings)
    lexical: LexicalSettings = field(default_factory=LexicalSettings)
    algorithmic: AlgorithmicSettings = field(default_factory=AlgorithmicSettings)
    functional: FunctionalSettings = field(default_factory=FunctionalSettings)
    ensemble: EnsembleSettings = field(default_factory=EnsembleSettings)
    editor: EditorSettings = field(default_factory=EditorSettings)
    check: CheckSettings = field(default_factory=CheckSettings)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> Settings:
        """Build settings from nested plain data (JSON from an LSP client, a config file).

        Unknown keys are rejected with a message naming them, so a typo is never silently ignored;
        so is a value outside its range (:data:`LIMITS`, :data:`CHOICES`).
        """
        return _checked(_merge(cls(), data or {}, "qualm"))

    def with_overrides(self, **sections: Mapping[str, Any]) -> Settings:
        return _checked(_merge(self, sections, "qualm"))


# The values a setting may take beyond its type, (minimum, maximum) with None for no bound; for a
# list, each item. Checked where a setting is set (a settings file, the editor, a flag), so a bad
# value is named there rather than failing deep inside a model call. package.json's schema carries
# the same bounds (tests/unit/test_extension_manifest.py keeps them equal).
LIMITS: dict[str, tuple[float | None, float | None]] = {
    "model.n_gpu_layers": (-1, None),
    "model.n_threads": (1, None),
    "model.n_ctx": (256, None),
    "model.n_batch": (8, None),
    "model.score_batch": (1, 512),
    "model.max_parallel_sequences": (1, None),
    "model.batch_n_ctx": (512, None),
    "model.timeout_s": (1, None),
    "model.retries": (0, 10),
    "model.top_logprobs": (1, 1000),
    "model.max_concurrency": (1, 256),
    "model.vocab_size": (2, None),
    "generation.max_tokens": (1, None),
    "generation.top_alternatives": (1, 20),
    "lexical.top_k": (1, None),
    "lexical.level_thresholds": (0, None),
    "algorithmic.n_plans": (2, None),  # agreement needs two plans
    "algorithmic.temperature": (0, None),
    "algorithmic.top_p": (0, 1),
    "algorithmic.max_tokens": (16, None),
    "algorithmic.plan_programs": (0, None),
    "functional.n_tests": (1, None),
    "functional.temperature": (0, None),
    "functional.top_p": (0, 1),
    "functional.max_tokens": (16, None),
    "functional.timeout": (0.1, None),
    "functional.memory_mb": (64, None),
    "functional.n_solutions": (0, None),
    "functional.solution_temperature": (0, None),
    "functional.solution_top_p": (0, 1),
    "functional.solution_max_tokens": (16, None),
    "functional.fuzz_inputs": (0, None),
    "functional.swap_positions": (0, None),
    "functional.swap_alternatives": (1, None),
    "functional.swap_floor": (0.0, 1.0),
    "functional.fix_positions": (0, None),
    "functional.fix_alternatives": (1, None),
    "ensemble.weights.lexical": (0, None),
    "ensemble.weights.algorithmic": (0, None),
    "ensemble.weights.functional": (0, None),
    "editor.max_diagnostics": (0, None),
    "editor.completion_max_tokens": (1, None),
    "editor.completion_prefix_tokens": (16, None),
    "editor.completion_suffix_tokens": (0, None),
    "editor.completion_context_tokens": (0, None),
    "check.min_chance": (0, 1),
    "check.max_score": (0, None),
    "editor.alternative_floor": (0.0, 1.0),
    "editor.regenerate_temperature": (0.0, 2.0),
}
CHOICES: dict[str, tuple[str, ...]] = {
    "model.cpu_extra_buffers": ("auto", "on", "off"),
    "model.engine": ("auto", "llama.cpp", "llama-cpp-python", "vllm", "sglang", "openai"),
    "model.entropy_estimate": ("geometric", "lower", "midpoint"),
    "model.fim_format": ("auto", "qwen", "starcoder", "codellama", "deepseek", "none"),
    "functional.sandbox_mode": ("auto", "bubblewrap", "limits"),
    "editor.diagnostic_level": ("low", "medium", "high"),
    "editor.highlight_level": ("low", "medium", "high"),
    "editor.headline": ("chance", "ensemble"),
    # the lexical scores in nats (qualm.check.gate), so that one threshold, check.max_score, reads the
    # same; declared with the scores (qualm.signals.lexical), as is lexical.assess_signal's list
    "check.score": GATE_SCORES,
    "editor.scored_doubt": ("surprisal", "entropy", "either"),
    "editor.completion_prompt": ("auto", "fim", "chat"),
    "lexical.assess_signal": ASSESS_SIGNALS,
}


def _checked(settings: Settings) -> Settings:
    def value(name: str) -> Any:
        current: Any = settings
        for part in name.split("."):
            current = getattr(current, part)
        return current

    for name, (low, high) in LIMITS.items():
        current = value(name)
        for v in current if isinstance(current, tuple) else (current,):
            if v is None:
                continue  # "not set": the documented default applies
            if (low is not None and v < low) or (high is not None and v > high):
                bounds = f"at least {low:g}" if high is None else f"between {low:g} and {high:g}"
                raise SettingsError(f"qualm.{name} must be {bounds}, got {v:g}")
    for name, allowed in CHOICES.items():
        if value(name) not in allowed:
            raise SettingsError(f"qualm.{name} must be one of {', '.join(allowed)}, got {value(name)!r}")
    if settings.model.backend not in BACKENDS:
        raise SettingsError(f"qualm.model.backend must be one of {', '.join(BACKENDS)}, got {settings.model.backend!r}")
    if not any(w > 0 for w in settings.ensemble.weights.as_tuple()):
        raise SettingsError("qualm.ensemble.weights: at least one weight must be above 0")
    if list(settings.lexical.level_thresholds) != sorted(settings.lexical.level_thresholds):
        raise SettingsError("qualm.lexical.level_thresholds must rise: low, medium, high")
    return settings


def config_path() -> Path:
    """The user's settings file for the CLI: QUALM_CONFIG, else platformdirs' config folder."""
    override = os.environ.get("QUALM_CONFIG")
    return Path(override) if override else Path(user_config_dir("qualm", appauthor=False)) / "settings.json"


def load_user_settings(path: Path | None = None) -> Settings:
    """Settings from the user's JSON file (same names as the language server's ``qualm`` section);
    defaults when there is no file. A malformed file is an error that names the file."""
    path = path or config_path()
    if not path.exists():
        return Settings()
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SettingsError(f"{path}: not readable JSON ({exc})") from exc
    try:
        return Settings.from_mapping(data)
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc}") from exc


def _merge(obj: Any, data: Mapping[str, Any], where: str) -> Any:
    if not isinstance(data, Mapping):
        raise SettingsError(f"{where} must be an object, got {type(data).__name__}")
    known = {f.name: f for f in fields(obj)}
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise SettingsError(f"unknown setting {where}.{key}")
        current = getattr(obj, key)
        name = f"{where}.{key}"
        if value is None:
            # null means "not set" only where the setting has no value by default (a path, a thread count)
            if not _optional(known[key]):
                raise SettingsError(f"{name} cannot be null")
            changes[key] = None
        elif is_dataclass(current) and isinstance(value, (list, tuple)) and hasattr(current, "from_sequence"):
            changes[key] = current.from_sequence(value, name)
        elif is_dataclass(current):
            changes[key] = _merge(current, value, name)
        else:
            changes[key] = _coerce(current, value, name)
    return replace(obj, **changes)


def _optional(f: Field) -> bool:
    """Whether a field's declared type admits None (annotations are strings here: PEP 563)."""
    return "None" in str(f.type).replace(" ", "").split("|")


def _coerce(current: Any, value: Any, where: str) -> Any:
    if isinstance(current, tuple):
        if not isinstance(value, (list, tuple)) or len(value) != len(current):
            raise SettingsError(f"{where} must be a list of {len(current)} numbers")
        return tuple(float(v) for v in value)
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise SettingsError(f"{where} must be true or false")
        return value
    if isinstance(current, int) or (current is None and isinstance(value, int)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
            raise SettingsError(f"{where} must be an integer")
        return int(value)
    if isinstance(current, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SettingsError(f"{where} must be a number")
        return float(value)
    if isinstance(current, str) or current is None:
        if not isinstance(value, str):
            raise SettingsError(f"{where} must be a string")
        return value
    return value


class SettingsError(ValueError):
    """A setting has an unknown name or a value of the wrong type."""
