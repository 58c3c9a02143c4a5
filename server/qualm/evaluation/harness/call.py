# Runs inside the sandbox, in each "call" test of an official label, in the candidate's namespace
# (qualm.evaluation.labels reads this file as text and sends it with the test; it is never
# imported as part of qualm).

import json as _qualm_json

def _qualm_call(name, args, expected):
    space = globals()
    solution = space.get("Solution")
    if isinstance(solution, type) and hasattr(solution, name):
        fn = getattr(solution(), name)
    else:
        fn = space.get(name)
    if not callable(fn):
        raise NameError(f"the program defines no function {name!r} (nor Solution.{name})")

    def plain(value):  # JSON has no tuples
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value

    got = plain(fn(*args))
    ok = got == expected or (isinstance(expected, list) and len(expected) == 1 and got == expected[0])
    shown = repr(got)
    assert ok, f"{name}(...) returned {shown[:160]}, expected {repr(expected)[:160]}"
