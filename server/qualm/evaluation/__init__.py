"""qualm's evaluation harness: the paper's tables over HumanEval, MBPP, APPS and users' own problem
sets, every baseline, one cached pipeline (``qualm eval``)."""
