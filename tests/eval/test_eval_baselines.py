"""The multi-sample baselines on tiny hand-built cases: CodeBLEU consistency (VR, VRO, BLEU),
symbolic clustering with CrossHair in the sandbox (hostile samples included) and the
pass-pattern disagreement. No model is loaded."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pytest
from codebleu import calc_codebleu

from qualm.evaluation import symbolic
from qualm.evaluation.consistency import GREEDY, codebleu_similarity, consistency_bleu, consistency_vr, consistency_vro, pairwise_mean
from qualm.evaluation.pass_pattern import pass_pattern_disagreement
from qualm.evaluation.symbolic import SymbolicConfig, cluster_entropy, symbolic_clustering
from qualm_sandbox import SandboxUnavailable, choose_isolation

DOUBLE_MUL = "def f(x: int) -> int:\n    return x * 2\n"
DOUBLE_ADD = "def f(x: int) -> int:\n    return x + x\n"
PLUS_ONE = "def f(x: int) -> int:\n    return x + 1\n"

ADD = "def add(a, b):\n    return a + b\n"
PARSER = (
    "import re\n\nclass Parser:\n    def __init__(self, text):\n        self.tokens = re.findall(r'\\w+', text)\n\n"
    "    def count(self):\n        return len(self.tokens)\n"
)
LOOP = "for i in range(10):\n    if i % 2 == 0:\n        print(i * i)\n    else:\n        print(-i)\n"


def exact(a: str, b: str) -> float:
    """A hand-checkable similarity: 1 for equal strings, else 0."""
    return float(a == b)


# ---------------------------------------------------------------------------------- CodeBLEU


def test_codebleu_similarity_is_one_for_identical_and_symmetric_otherwise():
    assert codebleu_similarity(ADD, ADD) == 1.0
    # Equal after stripping, as calc_codebleu compares them; raw CodeBLEU of "x" with itself is 0.56.
    assert codebleu_similarity("x", " x\n") == 1.0
    ab, ba = codebleu_similarity(ADD, PARSER), codebleu_similarity(PARSER, ADD)
    assert ab == ba
    assert 0.0 <= ab < 0.5


def test_codebleu_similarity_scores_unparsable_code_without_raising():
    s = codebleu_similarity("def f(:\n  return", DOUBLE_MUL)
    assert 0.0 <= s < 1.0
    assert 0.0 <= codebleu_similarity("", DOUBLE_MUL) < 1.0


def test_codebleu_of_code_without_data_flow_logs_nothing(caplog):
    # codebleu warns on the root logger for every such pair; a full run printed thousands
    with caplog.at_level(logging.WARNING):
        value = codebleu_similarity("def f():\n    return 1\n", "def f():\n    return 2\n")
    assert 0.0 <= value < 1.0
    assert not [r for r in caplog.records if "data-flow" in r.getMessage()], caplog.text
    logging.getLogger().warning("data-flow match score degenerates (not from codebleu)")
    assert "not from codebleu" in caplog.text  # the filter is gone after the call


def test_pairwise_mean_over_unordered_pairs():
    # Pairs of [a, a, b]: (a, a) = 1, (a, b) = 0, (a, b) = 0 -> 1/3.
    assert pairwise_mean(["a", "a", "b"], exact) == pytest.approx(1 / 3)
    assert pairwise_mean(["a"], exact) is None
    assert pairwise_mean([], exact) is None


# ------------------------------------------------------------------------------- consistency


def test_identical_samples_have_zero_uncertainty():
    # Exactly 0, no tolerance needed: equal strings score exactly 1.0 (short-circuit), so
    # 1 - mean(1.0, ...) is exactly 0.0 in floating point.
    samples = [DOUBLE_MUL] * 4
    assert consistency_vr(samples).uncertainty == 0.0
    assert consistency_vro(DOUBLE_MUL, samples).uncertainty == 0.0
    assert consistency_bleu(samples).uncertainty == 0.0


def test_very_different_samples_have_high_uncertainty():
    vr = consistency_vr([ADD, PARSER, LOOP])
    assert vr.uncertainty is not None and vr.uncertainty > 0.7  # measured 0.874
    assert len(vr.pairs) == 3
    vro = consistency_vro(ADD, [PARSER, LOOP])
    assert vro.uncertainty is not None and vro.uncertainty > 0.7


def test_vr_and_vro_on_hand_built_cases():
    samples = ["a", "a", "b"]
    # VR = 1 - (1 + 0 + 0) / 3 = 2/3.
    vr = consistency_vr(samples, sim=exact)
    assert vr.uncertainty == pytest.approx(2 / 3)
    assert vr.mean_similarity == pytest.approx(1 / 3)
    assert [(i, j) for i, j, _ in vr.pairs] == [(0, 1), (0, 2), (1, 2)]
    # VRO against greedy "a": 1 - (1 + 1 + 0) / 3 = 1/3; against "b": 1 - 1/3 = 2/3.
    vro = consistency_vro("a", samples, sim=exact)
    assert vro.uncertainty == pytest.approx(1 / 3)
    assert [p[0] for p in vro.pairs] == [GREEDY] * 3
    assert consistency_vro("b", samples, sim=exact).uncertainty == pytest.approx(2 / 3)


def test_vr_equals_huang_formula_over_ordered_pairs_with_raw_codebleu():
    # Huang et al.: VR = 1 - sum_{i != j} sim(s_i, s_j) / (N (N - 1)) with the raw, asymmetric
    # CodeBLEU; averaging both directions per unordered pair gives the same number.
    samples = [DOUBLE_MUL, DOUBLE_ADD, PLUS_ONE]
    n = len(samples)
    ordered = sum(
        calc_codebleu([samples[i]], [samples[j]], lang="python")["codebleu"] for i in range(n) for j in range(n) if i != j
    )
    assert consistency_vr(samples).uncertainty == pytest.approx(1 - ordered / (n * (n - 1)), abs=1e-12)


def test_consistency_bleu_is_pairwise_bleu_among_the_samples():
    samples = [DOUBLE_MUL, DOUBLE_ADD, PLUS_ONE]
    bleu = consistency_bleu(samples)
    # by hand: BLEU-4 (CodeBLEU's n-gram term) both ways per unordered pair, averaged
    def b(x, y):
        return calc_codebleu([x], [y], lang="python")["ngram_match_score"]

    pairs = [(0, 1), (0, 2), (1, 2)]
    expected = 1 - sum((b(samples[i], samples[j]) + b(samples[j], samples[i])) / 2 for i, j in pairs) / 3
    assert bleu.method == "Consistency (BLEU)" and bleu.uncertainty == pytest.approx(expected, abs=1e-12)
    # surface agreement only: it differs from VR (full CodeBLEU) on the same samples
    assert bleu.uncertainty != pytest.approx(consistency_vr(samples).uncertainty)


def test_consistency_needs_enough_outputs():
    assert consistency_vr([DOUBLE_MUL]).uncertainty is None
    assert consistency_vr([]).mean_similarity is None
    assert consistency_vro(DOUBLE_MUL, []).uncertainty is None
    assert consistency_bleu([DOUBLE_MUL]).uncertainty is None


# ---------------------------------------------------------------------- symbolic clustering


def test_cluster_entropy():
    assert cluster_entropy([3]) == 0.0
    assert cluster_entropy([1, 1]) == pytest.approx(math.log(2))
    assert cluster_entropy([2, 1]) == pytest.approx(-(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)))


@pytest.fixture
def sandbox(request: pytest.FixtureRequest) -> str:
    """The isolation's name; a test that asks for it needs the sandbox (tests/sandbox_state.py: it
    skips where none runs, and fails so under CI)."""
    if request.node.get_closest_marker("needs_sandbox") is None:
        raise AssertionError("a test that runs the sandbox must be marked needs_sandbox")
    try:
        return choose_isolation("auto").name
    except SandboxUnavailable:
        return "none"  # the test fails in its call, saying why (tests/conftest.py)


@pytest.mark.needs_sandbox
def test_two_equivalent_implementations_and_one_different(sandbox):
    result = symbolic_clustering([DOUBLE_MUL, DOUBLE_ADD, PLUS_ONE], "f")
    assert result.clusters == ((0, 1), (2,))
    assert result.cluster_sizes == (2, 1)
    # -(2/3 ln 2/3 + 1/3 ln 1/3) = ln 3 - (2/3) ln 2 = 1.098612 - 0.462098 = 0.636514 nats
    assert result.uncertainty == pytest.approx(0.636514, abs=1e-6)
    assert result.crosshair_calls == 2  # 1 vs 0 (equivalent), 2 vs 0 (different)
    assert [c.verdict for c in result.checks] == ["equivalent", "different"]
    assert "x=" in result.checks[1].detail  # the counterexample
    assert result.sample_status == ("ok", "ok", "ok")
    assert not result.budget_exhausted


@pytest.mark.needs_sandbox
def test_unparsable_and_entry_pointless_samples_are_singletons(sandbox):
    samples = [DOUBLE_MUL, "def f(x: int -> int:\n", DOUBLE_ADD, "def g(x: int) -> int:\n    return 2 * x\n"]
    result = symbolic_clustering(samples, "f")
    assert result.clusters == ((0, 2), (1,), (3,))
    assert result.sample_status == ("ok", "unparsable", "ok", "no entry point")
    # Sizes [2, 1, 1]: -(1/2 ln 1/2 + 2 * 1/4 ln 1/4) = (1/2) ln 2 + ln 2 = 1.5 ln 2 = 1.039721
    assert result.uncertainty == pytest.approx(1.5 * math.log(2))
    assert result.crosshair_calls == 1  # only sample 2 against sample 0
    assert result.import_checks == 2  # the two that parse and define f


@pytest.fixture
def sandboxed(monkeypatch) -> list[tuple[str, float, bool]]:
    """Each sandboxed checker run of symbolic clustering: (what it ran, its time limit, whether the
    sandbox killed it at that limit)."""
    runs: list[tuple[str, float, bool]] = []
    real = symbolic.run_program

    def recorded(argv, work, limits, **kw):
        result = real(argv, work, limits, **kw)
        runs.append((json.loads(argv[-1])["action"], limits.timeout, result.timed_out))
        return result

    monkeypatch.setattr(symbolic, "run_program", recorded)
    return runs


@pytest.mark.needs_sandbox
def test_hostile_samples_are_contained_and_time_limited(sandbox, sandboxed, tmp_path: Path):
    escaped = tmp_path / "escaped.txt"
    hang_at_import = "while True:\n    pass\n\n" + DOUBLE_MUL
    write_at_import = f"open({str(escaped)!r}, 'w').write('out')\n\n" + DOUBLE_MUL
    exit_at_import = "import sys\nsys.exit(0)\n\n" + DOUBLE_MUL
    config = SymbolicConfig(import_timeout_s=3.0, pair_timeout_s=10.0, total_budget_s=60.0)
    result = symbolic_clustering([hang_at_import, write_at_import, exit_at_import, DOUBLE_MUL, DOUBLE_ADD], "f", config)
    assert result.sample_status[:3] == ("import failed",) * 3
    assert result.clusters == ((0,), (1,), (2,), (3, 4))
    assert result.crosshair_calls == 1  # the broken samples are never representatives
    assert not escaped.exists()
    # the sample that hangs as it is imported is killed at the import limit; nothing else is cut
    assert [run for run in sandboxed if run[2]] == [("import", 3.0, True)]
    assert len(sandboxed) == 6 and sandboxed[0] == ("import", 3.0, True)  # five imports, one comparison


@pytest.mark.needs_sandbox
def test_a_sample_that_hangs_when_called_is_never_merged(sandbox, sandboxed):
    hangs = "def f(x: int) -> int:\n    while True:\n        pass\n"
    config = SymbolicConfig(pair_timeout_s=6.0, total_budget_s=60.0)
    result = symbolic_clustering([DOUBLE_MUL, hangs], "f", config)
    assert result.clusters == ((0,), (1,))
    assert result.checks[0].verdict == "inconclusive"  # CrossHair itself never stops on it
    # the comparison is killed at its limit, and only it
    assert sandboxed == [("import", 10.0, False), ("import", 10.0, False), ("diffbehavior", 6.0, True)]
    assert result.checks[0].detail == "killed after 6.0 s"
    assert result.uncertainty == pytest.approx(math.log(2))


@pytest.mark.needs_sandbox
def test_exhausted_budget_leaves_samples_unchecked(sandbox):
    result = symbolic_clustering([DOUBLE_MUL, DOUBLE_ADD, "nonsense("], "f", SymbolicConfig(total_budget_s=0.5))
    assert result.budget_exhausted
    assert result.sample_status == ("unchecked", "unchecked", "unparsable")
    assert result.crosshair_calls == 0 and result.import_checks == 0
    assert result.uncertainty == pytest.approx(math.log(3))


def test_symbolic_clustering_unavailable():
    assert symbolic_clustering([DOUBLE_MUL], "f").uncertainty is None
    result = symbolic_clustering([DOUBLE_MUL, DOUBLE_ADD], "f", SymbolicConfig(sandbox_mode="nowhere"))
    assert result.uncertainty is None and result.note.startswith("unavailable: no sandbox")


# --------------------------------------------------------------------- pass-pattern disagreement


def test_pass_patterns_hand_computed():
    T, F = True, False
    # Pairs: (0,1) agree on tests 0 and 2 -> 2/3; (0,2) on test 2 -> 1/3; (1,2) on tests 1, 2 -> 2/3.
    # Mean agreement 5/9, uncertainty 4/9.
    result = pass_pattern_disagreement([[T, T, F], [T, F, F], [F, F, F]])
    assert result.uncertainty == pytest.approx(4 / 9)
    assert result.mean_agreement == pytest.approx(5 / 9)
    assert (result.samples, result.tests) == (3, 3)


def test_pass_patterns_with_tests_not_run():
    T, F = True, False
    # (0,1) both ran test 0 only: agree -> 1; (0,2) test 0: differ -> 0; (1,2) tests 0, 1: 1/2.
    # Mean 1/2, uncertainty 1/2.
    result = pass_pattern_disagreement([[T, None], [T, F], [F, F]])
    assert result.uncertainty == pytest.approx(0.5)
    assert [(i, j, n) for i, j, _, n in result.pairs] == [(0, 1, 1), (0, 2, 1), (1, 2, 2)]


def test_pass_patterns_edge_cases():
    T, F = True, False
    assert pass_pattern_disagreement([[T, F, T]] * 4).uncertainty == 0.0
    assert pass_pattern_disagreement([[F, F], [F, F]]).uncertainty == 0.0  # agreeing failures
    assert pass_pattern_disagreement([[T, T], [F, F]]).uncertainty == 1.0
    assert pass_pattern_disagreement([[T, F]]).uncertainty is None
    assert pass_pattern_disagreement([[T, None], [None, F]]).uncertainty is None  # no shared test
    assert pass_pattern_disagreement([]).uncertainty is None
    with pytest.raises(ValueError):
        pass_pattern_disagreement([[T, F], [T]])
