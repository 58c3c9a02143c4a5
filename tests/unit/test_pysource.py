import math

import pytest

from qualm.lang import PYTHON, SourceError
from qualm.lang.python.source import functions_in

find_function = PYTHON.find_function

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
    function_at = PYTHON.function_at

    text = "import os\n\nclass A:\n    def f(self):\n        def g():\n            return 1\n        return g()\n\ndef h():\n    pass\n"
    assert function_at(text, 4).name == "A.f"
    assert function_at(text, 6).name == "A.f.g"
    assert function_at(text, 7).name == "A.f"
    assert function_at(text, 10).name == "h"
    with pytest.raises(SourceError, match="not inside a function"):
        function_at(text, 1)


def test_docstring_of_a_function_or_a_bare_task():
    from qualm.lang.python.source import docstring_of

    assert docstring_of('def f(x):\n    """Double x."""\n    return 2 * x\n', "f") == "Double x."
    assert docstring_of('"""Write a function.\nassert f(1) == 2\n"""\n') == "Write a function.\nassert f(1) == 2"
    assert docstring_of("def f(x):\n    return x\n", "f") is None
    assert docstring_of("def f(:\n", "f") is None


def test_with_docstring_puts_the_task_under_the_signature():
    from qualm.lang.python.source import docstring_of, with_docstring

    src = 'import math\n\ndef f(\n    x,  # a number\n):\n    # start\n    return math.sqrt(x)\n'
    out = with_docstring(src, "f", 'Square root; keeps \\ and """ as they are.\nassert f(4) == 2')
    assert docstring_of(out, "f") == 'Square root; keeps \\ and """ as they are.\nassert f(4) == 2'
    assert out.splitlines()[6].strip() == "assert f(4) == 2" and out.splitlines()[8] == "    # start"
    fn = find_function(out, "f")
    assert "Square root" in fn.problem_description and "return" not in fn.problem_description
    ns: dict = {}
    exec(out, ns)  # still runs, and the body is untouched
    assert ns["f"](9) == 3.0
    # a function that has a docstring, or keeps its body on the def line, is left alone
    documented = 'def f(x):\n    "Own."\n    return x\n'
    assert with_docstring(documented, "f", "Task.") == documented
    assert with_docstring("def f(x): return x\n", "f", "Task.") == "def f(x): return x\n"
    assert with_docstring(documented, "g", "Task.") == documented


HELPERS = '''import math

LIMIT = 10
SCALE = LIMIT * 2


def unused():
    return UNUSED


UNUSED = 3


def decorate(f):
    return f


@decorate
def helper(x):
    return x * SCALE


class Box:
    def __init__(self, v):
        self.v = v


def target(a):
    b = helper(a) + math.pi
    return Box(b) if a else target(a - 1)


if __name__ == "__main__":
    print(target(3))
'''


def test_the_program_carries_the_module_definitions_the_function_uses():
    fn = find_function(HELPERS, "target")
    # helper reads SCALE and its decorator, SCALE reads LIMIT; unused, UNUSED and the __main__ block
    # are not read, and target itself (recursive) is the function
    assert fn.support_names == ("Box", "LIMIT", "SCALE", "decorate", "helper")
    assert fn.program == (
        "import math\n\nLIMIT = 10\nSCALE = LIMIT * 2\ndef decorate(f):\n    return f\n"
        "@decorate\ndef helper(x):\n    return x * SCALE\n"
        "class Box:\n    def __init__(self, v):\n        self.v = v\n\n" + fn.source
    )
    assert fn.problem_description == "import math\n\ndef target(a):\n"  # the prompt is unchanged
    namespace: dict = {}
    exec(fn.program, namespace)  # the fixture above, not untrusted code
    assert namespace["target"](1).v == pytest.approx(20 + math.pi)


def test_a_function_that_uses_no_definition_runs_alone():
    fn = find_function(HELPERS, "decorate")
    assert fn.support == "" and fn.support_names == ()
    assert fn.program == "import math\n\n" + fn.source
    assert fn.program_with("def decorate(f):\n    return None\n") == "import math\n\ndef decorate(f):\n    return None\n"


def test_a_nested_function_carries_nothing_and_does_not_run():
    inner = find_function(SRC, "K.other.inner")
    assert inner.support == "" and inner.owner == "" and not inner.runs


ACCOUNT = '''import math
FEE = 1


def fee(amount):
    return FEE if amount else 0


@decorate
class Account:
    """A bank account."""
    currency: str = "EUR"

    def __init__(self, balance=0):
        self.balance = balance

    def deposit(self, amount: int) -> int:
        """Add amount; return the balance."""
        self.balance += amount
        return self.balance

    def size(self): return 1

    def withdraw(self, amount):
        """Take amount out; return the balance."""
        self.balance -= amount + fee(amount)
        return self.balance


class Other:
    class Inner:
        def deep(self):
            return 1
'''


