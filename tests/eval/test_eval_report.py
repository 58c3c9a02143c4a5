"""write_report on a tiny fabricated two-dataset run: files, table layout, bold/underline, claims.

Every method's scores are built so that its AUROC is known by hand. With 4 correct and 4 incorrect
problems there are 16 (correct, incorrect) pairs; starting from the perfect order (all correct
problems least uncertain) each swap of an adjacent (correct, incorrect) pair makes exactly one
pair discordant, so a method built with d swaps has AUROC = 1 - d/16.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from timing import seconds

from qualm.evaluation import metrics
from qualm.evaluation.bootstrap import RESAMPLES, SEED
from qualm.evaluation.claims import HELD, INCONCLUSIVE, NOT_HELD, NOT_TESTED, check_claims
from qualm.evaluation.report import load_runs, write_report
from qualm.evaluation.results import EvalRun, MethodResult
from qualm.evaluation.summary import axis_correlations, summarise
from qualm.evaluation.tables import render_table

LABELS = [True] * 4 + [False] * 4
TASKS = [f"task/{i}" for i in range(8)]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def with_discordant(d: int) -> list[float | None]:
    """Uncertainty per problem with exactly d discordant pairs, i.e. AUROC 1 - d/16."""
    order = list(range(8))  # problems from least to most uncertain
    for _ in range(d):
        i = next(i for i in range(7) if LABELS[order[i]] and not LABELS[order[i + 1]])
        order[i], order[i + 1] = order[i + 1], order[i]
    u: list[float | None] = [0.0] * 8
    for position, problem in enumerate(order):
        u[problem] = float(position)
    return u


def method(name: str, family: str, d: int, seconds: float | None = 1.0) -> MethodResult:
    return MethodResult(name=name, family=family, uncertainty=with_discordant(d), seconds=seconds)


def k_sweep() -> list[MethodResult]:
    return [method(f"Top-K Entropy (K={k})", "ours", abs(5 - k) + 3, 1.0) for k in range(1, 11)]


def humaneval_run() -> EvalRun:
    """Every method present; all claims hold."""
    methods = [
        method("Mean Entropy", "single-pass", 8),  # .500
        method("Max Entropy", "single-pass", 6),  # .625
        method("Mean Probability", "single-pass", 7),  # .5625
        method("Max Probability", "single-pass", 7),
        method("Consistency (BLEU)", "multi-pass", 5, 4.0),  # .6875
        method("Consistency (VR)", "multi-pass", 4, 5.0),  # .75
        method("Symbolic Clustering", "multi-pass", 6, 6.0),
        method("Top-5 Entropy", "ours", 3, 1.0),  # .8125
        method("Pseudo Consistency (ALGO)", "ours", 2, 4.5),  # .875
        method("Generated Tests (FUNC)", "ours", 1, 2.0),  # .9375
        method("Ensemble (LEX+ALGO+FUNC)", "ensemble", 0, 7.5),  # 1.0
        method("Ensemble − LEX", "ensemble", 1, 6.5),  # .9375
        method("Ensemble − ALGO", "ensemble", 2, 3.0),
        method("Ensemble − FUNC", "ensemble", 3, 5.5),
        method("P(pass), calibrated", "beyond the paper", 4, 7.5),
        method("Top-5 Entropy (code only)", "ours", 4, 1.0),
        method("Top-5 Entropy (comments only)", "ours", 12, 1.0),  # .25, worse than random
        *k_sweep(),
    ]
    return EvalRun("HumanEval", "tiny-model", TASKS, LABELS, methods, "qualm eval --dataset humaneval")


def mbpp_run() -> EvalRun:
    """Some methods missing, some claims failing."""
    max_entropy = with_discordant(5)
    max_entropy[2] = None  # one unavailable score
    methods = [
        # no Mean Entropy -> (a) not tested, (b-lex) not tested although it beats the others present
        MethodResult("Max Entropy", "single-pass", max_entropy, 0.5),
        method("Mean Probability", "single-pass", 6),
        method("Max Probability", "single-pass", 6),
        method("Consistency (BLEU)", "multi-pass", 5, None),  # samples computed on another machine: no cost
        method("Consistency (VR)", "multi-pass", 4, 4.0),  # .75
        # no Symbolic Clustering
        method("Top-5 Entropy", "ours", 3, 2.0),  # 2x cheaper than VR only -> (f) not held
        method("Pseudo Consistency (ALGO)", "ours", 6),  # .625 < VR .75 -> (b-algo) not held
        method("Generated Tests (FUNC)", "ours", 1),  # beats BLEU and VR, Symbolic missing -> not tested
        method("Ensemble (LEX+ALGO+FUNC)", "ensemble", 1),  # .9375
        method("P(pass), calibrated", "beyond the paper", 0),  # 1.0 -> (c) not held
        *k_sweep(),
    ]
    return EvalRun("MBPP", "tiny-model", TASKS, LABELS, methods, "qualm eval --dataset mbpp")


def replicated(run: EvalRun, copies: int) -> EvalRun:
    """The run's problems repeated: every AUROC stays the same (a copy of a problem ties only with
    problems of its own label), but the bootstrap sees copies x 8 problems, enough to separate
    the fabricated methods."""
    return EvalRun(
        run.dataset, run.model, [f"{t}#{c}" for c in range(copies) for t in run.task_ids], run.labels * copies,
        [MethodResult(m.name, m.family, m.uncertainty * copies, m.seconds) for m in run.methods], run.command,
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("report")
    return out, write_report([humaneval_run(), mbpp_run()], out)


@pytest.fixture(scope="module")
def claims_md(tmp_path_factory) -> str:
    """claims.md of the two runs with 25 copies of each problem (200 problems)."""
    out = tmp_path_factory.mktemp("claims")
    write_report([replicated(humaneval_run(), 25), replicated(mbpp_run(), 25)], out)
    return (out / "claims.md").read_text()


def test_the_fabricated_scores_have_the_intended_auroc():
    assert metrics.auroc(LABELS, with_discordant(0)) == 1.0
    assert metrics.auroc(LABELS, with_discordant(3)) == pytest.approx(1 - 3 / 16)
    assert metrics.auroc(LABELS, with_discordant(12)) == pytest.approx(0.25)


def test_all_files_are_written(report):
    out, written = report
    names = sorted(p.name for p in written)
    expected = ["results.json", "table.md", "claims.md"] + [
        f"{plot}_{ds}.png" for plot in ("roc", "auroc_vs_k", "auroc_vs_cost") for ds in ("HumanEval", "MBPP")
    ]
    assert names == sorted(expected)
    assert all(p.parent == out and p.is_file() for p in written)


def test_plots_are_real_pngs(report):
    _, written = report
    for path in written:
        if path.suffix == ".png":
            data = path.read_bytes()
            assert data[:8] == PNG_MAGIC, path.name
            assert len(data) > 10_000, path.name


def test_results_json_lets_anyone_recompute_the_metrics(report):
    out, _ = report
    data = json.loads((out / "results.json").read_text())
    assert [r["dataset"] for r in data["runs"]] == ["HumanEval", "MBPP"]
    mbpp = data["runs"][1]
    assert mbpp["command"] == "qualm eval --dataset mbpp"
    assert [s["task_id"] for s in mbpp["samples"]] == TASKS
    assert mbpp["samples"][2]["uncertainty"]["Max Entropy"] is None
    labels = [s["label"] for s in mbpp["samples"]]
    for m in mbpp["methods"]:
        scores = [s["uncertainty"][m["name"]] for s in mbpp["samples"]]
        assert metrics.auroc(labels, scores) == pytest.approx(m["auroc"])
        assert metrics.prauc(labels, scores) == pytest.approx(m["prauc"])
    max_entropy = next(m for m in mbpp["methods"] if m["name"] == "Max Entropy")
    assert max_entropy["missing"] == 1 and max_entropy["n"] == 8
    assert mbpp["pass_at_1"] == 0.5
    bleu = next(m for m in mbpp["methods"] if m["name"] == "Consistency (BLEU)")
    assert bleu["seconds_per_problem"] is None  # not measured here: null, never a made-up 0


def _section(text: str, start: str, end: str) -> list[str]:
    return text.split(start, 1)[1].split(end, 1)[0].strip().splitlines()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def main_table(out: Path) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """(header, row label -> cells, labels in order incl. family headers) of the main table."""
    lines = [line for line in _section((out / "table.md").read_text(), "### tiny-model", "## ") if line.startswith("|")]
    header = _cells(lines[0])
    rows = [_cells(line) for line in lines[2:]]
    return header, {r[0]: r for r in rows}, [r[0] for r in rows]


def test_table_groups_families_in_the_paper_order(report):
    out, _ = report
    header, _, order = main_table(out)
    assert header[:3] == ["Method", "HumanEval AUROC", "HumanEval PRAUC"]
    assert header[-2:] == ["Average AUROC", "Average PRAUC"]
    titles = ["*Single-pass baselines*", "*Multi-pass baselines*", "*Three axes (ours)*",
              "*Ensemble (ours) and drop-one ablations*", "*Beyond the paper*"]
    positions = [order.index(t) for t in titles]
    assert positions == sorted(positions)

    def between(a: str, b: str) -> list[str]:
        return order[order.index(a) + 1: order.index(b)]

    assert between(titles[0], titles[1]) == ["Mean Entropy", "Max Entropy", "Mean Probability", "Max Probability"]
    assert between(titles[2], titles[3]) == ["Top-5 Entropy", "Pseudo Consistency (ALGO)", "Generated Tests (FUNC)"]
    assert order[order.index(titles[4]) + 1:] == ["P(pass), calibrated"]
    # The K sweep and token-scope rows have tables of their own.
    assert not any(label.startswith("Top-K") or "only)" in label for label in order)


def test_best_is_bold_and_second_underlined(report):
    out, _ = report
    header, rows, _ = main_table(out)
    col = header.index("HumanEval AUROC")
    assert rows["Ensemble (LEX+ALGO+FUNC)"][col] == "**1.000**"
    # .9375 twice: both second best
    assert rows["Generated Tests (FUNC)"][col] == "<u>.938</u>"
    assert rows["Ensemble − LEX"][col] == "<u>.938</u>"
    assert rows["Pseudo Consistency (ALGO)"][col] == ".875"
    assert rows["Mean Entropy"][col] == ".500"
    col = header.index("MBPP AUROC")
    assert rows["P(pass), calibrated"][col] == "**1.000**"
    assert rows["Ensemble (LEX+ALGO+FUNC)"][col] == "<u>.938</u>"
    assert rows["Mean Entropy"][col] == "–"  # not run on MBPP
    assert rows["Mean Entropy"][header.index("Average AUROC")] == "–"
    # Average of 1.0 and .9375 = .96875, the best average; P(pass): (.75 + 1) / 2 = .875
    assert rows["Ensemble (LEX+ALGO+FUNC)"][header.index("Average AUROC")] == "**.969**"


def test_table_has_pass_at_1_k_sweep_cost_and_correlations(report):
    out, _ = report
    text = (out / "table.md").read_text()
    assert "| HumanEval | tiny-model | 8 | 0.500 |" in text
    k_rows = [_cells(line) for line in _section(text, "## Top-K entropy", "## Code vs") if line.startswith("| ")]
    assert [r[0] for r in k_rows[2:]] == [str(k) for k in range(1, 11)]
    assert k_rows[2 + 4][1] == "**.812**"  # K=5 has the fewest swaps (3)
    scope = _section(text, "## Code vs comment entropy", "## Cost")
    assert any(line.startswith("| Comments only | .250") for line in scope)
    cost = _section(text, "## Cost", "## Correlation")
    assert "| Consistency (VR) | 5.00 | 4.00 |" in cost
    assert "| Consistency (BLEU) | 4.00 | — |" in cost  # not measured here: no cost, not 0.00
    assert not any("Top-K" in line for line in cost)
    algo, func = (humaneval_run().method(n).uncertainty for n in ("Pseudo Consistency (ALGO)", "Generated Tests (FUNC)"))
    r, rho = metrics.pearson(algo, func), metrics.spearman(algo, func)
    assert f"| HumanEval | tiny-model | ALGO vs FUNC | {r:.4f} | {rho:.4f} | 8 |" in text
    assert "| MBPP | tiny-model | FUNC vs LEX |" in text
    assert "Max Entropy on MBPP: 1 of 8 scores unavailable" in text


def _verdicts(claims_md: str, heading: str) -> dict[str, str]:
    lines = _section(claims_md, heading, "\n## ")
    found = {}
    for line in lines:
        match = re.match(r"- \(([a-z-]+)\) .* — \*\*(held|not held|inconclusive|not tested)\*\*: ", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def test_claims_all_hold_when_the_numbers_say_so(claims_md):
    assert _verdicts(claims_md, "## HumanEval · tiny-model") == {
        "a": HELD, "b-lex": HELD, "b-algo": HELD, "b-func": HELD, "c": HELD, "d": HELD, "e": HELD, "f": HELD,
    }
    assert "200 problems; 8 held, 0 not held, 0 inconclusive, 0 not tested." in claims_md
    assert "Top-5 Entropy .812 vs Mean Entropy .500: +31.2 points, 95 % CI [" in claims_md
    assert "chance .500 − Top-5 Entropy (comments only) AUROC .250: +25.0 points, 95 % CI [" in claims_md


def test_claims_not_held_inconclusive_and_not_tested(claims_md):
    assert _verdicts(claims_md, "## MBPP · tiny-model") == {
        "a": NOT_TESTED,  # Mean Entropy not run
        "b-lex": NOT_TESTED,  # beats the three present, Mean Entropy missing
        "b-algo": NOT_HELD,  # loses to VR; a missing rival cannot rescue it
        "b-func": NOT_TESTED,  # beats BLEU and VR, Symbolic Clustering missing
        "c": INCONCLUSIVE,  # the ensemble's scores are FUNC's: a tie; P(pass) 1.0 is an ensemble, not a rival
        "d": NOT_TESTED,  # no drop-one rows
        "e": NOT_TESTED,  # no comment-only row
        "f": NOT_HELD,  # only 2x cheaper
    }
    assert "Pseudo Consistency (ALGO) .625 vs Consistency (VR) .750: -12.5 points, 95 % CI [" in claims_md
    # identical scores: every resample's difference is 0, so the interval is [0, 0]
    assert "inconclusive against Generated Tests (FUNC) .938 (+0.0, 95 % CI [+0.0, +0.0])" in claims_md
    c_line = next(line for line in _section(claims_md, "## MBPP · tiny-model", "\n## ") if line.startswith("- (c)"))
    assert "P(pass)" not in c_line
    assert "Symbolic Clustering: not tested, Symbolic Clustering was not run" in claims_md


def test_claims_say_how_the_intervals_were_drawn_and_eight_problems_decide_nothing(report):
    out, _ = report
    text = (out / "claims.md").read_text()
    assert f"{RESAMPLES:,} resamples of the problems with replacement (seed {SEED})" in " ".join(text.split())
    assert RESAMPLES >= 2000
    # .812 against .500 on 8 problems: the interval holds zero
    assert _verdicts(text, "## HumanEval · tiny-model") == {key: INCONCLUSIVE for key in "a b-lex b-algo b-func c d e".split()} | {"f": HELD}
    data = json.loads((out / "results.json").read_text())
    assert str(SEED) in data["definitions"]["claims"]
    (a,) = (c for c in data["runs"][0]["claims"] if c["key"] == "a")
    (part,) = a["comparisons"]
    assert part["difference"] == "Top-5 Entropy − Mean Entropy"
    assert part["estimate"] == pytest.approx(0.3125)
    assert part["low"] <= 0 <= part["high"] and part["verdict"] == INCONCLUSIVE


def test_single_class_run_leaves_claims_untested_and_draws_no_roc(tmp_path):
    run = EvalRun("Tiny", "m", ["a", "b", "c"], [True] * 3,
                  [MethodResult("Top-5 Entropy", "ours", [0.1, 0.2, 0.3], 1.0),
                   MethodResult("Mean Entropy", "single-pass", [0.3, 0.2, 0.1], 1.0)], "cmd")
    summary = summarise(run)
    assert summary.metrics["Top-5 Entropy"].auroc is None
    assert {c.verdict for c in check_claims(run, summary.metrics)} == {NOT_TESTED}
    written = {p.name for p in write_report([run], tmp_path)}
    assert written == {"results.json", "table.md", "claims.md"}


def test_bad_runs_are_rejected(tmp_path):
    with pytest.raises(ValueError):
        EvalRun("D", "m", ["a"], [True, False], [], "cmd")
    with pytest.raises(ValueError):
        EvalRun("D", "m", ["a", "b"], [True, False], [MethodResult("X", "ours", [0.1], 1.0)], "cmd")
    run = EvalRun("D", "m", ["a", "b"], [True, False], [], "cmd")
    with pytest.raises(ValueError):
        write_report([run, run], tmp_path)


def test_qualm_report_rebuilds_and_combines_reports_from_results_json(tmp_path, report):
    """``qualm report`` (the real CLI, in a subprocess) reads two single-data-set results.json files
    and writes the same combined report write_report wrote from the runs themselves."""
    import subprocess
    import sys

    combined, _ = report
    parts = []
    for run in (humaneval_run(), mbpp_run()):
        part = tmp_path / run.dataset
        write_report([run], part)
        parts.append(part / "results.json")
    assert [r.dataset for r in load_runs(parts[0])] == ["HumanEval"]
    out = tmp_path / "combined"
    done = subprocess.run([sys.executable, "-m", "qualm", "report", *map(str, parts), "--out", str(out)],
                          capture_output=True, text=True, timeout=seconds(120))
    assert done.returncode == 0, done.stderr
    for name in ("results.json", "table.md", "claims.md"):
        assert (out / name).read_text() == (combined / name).read_text(), name
    assert {p.name for p in out.glob("*.png")} == {p.name for p in combined.glob("*.png")}


def test_qualm_report_refuses_a_file_that_is_not_results_json(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "results.json"
    bad.write_text('{"runs": [{"dataset": "D"}]}')
    done = subprocess.run([sys.executable, "-m", "qualm", "report", str(bad), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, timeout=seconds(120))
    assert done.returncode == 2
    assert "not a qualm eval results.json" in done.stderr
    assert not (tmp_path / "o").exists()


def test_correlations_leave_out_pairs_with_an_axis_not_run():
    run = EvalRun(
        "MBPP", "tiny-model", TASKS, LABELS,
        [method("Top-5 Entropy", "ours", 3), method("Generated Tests (FUNC)", "ours", 1)],
        "qualm eval --dataset mbpp --methods lexical,functional",
    )
    pairs = [c.pair for c in axis_correlations(run)]
    assert pairs == ["FUNC vs LEX"]
    assert "ALGO vs" not in render_table([summarise(run)])
