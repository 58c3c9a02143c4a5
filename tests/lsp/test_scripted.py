"""The real server process over stdio with the scripted backend (``model.backend: "scripted"``): the
LSP features end to end without a model, fast. What the scripted backend replaces is only the
model's arithmetic; the server, the engine, placement, marks, the sandbox and the protocol are the
real ones. The real-model versions of these scenarios are in test_server.py."""

from __future__ import annotations

import json
import math

import pytest
from lsp_session import Session, run
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from timing import seconds

from qualm.lsp.params import plain

URI = "file:///tmp/qualm-scripted-test/calc.py"
DOC = '''def add(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b


def twice(x: int) -> int:
    """Double x."""
    '''
COMPLETION = "    return x * 2\n"
SCRIPT = {
    "name": "scripted test model",
    "completions": [COMPLETION],
    # two sampled plans, then the code's own plan (the scripted model answers plan prompts in turn)
    "plans": ["1. Take a and b.\n2. Add them.\n3. Return the sum.", "1. Read both numbers.\n2. Return a plus b.", "1. Take a and b.\n2. Add them.\n3. Return the sum."],
    "tests": json.dumps(["assert add(1, 2) == 3", "assert add(2, 2) == 5", "assert add(0, 0) == 0", "assert True"]),
    "entropy": {"default": 0.05, "tokens": {"*": 2.4, "+": 1.2, "2": 0.7}},
}


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(SCRIPT))
    return path


def options(script, **sections) -> dict:
    base = {
        "model": {"backend": "scripted", "path": str(script)},
        "generation": {"top_alternatives": 3},
        "algorithmic": {"n_plans": 2, "candidate_plan": True},  # the code's own plan: off by default
        "functional": {"n_tests": 4},
        "editor": {"diagnostic_level": "low"},
    }
    return {**base, **sections}


def line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n"), len(before) - (before.rfind("\n") + 1)


async def complete_and_accept_at_end(s: Session):
    """DOC opened, a completion at its end, taken whole (version 2) and reported: its result."""
    s.open(DOC, URI)
    end = line_col(DOC, len(DOC))
    result = await s.client.protocol.send_request_async("qualm/complete", {"textDocument": {"uri": URI}, "position": {"line": end[0], "character": end[1]}})
    s.change(2, end, end, result.text, URI)
    s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": URI}, "text": result.text, "range": {"start": {"line": end[0], "character": end[1]}}})
    return result


def test_handshake_status_and_unsupported_documents(script):
    async def scenario(s: Session):
        await s.start(options(script))
        ok = await s.client.protocol.send_request_async("qualm/handshake", {"clientVersion": "0.1.0", "protocol": 2})
        assert ok.compatible and ok.protocol == 2 and list(ok.languages) == ["python", "javascript", "javascriptreact", "typescript", "typescriptreact"] and ok.serverVersion
        assert ok.pid == s.client._server.pid  # the server's own process (the editor's crash test kills it)
        old = await s.client.protocol.send_request_async("qualm/handshake", {"clientVersion": "0.0.9", "protocol": 1})
        assert not old.compatible and "older" in old.message and "0.0.9" in old.message
        status = plain(await s.command("qualm.status"))
        assert status["model"] == "scripted test model" and status["backend"] == "scripted" and status["state"] == "ready"
        # a document in a language qualm does not handle is not tracked: no lenses, no completion
        rs = "file:///tmp/qualm-scripted-test/main.rs"
        s.client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(uri=rs, language_id="rust", version=1, text="fn f() {}\n")))
        assert await s.lenses(rs) == []
        with pytest.raises(JsonRpcException, match="no open document"):
            await s.client.protocol.send_request_async("qualm/complete", {"textDocument": {"uri": rs}, "position": {"line": 0, "character": 0}})
        # a refusal is answered with its reason and logged in one line: a traceback in the server's
        # output means a fault (the soak counts them)
        broken = "file:///tmp/qualm-scripted-test/broken.py"
        s.open("def f(:\n    return 1\n", broken)
        with pytest.raises(JsonRpcException, match="does not parse"):
            await s.command("qualm.scoreDocument", broken)
        await s.wait_for(lambda: b"does not parse" in b"".join(s.stderr), "the refusal in the server's output")
        err = b"".join(s.stderr).decode()
        assert "refused a request: Invalid Params: " + broken in err and "no open document" in err
        assert "Traceback" not in err, err

    run(scenario)


