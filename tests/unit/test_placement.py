"""Placing model tokens in the document: completions at a cursor, scored functions, accepted text."""

from qualm.engine.placement import CompletionPlacement, accepted_tokens, place, source_to_document
from qualm.lang import PYTHON
from qualm.trace import Alternative, TokenRecord

THRESHOLDS = (0.5, 1.0, 2.0)


def rec(i: int, text: str, entropy: float = 0.1) -> TokenRecord:
    return TokenRecord(index=i, token_id=i, text=text, start=0, end=len(text), entropy=entropy, prob=0.9, alternatives=(Alternative(i, text, 0.9),))


def test_a_method_completion_is_trimmed_reindented_and_placed_after_the_cursor():
    # cursor after "        " inside a method: the model repeats the indentation (healed) and writes dedented lines
    placement = CompletionPlacement(offset=100, heal="    ", indent="    ", thresholds=THRESHOLDS)
    pieces = ["   ", " total", " =", " 0\n", "    return", " total", "\n"]
    placed = [placement.place(rec(i, p, entropy=2.5 if p == " =" else 0.1)) for i, p in enumerate(pieces)]
    text = "".join(t.text for t in placed)
    assert text == "total = 0\n        return total\n"
    assert placed[0].start == placed[0].end == 100  # all of it was the healed whitespace
    assert [(t.start, t.end) for t in placed[1:3]] == [(100, 105), (105, 107)]
    assert placed[2].level == "high" and placed[1].level == "confident" and placed[2].origin == "completion"
    # offsets are contiguous: the text of each token is exactly its span of the inserted text
    for t in placed:
        assert text[t.start - 100 : t.end - 100] == t.text


def test_scored_offsets_map_from_the_dedented_source_back_into_the_document():
    document = "class A:\n    def f(self):\n        return 1\n"
    source = "def f(self):\n    return 1\n"  # the method, dedented by four spaces
    to_doc = source_to_document(document, 2, source)
    assert document[to_doc(source.index("return")) :].startswith("return 1")
    assert to_doc(0) == document.index("def f")


def test_accepting_a_prefix_marks_only_the_tokens_inside_it_and_only_where_the_text_is():
    tokens = tuple(place(rec(i, p), 10 + a, 10 + a + len(p), p, THRESHOLDS, "completion") for i, (p, a) in enumerate([("return", 0), (" x", 6), (" *", 8), (" 2", 10)]))
    doc = "0123456789" + "return x *"  # the user took "return x *" at offset 10
    kept = accepted_tokens(tokens, inserted_at=10, completion_offset=10, accepted="return x *", document=doc)
    assert [t.text for t in kept] == ["return", " x", " *"]
    # inserted 3 characters further on: every token moves with it
    moved = accepted_tokens(tokens, inserted_at=13, completion_offset=10, accepted="return", document="abc" + doc)
    assert [(t.start, t.end) for t in moved] == [(13, 19)]
    # text that is not there (the user edited it before the server heard of the acceptance) gets no mark
    assert accepted_tokens(tokens, 10, 10, "return x *", "0123456789" + "retrun x *") == [t for t in kept if t.text != "return"]


def test_the_python_language_finds_functions_and_scopes():
    text = "import os\n\n\ndef f(x):\n    '''Doc.'''\n    return x  # why\n"
    fn = PYTHON.find_function(text, "f")
    assert fn.language == "python" and fn.line == 4 and fn.imports == "import os\n"
    kinds = [k for _, _, k in PYTHON.scope_spans(text)]
    assert kinds == ["docstring", "comment"]
