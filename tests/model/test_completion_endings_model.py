"""Where the default model's completions end outside HumanEval's shape (issue 54), on the real model:
at a method's end, in a class body, at a file's end at column 0, after a decorator, mid-line in a
call, in JavaScript's braces and a TypeScript class. Each asserts that a stop rule ended the
completion (not the model's own end token, not the token limit), which rule, and that the file with
the completion accepted has no syntax error it did not have. The scripted twins of these cases,
which fail when a rule is removed, are in tests/unit/test_completion_endings.py."""

from __future__ import annotations

import pytest

from qualm.engine import Document, complete
from qualm.engine.completion_syntax import syntax_errors
from qualm.lang import language_named
from qualm.settings import Settings

pytestmark = pytest.mark.model

SUFFIX = {"python": "py", "javascript": "js", "typescript": "ts"}
CASES = {
    # name: (text with | at the cursor, language, the rules that may end it)
    "method-end": ("class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        |\n\n    def pop(self):\n        return self.items.pop()\n", "python", {"block-end", "resumes"}),
    "class-body": ("class Stack:\n    def __init__(self):\n        self.items = []\n\n    |\n\n    def pop(self):\n        return self.items.pop()\n", "python", {"next-definition", "resumes"}),
    "file-end": ("import math\n\n\ndef area(r):\n    return math.pi * r * r\n\n\n|", "python", {"next-definition"}),
    "decorator-then-def": ("from flask import Flask\napp = Flask(__name__)\n\n@app.route('/')\n|\ndef index():\n    return 'home'\n", "python", {"decorated"}),
    "decorator-without-def": ("class Point:\n    def __init__(self, x):\n        self._x = x\n\n    @property\n    |\n        return self._x\n", "python", {"decorated", "resumes"}),
    "mid-line-call": ("def mean(xs):\n    return round(sum(xs) / len(xs), |)\n", "python", {"closes-rest", "line-end"}),
    "js-block": ("function total(items) {\n  let sum = 0;\n  |\n}\n\nmodule.exports = { total };\n", "javascript", {"resumes", "block-end"}),
    "ts-class": ("class Queue<T> {\n  private items: T[] = [];\n\n  |\n}\n", "typescript", {"next-definition", "resumes", "block-end"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_stop_rule_ends_the_completion_and_the_file_still_parses(backend, name):
    marked, language, rules = CASES[name]
    offset = marked.index("|")
    text = marked.replace("|", "", 1)
    result = complete(backend, Document(text, f"case.{SUFFIX[language]}", language_named(language)), offset, Settings())
    assert result.prompt_kind == "fim"
    assert result.stop_reason == "complete" and result.end_rule in rules, (result.stop_reason, result.end_rule, result.text)
    accepted = text[:offset] + result.text + text[offset:]
    assert syntax_errors(accepted, language) <= syntax_errors(text, language), accepted
    if name in ("method-end", "decorator-then-def"):
        assert "def " not in result.text  # no second method, no second decorated def
    if name == "file-end":
        assert result.text.count("\ndef ") == 0  # one definition


def test_where_the_model_s_first_choice_resumes_the_next_line_it_begins_with_its_second(backend):
    # the variable the next line needs is missing; healed and from the cursor the model writes that
    # next line again (cut: resumes): the completion begins with its second choice of first token
    text = '_THEMES = {"dark": 1, "light": 2}\n\n\ndef get_theme(name: str) -> int:\n    """Return a built-in theme by *name*."""\n    theme = _THEMES.get(name)\n    if theme is None:\n        \n        raise ValueError(f"Unknown theme {name!r}. Available: {available}")\n    return theme\n'
    offset = text.index("        \n        raise") + 8
    result = complete(backend, Document(text, "themes.py"), offset, Settings())
    assert result.second_choice and result.attempts == 2, (result.text, result.end_rule)
    assert result.text.strip() and not result.text.lstrip().startswith("raise")
    first = result.tokens[0]
    assert first.start == offset and any(a.text.strip() == "raise" for a in first.alternatives)  # the first choice is among its rivals
    assert first.prob < max(a.prob for a in first.alternatives)
    accepted = text[:offset] + result.text + text[offset:]
    assert syntax_errors(accepted, "python") == 0, accepted
