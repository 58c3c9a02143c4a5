from qualm import answer_ends
from qualm.answer_ends import plan_end
from qualm.model.text_stream import TextStream, TokenStats


def stats(i: int) -> TokenStats:
    return TokenStats(token_id=i, entropy=0.1 * i, prob=0.5, alternatives=())


def feed(pieces: list[bytes], stop=("```",), ends=None):
    streamed = []
    s = TextStream(stop, streamed.append, ends)
    stopped = False
    for i, p in enumerate(pieces):
        if s.push(p, stats(i)):
            stopped = True
            break
    s.finish()
    return s, streamed, stopped


def test_offsets_and_text_without_stop():
    s, streamed, stopped = feed([b"def", b" f", b"():", b"\n"])
    assert not stopped and s.text == "def f():\n"
    assert [(r.start, r.end) for r in s.records] == [(0, 3), (3, 5), (5, 8), (8, 9)]
    assert streamed == list(s.records)


def test_multibyte_character_split_across_tokens():
    snow = "☃".encode()  # three bytes
    s, streamed, _ = feed([b"x = '", snow[:1], snow[1:], b"'"])
    assert s.text == "x = '☃'"
    r = s.records
    assert r[1].text == "" and r[1].start == r[1].end == 5  # partial character: empty record
    assert r[2].text == "☃" and (r[2].start, r[2].end) == (5, 6)
    assert "".join(x.text for x in r) == s.text and streamed == list(r)


def test_stop_string_inside_a_token_cuts_it():
    s, streamed, stopped = feed([b"return 1", b"\n```", b"\nmore"])
    assert stopped and s.text == "return 1\n"
    assert [x.text for x in s.records] == ["return 1", "\n"]
    assert streamed == list(s.records)


def test_stop_string_across_tokens_is_held_back_then_dropped():
    streamed = []
    s = TextStream(("```",), streamed.append)
    assert not s.push(b"x\n", stats(0))
    assert [r.text for r in streamed] == ["x\n"]
    assert not s.push(b"``", stats(1))
    assert len(streamed) == 1  # "``" might start the fence: held back
    assert s.push(b"`", stats(2))
    s.finish()
    assert s.text == "x\n" and [r.text for r in s.records] == ["x\n"]
    assert streamed == list(s.records)


def test_held_back_text_that_is_not_a_fence_is_released():
    s, streamed, stopped = feed([b"a", b"`", b"b`"])
    assert not stopped and s.text == "a`b`"
    assert streamed == list(s.records) and len(streamed) == 3


def test_the_end_rule_stops_the_stream_and_cuts_its_records():
    pieces = [b"1. a\n", b"2. b\n", b"3. c\n", b"\n", b"Sum", b"mary here", b".\n", b"more"]
    s, streamed, stopped = feed(pieces, stop=(), ends=plan_end)
    assert stopped and s.stop_kind == "complete"
    assert s.text == "1. a\n2. b\n3. c\n\n"  # "more" was never read, the summary line was cut
    assert "".join(r.text for r in s.records) == s.text and s.records[-1].end == len(s.text)


def test_at_the_end_of_turn_a_closing_paragraph_is_cut_as_well():
    s, _, stopped = feed([b"1. a\n2. b\n3. c\n", b"\n", b"That is all."], stop=(), ends=plan_end)
    assert not stopped and s.text == "1. a\n2. b\n3. c\n\n"  # judged as if a newline followed


def test_a_fence_still_stops_with_its_own_kind():
    s, _, stopped = feed([b'["assert f(1) == 1"]\n```'], ends=answer_ends.tests_end(10))
    assert stopped and s.stop_kind == "fence" and s.text == '["assert f(1) == 1"]\n'
