import pytest

from qualm.signals.functional import parse_tests

GOOD = ['assert add(1, 2) == 3', 'assert add(0, 0) == 0', 'assert add(-1, 1) == 0']


def test_plain_json_list():
    text = '[\n  "assert add(1, 2) == 3",\n  "assert add(0, 0) == 0",\n  "assert add(-1, 1) == 0"\n]\n'
    p = parse_tests(text)
    assert p.tests == GOOD and p.source == "json" and p.dropped == []


def test_code_fences_and_prose_around():
    text = 'Sure! Here they are:\n```json\n["assert add(1, 2) == 3", "assert add(0, 0) == 0"]\n```\nHope it helps [really].'
    assert parse_tests(text).tests == GOOD[:2]


def test_single_quoted_strings():
    text = "['assert add(1, 2) == 3', 'assert add(0, 0) == 0']"
    p = parse_tests(text)
    assert p.tests == GOOD[:2] and p.source == "python-literal"


def test_truncated_list_keeps_complete_strings():
    text = '[\n "assert add(1, 2) == 3",\n "assert add(0, 0) == 0",\n "assert add(-1, 1) =='
    p = parse_tests(text)
    assert p.tests == GOOD[:2] and p.source == "strings"


def test_escaped_quotes_inside_json_strings():
    text = r'["assert greet(\"bob\") == \"hi bob\"", "assert greet(\"\") == \"hi \""]'
    assert parse_tests(text).tests == ['assert greet("bob") == "hi bob"', 'assert greet("") == "hi "']


def test_invalid_and_duplicate_items_are_dropped_with_reasons():
    text = '["assert add(1, 2) == 3", "assert add(1,2)==3", "print(1)", "assert add(1, ", "x = 1; assert x", 7, "assert add(0, 0) == 0"]'
    p = parse_tests(text)
    assert p.tests == [GOOD[0], GOOD[1]]
    reasons = dict(p.dropped)
    assert reasons["assert add(1,2)==3"] == "duplicate"
    assert reasons["print(1)"] == "not an assert statement"
    assert reasons["assert add(1,"] == "does not parse"
    assert reasons["x = 1; assert x"] == "not an assert statement"
    assert reasons["7"] == "not a string"


def test_limit_and_bare_assert_lines():
    text = "assert add(1, 2) == 3\nassert add(0, 0) == 0\nassert add(-1, 1) == 0\n"
    p = parse_tests(text, limit=2)
    assert p.tests == GOOD[:2] and p.source == "lines"
    assert p.dropped == [(GOOD[2], "beyond the first 2")]


def test_nothing_usable():
    for text in ("", "I cannot write tests.", "[]", '{"tests": 3}', "[1, 2, 3]"):
        assert parse_tests(text).tests == []


def test_strings_wrapped_in_braces_and_the_placeholder_name():
    # What Qwen2.5-Coder-0.5B wrote for the paper's prompt: sets of one string, and the example's name.
    text = '[\n    {\n        "assert function_name(2, 3) == 5"\n    },\n    {\n        "assert function_name(0, 5) == 5"\n    }\n]\n'
    assert parse_tests(text, function_name="add").tests == ["assert add(2, 3) == 5", "assert add(0, 5) == 5"]
    assert parse_tests(text).tests == ["assert function_name(2, 3) == 5", "assert function_name(0, 5) == 5"]
    # a real function called my_function_name( is left alone
    assert parse_tests('["assert my_function_name(1) == 1"]', function_name="add").tests == ["assert my_function_name(1) == 1"]


def test_objects_holding_the_assert_statement():
    # what the 0.5B model wrote for MBPP/522: objects instead of strings
    text = (
        '[\n  {"assert statement": "assert lbs([0, 8, 4]) == 2", "expected result": 2},\n'
        '  {"assert statement": "assert lbs([1, 2, 3]) == 3", "expected result": 3},\n'
        '  {"note": "no test here", "expected result": 1}\n]'
    )
    parsed = parse_tests(text)
    assert parsed.tests == ["assert lbs([0, 8, 4]) == 2", "assert lbs([1, 2, 3]) == 3"]
    assert [why for _, why in parsed.dropped] == ["not a string"]


