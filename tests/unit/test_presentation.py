"""What the editor is shown, without a server: token JSON, hovers, diagnostic words, levels."""

import io

from qualm.engine.placement import PlacedToken
from qualm.levels import LEVELS, level_of
from qualm.lsp.presentation import diagnostic_message, token_hover, token_json
from qualm.trace import Alternative
from qualm.wording import LEVEL_WORDS, ensemble_words

TOKEN = PlacedToken(
    start=40, end=44, text=" max", entropy=1.234, prob=0.41, level="medium",
    alternatives=(Alternative(1, " max", 0.41), Alternative(2, " min", 0.3), Alternative(3, " sum", 0.1), Alternative(4, " len", 0.05), Alternative(5, "|", 0.01)),
    origin="completion",
)


def test_the_client_gets_text_offsets_and_level_only():
    assert token_json(TOKEN, 30) == {"text": " max", "start": 10, "end": 14, "level": "medium"}


def test_the_hover_shows_as_many_alternatives_as_the_setting_asks():
    three = token_hover(TOKEN, 3)
    assert "the model's top 3" in three and "`·min`" not in three  # a word keeps its space as text
    assert three.count("% |") == 3 and "**` max`**" in three and "41.0%" in three and "from completion" in three
    five = token_hover(TOKEN, 5)
    assert "the model's top 5" in five and "\\|" in five  # a pipe is escaped in the table
    assert "the model's top 5" in token_hover(TOKEN, 20)  # never more rows than the model gave


def test_diagnostic_words_name_the_level_and_the_rivals():
    msg = diagnostic_message(TOKEN)
    assert msg.startswith("'max': the model was uncertain here (1.23 nats, chose it with p = 0.41)")
    assert msg.endswith("it also considered ' min' 30%, ' sum' 10%, ' len' 5%")  # three rivals at most, the chosen one left out


def test_levels_from_thresholds_and_their_words():
    thresholds = (0.5, 1.0, 2.0)
    assert [level_of(h, thresholds) for h in (0.0, 0.5, 0.99, 1.0, 2.0, 9.0)] == ["confident", "low", "low", "medium", "high", "high"]
    assert set(LEVEL_WORDS) == set(LEVELS)
    assert [ensemble_words(x) for x in (None, 0.1, 0.3, 0.6, 0.9)] == ["not calibrated", "confident", "fairly sure", "uncertain", "very uncertain"]


def test_a_scored_token_says_whether_the_model_would_have_written_it():
    from dataclasses import replace

    scored = replace(TOKEN, origin="score", text=" min", prob=0.3)  # the file has " min"; the model preferred " max"
    hover = token_hover(scored, 5)
    assert "the model was uncertain here" in hover and "from score" in hover
    assert "surprisal **1.20** nats" in hover and "would have written ` max` (41%)" in hover
    assert "gave the token in the file p = 0.30" in diagnostic_message(scored)
    own = replace(TOKEN, origin="score")  # the file has the model's own first choice
    assert "the model would have written it too" in token_hover(own, 5)
    assert "surprisal" not in token_hover(TOKEN, 5)  # a completion: the model wrote it


def test_scored_code_says_which_doubt_a_mark_shows():
    from qualm.engine.placement import place
    from qualm.trace import TokenRecord

    alts = (Alternative(9, " +", 0.9), Alternative(8, " -", 0.05))
    unexpected = place(TokenRecord(index=0, token_id=8, text=" -", start=0, end=2, entropy=0.4, prob=0.05, alternatives=alts), 10, 12, " -", (0.5, 1.0, 2.0), "score")
    # entropy 0.4 alone is confident; surprisal -log 0.05 = 3.0 nats is high
    assert unexpected.level == "high" and unexpected.doubt == "unexpected"
    assert diagnostic_message(unexpected).startswith("'-': the model would not have written this (very uncertain: surprisal 3.00 nats)")
    assert "the model would have written ` +` (90%)" in token_hover(unexpected, 3)
    unsure = place(TokenRecord(index=0, token_id=9, text=" +", start=0, end=2, entropy=1.5, prob=0.6, alternatives=alts), 0, 2, " +", (0.5, 1.0, 2.0), "score")
    assert unsure.level == "medium" and unsure.doubt == "unsure"
    # a completion is the model's own choice: only its entropy counts
    written = place(TokenRecord(index=0, token_id=8, text=" -", start=0, end=2, entropy=0.4, prob=0.05, alternatives=alts), 0, 2, " -", (0.5, 1.0, 2.0), "completion")
    assert written.level == "confident" and written.doubt == "unsure"