def test_streamed_completion_levels_accepted_marks_and_hover(script):
    async def scenario(s: Session):
        await s.start(options(script))
        s.open(DOC, URI)
        end = line_col(DOC, len(DOC))
        params = {"textDocument": {"uri": URI}, "position": {"line": end[0], "character": end[1]}, "partialResultToken": "partial"}
        result = await s.client.protocol.send_request_async("qualm/complete", params)
        # the indentation before the cursor is in the document already: the completion does not repeat it
        assert result.text == COMPLETION.lstrip(" ") and result.function == "twice"
        assert "".join(p["text"] for p in s.partials) == result.text
        levels = {tok.text.strip(): tok.level for tok in result.tokens if tok.text.strip()}
        assert levels["*"] == "high" and levels["2"] == "low" and levels["return"] == "confident"  # thresholds 0.5 / 1 / 2
        # accept only the first part ("    return x *"): marks for the tokens inside it only
        part = result.text[: result.text.index("*") + 1]
        s.change(2, end, end, part, URI)
        s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": URI}, "text": part, "range": {"start": {"line": end[0], "character": end[1]}}})
        await s.wait_for(lambda: URI in s.marks, "marks for the accepted part")
        assert [m["level"] for m in s.marks[URI]["marks"]] == ["high"]
        star = line_col(DOC + part, len(DOC) + part.index("*"))
        hover = await s.hover(*star, uri=URI)
        value = hover.contents.value
        assert "the model's top 3" in value and "entropy **2.400**" in value and "from completion" in value
        # text no recent completion began with is ignored, and marks stay
        s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": URI}, "text": "something else", "range": {"start": {"line": 0, "character": 0}}})
        assert (await s.hover(*star, uri=URI)) is not None

    run(scenario)


def test_typing_in_a_marked_document_publishes_its_marks_once_typing_pauses(script):
    # Each keystroke moves the marks; sending them all (tens of kilobytes in a real file) on every
    # key was most of what a soak run's client parsed. Sent once typing pauses, they are as the
    # last keystroke left them.
    async def scenario(s: Session):
        await s.start(options(script, editor={"diagnostic_level": "low", "highlight_level": "low"}))
        await complete_and_accept_at_end(s)
        await s.wait_for(lambda: s.marks.get(URI, {}).get("version") == 2, "marks for the completion")
        before = [m["range"]["start"] for m in s.marks[URI]["marks"]]
        typed = "# typed key by key\n"
        for i, key in enumerate(typed):  # one change per key, as an editor sends them
            line, col = (0, i)
            s.change(3 + i, (line, col), (line, col), key, URI)
        last = 2 + len(typed)
        await s.wait_for(lambda: s.marks[URI]["version"] == last, "the marks after the last key")
        after = [m["range"]["start"] for m in s.marks[URI]["marks"]]
        assert after == [{"line": p["line"] + 1, "character": p["character"]} for p in before]  # moved down one line, none lost
        sent = [v for uri, v in s.marks_sent if uri == URI and v is not None and v > 2]
        assert sent[-1] == last and len(sent) < len(typed) / 2, sent  # per pause, not per key (one when the keys come at once)

    run(scenario)


def test_score_document_marks_the_surprising_token(script):
    async def scenario(s: Session):
        await s.start(options(script))
        s.open(DOC, URI)
        out = plain(await s.command("qualm.scoreDocument", URI))
        assert out["functions"] == ["add", "twice"]
        await s.wait_for(lambda: URI in s.diagnostics, "diagnostics of the scored document")
        plus = line_col(DOC, DOC.index(" +") + 1)  # the token is " +": its space is not painted
        assert [(d.range.start.line, d.range.start.character, d.code) for d in s.diagnostics[URI]] == [(*plus, "medium")]
        hover = await s.hover(*plus, uri=URI)
        # scored code: the level is the entropy before the token; the hover adds how surprising the
        # token in the file was (the scripted model gives " +" p = e^-1.2 and ranks it first)
        assert "from score" in hover.contents.value and "surprisal 1.20 nats" in hover.contents.value

    run(scenario)


