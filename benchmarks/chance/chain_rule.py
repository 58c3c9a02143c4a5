"""Which rule chooses the chain of fits better: nested cross-validation on the tune split only.

    .venv/bin/python -m benchmarks.chance.chain_rule --model 0.5b|1.5b

The outer 5 folds by problem hold each fold out; on the other four the candidates are
cross-validated again (``qualm.fitting``), each rule chooses a chain, the chain is fitted on
those four folds and scored on the held-out fold. Printed: each fold's choices and the outer
log-loss of both rules (the mean of the pairs' and the greedy code's, as the rule's criterion), and
their paired difference. The rules: the one-standard-error rule on the lowest mean's own error
(qualm before 2026-11-27) and on the error of the paired difference (``choose_chain`` now).
No holdout row is read.
"""

from __future__ import annotations

import argparse
import math

from benchmarks.chance.fit_chance import DATA
from benchmarks.common.paths import RESULTS
from qualm.fitting.chain import CHAIN_CANDIDATES, ChainValidation, cross_validate_chain, fit_chain, paired_choice
from qualm.fitting.chance_fit import Example
from qualm.fitting.fit_inputs import FitInputs
from qualm.fitting.validation import mean_and_se

# Each model's manifest of the rows its shipped chance is fitted on (qualm.fitting.fit_inputs): the same
# list fit_chance.py --inputs reads, so this never fits on other rows than the shipped chance.
MANIFESTS = {"0.5b": RESULTS / "assess-quality" / "fit-inputs.json", "1.5b": RESULTS / "qwen2.5-coder-1.5b" / "calibration" / "fit-inputs.json"}


def tune_rows(model: str) -> list[Example]:
    """The tune rows (pairs and the model's greedy code) ``fit_chance.py`` fits the model's shipped chance on."""
    inputs = FitInputs.read(MANIFESTS[model])
    return [*inputs.tune_pairs(DATA), *inputs.generated()]


def choose(scored: list[ChainValidation], paired: bool) -> ChainValidation:
    if paired:
        return paired_choice(scored)
    # the rule before: within the lowest mean's own standard error
    lowest = min(scored, key=lambda cv: cv.logloss)
    near = [cv for cv in scored if cv.logloss <= lowest.logloss + lowest.logloss_se]
    return min(near, key=lambda cv: (cv.signals, cv.logloss))


def criterion(examples: list[Example], losses: list[float]) -> tuple[float, float]:
    """The mean of the two kinds' mean losses, and its standard error."""
    kinds = ([x for e, x in zip(examples, losses) if e.generated == own] for own in (False, True))
    stats = [mean_and_se(kind) for kind in kinds if kind]
    return sum(m for m, _ in stats) / len(stats), math.sqrt(sum(se**2 for _, se in stats)) / len(stats)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=("0.5b", "1.5b"), default="0.5b")
    ap.add_argument("--folds", type=int, default=5)
    args = ap.parse_args()
    examples = tune_rows(args.model)
    present = {n for e in examples for n, v in e.signals.items() if v is not None}
    candidates = [c for c in CHAIN_CANDIDATES if any(set(level) <= present for level in c)]
    problems = sorted({e.task_id for e in examples})
    # outer folds dealt apart from the inner ones (which deal problems in sorted order, i % k)
    fold = {p: (i * 7 + 3) % args.folds for i, p in enumerate(problems)}
    print(f"{args.model}: {len(examples)} tune functions ({sum(e.generated for e in examples)} greedy solutions), {len(problems)} problems, {len(candidates)} candidate chains")
    losses: dict[bool, list[float]] = {False: [0.0] * len(examples), True: [0.0] * len(examples)}
    for f in range(args.folds):
        train = [e for e in examples if fold[e.task_id] != f]
        scored = [cross_validate_chain(train, c) for c in candidates]
        for paired in (False, True):
            chosen = choose(scored, paired)
            model = fit_chain(train, chosen.levels, "nested cross-validation")
            print(f"  fold {f}, {'paired' if paired else 'unpaired'}: {chosen.describe()}")
            for j, e in enumerate(examples):
                if fold[e.task_id] == f:
                    p = model.probability(e.signals)
                    p = 0.5 if p is None else min(1 - 1e-6, max(1e-6, p))
                    losses[paired][j] = -math.log(p if e.passed else 1 - p)
    for paired in (False, True):
        mean, se = criterion(examples, losses[paired])
        print(f"{'paired' if paired else 'unpaired'} rule: outer log-loss {mean:.4f} ± {se:.4f}")
    mean, se = criterion(examples, [a - b for a, b in zip(losses[True], losses[False])])
    print(f"paired - unpaired: {mean:+.4f} ± {se:.4f}")


if __name__ == "__main__":
    main()
