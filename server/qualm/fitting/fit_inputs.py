"""Which measured rows a model's chance of passing is fitted and checked on: one manifest per model.

The shipped chance of each model is fitted from many results files (the full runs of the tune
pairs, signals measured later for the same functions, the model's greedy code of tune problems) and
measured on the holdout files. Written once, in a JSON manifest beside the rows
(``results/chance-of-passing/fit-inputs.json`` for the default model), the list is read by every
script that refits or re-chooses (``benchmarks/chance/fit_chance.py --inputs``, ``benchmarks/chance/chain_rule.py``)
and by the test that refits the shipped chance from it, so they cannot drift apart:

    {"model_key": "...", "tune": ["a.jsonl", ...], "holdout": [...],
     "tune_lexical": "...", "holdout_lexical": "...", "lexical_replaces": true,
     "tune_extra": [...], "holdout_extra": [...],
     "tune_generated": "..." or [...], "tune_generated_extra": [...],
     "tune_undecided_pairs": "...", "tune_undecided": [...]}

Paths are relative to the manifest's folder. How the files combine (``split_results``,
``with_extra``...) is what ``fit_chance.py`` has always done; it lives here so that the test and
the scripts share it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .chance_fit import Example
from .pairs import examples_of, read_generated, read_pairs, read_results


@dataclass(frozen=True)
class FitInputs:
    model_key: str | None = None
    tune: tuple[Path, ...] = ()
    holdout: tuple[Path, ...] = ()
    tune_lexical: Path | None = None  # a lexical-only run of the first tune file's functions
    holdout_lexical: Path | None = None
    lexical_replaces: bool = False  # the lexical-only runs' signals replace the full runs'
    tune_extra: tuple[Path, ...] = ()  # signals measured later for the same functions
    holdout_extra: tuple[Path, ...] = ()
    tune_generated: tuple[Path, ...] = ()  # the model's greedy code of tune problems (one file or several)
    tune_generated_extra: tuple[Path, ...] = ()
    # tune pairs that no docstring example decides (benchmarks/chance/undecided_pairs.py --split
    # tune): their pairs file and the full runs of them; a kind the chain is judged on apart
    tune_undecided_pairs: Path | None = None
    tune_undecided: tuple[Path, ...] = ()

    @classmethod
    def read(cls, path: Path) -> FitInputs:
        """A manifest; a listed file that is not there stops here, before anything is fitted."""
        data = json.loads(path.read_text())
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"{path}: unknown keys {sorted(unknown)}")
        base = path.parent

        def one(key: str) -> Path | None:
            return (base / data[key]).resolve() if data.get(key) else None

        def many(key: str) -> tuple[Path, ...]:
            value = data.get(key) or []
            return tuple((base / p).resolve() for p in ([value] if isinstance(value, str) else value))

        inputs = cls(
            model_key=data.get("model_key"),
            tune=many("tune"),
            holdout=many("holdout"),
            tune_lexical=one("tune_lexical"),
            holdout_lexical=one("holdout_lexical"),
            lexical_replaces=bool(data.get("lexical_replaces", False)),
            tune_extra=many("tune_extra"),
            holdout_extra=many("holdout_extra"),
            tune_generated=many("tune_generated"),
            tune_generated_extra=many("tune_generated_extra"),
            tune_undecided_pairs=one("tune_undecided_pairs"),
            tune_undecided=many("tune_undecided"),
        )
        missing = [str(p) for p in inputs.files() if not p.exists()]
        if missing:
            raise FileNotFoundError(f"{path}: listed but not there: {', '.join(missing)}")
        if not inputs.tune:
            raise ValueError(f"{path}: no tune file")
        if bool(inputs.tune_undecided) != (inputs.tune_undecided_pairs is not None):
            raise ValueError(f"{path}: tune_undecided and tune_undecided_pairs go together")
        return inputs

    def files(self) -> list[Path]:
        singles = [self.tune_lexical, self.holdout_lexical, self.tune_undecided_pairs]
        many = [*self.tune, *self.holdout, *self.tune_extra, *self.holdout_extra, *self.tune_generated, *self.tune_generated_extra, *self.tune_undecided]
        return [*many, *(p for p in singles if p is not None)]

    def tune_pairs(self, pairs_file: Path) -> list[Example]:
        """Both functions of every tune pair the files measure fully."""
        return examples_of(read_pairs(pairs_file, "tune"), with_extra(split_results(self.tune, self.tune_lexical, self.lexical_replaces), self.tune_extra))

    def holdout_pairs(self, pairs_file: Path) -> list[Example]:
        if not self.holdout:
            return []
        return examples_of(read_pairs(pairs_file, "holdout"), with_extra(split_results(self.holdout, self.holdout_lexical, self.lexical_replaces), self.holdout_extra))

    def undecided(self) -> list[Example]:
        """Both functions of every tune pair that no docstring example decides and that the files
        measure fully (none: no file)."""
        if self.tune_undecided_pairs is None:
            return []
        return examples_of(read_pairs(self.tune_undecided_pairs, "tune"), split_results(self.tune_undecided, None, False), undecided=True)

    def generated(self) -> list[Example]:
        """The model's greedy code of tune problems, with its later signals (none: no file)."""
        return with_generated_extra([e for path in self.tune_generated for e in read_generated(path)], self.tune_generated_extra)


