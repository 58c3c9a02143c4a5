"""The cache of problem-only samples (qualm.engine.samples) and decoding around it."""

from qualm import prompts
from qualm.engine.samples import SampleCache, decode_with_cache
from qualm.model import GenerationOptions
from qualm.prompts import plan_generation
from qualm.trace import Trace


def trace(text: str, stop: str = "eos") -> Trace:
    return Trace(text=text, tokens=(), model="m", mode="sampled", prompt="", stop_reason=stop)  # type: ignore[arg-type]


def jobs(problem: str, n: int):
    return [(plan_generation(problem), GenerationOptions(temperature=0.8, seed=42 + i)) for i in range(n)] + [(prompts.test_generation(problem), GenerationOptions(temperature=0.8, seed=1042))]


def test_a_second_decode_of_the_same_problem_decodes_only_what_is_not_kept():
    cache = SampleCache()
    calls: list[int] = []

    def decode(todo):
        calls.append(len(todo))
        return [trace(f"{job[0].name}-{job[1].seed}-{len(calls)}") for job in todo]

    first, reused = decode_with_cache(jobs("p", 3), [True, True, False, True], "digest", cache, decode)
    assert calls == [4] and reused == [False] * 4
    second, reused = decode_with_cache(jobs("p", 3), [True, True, False, True], "digest", cache, decode)
    assert calls == [4, 1] and reused == [True, True, False, True]
    assert [t.text for t in second] == [first[0].text, first[1].text, "plan_generation-44-2", first[3].text]
    assert cache.hits == 3 and cache.misses == 3


def test_keys_separate_models_problems_and_options():
    cache = SampleCache()
    (p, o), = jobs("p", 1)[:1]
    cache.put(SampleCache.key("a", p, o), trace("x"))
    assert cache.get(SampleCache.key("b", p, o)) is None
    assert cache.get(SampleCache.key("a", plan_generation("q"), o)) is None
    assert cache.get(SampleCache.key("a", p, GenerationOptions(temperature=0.8, seed=7))) is None
    assert cache.get(SampleCache.key("a", p, o)).text == "x"


def test_cancelled_samples_are_never_kept_and_the_oldest_go_first():
    cache = SampleCache(max_entries=2)
    p = plan_generation("p")
    cache.put(SampleCache.key("m", p, GenerationOptions(seed=1)), trace("cut", "cancelled"))
    assert len(cache) == 0
    for seed in (1, 2, 3):
        cache.put(SampleCache.key("m", p, GenerationOptions(seed=seed)), trace(str(seed)))
    assert len(cache) == 2 and cache.get(SampleCache.key("m", p, GenerationOptions(seed=1))) is None


def test_without_a_cache_everything_is_decoded():
    out, reused = decode_with_cache(jobs("p", 2), [True] * 3, "d", None, lambda todo: [trace("t")] * len(todo))
    assert len(out) == 3 and reused == [False] * 3
