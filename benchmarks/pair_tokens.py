"""Shared by the per-token experiments on right/wrong pairs (``plan_conditioned.py``,
``spec_conditioned.py``): a resumable run over both functions of each pair, and the table of
each signal's AUROC for "fails", how often the mutant is the higher of its pair, and its
correlation with the lexical signal (the first one)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

SIDES = ("original", "mutant")
Key = tuple[str, str]


def measured(rows: list[dict], cache: Path, measure: Callable[[dict, str], dict | None], every: int = 1) -> dict[Key, dict | None]:
    """Both functions of every row, read back from ``cache`` where measured before; ``measure``
    may return None (nothing to measure), kept as an empty row so it is not tried again."""
    done: dict[Key, dict | None] = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            v = json.loads(line)
            done[(v["pair_id"], v["side"])] = v if v.get("tokens") else None
    with open(cache, "a") as out:
        for i, row in enumerate(rows):
            for side in SIDES:
                if (row["pair_id"], side) in done:
                    continue
                v = measure(row, side)
                done[(row["pair_id"], side)] = v
                out.write(json.dumps(v or {"pair_id": row["pair_id"], "side": side, "tokens": []}) + "\n")
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
