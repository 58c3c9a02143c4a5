"""An engine that cannot score code in the file (llama.cpp's server): the assessment still runs its
other axes, and the lexical axis says why it is missing instead of a number. The scripted backend
stands in for the model (this is about the engine's handling, not the model)."""

from __future__ import annotations

import json

from qualm.engine import Document, assess
from qualm.model import TeacherForcingUnavailable
from qualm.model.scripted_backend import ScriptedBackend
from qualm.settings import Settings


class NoScoring(ScriptedBackend):
    def score(self, prompt, text, cancel=None, top_alternatives=5):
        raise TeacherForcingUnavailable("llama.cpp's server does not return log-probabilities of the prompt, so code in the file cannot be scored")


def test_lexical_is_unavailable_with_the_reason_and_the_tests_still_run(tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "served", "completions": ["x"], "plans": ["1. Add a and b.\n2. Return the sum.\n3. Done."], "tests": '["assert add(1, 2) == 3", "assert add(0, 0) == 0"]'}))
    backend = NoScoring(script)
    doc = Document(name="t.py", text='def add(a, b):\n    """Add two numbers."""\n    return a + b\n')
    settings = Settings().with_overrides(algorithmic={"n_plans": 2})
    a = assess(backend, doc, "add", settings, None)
    assert a.lexical.raw is None and not a.lexical.available
    assert a.lexical.note.startswith("unavailable: llama.cpp's server does not return log-probabilities")
    assert a.functional.raw == 0.0 and a.algorithmic.available
    assert a.extra["signals"]["lexical.all.max_probability"] is None