def test_assess_runs_the_scripted_tests_in_the_sandbox(script):
    async def scenario(s: Session):
        await s.start(options(script))
        s.open(DOC, URI)
        a = plain(await s.command("qualm.assessFunction", URI, "add"))["assessment"]
        # "assert True" never calls add: dropped, and said; three tests ran in the real sandbox, one fails
        assert len(a["tests"]) == 3 and [x["status"] for x in a["tests"]].count("failed") == 1
        assert a["functional"]["raw"] == pytest.approx(1 / 3)
        assert ["assert True", "never calls add"] in a["dropped_tests"] and "1 dropped: they never call the function" in a["functional"]["note"]
        assert a["algorithmic"]["raw"] is not None and 0 < a["algorithmic"]["raw"] < 1  # two different plans
        # the code's own plan equals the first sampled plan: its distance is 1 - mean(1, sim(first, second))
        assert a["candidate_plan"]["steps"] == ["Take a and b.", "Add them.", "Return the sum."]
        assert 0 < a["candidate_distance"] < a["algorithmic"]["raw"] and "the code's own plan is" in a["algorithmic"]["note"]
        assert a["model"] == "scripted test model"
        hover = await s.hover(0, 4, uri=URI)
        assert "qualm assessment" in hover.contents.value and "The code's own plan" in hover.contents.value
        # the output channel says what the model did and how long it took
        await s.wait_for(lambda: any(m.startswith(f"qualm: assess:{URI}:add: done in ") for m in s.messages), "the assessment's log line", seconds(10))

    run(scenario)


def test_the_lens_leads_with_the_chance_of_passing_and_a_re_assessment_reuses_the_samples(script, tmp_path):
    # A pass model on the functional axis alone: P = 1 / (1 + exp(-(-2 * (u - 0.5) / 0.5))).
    calibration = tmp_path / "cal.json"
    calibration.write_text(json.dumps({
        "version": 1, "model": "scripted", "model_sha256": "0" * 64, "dataset": "hand-made", "problems": 3,
        "scores": {"lexical": [0.1, 0.2, 0.3], "algorithmic": [0.1, 0.5, 0.9], "functional": [0.0, 0.5, 1.0]},
        "settings": {"lexical_signal": "blended_surprisal"},
        "pass_model": {"features": ["functional"], "mean": [0.5], "scale": [0.5], "coef": [-2.0], "intercept": 0.0, "fitted_on": "three made-up functions", "n_fitted": 3},
    }))

    async def scenario(s: Session):
        await s.start(options(script, ensemble={"calibration_file": str(calibration)}))
        s.open(DOC, URI)
        first = plain(await s.command("qualm.assessFunction", URI, "add"))
        # one of three tests failed: u = 1/3, z = 2/3, P = 66 %
        assert first["assessment"]["chance_of_passing"] == pytest.approx(1 / (1 + math.exp(-2 / 3)))
        assert first["summary"].startswith("qualm: chance it passes: 66 % (benchmark fit) · ")
        lens = [x for x in await s.lenses(URI) if x.range.start.line == 0][0]
        resolved = await s.client.code_lens_resolve_async(lens)
        assert resolved.command.title.startswith("qualm: chance it passes: 66 %")
        assert "not on code like yours" in resolved.command.tooltip  # the lens says where the chance was measured
        hover = (await s.hover(0, 4, uri=URI)).contents.value
        assert "chance it passes: 66 %" in hover and "three made-up functions" in hover and "Brier" not in hover
        assert first["assessment"]["extra"]["reused_samples"] == 0
        # The body edited to a - b: the same problem, so its plans and tests are not decoded again
        s.change(2, (2, 13), (2, 14), "-", uri=URI)
        second = plain(await s.command("qualm.assessFunction", URI, "add"))["assessment"]
        assert second["extra"]["reused_samples"] == 3  # two plans and the test list; only the code's own plan is new
        assert [x["code"] for x in second["tests"]] == [x["code"] for x in first["assessment"]["tests"]]
        assert second["functional"]["raw"] == pytest.approx(2 / 3)
        assert second["chance_of_passing"] < first["assessment"]["chance_of_passing"]

    run(scenario)


