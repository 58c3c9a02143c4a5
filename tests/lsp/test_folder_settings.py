"""Settings per workspace folder, over stdio with the scripted backend: the server asks for ``qualm``
once per folder (its ``scopeUri``) and once for the window, and a document gets its folder's
settings; a change in one folder republishes that folder's documents only; the model comes from the
window's settings and a folder's other model value is named once in the log; a bad value in one
folder is refused, naming the folder, and that folder keeps its last good settings; a folder taken
out of the workspace leaves its documents to the window's settings; settings pushed by a client that
is not asked republish the documents too."""

from __future__ import annotations

import copy
import json

import pytest
from lsp_session import Session, run
from lsprotocol import types as t

ROOT = "file:///tmp/qualm-folder-settings"
A, B = f"{ROOT}/a", f"{ROOT}/b"
IN_A, IN_B, OUTSIDE = f"{A}/calc.py", f"{B}/calc.py", "file:///tmp/elsewhere/calc.py"
# scored, the body's tokens " +", " *" and " 2" are medium, high and low (surprisal 1.2, 2.4, 0.7 nats)
DOC = '''def add(a: int, b: int) -> int:
    """Return the sum of a and b, doubled."""
    return a + b * 2
'''
SCRIPT = {"name": "scripted folders", "completions": ["    return 0\n"], "entropy": {"default": 0.05, "tokens": {"*": 2.4, "+": 1.2, "2": 0.7}}}


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(SCRIPT))
    return path


class Client:
    """What the editor would answer: the window's settings and each folder's (merged over them, as
    VS Code answers a scopeUri), and every workspace/configuration request the server made."""

    def __init__(self, s: Session, window: dict, folders: dict[str, dict]) -> None:
        self.window, self.folders = window, folders
        self.requests: list[list[tuple[str | None, str | None]]] = []

        @s.client.feature(t.WORKSPACE_CONFIGURATION)
        def answer(ls, params: t.ConfigurationParams):
            self.requests.append([(i.section, i.scope_uri) for i in params.items])
            return [self.read(i.scope_uri) if i.section == "qualm" else None for i in params.items]

    def read(self, scope: str | None) -> dict:
        merged = copy.deepcopy(self.window)
        for section, values in self.folders.get(scope or "", {}).items():
            merged.setdefault(section, {}).update(values)
        return merged


def levels(s: Session, uri: str) -> list[str]:
    return [d.code for d in s.diagnostics[uri]]


async def score(s: Session, uri: str) -> None:
    s.diagnostics.pop(uri, None)
    await s.command("qualm.scoreDocument", uri)
    await s.wait_for(lambda: uri in s.diagnostics, f"the diagnostics of {uri}")


