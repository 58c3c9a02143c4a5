"""Benchmark: what a rewrite from an uncertain token changes (issue 25).

    .venv/bin/python -m benchmarks.completion.regeneration [--problems 0,10,...] [--per-problem 3] [--floor 0.05]

For each HumanEval problem (the default: 10 spread over the set), the default model completes the
function's body greedily at the end of its prompt, as the editor's ghost text does (at most
``--max-tokens`` tokens). At the ``--per-problem`` most uncertain tokens that have an alternative of
at least ``--floor``, the likeliest alternative is forced and the rest regenerated (what the code
action "use … instead" does). For each rewrite it records whether the text after the forced token
differs from what followed the original token (beyond the token itself), how similar the two rests
are (difflib's ratio), whether the function passes HumanEval's hidden tests before and after, and
the seconds the rewrite took. Prints the table and the summary; writes results/regeneration/table.md.
"""

from __future__ import annotations

import argparse
import difflib
import statistics
import time

from benchmarks.common.paths import RESULTS
from qualm import engine
from qualm.engine import Document
from qualm.engine.regeneration import choices, regenerate, rewrite_end, rewrite_start, run_end
from qualm.evaluation.datasets import humaneval
from qualm.evaluation.labels import official_label
from qualm.model import load_model
from qualm.settings import Settings

OUT = RESULTS / "regeneration" / "table.md"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", default="0,16,32,48,64,80,96,112,128,144")
    ap.add_argument("--per-problem", type=int, default=3)
    ap.add_argument("--floor", type=float, default=0.05)
    ap.add_argument("--max-tokens", type=int, default=160)
    args = ap.parse_args()
    settings = Settings.from_mapping({"editor": {"completion_max_tokens": args.max_tokens}})
    problems = humaneval()
    backend = load_model(settings.model)
    rows, lines = [], []
    for index in (int(x) for x in args.problems.split(",")):
        problem = problems[index]
        doc = Document(problem.prompt)
        done = engine.complete(backend, doc, len(problem.prompt), settings)
        text = problem.prompt + done.text
        written = Document(text)
        passed = official_label(problem, text).passed
        spans = [(t.start, t.end) for t in done.tokens if t.text.strip()]
        marked = [t for t in done.tokens if t.text.strip()]
        picks = sorted((t for t in marked if choices(t, args.floor)), key=lambda t: -t.entropy)[: args.per_problem]
        for token in picks:
            alt = choices(token, args.floor)[0]
            end = rewrite_end(written, token, run_end(spans, marked.index(token), text))
            t0 = time.perf_counter()
            result = regenerate(backend, written, token, end, settings, choice=alt)
            seconds = time.perf_counter() - t0
            start = rewrite_start(token, text)
            old_rest = text[token.end : end]
            new_rest = result.text[len(result.completion.tokens[0].text) :]
            rewritten = text[:start] + result.text + text[end:]
            after = official_label(problem, rewritten).passed
            same = old_rest == new_rest
            ratio = difflib.SequenceMatcher(None, old_rest, new_rest).ratio()
            rows.append({"differs": not same, "ratio": ratio, "before": passed, "after": after, "seconds": seconds, "tokens": len(result.completion.tokens)})
            shown = (token.trimmed + token.text).replace("\n", "⏎").replace("|", "\\|")
            lines.append(
                f"| {problem.task_id} | `{shown}` {token.entropy:.2f} | `{alt.text.replace(chr(10), '⏎').replace('|', chr(92) + '|')}` {alt.prob:.0%} | "
                f"{'yes' if not same else 'no'} | {ratio:.2f} | {'pass' if passed else 'fail'} → {'pass' if after else 'fail'} | {seconds:.1f} |"
            )
            print(lines[-1], flush=True)
    backend.close()
    n = len(rows)
    differs = sum(r["differs"] for r in rows)
    flips_up = sum((not r["before"]) and r["after"] for r in rows)
    flips_down = sum(r["before"] and not r["after"] for r in rows)
    summary = [
        f"{n} rewrites on {len(set(args.problems.split(',')))} HumanEval problems (the default model, greedy ghost text of at most {args.max_tokens} tokens, "
        f"the {args.per_problem} most uncertain tokens with an alternative of at least {args.floor:.0%} each, its likeliest alternative forced):",
        f"- the rest after the forced token differs from the original rest in {differs} of {n} ({differs / n:.0%}); "
        f"median similarity of the two rests (difflib ratio) {statistics.median(r['ratio'] for r in rows):.2f}",
        f"- hidden tests: {flips_up} rewrites turned a failing function into a passing one, {flips_down} a passing one into a failing one, "
        f"{n - flips_up - flips_down} kept the outcome",
        f"- seconds per rewrite: median {statistics.median(r['seconds'] for r in rows):.1f} (this 2-core CPU, in-process backend), "
        f"median {statistics.median(r['tokens'] for r in rows)} tokens",
    ]
    header = "| problem | token, entropy (nats) | forced alternative, p | rest differs | similarity | hidden tests | seconds |\n|---|---|---|---|---|---|---|"
    report = "\n".join(["$ .venv/bin/python -m benchmarks.completion.regeneration " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()), "", *summary, "", header, *lines, ""])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(report)
    print("\n".join(summary))


if __name__ == "__main__":
    main()
