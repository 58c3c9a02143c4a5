"""A healed FIM completion that comes out empty is asked again from the cursor (qualm.engine.completion),
on the scripted backend: its answers come in turn, so the test says what each prompt gets."""

from __future__ import annotations

import json
from dataclasses import replace

from qualm.engine import Document, complete
from qualm.engine.completion import _second_choice
from qualm.model.scripted_backend import ScriptedBackend
from qualm.prompts import InfillPrompt
from qualm.settings import Settings
from qualm.trace import Alternative, TokenRecord

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


# -- the model's second choice of first token ------------------------------------------------------

GRAPH = 'def get_theme(name):\n    theme = THEMES.get(name)\n    if theme is None:\n        \n        raise ValueError(f"no theme {name}: {available}")\n    return theme\n'
GRAPH_CURSOR = GRAPH.index("        \n") + 8


def opening(chosen: str, *others: tuple[str, float], ids: bool = True) -> TokenRecord:
    """The model's first token ``chosen`` (the rules cut what it led to) and its rivals."""
    alts = (Alternative(1 if ids else -1, chosen, 0.6),) + tuple(Alternative(k + 2 if ids else -1, t, p) for k, (t, p) in enumerate(others))
    return TokenRecord(index=0, token_id=1 if ids else -1, text=chosen, start=0, end=len(chosen), entropy=1.2, prob=0.6, alternatives=alts)


class WithOpenings(Recording):
    """The scripted backend, but each empty answer cut by the rules says what the model began with
    (as the llama.cpp and server backends record it); the scripted backend itself never does."""

    def __init__(self, path, openings: list[TokenRecord | None]):
        super().__init__(path)
        self.openings = list(openings)

    def generate(self, prompt, options, on_token=None, cancel=None):
        trace = super().generate(prompt, options, on_token, cancel)
        first = self.openings.pop(0) if self.openings else None
        if first is not None and not trace.text.strip() and trace.extra.get("end_rule"):
            trace = replace(trace, extra={**trace.extra, "opening": first})
        return trace


def with_openings(tmp_path, answers: list[str], openings: list[TokenRecord | None]) -> WithOpenings:
    script = tmp_path / "fim.json"
    script.write_text(json.dumps({"name": "scripted", "completions": answers, "fim": True}))
    return WithOpenings(script, openings)


def test_where_the_rules_leave_nothing_the_completion_begins_with_the_model_s_second_choice(tmp_path):
    # healed and from the cursor the model writes the next line again (cut: resumes); its second
    # choice of first token, "available", is written at the cursor and the model goes on from there
    again = '        raise ValueError(f"no theme {name}: {available}")'
    b = with_openings(tmp_path, [again, 'raise ValueError(f"no theme {name}: {available}")', ' = ", ".join(sorted(THEMES))'], [None, opening("raise", ("# unknown", 0.2), ("available", 0.1))])
    pieces: list[str] = []
    restarts: list[int] = []
    c = complete(b, Document(GRAPH, "g.py"), GRAPH_CURSOR, Settings(), on_token=lambda t: pieces.append(t.text), on_restart=lambda: restarts.append(len(pieces)))
    assert c.text == 'available = ", ".join(sorted(THEMES))'
    assert c.second_choice and c.attempts == 2 and len(b.prompts) == 3
    assert b.prompts[2].prefix.endswith("if theme is None:\n        available")  # the second choice written at the cursor
    assert "".join(pieces[restarts[-1] :]) == c.text  # what streamed after the last restart is the answer
    assert c.tokens[0].text == "available" and c.tokens[0].start == GRAPH_CURSOR and c.tokens[0].entropy == 1.2 and c.tokens[0].prob == 0.1
    assert c.tokens[-1].end == GRAPH_CURSOR + len(c.text)
    compile(GRAPH[:GRAPH_CURSOR] + c.text + GRAPH[GRAPH_CURSOR:], "g.py", "exec")


