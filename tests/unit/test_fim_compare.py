"""benchmarks.completion.fim_compare's offline half, without the model: the conditions derived from a
recorded row (qualm's stop rules over a raw stream, the healed whitespace left out; each client's
rules), how an edit that rewrites the rest of the line is accepted and scored, and the file's
indentation as an editor would give it to Tabby."""

from __future__ import annotations

from benchmarks.completion import fim_compare as fc

DOC = "def total(items):\n    t = 0\n    \n    return t\n"
CURSOR = DOC.index("    \n") + 4
TASK = {"id": "t", "group": "p", "document": DOC, "cursor": CURSOR, "language": "python", "filename": "total.py", "truth": "for x in items:\n        t += x"}


def tokens(*pieces: str) -> list[list]:
    return [[p, 0.5, 0.9] for p in pieces]


def test_qualm_s_rules_over_a_raw_stream_leave_out_the_healed_whitespace():
    raw = {"heal": "    ", "tokens": tokens("    for", " x", " in", " items", ":\n", "        t", " +=", " x", "\n", "    return", " t", "\n", "\n", "def", " other", "():\n")}
    text, rule, kept = fc.qualm_rules(TASK, raw)
    assert text == "for x in items:\n        t += x" and rule == "resumes"
    assert "".join(t[0] for t in kept).startswith("    for x")


def test_every_condition_comes_from_one_row():
    row = {
        "id": "t",
        "qualm": {"text": "for x in items:\n        t += x", "end_rule": "resumes", "tokens": tokens("for", " x", " in", " items", ":\n", "        t", " +=", " x")},
        "cursor": {"heal": "", "tokens": tokens("for", " x", " in", " items", ":\n", "        t", " +=", " x", "\n", "    return", " t", "\n")},
    }
    got = fc.conditions(TASK, row)
    assert set(got) == set(fc.CONDITIONS)
    assert got["qualm"]["text"] == got["qualm-cursor"]["text"] == "for x in items:\n        t += x"
    for name in ("continue", "tabby", "tabby-syntax"):
        assert "return t" not in got[name]["text"], name  # these stop before the code after the cursor
    # llama.vscode relies on the model's end and llama-server's n_indent (a line less indented than
    # the cursor's): `    return t` is as indented, so it is shown again, with the indentation the
    # client strips from a whitespace-only cursor line put back on its first line
    assert got["llama.vscode"]["text"] == "for x in items:\n        t += x\n    return t"
    score = fc.realcode_score(TASK, got["qualm"])
    assert score == {"exact_match": True, "edit_similarity": 1.0, "parses": True, "runs_on": False, "runs_on_closers_placed": False, "empty": False}


def test_an_edit_that_rewrites_the_rest_of_the_line_is_accepted_as_the_editor_applies_it():
    task = {**TASK, "document": "x = f(a, )\n", "cursor": 9, "truth": "b"}
    c = {"text": "b)", "replaced": 1, "rule": None, "tokens": []}
    assert fc.accepted_document(task, c) == "x = f(a, b)\n"
    assert fc.inserted_part(task, c) == "b"
    assert fc.realcode_score(task, c)["exact_match"]


def test_the_indentation_an_editor_would_report():
    assert fc.indentation_of("def f():\n    return 1\n") == "    "
    assert fc.indentation_of("function f() {\n  if (x) {\n    y();\n  }\n}\n") == "  "
    assert fc.indentation_of("def f():\n\treturn 1\n") == "\t"
    assert fc.indentation_of("x = 1\n") == "    "


class Words:
    """A stand-in for the model's tokenizer: one token per character (the clients' budgets only count)."""

    def tokenize(self, text: str, add_special: bool = False, parse_special: bool = False) -> list[int]:
        return [ord(c) for c in text]

    def piece(self, token_id: int) -> bytes:
        return chr(token_id).encode()

    def count_tokens(self, text: str) -> int:
        return len(text)


