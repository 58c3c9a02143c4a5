"""Completions in the middle of a function: HumanEval's infilling benchmark (Bavarian et al. 2022).

The cursor stands where the benchmark removed code, with the rest of the function after it; the
completion is accepted whole (Tab) and the function runs HumanEval's hidden tests in qualm's
sandbox. Three ways to write the completion, on the same model:

  qualm   engine.complete with the shipped settings (FIM prompt, windows, stop rules)
  chat    engine.complete with the paper's code prompt (kind="chat": what completions used before)
  plain   the bare fill-in-the-middle prompt of the whole prefix and suffix, greedy until the model
          ends the middle or 128 tokens, nothing cut (what a plain FIM client does)

    .venv/bin/python -m benchmarks.completion.infilling run --set multi --sample 300 --seed 2046 --out results/infilling/multi.jsonl
    .venv/bin/python -m benchmarks.completion.infilling run --set random --out results/infilling/random.jsonl
    .venv/bin/python -m benchmarks.completion.infilling report results/infilling/multi.jsonl

The multi-line set: the user is on an empty line where the missing lines go (text = prompt + "\\n"
+ suffix, cursor at the prompt's end). The random-span set: the cursor is where the span was cut
out (text = prompt + suffix). Rows are appended as they are measured; a second run resumes.
The rules of the reported run: results/infilling/rules.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.common.paths import ROOT
from qualm.engine import CompletionOptions, Document, complete
from qualm.engine.completion_end import CompletionEnd
from qualm.evaluation.labels import official_label
from qualm.evaluation.metrics import auroc
from qualm.evaluation.problems import OfficialTests, Problem
from qualm.model import GenerationOptions, load_model
from qualm.model.text_stream import TextStream, TokenStats
from qualm.prompts import InfillPrompt
from qualm.settings import Settings

DATA = ROOT.parent / "shared" / "data" / "infilling"
SETS = {"multi": "HumanEval-MultiLineInfilling.jsonl.gz", "random": "HumanEval-RandomSpanInfillingLight.jsonl.gz"}
CONDITIONS = ("qualm", "plain", "chat")
PLAIN_MAX_TOKENS = 128
RESAMPLES = 2000


def tasks(name: str, data: Path = DATA) -> list[dict]:
    with gzip.open(data / SETS[name], "rt") as f:
        return [json.loads(line) for line in f]


def sample(rows: list[dict], n: int | None, seed: int, exclude: set[str]) -> list[dict]:
    pool = [r for r in rows if r["task_id"] not in exclude]
    if n is None or n >= len(pool):
        return pool
    return random.Random(seed).sample(pool, n)


def document(task: dict, kind: str) -> tuple[str, int]:
    """The editor's text and cursor for a task (the module docstring)."""
    if kind == "multi":
        return task["prompt"] + "\n" + task["suffix"], len(task["prompt"])
    return task["prompt"] + task["suffix"], len(task["prompt"])


def accepted(task: dict, kind: str, completion: str) -> str:
    return task["prompt"] + completion + ("\n" if kind == "multi" else "") + task["suffix"]


def problem_of(task: dict) -> Problem:
    tid = task["task_id"].split("/", 1)[1].rsplit("/", 1)[0] if task["task_id"].count("/") >= 2 else task["task_id"]
    tests = OfficialTests("check", entry_point=task["entry_point"], check=task["test"])
    return Problem(tid, "humaneval", task["prompt"], task["entry_point"], tests, task["prompt"] + task["canonical_solution"])


def runs_on(text: str, whole: str, offset: int) -> bool:
    """Whether the completion writes again, as a later line, the first line that follows the cursor."""
    nxt = CompletionEnd.at(whole, offset).next_line
    return bool(nxt) and any(line.strip() == nxt for line in text.split("\n")[1:])


