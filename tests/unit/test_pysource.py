import pytest

from qualm.pysource import SourceError, find_function, functions_in

SRC = '''"""Module."""
import os
from typing import List as L


def top(x: int) -> int:
    """Doc line.

    More.
    """
    return x + 1


class K:
    @staticmethod
    def method(a, b):
        return a * b

    def other(self):
        def inner():
            return 2
        return inner()
'''


def test_finds_functions_methods_and_nested_ones():
    names = [f.name for f in functions_in(SRC)]
    assert names == ["top", "K.method", "K.other", "K.other.inner"]


def test_problem_description_is_imports_signature_and_docstring():
    f = find_function(SRC, "top")
    assert f.imports == "import os\nfrom typing import List as L\n"
    assert f.header.startswith("def top(x: int) -> int:\n") and f.header.rstrip().endswith('"""')
    assert "return" not in f.problem_description
    assert f.source[f.body_offset:] == "    return x + 1\n"
    assert f.line == 6


def test_method_is_dedented_and_has_no_docstring():
    f = find_function(SRC, "K.method")
    assert f.source == "def method(a, b):\n    return a * b\n"
    assert f.header == "def method(a, b):\n"
    assert f.source[f.body_offset:] == "    return a * b\n"
    assert find_function(SRC, "method").name == "K.method"  # unique short name


def test_errors_name_the_problem():
    with pytest.raises(SourceError, match="no function named 'nope'"):
        find_function(SRC, "nope")
    with pytest.raises(SourceError, match="f.py:1: the file does not parse"):
        functions_in("def (:\n", "f.py")


def test_function_at_finds_the_innermost_function_holding_a_line():
    from qualm.pysource import SourceError, function_at

    text = "import os\n\nclass A:\n    def f(self):\n        def g():\n            return 1\n        return g()\n\ndef h():\n    pass\n"
    assert function_at(text, 4).name == "A.f"
    assert function_at(text, 6).name == "A.f.g"
    assert function_at(text, 7).name == "A.f"
    assert function_at(text, 10).name == "h"
    with pytest.raises(SourceError, match="not inside a function"):
        function_at(text, 1)
