"""The real default model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M) on a short HumanEval prompt."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from qualm import engine, prompts
from qualm.model import CancelToken, GenerationOptions, ModelRuntimeError, load_model
from qualm.model.files import DEFAULT_MODEL

pytestmark = pytest.mark.model

SHORT = "HumanEval/23"  # strlen: a solution of a few dozen tokens


@pytest.fixture(scope="module")
def prompt(humaneval):
    return prompts.code_generation(humaneval[SHORT]["prompt"])


@pytest.fixture(scope="module")
def greedy(backend, prompt):
    streamed = []
    trace = backend.generate(prompt, GenerationOptions(max_tokens=160), on_token=streamed.append)
    return trace, streamed


def test_default_model_is_the_expected_file(backend):
    info = backend.info
    assert info.name == DEFAULT_MODEL.display_name
    assert info.detail("size") == f"{DEFAULT_MODEL.size:,} bytes" and info.identity.digest == DEFAULT_MODEL.sha256
    assert info.vocab_size == 151_936


def test_generates_a_solution_that_stops_at_the_fence(greedy):
    trace, _ = greedy
    assert trace.stop_reason == "fence"
    assert "def strlen" in trace.text and "```" not in trace.text
    assert trace.mode == "greedy" and trace.prompt.endswith(prompts.code_generation("").assistant_prefix)


def test_one_record_per_generated_token_streamed_once_in_order(backend, greedy):
    trace, streamed = greedy
    assert len(trace.tokens) > 5
    assert [r.index for r in trace.tokens] == list(range(len(trace.tokens)))
    assert streamed == list(trace.tokens)
    # the tokens' own bytes spell the text (the last one may be cut at the closing fence)
    spelled = b"".join(backend.piece(r.token_id) for r in trace.tokens).decode()
    assert spelled.startswith(trace.text)
    rest = spelled[len(trace.text) :]
    assert rest == "" or rest[0] == "`"


def test_offsets_rebuild_the_text_exactly(greedy):
    trace, _ = greedy
    assert "".join(r.text for r in trace.tokens) == trace.text
    pos = 0
    for r in trace.tokens:
        assert r.start == pos and r.end == pos + len(r.text)
        assert trace.text[r.start : r.end] == r.text
        pos = r.end
    assert pos == len(trace.text)


def test_entropies_and_probabilities_are_in_range(greedy):
    trace, _ = greedy
    log_v = math.log(trace.vocab_size)
    for r in trace.tokens:
        assert 0.0 <= r.entropy <= log_v
        assert 0.0 < r.prob <= 1.0
        assert len(r.alternatives) == 5
        probs = [a.prob for a in r.alternatives]
        assert probs == sorted(probs, reverse=True) and sum(probs) <= 1.0 + 1e-6
        # greedy: the chosen token is the most probable one
        assert r.alternatives[0].token_id == r.token_id and r.prob == pytest.approx(probs[0])


def test_two_greedy_runs_give_identical_traces(backend, prompt, greedy):
    trace, _ = greedy
    again = backend.generate(prompt, GenerationOptions(max_tokens=160))
    assert again.text == trace.text
    assert again.tokens == trace.tokens


@pytest.fixture(scope="module")
def exact_backend(settings):
    """The same model scoring one token per decode (``model.score_batch`` 1), as generation decodes."""
    model = load_model(replace(settings.model, score_batch=1))
    yield model
    model.close()


def test_teacher_forced_scoring_one_token_at_a_time_reproduces_the_greedy_entropies(exact_backend, prompt, greedy):
    trace, _ = greedy
    scored = exact_backend.score(prompt, trace.text)
    assert scored.mode == "scored" and scored.text == trace.text
    assert [r.token_id for r in scored.tokens] == [r.token_id for r in trace.tokens]
    for g, s in zip(trace.tokens, scored.tokens):
        assert s.entropy == pytest.approx(g.entropy, abs=1e-3)
        assert s.prob == pytest.approx(g.prob, abs=1e-3)
        assert (s.start, s.end) == (g.start, g.end)


def test_chunked_scoring_stays_within_a_tenth_of_a_nat(backend, prompt, greedy):
    """The default (chunks of 64 tokens) trades exactness for speed: the same tokens, entropies and
    probabilities within the bound the settings document."""
    assert backend.info.detail("score batch") == "64"
    trace, _ = greedy
    scored = backend.score(prompt, trace.text)
    assert [r.token_id for r in scored.tokens] == [r.token_id for r in trace.tokens]
    assert max(abs(s.entropy - g.entropy) for g, s in zip(trace.tokens, scored.tokens)) < 0.1
    assert max(abs(s.prob - g.prob) for g, s in zip(trace.tokens, scored.tokens)) < 0.05


def test_seeded_sampling_is_reproducible(backend, prompt):
    opts = GenerationOptions(max_tokens=40, temperature=0.8, top_p=0.95, seed=7)
    a = backend.generate(prompt, opts)
    b = backend.generate(prompt, opts)
    assert a.mode == "sampled" and a.seed == 7
    assert a.text == b.text and a.tokens == b.tokens
    for r in a.tokens:  # a sampled token need not be the top one; its probability is still reported
        assert 0.0 < r.prob <= 1.0


def test_cancellation_stops_between_tokens(backend, prompt):
    cancel = CancelToken()
    seen = []

    def on_token(record):
        seen.append(record)
        if len(seen) == 3:
            cancel.cancel()

    trace = backend.generate(prompt, GenerationOptions(max_tokens=160), on_token=on_token, cancel=cancel)
    assert trace.stop_reason == "cancelled"
    assert 3 <= len(trace.tokens) <= 4  # held-back fence characters may hold one record


def test_engine_generation_annotates_scopes(backend, humaneval, settings):
    trace = engine.generate_solution(backend, humaneval[SHORT]["prompt"], settings, GenerationOptions(max_tokens=160))
    scopes = {r.scope for r in trace.tokens}
    assert "code" in scopes and scopes <= {"code", "comment", "docstring"}
    report = engine.lexical_report(trace, 5)
    assert report.all.n_tokens == len(trace.tokens)
    assert report.code.n_tokens + report.comment.n_tokens == len(trace.tokens)
    assert report.score == report.all.top_k_entropy and report.score > 0


def test_a_reused_prompt_prefix_is_kept_and_gives_the_same_answer(backend, prompt):
    # GenerationOptions.reuse_cache: the second call shares the first one's prompt and answer up to
    # a point; the cache keeps that prefix and only the rest is evaluated.
    first = backend.generate(prompt, GenerationOptions(max_tokens=24))
    longer = replace(prompt, assistant_prefix=prompt.assistant_prefix + first.text[:20])
    fresh = backend.generate(longer, GenerationOptions(max_tokens=8))
    backend.generate(prompt, GenerationOptions(max_tokens=24))  # the cache holds the prompt and its answer again
    reused = backend.generate(longer, GenerationOptions(max_tokens=8, reuse_cache=True))
    assert reused.extra["reused_prompt_tokens"] >= fresh.prompt_tokens - 8  # the prompt and most of the answer
    assert [r.token_id for r in reused.tokens] == [r.token_id for r in fresh.tokens]
    assert max(abs(a.entropy - b.entropy) for a, b in zip(reused.tokens, fresh.tokens)) < 0.05
    # another prompt keeps exactly the tokens it shares with what the cache holds (the chat
    # template's system turn), no more
    other = prompts.plan_generation("def f():\n    pass\n")
    held = backend.tokenize(reused.prompt, add_special=False, parse_special=True) + [r.token_id for r in reused.tokens[:-1]]
    wanted = backend.tokenize(backend.render_prompt(other), add_special=False, parse_special=True)
    shared = next(i for i, (a, b) in enumerate(zip([*held, -1], wanted)) if a != b)
    unrelated = backend.generate(other, GenerationOptions(max_tokens=2, reuse_cache=True))
    assert 0 < shared < len(wanted) - 1 and unrelated.extra["reused_prompt_tokens"] == (shared if shared >= 16 else 0)


def test_prompts_that_share_a_long_opening_each_get_their_own_answer(backend, humaneval):
    # The batch evaluates the shared opening (the problem, far past SHARED_PREFIX_MIN tokens) once
    # and gives it to every sequence; each continues from its own ending, not another's.
    from qualm.model.llama_cpp_backend import SHARED_PREFIX_MIN, shared_prefix

    problem = humaneval["HumanEval/0"]["prompt"]
    words = ["apple", "banana", "cherry"]
    jobs = [
        (prompts.ChatPrompt(user=f"{problem}\nIgnore the code above. Reply with the single word {w}.", assistant_prefix="", stop=()), GenerationOptions(max_tokens=4))
        for w in words
    ]
    tokens = [backend.tokenize(backend.render_prompt(p), add_special=False, parse_special=True) for p, _ in jobs]
    assert shared_prefix(tokens) > SHARED_PREFIX_MIN
    traces = backend.generate_batch(jobs)
    assert [w in t.text.lower() for w, t in zip(words, traces)] == [True, True, True]
    assert all(t.prompt_tokens == len(k) for t, k in zip(traces, tokens))


def test_a_batch_takes_the_opening_it_shares_with_the_function_just_scored_from_the_cache(backend, humaneval, monkeypatch):
    # An assessment scores the function, then decodes the model's solutions, whose prompt opens as
    # the scored one does: that opening is copied from the main context, not evaluated again, and
    # the answers are those of a batch that evaluated it (the greedy one the same text).
    from qualm.engine.solutions import solution_jobs
    from qualm.lang import PYTHON
    from qualm.model.llama_cpp_backend import _Context
    from qualm.settings import Settings

    problem = humaneval[SHORT]
    fn = PYTHON.find_function(problem["prompt"] + problem["canonical_solution"], problem["entry_point"])
    jobs = [(p, replace(o, max_tokens=48)) for p, o in solution_jobs(fn.problem_description, Settings().with_overrides(functional={"n_solutions": 2}), PYTHON)]
    assert all(o.reuse_cache for _, o in jobs)
    fresh = backend.generate_batch([(p, replace(o, reuse_cache=False)) for p, o in jobs])
    assert backend._multi is None  # the batch's context (its KV cache) goes with the batch
    copied: list[tuple] = []
    original = _Context.copy_range  # on the class: each batch makes its context anew
    monkeypatch.setattr(_Context, "copy_range", lambda self, *args: (copied.append(args), original(self, *args)))
    backend.score(prompts.code_generation(fn.problem_description), fn.source)
    lent = backend.generate_batch(jobs)
    scored_prompt = backend.tokenize(backend.render_prompt(prompts.code_generation(fn.problem_description)), add_special=False, parse_special=True)
    assert len(copied) == 1 and copied[0][2] == 0 and copied[0][3] >= len(scored_prompt) - 1  # at least the scored prompt
    assert lent[0].text == fresh[0].text and "return len(" in lent[0].text
    assert all(t.prompt_tokens == f.prompt_tokens for t, f in zip(lent, fresh))
    # a batch whose jobs do not ask for it evaluates its prompts itself
    copied.clear()
    backend.score(prompts.code_generation(fn.problem_description), fn.source)
    backend.generate_batch([(p, replace(o, reuse_cache=False)) for p, o in jobs])
    assert copied == []


def test_a_chat_template_file_replaces_the_gguf_s_own(settings, prompt, tmp_path):
    # Qwen's template adds a default system turn; a user's template file (here ChatML with the user
    # turn alone: the paper's prompt) replaces it in process, and a missing file is named.
    from qualm.model import ModelFileError
    from qualm.model.chat_template import CHATML

    file = tmp_path / "user-only.jinja"
    file.write_text(CHATML)
    model = load_model(replace(settings.model, chat_template=str(file)))
    try:
        rendered = model.render_prompt(prompt)
        assert rendered.startswith("<|im_start|>user\n") and "You are Qwen" not in rendered
        assert model.generate(prompt, GenerationOptions(max_tokens=8)).tokens
    finally:
        model.close()
    with pytest.raises(ModelFileError, match="qualm.model.chat_template"):
        load_model(replace(settings.model, chat_template=str(tmp_path / "gone.jinja")))


def test_the_gguf_s_template_adds_qwen_s_system_turn(backend, prompt):
    assert "You are Qwen" in backend.render_prompt(prompt)  # documented in docs/method.md


def test_a_completion_run_between_a_batch_s_steps_changes_neither_answer(backend, prompt):
    # The language server runs a waiting completion at a long job's checkpoint, which the backend
    # calls between a batch's decoding steps (qualm.lsp.worker): the completion uses the main
    # context while the batch waits in its own. Both answers are the ones they get alone.
    jobs = [(prompt, GenerationOptions(max_tokens=12, temperature=0.8, seed=s)) for s in (1, 2)]
    alone = backend.generate_batch(jobs)
    other = prompts.ChatPrompt(user="Write a Python function that returns the square of x.", assistant_prefix="", stop=())
    by_itself = backend.generate(other, GenerationOptions(max_tokens=12))
    steps: list[str] = []

    def at_checkpoint() -> None:
        steps.append("step")
        if len(steps) == 3:  # mid-batch: both sequences have answered a few tokens
            steps.append(backend.generate(other, GenerationOptions(max_tokens=12)).text)

    interrupted = backend.generate_batch(jobs, cancel=CancelToken(checkpoint=at_checkpoint))
    assert by_itself.text in steps, steps
    assert [t.text for t in interrupted] == [t.text for t in alone]
    # a batch started at a batch's step would clear the context the outer one decodes in: refused
    calls: list[int] = []

    def batch_at_a_step() -> None:
        calls.append(1)
        if len(calls) == 2:  # the first call is before the outer batch starts
            backend.generate_batch(jobs)

    with pytest.raises(ModelRuntimeError, match="inside another batch"):
        backend.generate_batch(jobs, cancel=CancelToken(checkpoint=batch_at_a_step))
    assert [t.text for t in backend.generate_batch(jobs)] == [t.text for t in alone]  # and nothing is left broken


def test_a_completion_during_a_lent_batch_s_prompt_leaves_its_answers_as_they_are(backend, humaneval):
    # The batch copies the opening it shares with the function just scored from the main context,
    # then evaluates the rest of its prompts; a completion at a checkpoint in between changes the
    # main context, not what the batch copied (it remembers what the copy holds).
    from qualm.engine.solutions import solution_jobs
    from qualm.lang import PYTHON
    from qualm.settings import Settings

    problem = humaneval[SHORT]
    fn = PYTHON.find_function(problem["prompt"] + problem["canonical_solution"], problem["entry_point"])
    (p, o), *_ = solution_jobs(fn.problem_description, Settings().with_overrides(functional={"n_solutions": 1}), PYTHON)
    # two prompts with a long common opening (two groups after the shared part), both reusing the cache
    jobs = [(p, replace(o, max_tokens=24)), (replace(p, user=p.user + "\nUse a loop."), replace(o, max_tokens=24))]
    assert all(o.reuse_cache for _, o in jobs)
    backend.score(prompts.code_generation(fn.problem_description), fn.source)
    quiet = backend.generate_batch(jobs)
    calls: list[int] = []

    def completion_in_the_prompt() -> None:
        calls.append(1)
        if len(calls) == 2:  # the first is before the batch starts; the second, after the copy
            # a prompt that shares more with the batch's than the scored one did: the main context
            # now holds more of the batch's prompt than the copy does
            backend.generate(jobs[1][0], GenerationOptions(max_tokens=8))

    backend.score(prompts.code_generation(fn.problem_description), fn.source)
    interrupted = backend.generate_batch(jobs, cancel=CancelToken(checkpoint=completion_in_the_prompt))
    assert len(calls) > 2
    assert [t.text for t in interrupted] == [t.text for t in quiet]