def test_objects_in_a_truncated_list_give_their_values_not_their_keys():
    # "assert statement" as a key would parse as `assert statement` (a NameError at run time)
    text = '[{"assert statement": "assert f(1) == 2", "expected result": 2}, {"assert statement": "assert f(2'
    parsed = parse_tests(text)
    assert parsed.source == "strings"
    assert parsed.tests == ["assert f(1) == 2"]


def test_tests_that_never_call_the_function_are_dropped_with_the_reason():
    from qualm.signals.functional import calling_only

    parsed = parse_tests('["assert True", "assert 1 == 1", "assert add(1, 2) == 3", "assert calc.add(2, 2) == 4", "assert len([add]) == 1"]', function_name="add")
    kept = calling_only(parsed, "add")
    assert kept.tests == ["assert add(1, 2) == 3", "assert calc.add(2, 2) == 4"]
    assert [why for _, why in kept.dropped] == ["never calls add"] * 3  # naming the function is not calling it
    assert calling_only(parse_tests('["assert True"]'), "add").tests == []


def test_a_methods_tests_may_build_the_object_before_the_assert():
    text = '''[
        "obj = Stack(); obj.push(1); assert obj.pop() == 1",
        "obj = Stack(...); assert obj.pop(...) == ...;",
        "import os; assert Stack().pop() == 1",
        "for i in range(3): obj.push(i)",
        "obj = Stack()",
        "assert Stack().size() == 0",
        "obj = Stack(); obj.push(1); obj.push(2); assert obj.pop() == 2; assert obj.pop() == 1"
    ]'''
    parsed = parse_tests(text, setup=True)
    assert parsed.tests == [
        "obj = Stack(); obj.push(1); assert obj.pop() == 1", "obj = Stack(...); assert obj.pop(...) == ...;", "assert Stack().size() == 0",
        "obj = Stack(); obj.push(1); obj.push(2); assert obj.pop() == 2; assert obj.pop() == 1",  # several asserts: all must hold
    ]
    assert [why for _, why in parsed.dropped] == ["more than simple statements before its assert", "does not end in an assert statement", "does not end in an assert statement"]
    # a function's tests stay single asserts
    assert parse_tests(text).tests == ["assert Stack().size() == 0"]


def test_a_methods_test_prompt_names_its_class_and_shows_the_form_without_placeholders():
    from qualm import prompts

    plain = prompts.test_generation("def f(x):\n    pass", 10)
    assert plain.user == prompts.TEST_GENERATION.format(problem_description="def f(x):\n    pass", num_test_cases=10)  # the paper's
    method = prompts.test_generation("class Stack:\n    def pop(self):\n        pass", 10, ("Stack", "pop", "obj = Stack(); assert obj.pop() == ...")).user
    assert "for this method." in method and "the method `pop` of class `Stack`" in method
    assert '"obj = Stack(); assert obj.pop() == ...",' in method
    assert "function_name" not in method and "args1" not in method  # the 0.5B copied those literally
    # braces in the class's example or the problem are text, not template fields
    braces = prompts.test_generation('class Config:\n    def get(self, k):\n        """{k}"""', 3, ("Config", "get", "assert Config({'a': 1}).get('a') == ...")).user
    assert "\"assert Config({'a': 1}).get('a') == ...\"," in braces and '"""{k}"""' in braces


def test_a_prompt_variant_whose_wording_is_gone_fails_loudly():
    from qualm.prompts import _rewritten

    assert _rewritten("a b c", ("b", "B")) == "a B c"
    with pytest.raises(ValueError, match="not in the template exactly once"):
        _rewritten("a b c", ("d", "D"))
    with pytest.raises(ValueError, match="not in the template exactly once"):
        _rewritten("b b", ("b", "B"))


def test_a_methods_tests_with_unescaped_quotes_are_read_line_by_line():
    # the 0.5B model's answer for a method of HumanEval/125 made a class method (2026-11-27)
    text = '[\n    "obj = Solution(); assert obj.split_words("") == []",\n    "obj = Solution(); assert obj.split_words("a b") == ["a", "b"]",\n    "obj'
    parsed = parse_tests(text, setup=True)
    assert parsed.tests == ['obj = Solution(); assert obj.split_words("") == []', 'obj = Solution(); assert obj.split_words("a b") == ["a", "b"]']
    assert parsed.source == "lines"
    # a well-formed list is read as before
    assert parse_tests('["obj = C(); assert obj.f(\\"\\") == 1"]', setup=True).source == "json"
