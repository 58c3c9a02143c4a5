"""How long a ghost-text completion takes: the time to its first token, cold and warm, and to its end.

For each of N random-span infilling tasks (the cursor in the middle of a line: a one-line
completion), in a fixed order:

  cold   the completion at the cursor, with the model's cache holding another document's prompt
  warm   the user then types the completion's first character and asks again: the prompt is the
         same up to the cursor, so the cache serves all of it but the cursor's line and what follows

    .venv/bin/python -m benchmarks.completion.completion_latency [--tasks 40] [--n-gpu-layers -1]

Prints the medians and the 90th percentiles, the prompt sizes, and how much of each prompt the cache
served. Targets (issue 46), for the default model on a 2-core CPU: median first token <= 0.4 s warm
and <= 1.5 s cold, median one-line completion <= 1.5 s; on a GPU, first token <= 0.1 s.
"""

from __future__ import annotations

import argparse
import platform
import statistics

from benchmarks.completion.infilling import document, tasks  # the infilling benchmark's task loader
from qualm.engine import CompletionOptions, Document, complete
from qualm.model import load_model
from qualm.settings import Settings


def _summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return f"{name:<34} median {statistics.median(values):.3f} s   p90 {p90:.3f} s   (n = {len(values)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=40)
    ap.add_argument("--n-gpu-layers", type=int, default=0)
    args = ap.parse_args()
    settings = Settings.from_mapping({"model": {"n_gpu_layers": args.n_gpu_layers}})
    backend = load_model(settings.model)
    chosen = tasks("random")[: args.tasks]
    cold_first, cold_total, warm_first, warm_total, sizes, cold_reused, warm_reused, lines = [], [], [], [], [], [], [], []
    complete(backend, Document("def warm_up():\n    \n", "w.py"), 17, settings, CompletionOptions(max_tokens=4))  # load the weights into memory
    for task in chosen:
        text, offset = document(task, "random")
        cold = complete(backend, Document(text, "t.py"), offset, settings)
        if cold.first_token_seconds is None:
            continue
        cold_first.append(cold.first_token_seconds)
        cold_total.append(cold.seconds)
        sizes.append(cold.prompt_tokens)
        cold_reused.append(cold.reused_prompt_tokens)
        lines.append(cold.text.count("\n") + 1)
        if not cold.text:
            continue
        typed = text[:offset] + cold.text[0] + text[offset:]
        warm = complete(backend, Document(typed, "t.py"), offset + 1, settings)
        if warm.first_token_seconds is not None:
            warm_first.append(warm.first_token_seconds)
            warm_total.append(warm.seconds)
            warm_reused.append(warm.reused_prompt_tokens / max(1, warm.prompt_tokens))
    print(f"{backend.info.summary()}; {platform.processor() or platform.machine()}, {settings.model.threads()} threads, GPU layers {args.n_gpu_layers}")
    print(f"{len(cold_first)} random-span tasks (the cursor mid-line): prompts of {statistics.median(sizes):.0f} tokens (median, {min(sizes)}-{max(sizes)})")
    print(f"cold prompts served from the cache: median {statistics.median(cold_reused):.0f} tokens; warm: median {statistics.median(warm_reused):.0%} of the prompt")
    print(f"completions of one line: {sum(n == 1 for n in lines)} of {len(lines)}")
    print(_summary("first token, cold", cold_first))
    print(_summary("first token, warm (one key typed)", warm_first))
    print(_summary("whole completion, cold", cold_total))
    print(_summary("one-line completion, cold", [t for t, n in zip(cold_total, lines) if n == 1]))
    print(_summary("whole completion, warm", warm_total))
    backend.close()


if __name__ == "__main__":
    main()
