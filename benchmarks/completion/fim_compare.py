"""qualm's ghost text against three real FIM clients on the same model and the same raw output
(issue 54; the rules: results/realcode-completion/rules.md, "The comparison with the real clients").

Per task, qualm's completion as shipped (engine.complete: the FIM prompt with the whitespace before
the cursor healed, its stop rules live; greedy decoding makes this R_heal cut by the rules, without
generating R_heal's 128 tokens) and one greedy generation with no stop rule, to the model's end of the
middle or 128 tokens, from the same windows with the prefix ending at the cursor (R_cursor). The
other conditions come from R_cursor offline:

  qualm          engine.complete as shipped
  qualm-cursor   qualm's stop rules on R_cursor
  llama.vscode   benchmarks.completion.peers.llama_vscode.finish on R_cursor
  continue       benchmarks.completion.peers.continue_dev.finish on R_cursor
  tabby          benchmarks.completion.peers.tabby.finish on R_cursor (the stream's tokens given)
  tabby-syntax   the same with the retired limitScopeBySyntax

    .venv/bin/python -m benchmarks.completion.fim_compare run --set realcode --split tune --out results/realcode-completion/tune-raw.jsonl
    .venv/bin/python -m benchmarks.completion.fim_compare run --set random --out results/realcode-completion/humaneval-random-raw.jsonl
    .venv/bin/python -m benchmarks.completion.fim_compare report results/realcode-completion/tune-raw.jsonl --set realcode

``run`` appends a row per task (resumes); ``report`` derives every condition, scores it (the real code:
benchmarks.completion.realcode_metrics; HumanEval: its hidden tests in qualm's sandbox) and prints
Markdown.

``report`` replays today's stop rules over a row's recorded qualm tokens (so that a rule added after
a run can be judged on it) unless ``--no-rescore``, or unless the row was recorded under today's
rules (its ``rules`` fingerprint, ``rules_fingerprint``, is today's): then the recorded completion is
what the engine does. The replay is not exact for a stream that a streaming rule ended inside a token
(the recorded tokens are the kept, trimmed ones: HumanEval/15 of the random-span set replays to
``str(i)`` where the engine wrote ``str(i) for i in range(n + 1)``, results/humaneval-fim-recheck).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

import qualm
from benchmarks.completion import infilling, realcode_metrics
from benchmarks.completion.peers import continue_dev, llama_vscode, tabby
from benchmarks.completion.peers.common import PeerContext, PeerResult
from qualm.engine import CompletionOptions, Document, complete
from qualm.engine.completion import display_name
from qualm.engine.completion_end import CompletionEnd
from qualm.engine.infill import InfillBudget, infill_context
from qualm.evaluation.labels import official_label
from qualm.evaluation.metrics import auroc
from qualm.lang import language_named
from qualm.model import GenerationOptions, load_model
from qualm.model.text_stream import TextStream, TokenStats
from qualm.prompts import InfillPrompt
from qualm.settings import Settings

RAW_MAX_TOKENS = 128
HEAL_POLICY = "indentation"  # what qualm's prompt heals today (qualm.engine.infill); recorded in each row
# Prompt windows (editor.completion_prefix_tokens, _suffix_tokens): qualm's completion as shipped but
# for the windows, run with ``run --variant NAME``. "now": 512/128, the windows shipped until issue 54
# chose "wide" on the tune part (a row named "now" is the engine of its day with those windows).
VARIANTS = {"narrow": (256, 64), "wide": (1024, 512), "now": (512, 128)}
CONDITIONS = ("qualm", "qualm-cursor", "llama.vscode", "continue", "tabby", "tabby-syntax")
PEERS = ("llama.vscode", "continue", "tabby", "tabby-syntax")
SUFFIXES = {"python": "py", "javascript": "js", "typescript": "ts"}


# -- the tasks -------------------------------------------------------------------------------------


def load_tasks(name: str, split: str | None, tasks_file: Path) -> list[dict]:
    """Uniform tasks: id, group (package or HumanEval problem), document, cursor, language, filename."""
    if name == "realcode":
        rows = [json.loads(line) for line in tasks_file.read_text().splitlines() if line.strip()]
        return [{**r, "group": r["package"], "filename": r["path"]} for r in rows if split is None or r["split"] == split]
    if name == "multi":
        chosen = infilling.sample(infilling.tasks("multi"), 300, 2046, {t["task_id"] for t in infilling.sample(infilling.tasks("multi"), 20, 46, set())})
    else:
        chosen = infilling.tasks(name)
    out = []
    for t in chosen:
        text, offset = infilling.document(t, name)
        out.append({"id": t["task_id"], "group": infilling.problem_of(t).task_id, "document": text, "cursor": offset, "language": "python", "filename": f"{t['entry_point']}.py", "humaneval": t})
    return out


# -- the raw streams -------------------------------------------------------------------------------


def raw_stream(backend, task: dict, settings: Settings, heal: bool) -> dict:
    """One greedy generation from qualm's prompt windows with no stop rule (``heal``: as qualm heals)."""
    e = settings.editor
    budget = InfillBudget(e.completion_prefix_tokens, e.completion_suffix_tokens, e.completion_context_tokens)
    fim = infill_context(task["document"], task["cursor"], budget, backend.count_tokens, display_name(task["filename"]), (), task["language"], heal=heal)
    options = GenerationOptions(max_tokens=RAW_MAX_TOKENS, temperature=0.0, top_alternatives=settings.generation.top_alternatives, reuse_cache=True)
    t0 = time.perf_counter()
    trace = backend.generate(replace(fim.prompt, ending=None), options)
    return {
        "heal": fim.heal,
        "stop_reason": trace.stop_reason,
        "seconds": round(time.perf_counter() - t0, 3),
        "first_token_seconds": trace.extra.get("first_token_seconds"),
        "tokens": [[r.text, round(r.entropy, 4), round(r.prob, 5)] for r in trace.tokens],
    }