def assessment(chance, ensemble=0.61, note="a logistic fit of pass/fail on functional over 98 functions"):
    from qualm.engine import Assessment, AxisResult
    from qualm.engine.assessment import TestResult
    from qualm.signals.lexical import lexical_report
    from qualm.trace import Trace

    empty = lexical_report(Trace(text="", tokens=(), model="m", mode="scored", prompt=""))
    tests = [TestResult("assert f(1) == 1", "passed", "", "", 0.0), TestResult("assert f(2) == 3", "failed", "AssertionError", "", 0.0)]
    return Assessment(
        function="f", line=1, model="m", problem="", candidate="",
        lexical=AxisResult("lexical", 2.5, 0.7, True, "Top-5 surprisal over 9 body tokens", 1.0),
        algorithmic=AxisResult("algorithmic", 0.6, 0.4, True, "5 of 5 plans had steps", 1.0),
        functional=AxisResult("functional", 0.5, 0.8, True, "1 of 2 self-tests failed", 1.0),
        ensemble=ensemble, chance_of_passing=chance, chance_note=note,
        weights={}, weights_used={}, calibration="c.json", calibration_note="percentiles against MBPP",
        lexical_scores=empty, plans=[], plan_similarity=[], candidate_plan=None, candidate_distance=None,
        tests=tests, dropped_tests=[], tests_raw="", sandbox="", seconds=1.0, seed=42,
    )


def test_the_lens_leads_with_the_chance_of_passing_unless_the_setting_says_ensemble():
    from qualm.lsp.presentation import lens_title

    a = assessment(0.62)
    assert lens_title(a, False) == "qualm: chance it passes: 62 % (benchmark fit) · lexical 2.50 · plans 0.60 · tests 1/2 failed"
    assert lens_title(a, False, "ensemble").startswith("qualm 0.61 uncertain · ")
    assert lens_title(assessment(None), False).startswith("qualm 0.61 uncertain")  # no pass model: the ensemble
    assert lens_title(a, True) == "qualm: re-assess" and lens_title(None, False) == "qualm: assess"
    from qualm.lsp.presentation import lens_tooltip

    assert "benchmark functions" in lens_tooltip(a) and "not on code like yours" in lens_tooltip(a)
    assert lens_tooltip(assessment(None)) is None


def test_the_hover_says_what_the_chance_means_and_what_it_was_fitted_on():
    from qualm.lsp.presentation import assessment_hover

    text = assessment_hover(assessment(0.62))
    assert text.index("chance it passes: 62 %") < text.index("the paper's ensemble")
    assert "passes its hidden tests" in text and "over 98 functions" in text
    # where it was measured, and no benchmark calibration figure as if it held for this code
    assert "benchmark functions" in text and "not on code like yours" in text
    assert "Brier" not in text and "ECE" not in text
    flipped = assessment_hover(assessment(0.62), headline="ensemble")
    assert flipped.index("the paper's ensemble") < flipped.index("chance it passes")
    assert "No chance of passing: no pass model" in assessment_hover(assessment(None, note="no pass model"))