def plain_fim(backend, text: str, offset: int, settings: Settings):
    prompt = InfillPrompt(prefix=text[:offset], suffix=text[offset:])
    options = GenerationOptions(max_tokens=PLAIN_MAX_TOKENS, temperature=0.0, top_alternatives=settings.generation.top_alternatives)
    return backend.generate(prompt, options)


def cut_before_doubt(tokens: Sequence[dict], high: float) -> str:
    out = []
    for t in tokens:
        if t["text"].strip() and t["entropy"] >= high:
            break
        out.append(t["text"])
    return "".join(out)


def cut_fields(task: dict, kind: str, completion: str, passed: bool, tokens: Sequence[dict], high: float) -> dict:
    """The doubt cut's text and whether it passes (labelled again only where it differs)."""
    cut = cut_before_doubt(tokens, high)
    return {"cut_text": cut, "cut_passed": passed if cut == completion else official_label(problem_of(task), accepted(task, kind, cut)).passed}


def measure(backend, task: dict, kind: str, condition: str, settings: Settings) -> dict:
    text, offset = document(task, kind)
    t0 = time.perf_counter()
    if condition == "plain":
        trace = plain_fim(backend, text, offset, settings)
        seconds = time.perf_counter() - t0
        toks = [{"text": r.text, "entropy": round(r.entropy, 4), "prob": round(r.prob, 5)} for r in trace.tokens]
        completion, first, stop = trace.text, trace.extra.get("first_token_seconds"), trace.stop_reason
    else:
        c = complete(backend, Document(text, f"{task['entry_point']}.py"), offset, settings, CompletionOptions(), kind="fim" if condition == "qualm" else "chat")
        seconds = time.perf_counter() - t0
        toks = [{"text": t.text, "entropy": round(t.entropy, 4), "prob": round(t.prob, 5)} for t in c.tokens]
        completion, first, stop = c.text, c.first_token_seconds, c.stop_reason
    label = official_label(problem_of(task), accepted(task, kind, completion))
    row = {
        "task_id": task["task_id"],
        "problem": problem_of(task).task_id,
        "condition": condition,
        "text": completion,
        "passed": label.passed,
        "status": label.status,
        "seconds": round(seconds, 3),
        "first_token_seconds": first,
        "stop_reason": stop,
        "runs_on": runs_on(completion, text, offset),
        "tokens": toks,
    }
    if condition == "qualm":
        row.update(cut_fields(task, kind, completion, label.passed, toks, settings.lexical.level_thresholds[2]))
    return row


