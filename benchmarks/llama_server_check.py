"""A check of the openai backend against llama.cpp's ``llama-server`` (issue 24), run by hand: the
setup does not build llama-server yet, so it is not part of the tests. Build it from the llama.cpp
commit the pinned llama-cpp-python vendors (0c1e570, the sdist's vendor/llama.cpp), then run:

    cmake -S vendor/llama.cpp -B /tmp/lsbuild -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAMA_CURL=OFF
    cmake --build /tmp/lsbuild --target llama-server -j2
    .venv/bin/python benchmarks/llama_server_check.py [--server /tmp/lsbuild/bin/llama-server]

Prints what the probe found, whether the served greedy completion equals the in-process one, how
far the exact entropies fall outside the remote bounds, what scoring code in the file says, and a
batch of concurrent samples.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from qualm import prompts
from qualm.model import GenerationOptions, TeacherForcingUnavailable, load_model
from qualm.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "remote"))
from remote_servers import llama_server  # the tests' server starter

PROMPT = "def strlen(string: str) -> int:\n    \"\"\" Return length of given string\n    >>> strlen('abc')\n    3\n    \"\"\"\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default="/tmp/lsbuild/bin/llama-server")
    args = ap.parse_args()
    settings = Settings()
    with llama_server(args.server) as url:
        remote = load_model(replace(settings.model, backend="openai", endpoint=url, top_logprobs=10))
        e = remote.endpoint
        print(f"probe: engine {e.engine} {e.version}; vocabulary {e.vocab_size:,} ({e.vocab_note}); context {e.context_length}; template from the server: {bool(e.chat_template)}; alternatives {e.top_logprobs}")
        print(f"scoring code in the file: {e.prompt_logprobs} ({e.prompt_logprobs_note})")
        local = load_model(settings.model)
        prompt = prompts.code_generation(PROMPT)
        print(f"the same prompt text as in process: {remote.render_prompt(prompt) == local.render_prompt(prompt)}")
        far = remote.generate(prompt, GenerationOptions(max_tokens=24))
        near = local.generate(prompt, GenerationOptions(max_tokens=24, top_alternatives=20))
        outside = max(max(0.0, a.entropy_bounds[0] - b.entropy, b.entropy - a.entropy_bounds[1]) for a, b in zip(far.tokens, near.tokens))
        worst_p = max(abs(a.prob - b.prob) for a, b in zip(far.tokens, near.tokens))
        print(f"greedy, 24 tokens: the same text as in process: {near.text.startswith(far.text)}; token ids {[r.token_id for r in far.tokens[:5]]}…")
        print(f"  exact entropies at most {outside:.4f} nats outside the remote bounds; probabilities within {worst_p:.4f}")
        try:
            remote.score(prompt, "def strlen(s):\n    return len(s)\n")
            print("score: returned (unexpected for llama-server)")
        except TeacherForcingUnavailable as exc:
            print(f"score: {exc}")
        batch = remote.generate_batch([(prompts.plan_generation(PROMPT), GenerationOptions(max_tokens=12, temperature=0.8, top_p=0.95, seed=i)) for i in range(3)])
        print(f"3 concurrent samples: {[len(t.tokens) for t in batch]} tokens, first words {[t.text[:24] for t in batch]}")
        remote.close()
        local.close()


if __name__ == "__main__":
    main()
