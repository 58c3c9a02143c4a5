"""Run qualm's completion again only where a new stop rule changes the recorded one.

    .venv/bin/python -m benchmarks.completion.rerun_where --tasks TASKS --rows ROWS --rule repeats-above --label echo --out OUT

A stop rule that only cuts a completion earlier can be replayed over the recorded tokens
(``fim_compare.qualm_conditions``; not exactly where a streaming rule ended the recorded stream
inside a token, fim_compare's note), but a completion it cuts to nothing goes on with the model's second
choice of first token, which needs the model. This writes, for every row of ROWS, a row of
condition ``qualm-LABEL``: where today's rules end the recorded completion with RULE, the live
completion of today's engine; elsewhere the recorded completion as it is. ``fim_compare report
ROWS OUT`` then sets the two side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.completion.fim_compare import HEAL_POLICY, live, load_model, load_tasks, qualm_conditions
from qualm.settings import Settings


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--rows", required=True, help="fim_compare run's rows of the shipped engine")
    ap.add_argument("--rule", required=True, help="the stop rule on trial (its end_rule name)")
    ap.add_argument("--label", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    tasks = {t["id"]: t for t in load_tasks("realcode", None, Path(args.tasks))}
    rows = [json.loads(line) for line in Path(args.rows).read_text().splitlines() if line.strip()]
    rows = [r for r in rows if "own" not in r and "qualm" in r]
    # rows of a `run --variant` have no raw stream, and the replay needs none
    fires = [r["id"] for r in rows if qualm_conditions(tasks[r["id"]], {"cursor": {"heal": "", "tokens": []}, **r})["qualm"]["rule"] == args.rule]
    print(f"{args.rule} ends {len(fires)} of {len(rows)} recorded completions: {fires}", file=sys.stderr)
    settings = Settings()
    backend = load_model(settings.model) if fires else None
    with Path(args.out).open("w") as f:
        for r in rows:
            qualm = live(backend, tasks[r["id"]], settings) if r["id"] in fires else r["qualm"]
            f.write(json.dumps({"id": r["id"], "variant": args.label, "heal": HEAL_POLICY if r["id"] in fires else r.get("heal"), "rerun": r["id"] in fires, "qualm": qualm}) + "\n")


if __name__ == "__main__":
    main()