def test_the_hover_shows_how_the_model_solutions_weigh_each_test_and_where_they_disagree():
    from dataclasses import replace

    from qualm.engine.solutions import SolutionRun, SolutionsResult
    from qualm.lsp.presentation import assessment_hover

    solved = SolutionsResult(
        weighted=0.25, weighted_note="2 of 2 tests are passed by at least one of the model's 4 solutions",
        agreement=0.5, agreement_note="the code answers as the model's own solutions do on 50% of the test inputs (4 solutions)",
        solutions=[SolutionRun("def f(x): return x", 10, 1, 2, 0.5)] * 4,
        disagreements=[("assert f(2) == 3", "4", "2")], test_weights=[1.0, 0.25],
    )
    text = assessment_hover(replace(assessment(0.62), solutions=solved))
    assert "- ✓ `assert f(1) == 1` (4/4)" in text and "- ✗ `assert f(2) == 3` (1/4)" in text
    assert "**The model's own solutions** (4): the code answers as the model's own solutions do on 50%" in text
    assert "tests weighted by them: 0.250" in text
    assert "`assert f(2) == 3`: this code gives `4`, most of the model's solutions `2`" in text
    # where the solutions after the first are the plans' programs, the section says so
    from_plans = assessment_hover(replace(assessment(0.62), solutions=replace(solved, from_plans=3)))
    assert "**The model's own solutions** (4; the first from the problem, the other 3 its sampled plans written as code): the code answers" in from_plans
    # without solutions, the self-tests are listed without counts
    assert "(4/4)" not in assessment_hover(assessment(0.62))
    # the varied inputs: said only when they ran, with where the code differs
    assert "Varied inputs" not in text
    varied = replace(solved, differential=0.25, differential_note="the code answers otherwise than most of the model's solutions on 1 of 4 varied inputs", differences=[("f(0)", "1", "0")])
    shown = assessment_hover(replace(assessment(0.62), solutions=varied))
    assert "**Varied inputs** (the tests' inputs changed by type): the code answers otherwise than most of the model's solutions on 1 of 4 varied inputs" in shown
    assert "- `f(0)`: this code gives `1`, most of the model's solutions `0`" in shown
    # the solutions that pass the docstring's examples: said only where it gave examples
    assert "Solutions that pass the docstring's examples" not in shown
    consistent = replace(
        varied, consistent=2, consistent_weighted=0.0, consistent_differential=0.5, consistent_from_examples=True,
        consistent_note="2 of the model's 4 solutions pass the docstring's examples; the code answers otherwise than most of the model's solutions on 1 of 2 varied inputs",
        consistent_differences=[("f(3)", "3", "2")],
    )
    shown = assessment_hover(replace(assessment(0.62), solutions=consistent))
    assert "**Solutions that pass the docstring's examples** (inputs of the tests and of the docstring's examples, changed by type): 2 of the model's 4" in shown
    assert "tests weighted by them: 0.000" in shown and "- `f(3)`: this code gives `3`, most of them `2`" in shown
    # the lens names how many inputs the code answers unlike the solutions (one test, one varied call)
    from qualm.lsp.presentation import lens_title

    assert lens_title(replace(assessment(0.62), solutions=varied), False).endswith(" · tests 1/2 failed · unlike the model's solutions on 2 inputs")
    assert "unlike" not in lens_title(replace(assessment(0.62), solutions=replace(solved, disagreements=[])), False)


def test_the_hover_and_lens_name_a_swap_that_passes_more_tests():
    from dataclasses import replace

    from qualm.lsp.presentation import assessment_hover, lens_title
    from qualm.signals.swaps import TokenSwap, swap_gain

    source = "def f(x):\n    return x - 1\n"
    at = source.index(" -")
    up = TokenSwap(0, at, at + 2, " -", 0.03, " +", 0.9, source.replace(" -", " +"))
    down = TokenSwap(1, at + 2, at + 4, " 1", 0.2, " 2", 0.5, source.replace(" 1", " 2"))
    swaps = swap_gain(["passed", "failed"], [(up, ["passed", "passed"]), (down, ["failed", "failed"])], None)
    a = replace(assessment(0.3), candidate=source, line=10, swaps=swaps)
    text = assessment_hover(a)
    assert "**Token swaps** (the model's likelier token at the code's least likely places, run on the self-tests): '+' for '-' passes 50% more of the tests (all tests counted alike)" in text
    # the best first, each with its line in the document
    assert text.index("- line 11: '+' for '-' (p 0.90, the code's 0.03): passes 100% of the tests (+50%)") < text.index("- line 11: '2' for '1'")
    assert lens_title(a, False).endswith(" · '+' on line 11 passes more tests")
    # a swap that only breaks tests is in the hover, not the lens
    worse = replace(a, swaps=swap_gain(["passed", "passed"], [(down, ["failed", "failed"])], None))
    assert "Token swaps" in assessment_hover(worse) and "passes more tests" not in lens_title(worse, False)
    assert "Token swaps" not in assessment_hover(assessment(0.3))