def test_a_new_calibration_file_applies_without_reloading_the_model(script, tmp_path):
    calibration = tmp_path / "cal.json"
    calibration.write_text(json.dumps({
        "version": 1, "model": "scripted", "model_sha256": "0" * 64, "dataset": "hand-made", "problems": 3,
        "scores": {"lexical": [0.1, 0.2, 0.3], "algorithmic": [0.1, 0.5, 0.9], "functional": [0.0, 0.5, 1.0]},
    }))

    async def scenario(s: Session):
        await s.start(options(script))
        assert plain(await s.command("qualm.status"))["calibration"] is None
        loads = sum(x["state"] == "loading" for x in s.statuses)
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": options(script, ensemble={"calibration_file": str(calibration)})}))

        async def described():
            return plain(await s.command("qualm.status"))["calibration"]

        async def the_new_one():
            return "hand-made" in ((await described()) or "")

        await s.eventually(the_new_one, "the new calibration file to be the one described")
        assert sum(x["state"] == "loading" for x in s.statuses) == loads  # the model was not reloaded

    run(scenario)


def test_a_null_where_a_value_is_required_is_refused_by_name(script):
    async def scenario(s: Session):
        await s.start(options(script))
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": options(script, model={"backend": "scripted", "path": str(script), "n_ctx": None})}))
        await s.wait_for(lambda: any("qualm.model.n_ctx cannot be null" in m for m in s.messages), "the settings error")
        assert plain(await s.command("qualm.status"))["state"] == "ready"  # the old settings stay

    run(scenario)


def test_calm_highlights_by_default_and_neighbours_as_one_span_with_one_hover(script):
    async def scenario(s: Session):
        await s.start(options(script, editor={"diagnostic_level": "low", "highlight_level": "low"}))
        result = await complete_and_accept_at_end(s)
        await s.wait_for(lambda: URI in s.marks, "marks for the completion")
        marks = s.marks[URI]["marks"]
        # " * 2": the high " *" and the low " 2" side by side are one span
        assert [m["level"] for m in marks] == ["high", "low"] and marks[0]["span"] == marks[1]["span"]
        two = line_col(DOC + result.text, len(DOC) + result.text.index("2"))
        hover = await s.hover(*two, uri=URI)
        value = hover.contents.value
        assert "2 uncertain tokens in a row" in value and value.index("` *`") < value.index("**` 2`**")
        star = line_col(DOC + result.text, len(DOC) + result.text.index("*") - 1)
        assert (hover.range.start.line, hover.range.start.character) == star  # the hover covers the span
        # the default, calm: only what the thresholds call medium or high is coloured
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": options(script)}))
        s.change(3, two, two, "", URI)  # any change republishes the marks
        await s.wait_for(lambda: s.marks[URI]["version"] == 3, "marks after the settings change")
        assert [m["level"] for m in s.marks[URI]["marks"]] == ["high"]

    run(scenario)


def test_a_saved_file_imports_its_projects_modules_in_the_tests_and_an_unsaved_one_says_why_it_cannot(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for folder in (tmp_path, project):
        folder.chmod(0o755)  # as root the tests run as nobody
    (project / "helpers.py").write_text("def clamp(v, low, high):\n    return max(low, min(high, v))\n")
    text = 'from helpers import clamp\n\n\ndef clamp_all(values, low, high):\n    """Clamp every value."""\n    return [clamp(v, low, high) for v in values]\n'
    (project / "tools.py").write_text(text)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({**SCRIPT, "tests": json.dumps(["assert clamp_all([5, -1], 0, 3) == [3, 0]", "assert clamp_all([2], 0, 1) == [2]"])}))
    saved, unsaved = (project / "tools.py").as_uri(), "untitled:Untitled-1"

    async def scenario(s: Session):
        await s.start(options(script, functional={"n_tests": 2, "n_solutions": 0}, algorithmic={"n_plans": 2, "plan_programs": 0}))
        s.open(text, saved)
        s.open(text, unsaved)
        a = plain(await s.command("qualm.assessFunction", saved, "clamp_all"))["assessment"]
        assert [x["status"] for x in a["tests"]] == ["passed", "failed"] and a["functional"]["raw"] == pytest.approx(0.5)
        b = plain(await s.command("qualm.assessFunction", unsaved, "clamp_all"))["assessment"]
        assert b["functional"]["raw"] is None and "No module named 'helpers'" in b["functional"]["note"] and "no saved file" in b["functional"]["note"]
        hover = await s.hover(3, 5, uri=unsaved)  # on `def clamp_all`: the assessment, and why its tests did not count
        assert hover is not None and "No module named 'helpers'" in hover.contents.value

    run(scenario)


