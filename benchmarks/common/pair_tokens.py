"""Shared by the experiments on right/wrong pairs (``plan_conditioned.py``, ``spec_conditioned.py``,
``plan_judge.py``): the pairs with the plans a full run stored, a resumable run over both functions
of each pair, a body's token log-probabilities, and the table of each signal's AUROC for "fails",
how often the mutant is the higher of its pair, and its correlation with the lexical signal (the
first one)."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from benchmarks.common.paths import ROOT
from qualm.fitting.pairs import PAIRS_FILE, read_pairs
from qualm.model import ModelBackend, load_model
from qualm.settings import Settings
from qualm.trace import MIN_PROB, Trace

SIDES = ("original", "mutant")
DATA = ROOT / PAIRS_FILE
Key = tuple[str, str]


def with_plans(rows_path: Path, split: str) -> tuple[list[dict], dict[Key, list[str]]]:
    """The pairs of ``split`` whose two functions a full run (``assess_quality.py --axes all``)
    measured, and the plans it stored for each function."""
    plans: dict[Key, list[str]] = {}
    for line in rows_path.read_text().splitlines():
        v = json.loads(line)
        plans[(v["pair_id"], v["side"])] = v["detail"]["plans"]
    return [r for r in read_pairs(DATA, split) if all((r["pair_id"], s) in plans for s in SIDES)], plans


def model_loader(settings: Settings) -> Callable[[], ModelBackend]:
    """The model, loaded on first use: a run read wholly from its cache loads none."""
    return functools.cache(lambda: load_model(settings.model))


def body_logps(trace: Trace, body_offset: int) -> dict[tuple[int, int], float]:
    """log p of each visible body token, by its offsets from the body's start (so that two versions
    of a function with the same body line up)."""
    return {(t.start - body_offset, t.end - body_offset): math.log(max(t.prob, MIN_PROB)) for t in trace.tokens if t.start >= body_offset and t.text.strip()}


def measured(rows: list[dict], cache: Path, measure: Callable[[dict, str], dict | None], every: int = 1) -> dict[Key, dict | None]:
    """Both functions of every row, read back from ``cache`` where measured before; ``measure``
    may return None (nothing to measure), kept as such so it is not tried again."""
    done: dict[Key, dict | None] = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            v = json.loads(line)
            done[(v["pair_id"], v["side"])] = None if v.get("nothing") else v
    with open(cache, "a") as out:
        for i, row in enumerate(rows):
            for side in SIDES:
                if (row["pair_id"], side) in done:
                    continue
                v = measure(row, side)
                done[(row["pair_id"], side)] = v
                out.write(json.dumps(v or {"pair_id": row["pair_id"], "side": side, "nothing": True}) + "\n")
                out.flush()
            if (i + 1) % every == 0:
                print(f"{i + 1} of {len(rows)} pairs", flush=True)
    return done


def signal_table(sig: dict[Key, dict[str, float]], pairs: list[str]) -> None:
    keys = list(sig)
    fails = [k[1] == "mutant" for k in keys]
    names = list(sig[keys[0]])
    lexical = [sig[k][names[0]] for k in keys]
    for name in names:
        xs = [sig[k][name] for k in keys]
        m, o = ([sig[(p, s)][name] for p in pairs] for s in ("mutant", "original"))
        wins = [1.0 if a > b else 0.5 if a == b else 0.0 for a, b in zip(m, o)]
        corr = float(np.corrcoef(xs, lexical)[0, 1])
        print(f"  {name:40} AUROC {roc_auc_score(fails, xs):.3f}  mutant higher in {np.mean(wins):.3f} of pairs  r with lexical {corr:+.2f}")
