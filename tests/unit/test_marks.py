from qualm.lsp.marks import Edit, Mark, apply_edit

TEXT = "total = price * count\n"
# marks on "price" (8-13) and "count" (16-21)
MARKS = [Mark(8, 13, "price"), Mark(16, 21, "count")]


def spans(marks, text):
    return [(text[m.start : m.end], m.data) for m in marks]


def edit(text, e: Edit) -> str:
    return text[: e.start] + e.text + text[e.end :]


def test_edit_before_shifts_marks():
    e = Edit(0, 5, "sum")  # "total" -> "sum"
    new = edit(TEXT, e)
    assert spans(apply_edit(MARKS, e), new) == [("price", "price"), ("count", "count")]


def test_edit_inside_a_mark_drops_only_that_mark():
    e = Edit(10, 11, "I")  # "price" -> "prIce"
    new = edit(TEXT, e)
    assert spans(apply_edit(MARKS, e), new) == [("count", "count")]


def test_edit_after_leaves_marks_and_typing_next_to_a_token_keeps_it():
    e = Edit(21, 21, " + 1")
    assert apply_edit(MARKS, e) == MARKS
    e2 = Edit(13, 13, "_each")  # right after "price": the token's own text is unchanged
    new = edit(TEXT, e2)
    assert spans(apply_edit(MARKS, e2), new) == [("price", "price"), ("count", "count")]


def test_deleting_across_marks_drops_them():
    e = Edit(5, 22, "")
    assert apply_edit(MARKS, e) == []


def test_sequences_of_edits_never_leave_a_mark_on_other_text():
    import random

    rng = random.Random(0)
    for _ in range(300):
        text = TEXT
        marks = [Mark(m.start, m.end, TEXT[m.start : m.end]) for m in MARKS]
        edits = []
        for _ in range(rng.randint(1, 6)):
            a = rng.randint(0, len(text))
            b = rng.randint(a, min(len(text), a + 4))
            e = Edit(a, b, rng.choice(["", "x", "yy", "\n"]))
            edits.append(e)
            text = edit(text, e)
        for e in edits:  # in the order the editor applied them, as the server's didChange does
            marks = apply_edit(marks, e)
        for m in marks:
            assert text[m.start : m.end] == m.data
