"""A healed FIM completion that comes out empty is asked again from the cursor (qualm.engine.completion),
on the scripted backend: its answers come in turn, so the test says what each prompt gets."""

from __future__ import annotations

import json

from qualm.engine import Document, complete
from qualm.model.scripted_backend import ScriptedBackend
from qualm.prompts import InfillPrompt
from qualm.settings import Settings

# At a method's end, on an empty line indented like the body: the healed prompt leaves the 8 spaces out
TEXT = 'class Review:\n    def color(self):\n        if self.ok:\n            return "green"\n        \n\n    def vote(self):\n        return 0\n'
CURSOR = TEXT.index("        \n\n") + 8


class Recording(ScriptedBackend):
    """The scripted backend that keeps the prompts it was given."""

    def __init__(self, path):
        super().__init__(path)
        self.prompts: list[InfillPrompt] = []

    def generate(self, prompt, options, on_token=None, cancel=None):
        self.prompts.append(prompt)
        return super().generate(prompt, options, on_token, cancel)


def backend(tmp_path, answers: list[str]) -> Recording:
    script = tmp_path / "fim.json"
    script.write_text(json.dumps({"name": "scripted", "completions": answers, "fim": True}))
    return Recording(script)


def test_an_empty_healed_completion_is_asked_again_from_the_cursor(tmp_path):
    # healed, the "model" closes the method (4 spaces) and writes the next one: cut to nothing
    b = backend(tmp_path, ["    def other(self):\n        pass", 'return "red"'])
    pieces: list[str] = []
    restarts: list[int] = []
    c = complete(b, Document(TEXT, "r.py"), CURSOR, Settings(), on_token=lambda t: pieces.append(t.text), on_restart=lambda: restarts.append(len(pieces)))
    assert c.text == 'return "red"' and c.attempts == 2
    assert len(b.prompts) == 2
    assert b.prompts[0].prefix.endswith('"green"\n')  # healed: the indentation left out
    assert b.prompts[1].prefix.endswith('"green"\n        ')  # from the cursor, indentation included
    assert restarts and "".join(pieces[restarts[0] :]) == 'return "red"'  # what streamed after the restart is the answer
    accepted = TEXT[:CURSOR] + c.text + TEXT[CURSOR:]
    compile(accepted, "r.py", "exec")


def test_a_completion_with_text_is_not_asked_again(tmp_path):
    b = backend(tmp_path, ['        return "red"', "never asked"])
    c = complete(b, Document(TEXT, "r.py"), CURSOR, Settings(), on_restart=lambda: (_ for _ in ()).throw(AssertionError("restarted")))
    assert c.text == 'return "red"' and c.attempts == 1 and len(b.prompts) == 1


def test_nothing_is_asked_again_where_nothing_was_healed(tmp_path):
    # mid-line the prompt already ends at the cursor: an empty answer stays empty
    text = "def f(x):\n    return g(x, )\n"
    b = backend(tmp_path, ["", "never asked"])
    c = complete(b, Document(text, "f.py"), text.index(", )") + 2, Settings())
    assert c.text == "" and c.attempts == 1 and len(b.prompts) == 1


def test_under_a_header_with_no_body_the_prompt_ends_at_the_cursor_from_the_start(tmp_path):
    # an empty method's body: its indentation is decided, so nothing is healed and nothing asked again
    text = "class Stack:\n    def push(self, item):\n        \n\n    def pop(self):\n        return self.items.pop()\n"
    cursor = text.index("        \n\n") + 8
    b = backend(tmp_path, ["self.items.append(item)", "never asked"])
    c = complete(b, Document(text, "s.py"), cursor, Settings(), on_restart=lambda: (_ for _ in ()).throw(AssertionError("restarted")))
    assert c.text == "self.items.append(item)" and c.attempts == 1 and len(b.prompts) == 1
    assert b.prompts[0].prefix.endswith("def push(self, item):\n        ")  # indentation included