OWN_PEERS = ("llama.vscode", "continue", "tabby")


def own_prompt(backend, name: str, task: dict) -> tuple[str, str]:
    """The prefix and suffix a client itself would send (its windows and template; no other files)."""
    before, after = task["document"][: task["cursor"]], task["document"][task["cursor"] :]
    if name == "llama.vscode":
        pieces = lambda text: [backend.piece(i).decode("utf-8", "replace") for i in backend.tokenize(text, add_special=False, parse_special=False)]  # noqa: E731
        return llama_vscode.own_prompt(before, after, task["filename"], task["language"], token_pieces=pieces)
    if name == "continue":
        return continue_dev.own_prompt(before, after, task["filename"], task["language"], count_tokens=backend.count_tokens)
    return tabby.own_prompt(before, after, task["filename"], task["language"])


def own_stream(backend, name: str, task: dict, settings: Settings) -> dict:
    """One greedy generation with no stop rule from a client's own prompt (a bare FIM prompt: none of
    the three sends a repository header without other files)."""
    prefix, suffix = own_prompt(backend, name, task)
    options = GenerationOptions(max_tokens=RAW_MAX_TOKENS, temperature=0.0, top_alternatives=settings.generation.top_alternatives, reuse_cache=True)
    trace = backend.generate(InfillPrompt(prefix, suffix), options)
    return {"prefix_ends_at_cursor": task["document"][: task["cursor"]].endswith(prefix), "stop_reason": trace.stop_reason, "tokens": [[r.text, round(r.entropy, 4), round(r.prob, 5)] for r in trace.tokens]}


# The sources of the stop rules that ``qualm_rules`` replays: a row recorded while they were as they
# are now is not replayed.
RULE_SOURCES = ("engine/completion_end.py", "engine/completion_syntax.py", "engine/placement.py", "model/text_stream.py")


@functools.cache
def rules_fingerprint() -> str:
    digest = hashlib.sha256()
    for name in RULE_SOURCES:
        digest.update((Path(qualm.__file__).parent / name).read_bytes())
    return digest.hexdigest()[:16]