def with_lexical(results: dict, lexical_path: Path | None, replace: bool = False) -> dict:
    """Lexical signals added from a lexical-only run (``assess_quality.py --axes lexical``) where the
    full run predates them. Teacher-forced scoring is deterministic, so both runs must agree on every
    signal they share; a disagreement stops the fit rather than mixing two measurements.
    ``replace``: the lexical-only run scored another way (``model.score_batch``) and every lexical
    signal is taken from it; a function it lacks is left out rather than mixed."""
    if lexical_path is None:
        return results
    extra = read_results(lexical_path)
    if replace:
        kept = {}
        for key, v in results.items():
            if key in extra:
                values = {k: x for k, x in v["values"].items() if not k.startswith("lexical.")}
                values.update({k: x for k, x in extra[key]["values"].items() if k.startswith("lexical.")})
                kept[key] = {**v, "values": values}
        return kept
    for key, v in results.items():
        if key not in extra:
            continue
        other = extra[key]["values"]
        for name, x in other.items():
            if not name.startswith("lexical."):
                continue
            mine = v["values"].get(name)
            if mine is None and name not in v["values"]:
                v["values"][name] = x
            elif mine is not None and x is not None and abs(mine - x) > 1e-6 * max(1.0, abs(mine)):
                raise ValueError(f"{key}: {name} is {mine} in the full run and {x} in {lexical_path}: not the same scoring")
    return results


def split_results(paths: Sequence[Path], lexical_path: Path | None, replace: bool) -> dict:
    """One split's full-run results from several files: the lexical-only file applies to the first;
    the others were measured later, with the scoring of their day, and are taken as they are."""
    first, *more = paths
    results = with_lexical(read_results(first), lexical_path, replace)
    for path in more:
        results.update(read_results(path))
    return results


def with_extra(results: dict, extra_paths: Sequence[Path] | None) -> dict:
    """Signals measured later for the same functions (``solution_signals.py``, ``swap_signals.py``)
    added to the full runs' values; a function a later run lacks keeps its values without them
    (taken at their mean by the fit, as an assessment without them would be)."""
    for extra_path in extra_paths or []:
        extra = read_results(extra_path)
        for key, v in results.items():
            if key in extra:
                v["values"].update({k: x for k, x in extra[key]["values"].items() if not k.startswith("lexical.")})
    return results


def with_generated_extra(examples: list[Example], extra_paths: Sequence[Path] | None) -> list[Example]:
    """The greedy code's rows with signals measured later (rows by ``task_id``) merged in."""
    for path in extra_paths or []:
        extra = {r["task_id"]: r["values"] for r in map(json.loads, path.read_text().splitlines()) if r.get("values")}
        examples = [Example(e.task_id, {**e.signals, **extra.get(e.task_id, {})}, e.passed, generated=e.generated) for e in examples]
    return examples