def test_the_hover_shows_the_plans_as_programs_when_they_ran():
    from dataclasses import replace

    from qualm.engine.solutions import SolutionRun, SolutionsResult
    from qualm.lsp.presentation import assessment_hover

    programs = SolutionsResult(
        weighted=0.4, weighted_note="", agreement=0.25, agreement_note="",
        solutions=[SolutionRun("def f(x): return x", 10, 2, 2, 1.0), SolutionRun("def f(x): return x + 1", 12, 1, 2, 0.5)],
        disagreements=[("assert f(2) == 3", "4", "2")], test_weights=[1.0, 0.5],
    )
    text = assessment_hover(replace(assessment(0.62), plan_programs=programs))
    assert "**The plans as programs** (each sampled plan written as code by the model and run on the self-tests; tests passed: 2/2, 1/2): the code answers as they do on 75% of the tests' inputs; tests weighted by them: 0.400" in text
    assert "- `assert f(2) == 3`: this code gives `4`, most of the plans' programs `2`" in text
    # no test's answers could be compared (every run crashed before calling the function)
    assert "tests passed: 2/2, 1/2): no answers to compare; tests weighted by them" in assessment_hover(replace(assessment(0.62), plan_programs=replace(programs, agreement=None)))
    # off (the default) or nothing written: no section
    assert "plans as programs" not in assessment_hover(assessment(0.62))
    assert "plans as programs" not in assessment_hover(replace(assessment(0.62), plan_programs=replace(programs, solutions=[])))


def test_the_hover_and_lens_show_the_docstring_examples():
    from dataclasses import replace

    from qualm.lsp.presentation import assessment_hover, lens_title
    from qualm.signals.examples import DocExample, ExampleOutcome, ExamplesResult

    ok = ExampleOutcome(DocExample("f(1)", "1", 3, "doctest"), "passed", "")
    bad = ExampleOutcome(DocExample("f(2)", "3", 5, "line"), "failed", "AssertionError")
    a = replace(assessment(0.1), examples=ExamplesResult([ok, bad], 0.5, "fails 1 of the docstring's 2 examples"))
    text = assessment_hover(a)
    assert "**The docstring's examples** (written by the function's author, not the model; run as tests): fails 1 of the docstring's 2 examples" in text
    assert "- ✓ `f(1)` → `1`" in text and "- ✗ `f(2)` → `3` — failed: AssertionError" in text
    assert lens_title(a, False).endswith(" · fails 1 of the docstring's 2 examples")
    # all passing: in the hover, not the lens; none: neither
    passing = replace(a, examples=ExamplesResult([ok], 0.0, "passes the docstring's example"))
    assert "docstring's examples" in assessment_hover(passing) and "docstring" not in lens_title(passing, False)
    assert "**The docstring's examples**" not in assessment_hover(assessment(0.1))


def _terminal_text(a) -> str:
    from rich.console import Console

    from qualm.cli.terminal import assessment_report

    out = Console(record=True, width=2000, file=io.StringIO())
    for part in assessment_report(a, "t.py"):
        out.print(part)
    return out.export_text()


def test_the_terminal_report_lists_the_docstring_examples():
    from dataclasses import replace

    from qualm.signals.examples import DocExample, ExampleOutcome, ExamplesResult

    bad = ExampleOutcome(DocExample("f(2)", "3", 5, "line"), "failed", "AssertionError")
    a = replace(assessment(0.1), examples=ExamplesResult([bad], 1.0, "fails the docstring's example"))
    text = _terminal_text(a)
    assert "The docstring's examples (written by the function's author, not the model; run as tests): fails the docstring's example" in text
    assert "f(2) → 3  — failed: AssertionError" in text


def everything():
    """An assessment with every section: plans, examples, tests, solutions, varied inputs, the plans'
    programs and swaps."""
    from dataclasses import replace

    from qualm.engine.assessment import PlanResult
    from qualm.engine.solutions import SolutionRun, SolutionsResult
    from qualm.signals.examples import DocExample, ExampleOutcome, ExamplesResult
    from qualm.signals.swaps import TokenSwap, swap_gain

    source = "def f(x):\n    return x - 1\n"
    at = source.index(" -")
    swap = TokenSwap(0, at, at + 2, " -", 0.03, " +", 0.9, source.replace(" -", " +"))
    solved = SolutionsResult(
        weighted=0.25, weighted_note="2 of 2 tests are passed by at least one of the model's 4 solutions",
        agreement=0.5, agreement_note="the code answers as the model's own solutions do on 50% of the test inputs (4 solutions)",
        solutions=[SolutionRun("def f(x): return x", 10, 1, 2, 0.5)] * 4, disagreements=[("assert f(2) == 3", "4", "2")], test_weights=[1.0, 0.25],
        differential=0.25, differential_note="the code answers otherwise than most of the model's solutions on 1 of 4 varied inputs", differences=[("f(0)", "1", "0")],
    )
    programs = replace(solved, solutions=[SolutionRun("def f(x): return x", 10, 2, 2, 1.0)], differential_note="off", differences=[])
    return replace(
        assessment(0.62), candidate=source, line=10,
        plans=[PlanResult("1. add\n2. return", ["add", "return"], 5, "stop")],
        examples=ExamplesResult([ExampleOutcome(DocExample("f(1)", "1", 3, "doctest"), "passed", "")], 0.0, "passes the docstring's example"),
        solutions=solved, plan_programs=programs, swaps=swap_gain(["passed", "failed"], [(swap, ["passed", "passed"])], None),
    )