def test_a_script_in_a_subfolder_imports_a_module_at_the_workspace_folders_root(tmp_path):
    # scripts/tool.py does `from lib import clamp`, and lib.py is at the workspace's root: found
    # only through the workspace folder the client named
    workspace = tmp_path / "proj"
    (workspace / "scripts").mkdir(parents=True)
    for folder in (tmp_path, workspace, workspace / "scripts"):
        folder.chmod(0o755)  # as root the tests run as nobody
    (workspace / "lib.py").write_text("def clamp(v, low, high):\n    return max(low, min(high, v))\n")
    text = 'from lib import clamp\n\n\ndef clamp_all(values, low, high):\n    """Clamp every value."""\n    return [clamp(v, low, high) for v in values]\n'
    (workspace / "scripts" / "tool.py").write_text(text)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({**SCRIPT, "tests": json.dumps(["assert clamp_all([5, -1], 0, 3) == [3, 0]"])}))
    uri = (workspace / "scripts" / "tool.py").as_uri()

    async def scenario(s: Session):
        await s.start(options(script, functional={"n_tests": 1, "n_solutions": 0}, algorithmic={"n_plans": 2, "plan_programs": 0}), workspace_folders=[workspace.as_uri()])
        s.open(text, uri)
        a = plain(await s.command("qualm.assessFunction", uri, "clamp_all"))["assessment"]
        assert [x["status"] for x in a["tests"]] == ["passed"], a["tests"]

    run(scenario)


def test_an_assessment_marks_its_suspect_line_until_the_function_changes(script):
    async def scenario(s: Session):
        await s.start(options(script))
        s.open(DOC, URI)
        a = plain(await s.command("qualm.assessFunction", URI, "add"))["assessment"]
        # the script makes '+' the least likely body token (entropy 1.2: p 0.30; the rest 0.95)
        assert a["suspects"][0]["line"] == 3 and a["suspects"][0]["token"] == " +"
        await s.wait_for(lambda: any(d.code == "suspect" for d in s.diagnostics.get(URI, [])), "the suspect line's diagnostic")
        d = next(d for d in s.diagnostics[URI] if d.code == "suspect")
        assert (d.range.start.line, d.range.start.character, d.range.end.character) == (2, 13, 14)  # the '+' of `return a + b`
        assert d.message.startswith("suspect line of add: the model least expected '+' here (30%)") and d.severity == t.DiagnosticSeverity.Information
        lenses = await s.lenses(URI)
        assert " · suspect: line 3" in lenses[0].command.title
        # the function changes: its assessment is stale, and so is the suspect
        s.change(2, (2, 15), (2, 16), "a", URI)
        await s.wait_for(lambda: not any(d.code == "suspect" for d in s.diagnostics.get(URI, [])), "the suspect's diagnostic gone with the change")

    run(scenario)


WRONG = 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n    return a - b\n'
WRONG_URI = "file:///tmp/qualm-scripted-test/wrong.py"