def live(backend, task: dict, settings: Settings) -> dict:
    """qualm's completion as the editor gets it."""
    c = complete(backend, Document(task["document"], task["filename"], language_named(task["language"])), task["cursor"], settings, CompletionOptions())
    return {
        "rules": rules_fingerprint(),
        "text": c.text,
        "end_rule": c.end_rule,
        "attempts": c.attempts,
        "second_choice": c.second_choice,
        "stop_reason": c.stop_reason,
        "seconds": round(c.seconds, 3),
        "first_token_seconds": c.first_token_seconds,
        "tokens": [[t.text, round(t.entropy, 4), round(t.prob, 5)] for t in c.tokens],
    }


def run(args: argparse.Namespace) -> None:
    tasks = load_tasks(args.set, args.split, Path(args.tasks))[: args.limit]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["id"] for line in out.read_text().splitlines() if line.strip()} if out.exists() else set()
    if args.carry_nonempty:
        # a change that acts only where qualm's completion is empty (the second choice of first token):
        # the non-empty completions of an earlier run of the same engine and windows stand as recorded
        # (but those that began with an earlier second choice)
        with out.open("a") as f:
            for line in Path(args.carry_nonempty).read_text().splitlines():
                row = json.loads(line) if line.strip() else None
                if row and row["id"] not in done and row["qualm"]["text"].strip() and not row["qualm"].get("second_choice"):
                    f.write(json.dumps({**row, "carried": args.carry_nonempty, **({"variant": args.label} if args.label else {})}) + "\n")
                    done.add(row["id"])
    settings = Settings()
    if args.threads:
        settings = replace(settings, model=replace(settings.model, n_threads=args.threads))
    backend = load_model(settings.model)
    started = time.monotonic()
    with out.open("a") as f:
        for i, task in enumerate(tasks):
            if task["id"] in done:
                continue
            if args.own:
                row = {"id": task["id"], "own": {name: own_stream(backend, name, task, settings) for name in OWN_PEERS}}
            elif args.variant:
                prefix, suffix = VARIANTS[args.variant]
                windows = replace(settings, editor=replace(settings.editor, completion_prefix_tokens=prefix, completion_suffix_tokens=suffix))
                row = {"id": task["id"], "variant": args.label or args.variant, "windows": args.variant, "heal": HEAL_POLICY, "qualm": live(backend, task, windows)}
            else:
                row = {"id": task["id"], "heal": HEAL_POLICY, "qualm": live(backend, task, settings), "cursor": raw_stream(backend, task, settings, False)}
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(f"{i + 1}/{len(tasks)} {task['id']} {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


# -- the conditions, offline -------------------------------------------------------------------------


def qualm_rules(task: dict, raw: dict) -> tuple[str, str | None, list[list]]:
    """qualm's completion from a raw stream: its stop rules token by token, then the healed
    whitespace the model wrote again left out (qualm.engine.placement.PrefixTrimmer)."""
    heal = raw["heal"]
    end = CompletionEnd.at(task["document"], task["cursor"], heal, task["language"])
    stream = TextStream((), ending=end)
    for text, entropy, prob in raw["tokens"]:
        if stream.push(text.encode(), TokenStats(-1, entropy, prob, ())):
            break
    stream.finish()
    kept = stream.text
    n = 0
    while n < len(kept) and n < len(heal) and kept[n] == heal[n]:
        n += 1
    tokens = raw["tokens"][: len(stream.records)]
    return kept[n:], stream.end_rule, tokens


def indentation_of(document: str) -> str:
    """The file's indentation unit, as an editor's settings would give it to Tabby."""
    widths = Counter()
    for line in document.split("\n"):
        stripped = line.lstrip(" \t")
        if stripped and line != stripped:
            if line.startswith("\t"):
                return "\t"
            widths[len(line) - len(stripped)] += 1
    if not widths:
        return "    "
    unit = min(widths)
    return " " * (2 if unit == 2 or (widths[2] > widths[4]) else 4)


def peer_result(name: str, task: dict, raw: dict, own: bool = False) -> PeerResult:
    """``own``: ``raw`` came from the client's own prompt (not R_cursor)."""
    ctx = PeerContext(task["document"][: task["cursor"]], task["document"][task["cursor"] :], task["language"])
    text = "".join(t[0] for t in raw["tokens"])
    if name == "llama.vscode" and not own:
        # llama.vscode's own prompt leaves a cursor line of only whitespace out, so its model writes
        # the indentation and the client strips it (remove_leading_spaces); R_cursor's prompt holds the
        # indentation, so its output is given to the client as if the model had written it.
        line_prefix = ctx.prefix[ctx.prefix.rfind("\n") + 1 :]
        if line_prefix and not line_prefix.strip(" \t"):
            text = line_prefix + text
        return llama_vscode.finish(text, ctx)
    if name == "llama.vscode":
        return llama_vscode.finish(text, ctx)
    if name == "continue":
        return continue_dev.finish(text, ctx)
    pieces = [t[0] for t in raw["tokens"]]
    return tabby.finish(text, ctx, tokens=pieces, syntax=name == "tabby-syntax", indentation=indentation_of(task["document"]))


def heal_of(task: dict) -> str:
    """The whitespace before the cursor that qualm's prompt heals (qualm.engine.infill): a line's
    indentation, nothing in the middle of a line."""
    line = task_line_prefix(task)
    return "" if line.strip() else line


def conditions(task: dict, row: dict, rescore: bool = True) -> dict[str, dict]:
    """Every condition's inserted text, the suffix characters its edit replaces, its rule and tokens.
    ``rescore``: qualm's recorded completion under today's stop rules."""
    return qualm_conditions(task, row, rescore) | {name: peer_condition(name, task, row) for name in PEERS}


def qualm_conditions(task: dict, row: dict, rescore: bool = True) -> dict[str, dict]:
    """qualm's two conditions of ``conditions``: its recorded completion ("qualm", under today's
    stop rules where ``rescore`` and the row was recorded under others) and its rules over the
    stream from the cursor ("qualm-cursor")."""
    q = row["qualm"]
    rescore = rescore and q.get("rules") != rules_fingerprint()
    out: dict[str, dict] = {"qualm": {"text": q["text"], "replaced": 0, "rule": q["end_rule"], "tokens": q["tokens"]}}
    text, rule, tokens = qualm_rules(task, row["cursor"])
    out["qualm-cursor"] = {"text": text, "replaced": 0, "rule": rule, "tokens": tokens}
    if row.get("heal") != HEAL_POLICY and task_line_prefix(task).strip():
        # recorded when qualm healed the whitespace before the cursor mid-line too; today it heals
        # only a line's indentation, so mid-line its completion is R_cursor under its rules
        out["qualm"] = out["qualm-cursor"]
        return out
    if rescore:
        # today's rules over the recorded completion, where they only cut earlier (greedy decoding
        # gives the same tokens up to any cut); a rule that would go further cannot be replayed, and
        # a stream a streaming rule ended inside a token replays as unfinished (the module's note)
        # the recorded tokens are placed ones: the healed whitespace the model wrote is trimmed from
        # them, so it is put back in front for the rules, which trim it again
        heal = heal_of(task)
        replay = [[heal + t[0], *t[1:]] if i == 0 else t for i, t in enumerate(q["tokens"])]
        text, rule, tokens = qualm_rules(task, {"heal": heal, "tokens": replay})
        if text != q["text"] and q["text"].startswith(text):
            out["qualm"] = {"text": text, "replaced": 0, "rule": rule, "tokens": tokens}
    return out


def peer_condition(name: str, task: dict, row: dict) -> dict:
    r = peer_result(name, task, row["cursor"])
    return {"text": r.text, "replaced": r.replaced, "rule": r.rule, "tokens": row["cursor"]["tokens"]}


def task_line_prefix(task: dict) -> str:
    before = task["document"][: task["cursor"]]
    return before[before.rfind("\n") + 1 :]


def accepted_document(task: dict, c: dict) -> str:
    d, k = task["document"], task["cursor"]
    return d[:k] + c["text"] + d[k + c["replaced"] :]


def inserted_part(task: dict, c: dict) -> str:
    """The completion as the new text at the cursor: a peer's edit that rewrites the rest of the line
    is compared without the characters it puts back."""
    rest = task["document"][task["cursor"] : task["cursor"] + c["replaced"]]
    return c["text"][: len(c["text"]) - len(rest)] if rest and c["text"].endswith(rest) else c["text"]


def realcode_score(task: dict, c: dict) -> dict:
    completion = inserted_part(task, c)
    return {
        "exact_match": realcode_metrics.exact_match(completion, task["truth"]),
        "edit_similarity": realcode_metrics.edit_similarity(completion, task["truth"]),
        "parses": realcode_metrics.text_parses(accepted_document(task, c), task["language"]),
        "runs_on": realcode_metrics.runs_on(task["document"], task["cursor"], completion, task["truth"]),
        "runs_on_closers_placed": realcode_metrics.runs_on(task["document"], task["cursor"], completion, task["truth"], closers_placed=True),
        "empty": realcode_metrics.empty(c["text"]),
    }


def humaneval_score(task: dict, c: dict) -> dict:
    problem = infilling.problem_of(task["humaneval"])
    label = official_label(problem, accepted_document(task, c))
    completion = inserted_part(task, c)
    return {
        "passed": label.passed,
        "runs_on": infilling.runs_on(completion, task["document"], task["cursor"]),
        "parses": realcode_metrics.text_parses(accepted_document(task, c), "python"),
        "empty": realcode_metrics.empty(c["text"]),
    }


# -- the report ------------------------------------------------------------------------------------


def doubt(tokens: list[list], k: int = 5) -> tuple[float, float]:
    """The completion's largest and Top-K token entropy (tokens with more than white space), as the
    status bar shows them."""
    e = sorted((t[1] for t in tokens if t[0].strip()), reverse=True)
    return (e[0], float(np.mean(e[:k]))) if e else (0.0, 0.0)


def bootstrap(values: Sequence[float], groups: Sequence[str]) -> tuple[float, float, float]:
    return realcode_metrics.bootstrap_over_groups(values, groups)


def auroc_interval(good: Sequence[bool], doubts: Sequence[float], groups: Sequence[str], resamples: int = 2000, seed: int = 0) -> tuple[float | None, float, float]:
    """AUROC of the doubt for the bad outcome (``good`` False), 95 % interval by groups."""
    labels, scores = good, doubts
    a = auroc(list(labels), list(scores))  # qualm.evaluation.metrics.auroc: positive = correct, score = -doubt
    names = sorted(set(groups))
    by = {g: [i for i, x in enumerate(groups) if x == g] for g in names}
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        idx = [i for j in rng.integers(0, len(names), len(names)) for i in by[names[j]]]
        v = auroc([labels[i] for i in idx], [scores[i] for i in idx])
        if v is not None:
            values.append(v)
    return a, float(np.percentile(values, 2.5)) if values else math.nan, float(np.percentile(values, 97.5)) if values else math.nan


def doubt_combination(rows: list[dict], good: str, folds: int = 5) -> tuple[float, float, float, int] | None:
    """Out-of-fold AUROC of a logistic regression on the completion's largest and Top-5 entropy,
    its tokens and its lines, folds by group (package or problem), for the bad outcome."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    names = sorted({r["group"] for r in rows})
    if len(names) < folds or len({bool(r[good]) for r in rows}) < 2:
        return None
    fold = {g: i % folds for i, g in enumerate(names)}
    x = np.array([[r["doubt"][0], r["doubt"][1], r["tokens"], r["lines"]] for r in rows], dtype=float)
    y = np.array([not r[good] for r in rows])
    out = np.zeros(len(rows))
    for f in range(folds):
        train = np.array([fold[r["group"]] != f for r in rows])
        if len(set(y[train])) < 2:
            return None
        model = make_pipeline(StandardScaler(), LogisticRegression()).fit(x[train], y[train])
        out[~train] = model.predict_proba(x[~train])[:, 1]
    a, lo, hi = auroc_interval([bool(r[good]) for r in rows], list(out), [r["group"] for r in rows])
    return (a, lo, hi, folds) if a is not None else None


def report(args: argparse.Namespace) -> None:
    tasks = {t["id"]: t for t in load_tasks(args.set, None, Path(args.tasks))}
    everything = [json.loads(line) for p in args.rows for line in Path(p).read_text().splitlines() if line.strip()]
    rows = [r for r in everything if "variant" not in r and "own" not in r]
    variants = {(r["variant"], r["id"]): r for r in everything if "variant" in r}
    owns = {r["id"]: r["own"] for r in everything if "own" in r}
    names = sorted({v for v, _ in variants})
    own = [f"{p}-own" for p in (OWN_PEERS if owns else ())]
    shown = [*CONDITIONS, *(f"qualm-{v}" for v in names), *own]
    peers = [*PEERS, *own]  # the best peer is chosen among these: qualm's windows, and each client's own prompt where run
    scored: dict[str, list[dict]] = {c: [] for c in shown}
    score: Callable[[dict, dict], dict] = realcode_score if args.set == "realcode" else humaneval_score
    rows = [r for r in rows if all((v, r["id"]) in variants for v in names) and (not owns or r["id"] in owns)]  # the tasks every condition has
    for row in rows:
        task = tasks[row["id"]]
        derived = conditions(task, row, not args.no_rescore)
        for v in names:
            variant = variants[(v, row["id"])]
            derived[f"qualm-{v}"] = conditions(task, {**row, "qualm": variant["qualm"], "heal": variant.get("heal")}, not args.no_rescore)["qualm"]
        for p in OWN_PEERS if owns else ():
            r = peer_result(p, task, owns[row["id"]][p], own=True)
            derived[f"{p}-own"] = {"text": r.text, "replaced": r.replaced, "rule": r.rule, "tokens": owns[row["id"]][p]["tokens"]}
        for name, c in derived.items():
            shape = {"tokens": sum(1 for t in c["tokens"] if t[0].strip()), "lines": c["text"].strip("\n").count("\n") + 1}
            second = bool(row["qualm"].get("second_choice")) if name == "qualm" else False
            scored[name].append({"id": row["id"], "group": task["group"], "language": task["language"], "situations": task.get("situations", []), "rule": c["rule"], "doubt": doubt(c["tokens"]), "text": c["text"], "second_choice": second, **shape, **score(task, c)})
    metrics = ["exact_match", "edit_similarity", "parses", "runs_on", "runs_on_closers_placed", "empty"] if args.set == "realcode" else ["passed", "parses", "runs_on", "empty"]
    groups = sorted({r["language"] for r in scored["qualm"]})
    subsets: list[tuple[str, Callable[[dict], bool]]] = [("all", lambda r: True)]
    if args.set == "realcode":
        subsets += [(g, lambda r, g=g: r["language"] == g) for g in groups]
        if {"javascript", "typescript"} & set(groups):
            subsets.append(("javascript+typescript", lambda r: r["language"] in ("javascript", "typescript")))
        for s in sorted({s for r in scored["qualm"] for s in r["situations"]}):
            subsets.append((f"situation {s}", lambda r, s=s: s in r["situations"]))
    print(f"# {args.set}: {len(rows)} tasks, {len({tasks[r['id']]['group'] for r in rows})} groups\n")
    for title, keep in subsets:
        picked = {c: [r for r in scored[c] if keep(r)] for c in shown}
        n = len(picked["qualm"])
        if not n:
            continue
        g = [r["group"] for r in picked["qualm"]]
        print(f"## {title}: {n} tasks, {len(set(g))} groups\n")
        print("| condition | " + " | ".join(metrics) + " |")
        print("|---|" + "---|" * len(metrics))
        for c in shown:
            cells = []
            for m in metrics:
                mean, lo, hi = bootstrap([float(r[m]) for r in picked[c]], g)
                cells.append(f"{mean:.3f} ({lo:.3f}-{hi:.3f})")
            print(f"| {c} | " + " | ".join(cells) + " |")
        for m in metrics[:2] if args.set == "realcode" else metrics[:1]:
            best = max(peers, key=lambda p, m=m: float(np.mean([r[m] for r in picked[p]])))
            diff = [float(a[m]) - float(b[m]) for a, b in zip(picked["qualm"], picked[best])]
            mean, lo, hi = bootstrap(diff, g)
            print(f"\nqualm - best peer ({best}) on {m}: {mean:+.3f} ({lo:+.3f} to {hi:+.3f})")
        print()
    q = scored["qualm"]
    g = [r["group"] for r in q]
    bad_label = "exact_match" if args.set == "realcode" else "passed"
    print(f"## The doubt of qualm's completion: AUROC for '{'the first line is not what was written' if args.set == 'realcode' else 'the function fails'}'\n")
    nonempty = [r for r in q if not r["empty"]]
    for name, index in (("largest entropy", 0), ("Top-5 entropy", 1)):
        a, lo, hi = auroc_interval([bool(r[bad_label]) for r in nonempty], [r["doubt"][index] for r in nonempty], [r["group"] for r in nonempty])
        print(f"- {name}: {a:.3f} ({lo:.3f}-{hi:.3f}) over {len(nonempty)} non-empty completions" if a is not None else f"- {name}: one class only")
    combined = doubt_combination(nonempty, bad_label)
    if combined is not None:
        a, lo, hi, n_folds = combined
        print(f"- logistic combination of largest and Top-5 entropy, tokens and lines ({n_folds}-fold cross-validation by group, out-of-fold): {a:.3f} ({lo:.3f}-{hi:.3f})")
    print("\n## What ended qualm's completions\n")
    for rule, count in Counter(r["rule"] or "(model's end or token limit)" for r in q).most_common():
        print(f"- {rule}: {count}")
    on = [r for r in q if r["runs_on"] or r.get("runs_on_closers_placed")]
    if on:
        print("\n## qualm's completions that run on\n")
        for r in on:
            how = "both readings" if r["runs_on"] and r.get("runs_on_closers_placed") else "runs_on only" if r["runs_on"] else "runs_on_closers_placed only"
            print(f"- `{r['id']}` ({r['language']}, {how}): `{json.dumps(r['text'])}`")
    seconds = [r for r in q if r["second_choice"]]
    if seconds:
        print(f"\n## Begun with the model's second choice of first token: {len(seconds)} of {len(q)}\n")
        for m in metrics:
            print(f"- {m}: {np.mean([float(r[m]) for r in seconds]):.3f}")
        rest = [r for r in nonempty if not r["second_choice"]]
        a, lo, hi = auroc_interval([bool(r[bad_label]) for r in rest], [r["doubt"][1] for r in rest], [r["group"] for r in rest])
        if a is not None:
            print(f"- the doubt without them (Top-5 entropy): {a:.3f} ({lo:.3f}-{hi:.3f}) over {len(rest)} non-empty completions")
    print(f"\n{len(set(g))} groups; intervals: 95 % bootstrap over groups (packages or HumanEval problems), 2,000 resamples")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default=str(Path.home() / ".cache" / "qualm" / "realcode" / "tasks.jsonl"), help="the real-code tasks (benchmarks.completion.realcode build)")
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--set", choices=("realcode", "multi", "random"), required=True)
    r.add_argument("--split", choices=("tune", "test"))
    r.add_argument("--limit", type=int)
    r.add_argument("--threads", type=int, help="the model's threads (default: every core)")
    r.add_argument("--variant", choices=sorted(VARIANTS), help="only qualm's completion, with these prompt windows")
    r.add_argument("--own", action="store_true", help="only each client's raw stream from its own prompt (conditions NAME-own in the report)")
    r.add_argument("--label", help="with --variant: the condition's name in the report, qualm-LABEL (default: the variant's name)")
    r.add_argument("--out", required=True)
    r.add_argument("--carry-nonempty", metavar="ROWS", help="copy ROWS' rows whose qualm completion is not empty and did not begin with the second choice (relabelled with --label); run only the others")
    p = sub.add_parser("report")
    p.add_argument("rows", nargs="+")
    p.add_argument("--set", choices=("realcode", "multi", "random"), required=True)
    p.add_argument("--no-rescore", action="store_true", help="qualm's completions as recorded, not under today's stop rules")
    args = ap.parse_args(argv)
    {"run": run, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