def test_the_hover_and_the_terminal_say_the_same_sentences():
    """One summary (qualm.summary), two renderings: every sentence of it is in both, the hover's in
    Markdown (bold titles, code in backticks), the terminal's as plain text."""
    from qualm.lsp.presentation import assessment_hover
    from qualm.summary import Code, summarize

    a = everything()
    s = summarize(a)
    assert [x.key for x in s.sections] == ["plans", "examples", "tests", "solutions", "varied", "plan_programs", "swaps"]
    hover, terminal = assessment_hover(a), _terminal_text(a)
    sentences = [s.chance_said, s.ensemble_said, s.calibration_note, f"{s.chance_line} · {s.chance_words}", *(x.note for x in s.axes)]
    for section in s.sections:
        sentences.append(section.title + section.text)
        for item in section.items:
            sentences.append("".join(p.text if isinstance(p, Code) else p for p in item.pieces))
    for sentence in sentences:
        assert sentence in terminal, sentence
        assert sentence in hover.replace("**", "").replace("`", ""), sentence
    assert "- `assert f(2) == 3`: this code gives `4`, most of the model's solutions `2`" in hover
    assert "  assert f(2) == 3: this code gives 4, most of the model's solutions 2" in terminal


def test_the_lens_names_the_suspect_line_and_the_hover_lists_the_suspects():
    from dataclasses import replace

    from qualm.cli.terminal import assessment_report
    from qualm.lsp.presentation import assessment_hover, lens_title
    from qualm.signals.suspicion import SuspectLine

    suspects = (SuspectLine(12, 4.1, " -", 30, 32, 0.02, " +", 0.85), SuspectLine(14, 2.0, " i", 60, 62, 0.14, "", 0.14))
    a = replace(assessment(0.31), line=10, suspects=suspects)
    assert lens_title(a, False).startswith("qualm: chance it passes: 31 % (benchmark fit) · suspect: line 12 · lexical")
    text = assessment_hover(a)
    assert "**Suspect lines** (the body's lines whose code the model least expected" in text
    assert "- line 12: '-' (p 0.02); the model would write '+' (p 0.85)" in text
    assert "- line 14: 'i' (p 0.14)\n" in text + "\n"  # the model's own choice there: nothing it would rather write
    rendered = " ".join(str(getattr(r, "plain", "")) for r in assessment_report(a, "f.py"))
    assert "suspect: line 12" in rendered
    assert "suspect" not in lens_title(assessment(0.31), False)  # no scored pass, no suspect


def test_a_likely_fix_is_the_suspect_and_the_hover_says_what_it_makes_pass():
    from dataclasses import replace

    from qualm.engine.fix import FixCandidate, FixResult, LikelyFix
    from qualm.lsp.presentation import assessment_hover, lens_title
    from qualm.signals.suspicion import SuspectLine

    source = "def f(xs):\n    t = 1\n    for x in xs:\n        t += x\n    return t\n"
    fix = LikelyFix(FixCandidate("token", 2, 8, 10, " 1", " 0", source.replace("= 1", "= 0")), 11, 4, 1, 4, ("assert f([]) == 0", "assert f([5]) == 5"), ())
    # the engine lists the fix's line first (assessment.suspects_of), before the least expected one
    suspects = (SuspectLine(11, 1.0, " 1", 8, 10, 0.2, " 0", 0.6), SuspectLine(13, 4.0, " +=", 30, 33, 0.01, " -=", 0.5))
    a = replace(assessment(0.2), line=10, candidate=source, suspects=suspects, fix=FixResult(fix, fix.describe(), 3, 0.4))
    assert " · suspect: line 11 · " in lens_title(a, False)
    text = assessment_hover(a)
    assert "**Likely fix** (of 3 one-line changes the model suggests, run on the docstring's examples and the self-tests): line 11: '0' for '1' passes 4 of 4 checks (the code passes 1)" in text
    assert "- now passes: assert f([]) == 0" in text