def test_each_folder_gets_its_own_settings_and_a_change_republishes_its_documents(script):
    async def scenario(s: Session):
        window = {"model": {"backend": "scripted", "path": str(script)}, "editor": {"diagnostic_level": "medium", "highlight_level": "medium"}}
        client = Client(s, window, {A: {"editor": {"diagnostic_level": "low", "highlight_level": "low"}}, B: {"editor": {"diagnostic_level": "high", "highlight_level": "high"}}})
        await s.start(window, workspace_folders=[A, B], configuration=True)
        # one item per folder with its scopeUri, then the window's
        assert client.requests == [[("qualm", A), ("qualm", B), ("qualm", None)]]
        for uri in (IN_A, IN_B, OUTSIDE):
            s.open(DOC, uri)
            await score(s, uri)
        assert levels(s, IN_A) == ["high", "medium", "low"]
        assert levels(s, IN_B) == ["high"]
        assert levels(s, OUTSIDE) == ["high", "medium"]  # in no folder: the window's settings
        assert [m["level"] for m in s.marks[IN_A]["marks"]] == ["medium", "high", "low"]
        assert [m["level"] for m in s.marks[IN_B]["marks"]] == ["high"]

        # folder b changes its level: b's document is published again with it, the others are not,
        # and the model is not reloaded
        client.folders[B]["editor"]["diagnostic_level"] = "medium"
        del s.diagnostics[IN_A], s.diagnostics[IN_B], s.diagnostics[OUTSIDE]
        statuses = len(s.statuses)
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
        await s.wait_for(lambda: IN_B in s.diagnostics, "b's document published again")
        assert levels(s, IN_B) == ["high", "medium"]
        assert IN_A not in s.diagnostics and OUTSIDE not in s.diagnostics
        assert not any(x["state"] == "loading" for x in s.statuses[statuses:]) and not any("reloading the model" in m for m in s.messages)
        assert client.requests[-1] == [("qualm", A), ("qualm", B), ("qualm", None)]

        # a bad value in folder a: refused, naming the folder; a keeps its settings, b is unaffected
        client.folders[A]["editor"]["diagnostic_level"] = "everything"
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
        await s.wait_for(lambda: any("workspace folder a" in m and "diagnostic_level" in m for m in s.messages), "the refusal, naming folder a")
        await score(s, IN_A)
        assert levels(s, IN_A) == ["high", "medium", "low"]
        await score(s, IN_B)
        assert levels(s, IN_B) == ["high", "medium"]

        # folder b leaves the workspace: its document falls back to the window's settings
        s.client.workspace_did_change_workspace_folders(
            t.DidChangeWorkspaceFoldersParams(event=t.WorkspaceFoldersChangeEvent(added=[], removed=[t.WorkspaceFolder(uri=B, name="b")]))
        )
        await s.wait_for(lambda: client.requests[-1] == [("qualm", A), ("qualm", None)], "the settings asked again for folder a alone")
        client.folders[A]["editor"]["diagnostic_level"] = "low"
        await s.wait_for(lambda: IN_B in s.diagnostics and s.marks[IN_B]["marks"] and len(s.marks[IN_B]["marks"]) == 2, "b's document with the window's highlight level")
        assert levels(s, IN_B) == ["high", "medium"]

    run(scenario)


def test_the_model_comes_from_the_window_and_a_folders_other_model_is_named_once(script, tmp_path):
    async def scenario(s: Session):
        window = {"model": {"backend": "scripted", "path": str(script)}, "editor": {"diagnostic_level": "medium"}}
        other = str(tmp_path / "other-model.gguf")  # never loaded: one model serves every folder
        client = Client(s, window, {A: {"model": {"path": other}, "editor": {"diagnostic_level": "low"}}, B: {}})
        await s.start(window, workspace_folders=[A, B], configuration=True)
        assert s.statuses[-1]["model"] == "scripted folders"
        told = [m for m in s.messages if "qualm.model.path" in m]
        assert len(told) == 1 and "workspace folder a" in told[0] and repr(other) in told[0] and repr(str(script)) in told[0] and "window" in told[0], s.messages
        # a's other settings are its own; the same answer again is not logged again, and loads nothing
        s.open(DOC, IN_A)
        await score(s, IN_A)
        assert levels(s, IN_A) == ["high", "medium", "low"]
        statuses = len(s.statuses)
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
        await s.wait_for(lambda: len(client.requests) == 2, "the settings asked again")
        await score(s, IN_A)
        assert len([m for m in s.messages if "qualm.model.path" in m]) == 1
        assert not any(x["state"] == "loading" for x in s.statuses[statuses:])
        # the window's model changes: that reloads it (the same script under another name here)
        renamed = tmp_path / "renamed.json"
        renamed.write_text(json.dumps({**SCRIPT, "name": "scripted, renamed"}))
        client.window["model"]["path"] = str(renamed)
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
        await s.wait_for(lambda: s.statuses[-1]["state"] == "ready" and s.statuses[-1]["model"] == "scripted, renamed", "the window's new model")

    run(scenario)


def test_settings_pushed_by_a_client_that_is_not_asked_republish_the_documents(script):
    async def scenario(s: Session):
        window = {"model": {"backend": "scripted", "path": str(script)}, "editor": {"diagnostic_level": "low"}}
        await s.start(window)  # no workspace/configuration: the client pushes its settings
        s.open(DOC, OUTSIDE)
        await score(s, OUTSIDE)
        assert levels(s, OUTSIDE) == ["high", "medium", "low"]
        del s.diagnostics[OUTSIDE]
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": {**window, "editor": {"diagnostic_level": "high"}}}))
        await s.wait_for(lambda: OUTSIDE in s.diagnostics, "the document published again")
        assert levels(s, OUTSIDE) == ["high"]

    run(scenario)