def test_a_second_choice_that_resumes_the_next_line_comes_to_nothing(tmp_path):
    again = 'raise ValueError(f"no theme {name}: {available}")'
    b = with_openings(tmp_path, ["        " + again, again, '("x")', 'ValueError(f"no theme {name}: {available}")'], [None, opening("raise", ("raise ", 0.3))])
    restarts: list[int] = []
    c = complete(b, Document(GRAPH, "g.py"), GRAPH_CURSOR, Settings(), on_restart=lambda: restarts.append(1))
    # "raise " is the first choice with other spacing: not a second choice; nothing else is offered
    assert c.text == "" and not c.second_choice and len(b.prompts) == 2


def test_a_second_choice_is_withdrawn_when_what_follows_it_repeats_the_next_line(tmp_path):
    again = 'raise ValueError(f"no theme {name}: {available}")'
    # the second choice is a shorter token of the same word, and the model goes on into the next line
    b = with_openings(tmp_path, ["        " + again, again, again[3:]], [None, opening("raise", ("rai", 0.2))])
    restarts: list[int] = []
    pieces: list[str] = []
    c = complete(b, Document(GRAPH, "g.py"), GRAPH_CURSOR, Settings(), on_token=lambda t: pieces.append(t.text), on_restart=lambda: restarts.append(len(pieces)))
    # the whole equals the line after the cursor: cut, and what was streamed of it withdrawn
    assert c.text == "" and not c.second_choice and len(b.prompts) == 3
    assert pieces and restarts[-1] == len(pieces)


def test_a_server_that_names_tokens_by_text_only_still_gets_a_second_choice(tmp_path):
    again = 'raise ValueError(f"no theme {name}: {available}")'
    b = with_openings(tmp_path, ["        " + again, again, " = sorted(THEMES)"], [None, opening("raise", ("available", 0.2), ids=False)])
    c = complete(b, Document(GRAPH, "g.py"), GRAPH_CURSOR, Settings())
    assert c.text == "available = sorted(THEMES)" and c.second_choice


def test_an_empty_answer_the_rules_did_not_cut_is_not_asked_for_a_second_choice(tmp_path):
    # the model ended at once (no opening): it says nothing is missing there
    text = "def f(x):\n    return g(x, )\n"
    b = with_openings(tmp_path, ["", "never asked"], [opening("y", ("z", 0.3))])
    c = complete(b, Document(text, "f.py"), text.index(", )") + 2, Settings())
    assert c.text == "" and not c.second_choice and len(b.prompts) == 1


def test_a_first_token_of_white_space_alone_gets_no_second_choice(tmp_path):
    # at column 0 the model's first token is often indentation; its rivals are other indentation or
    # code at the wrong depth, not a second choice of code
    text = "def f(xs):\n    t = 0\n\n    return t\n"
    cursor = text.index("\n\n") + 1
    b = with_openings(tmp_path, ["    return t", "never asked"], [opening("    ", ("return", 0.3))])
    c = complete(b, Document(text, "f.py"), cursor, Settings())
    assert c.text == "" and not c.second_choice and len(b.prompts) == 1


def test_a_second_choice_that_opens_a_block_comes_to_nothing(tmp_path):
    # after the second choice the completion is one line: a header whose body is not there is cut
    # (a variant that let the cursor's rules take the block lost on the tune part by one task)
    text = "def total(xs):\n    t = 0\n    \n    return t\n"
    cursor = text.index("    \n    return") + 4
    b = with_openings(tmp_path, ["    return t", "return t", " x in xs:\n        t += x\n    return t\n"], [None, opening("return", ("for", 0.2))])
    c = complete(b, Document(text, "t.py"), cursor, Settings())
    assert c.text == "" and not c.second_choice and len(b.prompts) == 3


def test_after_white_space_a_second_choice_with_its_own_leading_white_space_is_passed_over():
    o = opening("\tthrow", ("throw", 0.25), ("\treturn", 0.12), ("if", 0.1))
    assert _second_choice(o, "\t\tif (!ok) {\n\t\t\t") == ("if", 0.1)  # "throw" is the first choice again
    assert _second_choice(o, "x =") == ("\treturn", 0.12)  # after code its spacing is its own