def test_each_client_s_own_prompt_and_its_stream_where_the_model_writes_the_indentation():
    # llama.vscode leaves a whitespace-only cursor line out of its prompt; Continue and Tabby end at the cursor
    prefix, suffix = fc.own_prompt(Words(), "llama.vscode", TASK)
    assert prefix.endswith("    t = 0\n") and suffix.startswith("\n    return t")
    for name in ("continue", "tabby"):
        prefix, suffix = fc.own_prompt(Words(), name, TASK)
        assert prefix.endswith("t = 0\n    "), name
    # from its own prompt llama.vscode's model wrote the indentation itself: nothing is put back
    own = {"tokens": tokens("    for", " x", " in", " items", ":\n", "        t", " +=", " x", "\n", "    return", " t", "\n")}
    assert fc.peer_result("llama.vscode", TASK, own, own=True).text == "for x in items:\n        t += x\n    return t"


def test_the_best_peer_is_chosen_among_the_own_prompt_conditions_too(tmp_path, capsys):
    # qualm and every client with qualm's windows write `pass`; from their own prompts the clients
    # write the truth: the difference must be taken against an own-prompt condition
    tasks = tmp_path / "tasks.jsonl"
    rows = tmp_path / "rows.jsonl"
    own = tmp_path / "own.jsonl"
    wrong = tokens("pass", "\n", "    return", " t", "\n")
    right = tokens("    for", " x", " in", " items", ":\n", "        t", " +=", " x", "\n", "    return", " t", "\n")
    for i in range(4):
        task = {**TASK, "id": f"t{i}", "package": f"p{i}", "path": "total.py", "split": "test", "kind": "line", "situations": []}
        with tasks.open("a") as f:
            f.write(fc.json.dumps(task) + "\n")
        with rows.open("a") as f:
            f.write(fc.json.dumps({"id": f"t{i}", "heal": fc.HEAL_POLICY, "qualm": {"text": "pass", "end_rule": "resumes", "tokens": wrong[:1]}, "cursor": {"heal": "", "tokens": wrong}}) + "\n")
        with own.open("a") as f:
            f.write(fc.json.dumps({"id": f"t{i}", "own": {p: {"prefix_ends_at_cursor": True, "stop_reason": "length", "tokens": right} for p in fc.OWN_PEERS}}) + "\n")
    fc.main(["--tasks", str(tasks), "report", str(rows), str(own), "--set", "realcode"])
    out = capsys.readouterr().out
    assert "| llama.vscode-own |" in out
    assert "qualm - best peer (llama.vscode-own) on exact_match: -1.000" in out


def test_a_row_recorded_under_today_s_rules_is_not_replayed():
    """The replay sees only the kept tokens: where a streaming rule ended the stream inside a token
    (`closes-rest` took `))\n\n\n` down to `)`), the replayed stream ends unfinished and the final
    syntax rule cuts it back. A row recorded under today's rules is what the engine does."""
    doc = "def join_up(n):\n    return ' '.join()\n"
    task = {"id": "t", "group": "p", "document": doc, "cursor": doc.index("join(") + 5, "language": "python", "filename": "join_up.py"}
    kept = tokens("str", "(i", ")", " for", " i", " in", " range", "(n", " +", " ", "1", ")")
    row = {
        "id": "t",
        "heal": fc.HEAL_POLICY,
        "qualm": {"text": "str(i) for i in range(n + 1)", "end_rule": "closes-rest", "tokens": kept},
        "cursor": {"heal": "", "tokens": [*kept[:-1], *tokens("))\n\n\n", "def", " main")]},
    }
    assert fc.qualm_conditions(task, row)["qualm-cursor"]["text"] == "str(i) for i in range(n + 1)"
    assert fc.qualm_conditions(task, row)["qualm"]["text"] == "str(i)"  # replayed: the rules of some other day
    today = {**row, "qualm": {**row["qualm"], "rules": fc.rules_fingerprint()}}
    assert fc.qualm_conditions(task, today)["qualm"]["text"] == "str(i) for i in range(n + 1)"
    assert fc.qualm_conditions(task, row, rescore=False)["qualm"]["text"] == "str(i) for i in range(n + 1)"