def test_a_method_runs_in_its_class_with_what_the_class_uses():
    fn = find_function(ACCOUNT, "Account.withdraw")
    assert fn.runs and fn.is_method and fn.owner_line == 9 and fn.indent == "    "
    assert fn.support_names == ("FEE", "fee")  # read by the class's methods; `decorate` is not in the file
    assert fn.owner.startswith("@decorate\nclass Account:") and fn.owner.rstrip().endswith("return self.balance")
    assert fn.program == fn.imports + "\n" + fn.support + "\n" + fn.owner  # the class as in the file
    # another version of the method takes its place in the class, at the method's indentation
    other = fn.program_with("def withdraw(self, amount):\n    self.balance -= amount\n    return self.balance\n")
    assert "        self.balance -= amount\n        return self.balance\n" in other and "amount + fee(amount)" not in other
    assert other.count("def deposit") == 1 and other.count("def withdraw") == 1
    # a method of a nested class does not run (its class is not at module level)
    assert not find_function(ACCOUNT, "Other.Inner.deep").runs


def test_a_methods_problem_shows_its_class_without_the_neighbours_bodies():
    problem = find_function(ACCOUNT, "Account.withdraw").problem_description
    assert problem.startswith("import math\n\n@decorate\nclass Account:\n    \"\"\"A bank account.\"\"\"\n    currency: str = \"EUR\"\n")
    assert "    def __init__(self, balance=0):\n        self.balance = balance\n" in problem  # __init__ whole
    assert '    def deposit(self, amount: int) -> int:\n        """Add amount; return the balance."""\n' in problem
    assert "self.balance += amount" not in problem  # a neighbour's body is not shown
    assert "    def size(self):\n        ...\n" in problem  # a one-line def: its signature
    assert problem.endswith('    def withdraw(self, amount):\n        """Take amount out; return the balance."""\n')
    assert "amount + fee(amount)" not in problem  # nor the method's own body


def test_a_methods_answer_runs_in_the_files_class():
    from qualm.lang.python.source import method_source

    fn = find_function(ACCOUNT, "Account.withdraw")
    answer = fn.problem_description + "        self.balance -= amount\n        return self.balance\n"
    assert method_source(answer, "Account", "withdraw") == "def withdraw(self, amount):\n    \"\"\"Take amount out; return the balance.\"\"\"\n    self.balance -= amount\n    return self.balance\n"
    assert method_source("def broken(:", "Account", "withdraw") is None
    program = PYTHON.program_of_answer(fn)(answer)
    namespace: dict = {"decorate": lambda c: c}
    exec(program, namespace)  # the fixture above, not untrusted code
    account = namespace["Account"](10)
    assert account.deposit(5) == 15 and account.withdraw(3) == 12  # the file's deposit, the answer's withdraw
    assert PYTHON.program_of_answer(find_function(ACCOUNT, "fee")) is None  # a function's answer is its program


def test_a_whole_file_runs_with_each_functions_definitions_but_a_lens_listing_carries_none():
    # what `qualm assess FILE` and `qualm check --assess` run, against what a code lens lists
    runnable = {fn.name: fn.support_names for fn in PYTHON.runnable_functions(HELPERS)}
    assert runnable == {"unused": ("UNUSED",), "decorate": (), "helper": ("LIMIT", "SCALE", "decorate"), "Box.__init__": (), "target": ("Box", "LIMIT", "SCALE", "decorate", "helper")}
    assert all(fn.support == "" for fn in functions_in(HELPERS))


def test_qualm_check_reads_a_files_functions_with_their_definitions(tmp_path):
    from qualm.check.run import read_functions

    path = tmp_path / "m.py"
    path.write_text(HELPERS)
    functions, problem = read_functions(path, "m.py")
    assert problem == "" and next(fn for fn in functions if fn.name == "target").support_names == ("Box", "LIMIT", "SCALE", "decorate", "helper")


def test_a_methods_test_example_says_which_calls_take_arguments():
    def example(text: str, name: str) -> str:
        return find_function(text, name).test_example

    assert example(ACCOUNT, "Account.withdraw") == "obj = Account(); assert obj.withdraw(...) == ..."  # balance=0: none needed
    assert example(ACCOUNT, "Account.size") == "obj = Account(); assert obj.size() == ..."
    assert example("class S:\n    def __init__(self, xs):\n        self.xs = xs\n    def f(self, *, k):\n        return k\n", "S.f") == "obj = S(...); assert obj.f(...) == ..."
    assert example("class S:\n    @staticmethod\n    def f(a):\n        return a\n", "S.f") == "assert S.f(...) == ..."
    assert example("class S:\n    @classmethod\n    def f(cls):\n        return cls\n", "S.f") == "assert S.f() == ..."
    # no __init__: a plain class takes nothing; a dataclass or a subclass may
    assert example("class S:\n    def f(self):\n        return 1\n", "S.f") == "obj = S(); assert obj.f() == ..."
    assert example("@dataclass\nclass S:\n    x: int\n    def f(self):\n        return 1\n", "S.f") == "obj = S(...); assert obj.f() == ..."


def test_a_decorated_first_member_is_shown_once():
    text = "class S:\n    @staticmethod\n    def make():\n        return S()\n\n    def f(self):\n        return 1\n"
    problem = find_function(text, "S.f").problem_description
    assert problem.count("@staticmethod") == 1 and problem.startswith("class S:\n    @staticmethod\n    def make():\n        ...\n")


def test_a_methods_problem_shows_its_own_decorators():
    text = "class S:\n    def f(self):\n        return 1\n\n    @staticmethod\n    def make(n):\n        \"\"\"A new S.\"\"\"\n        return S()\n"
    assert find_function(text, "S.make").problem_description.endswith('\n\n    @staticmethod\n    def make(n):\n        """A new S."""\n')
    assert find_function(text, "S.f").decorators == ""