def run(args: argparse.Namespace) -> None:
    kind = args.set
    exclude: set[str] = set()
    for path in args.exclude or ():
        exclude |= {json.loads(line)["task_id"] for line in Path(path).read_text().splitlines() if line.strip()}
    if args.exclude_draw:
        n, seed = (int(x) for x in args.exclude_draw.split(":"))
        exclude |= {t["task_id"] for t in sample(tasks(kind), n, seed, set())}
    chosen = sample(tasks(kind), args.sample, args.seed, exclude)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["task_id"], r["condition"]) for r in _rows(out)} if out.exists() else set()
    settings = Settings()
    backend = load_model(settings.model)
    conditions = [c for c in CONDITIONS if c in args.conditions.split(",")]
    started = time.monotonic()
    with out.open("a") as f:
        for i, task in enumerate(chosen):
            for condition in conditions:
                if (task["task_id"], condition) in done or (condition == "chat" and args.chat_first is not None and i >= args.chat_first):
                    continue
                row = measure(backend, task, kind, condition, settings)
                f.write(json.dumps(row) + "\n")
                f.flush()
            print(f"{i + 1}/{len(chosen)} {task['task_id']} {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def rescore(args: argparse.Namespace) -> None:
    """qualm's rows again under today's stop rules, without the model: greedy decoding gives the same
    tokens up to any cut, so a rule that only cuts earlier gives the recorded completion truncated
    (exact where no whitespace was healed before the cursor: the multi-line set). Changed completions
    are labelled again; the other conditions are copied."""
    by_id = {t["task_id"]: t for t in tasks(args.set)}
    settings = Settings()
    changed = 0
    with Path(args.out).open("w") as f:
        for row in _rows(Path(args.rows)):
            if row["condition"] == "qualm":
                task = by_id[row["task_id"]]
                text, offset = document(task, args.set)
                stream = TextStream((), ending=CompletionEnd.at(text, offset))
                for t in row["tokens"]:
                    if stream.push(t["text"].encode(), TokenStats(-1, t["entropy"], t["prob"], ())):
                        break
                stream.finish()
                if stream.text != row["text"]:
                    if not row["text"].startswith(stream.text):
                        raise SystemExit(f"{row['task_id']}: the rule did not only cut earlier")
                    changed += 1
                    kept = row["tokens"][: len(stream.records)]
                    if kept:
                        kept[-1] = {**kept[-1], "text": stream.records[-1].text}
                    completion = stream.text
                    row = {**row, "text": completion, "tokens": kept, "runs_on": runs_on(completion, text, offset)}
                    row["passed"] = official_label(problem_of(task), accepted(task, args.set, completion)).passed
                    row.update(cut_fields(task, args.set, completion, row["passed"], kept, settings.lexical.level_thresholds[2]))
            f.write(json.dumps(row) + "\n")
    print(f"{changed} of qualm's completions changed under today's rules", file=sys.stderr)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _lines_removed(task_id: str) -> str:
    m = re.search(r"/L(\d+)_L(\d+)$", task_id)
    if not m:
        return "span"
    return "one line" if m.group(1) == m.group(2) else "several lines"


def cluster_bootstrap(problems: Sequence[str], stat, seed: int = 0) -> tuple[float, float]:
    """95 % interval of ``stat(indices)`` resampling whole problems (tasks of one problem together)."""
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(problems):
        groups.setdefault(p, []).append(i)
    keys = list(groups)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(RESAMPLES):
        picked = rng.integers(0, len(keys), len(keys))
        idx = [i for k in picked for i in groups[keys[k]]]
        v = stat(idx)
        if v is not None:
            values.append(v)
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def report(paths: Sequence[str]) -> None:
    rows = [r for p in paths for r in _rows(Path(p))]
    by: dict[str, dict[str, dict]] = {}
    for r in rows:
        by.setdefault(r["task_id"], {})[r["condition"]] = r
    complete_tasks = [t for t, c in by.items() if "qualm" in c and "plain" in c]
    print(f"{len(complete_tasks)} tasks with qualm and plain FIM ({sum('chat' in by[t] for t in complete_tasks)} of them with the chat prompt too), {len({by[t]['qualm']['problem'] for t in complete_tasks})} HumanEval problems")
    for subset, keep in (("all", lambda t: True), ("one line removed", lambda t: _lines_removed(t) == "one line"), ("several lines removed", lambda t: _lines_removed(t) == "several lines")):
        ids = [t for t in complete_tasks if keep(t)]
        if not ids:
            continue
        problems = [by[t]["qualm"]["problem"] for t in ids]
        print(f"\n## {subset}: {len(ids)} tasks")
        print("| condition | pass@1 | 95 % interval | runs on into the code after the cursor | median s | median first token s |")
        print("|---|---|---|---|---|---|")
        with_chat = [t for t in ids if "chat" in by[t]]
        for c, among in (("qualm", ids), ("plain", ids), ("qualm", with_chat), ("chat", with_chat)):
            if not among or (c == "qualm" and among is with_chat and len(with_chat) == len(ids)):
                continue
            probs = [by[t]["qualm"]["problem"] for t in among]
            passed = [by[t][c]["passed"] for t in among]
            lo, hi = cluster_bootstrap(probs, lambda idx, p=passed: float(np.mean([p[i] for i in idx])))
            secs = [by[t][c]["seconds"] for t in among]
            firsts = [by[t][c]["first_token_seconds"] for t in among if by[t][c].get("first_token_seconds") is not None]
            on = sum(by[t][c]["runs_on"] for t in among)
            first = f"{statistics.median(firsts):.2f}" if firsts else "-"
            name = c if among is ids else f"{c} ({len(among)} tasks with chat)"
            print(f"| {name} | {np.mean(passed):.3f} | {lo:.3f}-{hi:.3f} | {on} of {len(among)} | {statistics.median(secs):.2f} | {first} |")
        for other, among in (("plain", ids), ("chat", with_chat)):
            if not among:
                continue
            probs = [by[t]["qualm"]["problem"] for t in among]
            diff = [float(by[t]["qualm"]["passed"]) - float(by[t][other]["passed"]) for t in among]
            lo, hi = cluster_bootstrap(probs, lambda idx, d=diff: float(np.mean([d[i] for i in idx])))
            print(f"qualm - {other} ({len(among)} tasks): {np.mean(diff):+.3f} ({lo:+.3f} to {hi:+.3f})")
        q = [by[t]["qualm"] for t in ids]
        passed = [r["passed"] for r in q]
        print("\ndoubt of qualm's completion against its failing (AUROC, higher = the doubt ranks failing completions above passing ones):")
        for name, value in (("max entropy", _max_entropy), ("top-5 entropy", _top_k), ("least probability (1 - p)", _least_prob)):
            u = [value(r) for r in q]
            a = auroc(passed, u)
            if a is None:
                print(f"  {name}: one class only")
                continue
            lo, hi = cluster_bootstrap(problems, lambda idx, u=u, y=passed: auroc([y[i] for i in idx], [u[i] for i in idx]))
            print(f"  {name}: {a:.3f} ({lo:.3f}-{hi:.3f})")
        cut_pass = [r["cut_passed"] for r in q]
        shown = [len(r["cut_text"]) / len(r["text"]) if r["text"] else 1.0 for r in q]
        lo, hi = cluster_bootstrap(problems, lambda idx, c=cut_pass: float(np.mean([c[i] for i in idx])))
        print(f"\ncut before the first very uncertain token: pass@1 {np.mean(cut_pass):.3f} ({lo:.3f}-{hi:.3f}) against {np.mean(passed):.3f} whole; mean share of the text shown {np.mean(shown):.2f}; cut in {sum(r['cut_text'] != r['text'] for r in q)} of {len(q)}")


def _kept(r: dict) -> list[dict]:
    return [t for t in r["tokens"] if t["text"].strip()]


def _max_entropy(r: dict) -> float:
    return max((t["entropy"] for t in _kept(r)), default=0.0)


def _top_k(r: dict, k: int = 5) -> float:
    top = sorted((t["entropy"] for t in _kept(r)), reverse=True)[:k]
    return float(np.mean(top)) if top else 0.0


def _least_prob(r: dict) -> float:
    return 1.0 - min((t["prob"] for t in _kept(r)), default=1.0)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--set", choices=sorted(SETS), required=True)
    r.add_argument("--sample", type=int, default=None, help="tasks drawn (default: all)")
    r.add_argument("--seed", type=int, default=2046)
    r.add_argument("--exclude", action="append", help="a rows file whose tasks are left out (the development sample)")
    r.add_argument("--conditions", default=",".join(CONDITIONS))
    r.add_argument("--chat-first", type=int, default=None, help="the chat prompt only for the first N tasks drawn (it is the slowest)")
    r.add_argument("--exclude-draw", help="N:SEED: leave out the N tasks that --sample N --seed SEED draws (the development sample)")
    r.add_argument("--out", required=True)
    p = sub.add_parser("report")
    p.add_argument("rows", nargs="+")
    q = sub.add_parser("rescore", help="qualm's recorded completions under today's stop rules (no model)")
    q.add_argument("rows")
    q.add_argument("--set", choices=sorted(SETS), required=True)
    q.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.command == "run":
        run(args)
    elif args.command == "rescore":
        rescore(args)
    else:
        report(args.rows)


if __name__ == "__main__":
    main()
