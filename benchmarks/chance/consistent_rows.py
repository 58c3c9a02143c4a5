"""The tune rows of the chance's third round (issue 55): the undecided tune pairs with the signals of
the solutions that pass the docstring's examples (``consistent_weighted``, ``consistent_differential``).

    .venv/bin/python -m benchmarks.chance.consistent_rows --pairs results/chance-undecided-2/tune-pairs.jsonl \\
      --before results/chance-undecided-2/assess-quality-tune.jsonl \\
      --measured results/chance-undecided-3/assess-quality-tune-examples-pass.jsonl \\
      --out results/chance-undecided-3/assess-quality-tune.jsonl

A pair whose docstring gives no example needs no new model run: with no example every solution
counts and no call is varied from an example, so the two signals are the weighted tests and the
differential the earlier run measured (``qualm.engine.solutions``; the unit test
``test_only_the_solutions_that_pass_the_docstring_s_examples_vote...`` checks the equality). Its rows
are copied with those two values. A pair whose wrong function passes its examples is measured again
(``assess_quality --pairs`` of those pairs alone, ``--measured``) and its new rows are taken whole.
Writes every pair's two rows in the pairs file's order.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from qualm.chance import with_derived
from qualm.fitting.pairs import SIDES, read_results

NO_EXAMPLE = "no example"


def derived_row(row: dict) -> dict:
    """A no-example row with the consistent signals: the same as those of every solution."""
    values = dict(row["values"])
    values["consistent_weighted"] = values.get("functional_weighted")
    values["consistent_differential"] = values.get("differential")
    detail = {**row["detail"], "consistent": "derived: the docstring gives no example, so every solution counts"}
    return {**row, "values": with_derived(values), "detail": detail}


def merged(pairs: list[dict], before: dict[tuple[str, str], dict], measured: dict[tuple[str, str], dict]) -> list[dict]:
    out = []
    for pair in pairs:
        for side in SIDES:
            key = (pair["pair_id"], side)
            if pair["condition"] == NO_EXAMPLE:
                out.append(derived_row(before[key]))
            elif key in measured:
                out.append(measured[key])
            else:
                raise SystemExit(f"{key}: not measured again (the pair's wrong function passes its examples)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, required=True)
    ap.add_argument("--before", type=Path, required=True, help="the rows measured before, for the no-example pairs")
    ap.add_argument("--measured", type=Path, required=True, help="the rows measured again, for the other pairs")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    rows = merged(pairs, read_results(args.before), read_results(args.measured))
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} rows of {len(pairs)} pairs -> {args.out}")


if __name__ == "__main__":
    main()