def test_a_likely_fix_is_a_code_action_whose_edit_asks_to_be_confirmed(tmp_path):
    # a FIM model: asked to write the suspect line again, it writes the right one; '-' is its least likely token
    path = tmp_path / "fim.json"
    path.write_text(json.dumps({
        "name": "scripted fim", "fim": True, "completions": ["return a + b"],
        "plans": ["1. Add a and b.", "1. Return a plus b."],
        "tests": json.dumps(["assert add(1, 2) == 3", "assert add(2, 2) == 4", "assert add(2, 0) == 2"]),
        "entropy": {"default": 0.05, "tokens": {"-": 2.0}},
    }))

    async def scenario(s: Session):
        await s.start(options(path, functional={"n_tests": 3, "n_solutions": 0}))
        s.open(WRONG, WRONG_URI)
        a = plain(await s.command("qualm.assessFunction", WRONG_URI, "add"))["assessment"]
        fix = a["fix"]["fix"]
        assert fix["candidate"]["origin"] == "line" and fix["candidate"]["replacement"] == "return a + b"
        assert (fix["line"], fix["passed"], fix["base"], fix["total"]) == (3, 3, 1, 3)
        lenses = await s.lenses(WRONG_URI)
        assert " · suspect: line 3" in lenses[0].command.title
        # the client sends the suspect line's diagnostic with the request, as an editor does at the line
        suspect = t.Diagnostic(range=t.Range(start=t.Position(2, 4), end=t.Position(2, 16)), message="suspect line", source="qualm", code="suspect")
        other = t.Diagnostic(range=t.Range(start=t.Position(2, 4), end=t.Position(2, 16)), message="unused", source="ruff", code="F841")
        actions = await s.client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=WRONG_URI), range=t.Range(start=t.Position(2, 0), end=t.Position(2, 0)), context=t.CodeActionContext(diagnostics=[suspect, other]),
        ))
        action = next(x for x in actions if x.title.startswith("qualm: apply the likely fix"))
        assert "passes 3 of 3 checks (the code passes 1)" in action.title and action.kind == t.CodeActionKind.QuickFix
        # the preferred fix of the suspect line's diagnostic (listed first; VS Code's auto fix applies it)
        assert action.is_preferred and [d.code for d in action.diagnostics] == ["suspect"]
        change = action.edit.document_changes[0]
        edit = change.edits[0]
        assert change.text_document.uri == WRONG_URI and change.text_document.version == 1
        assert (edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character) == (2, 4, 2, 16) and edit.new_text == "return a + b"
        note = action.edit.change_annotations[edit.annotation_id]
        assert note.needs_confirmation and "now passes: assert add(1, 2) == 3; assert add(2, 2) == 4" in note.description

    run(scenario)


def test_right_code_gets_no_fix_and_nothing_is_tried(tmp_path):
    path = tmp_path / "fim.json"
    path.write_text(json.dumps({
        "name": "scripted fim", "fim": True, "completions": ["return a - b"],
        "plans": ["1. Add a and b.", "1. Return a plus b."],
        "tests": json.dumps(["assert add(1, 2) == 3", "assert add(2, 2) == 4"]),
        "entropy": {"default": 0.05, "tokens": {"+": 2.0}},
    }))

    async def scenario(s: Session):
        await s.start(options(path, functional={"n_tests": 2, "n_solutions": 0}))
        s.open(WRONG.replace("a - b", "a + b"), WRONG_URI)
        a = plain(await s.command("qualm.assessFunction", WRONG_URI, "add"))["assessment"]
        assert a["fix"] == {"fix": None, "note": "the code passes every check", "tried": 0, "seconds": 0.0, "gain": 0.0}
        assert a["suspects"][0]["line"] == 3  # still a suspect: where to look first, not a verdict

    run(scenario)


def test_a_model_file_changed_on_disk_is_let_go_with_a_message_naming_it(script):
    """The model's file rewritten in place while the server runs (a memory-mapped GGUF would die of
    SIGBUS at its next read): the next request is refused with a message that names the file and
    says what to do, the status says it, and the server lives on. The real-model twin truncates a
    GGUF (tests/model/test_model_file_changed.py)."""

    async def scenario(s: Session):
        await s.start(options(script))
        s.open(DOC, URI)
        end = line_col(DOC, len(DOC))
        params = {"textDocument": {"uri": URI}, "position": {"line": end[0], "character": end[1]}}
        assert (await s.client.protocol.send_request_async("qualm/complete", params)).text
        script.write_text(script.read_text()[:20])  # cut in place, as a download started again
        with pytest.raises(JsonRpcException, match="changed on disk") as refused:
            await s.client.protocol.send_request_async("qualm/complete", params)
        assert str(script) in str(refused.value) and "Restart qualm" in str(refused.value)
        await s.wait_for(lambda: s.statuses and s.statuses[-1]["state"] == "error", "the error status")
        assert str(script) in s.statuses[-1]["message"] and "its size went from" in s.statuses[-1]["message"]
        assert any("changed on disk" in m and str(script) in m for m in s.messages), s.messages
        status = plain(await s.command("qualm.status"))  # the server is alive and says why it stopped
        assert status["state"] == "error" and status["model"] is None

    run(scenario)
