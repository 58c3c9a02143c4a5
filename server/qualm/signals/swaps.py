"""Token swaps: the model's likelier token put in at the code's least likely places, and whether the
code then passes more of the model's own tests.

A one-token slip (``<`` for ``<=``, ``- 1`` for ``+ 1``) is usually the least likely token of the
function to the model, and the token the model would have written there is usually the right one.
The lexical axis sees the first half (an unlikely token), the tests the second (a failing test),
but neither says whether the two are the same place. Here each of the ``positions`` least likely
code tokens of the body is replaced by each of the model's ``alternatives`` likelier tokens (the
editor's "use '…' instead" action, nothing else changed), every variant that still parses runs the
code's tests, and the signal is how much the best variant gains:

    pass(x)    = Σ_t w_t · [x passes t] / Σ_t w_t       (w_t: the share of the model's solutions
                                                         that pass test t, as functional_weighted;
                                                         equal weights where no solution passes any)
    swap_gain  = max over variants v of pass(v) − pass(code)

Positive: a likelier token at an unlikely place makes the code pass tests it fails (the hover names
the swap); negative: every swap breaks tests the code passes, as swaps of right code do; 0: none
changed a verdict. No swap to try (the model's own greedy code has no likelier token anywhere): no
value, which the chance of passing takes at its average. Larger means more doubt, as for every signal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..trace import Trace, surprisal


@dataclass(frozen=True)
class TokenSwap:
    rank: int  # 0: the least likely code token of the body
    start: int  # character offsets of the token in the function's source
    end: int
    token: str
    prob: float
    alternative: str
    alt_prob: float
    source: str  # the function's source with the token replaced


@dataclass(frozen=True)
class SwapOutcome:
    swap: TokenSwap
    statuses: tuple[str, ...]  # its verdict on each test
    passed: float  # pass(v): the weighted share of the tests it passes
    gain: float  # pass(v) - pass(code)

    def describe(self) -> str:
        """In words, for the hover and the terminal (the front end adds the line)."""
        s = self.swap
        return (
            f"'{s.alternative.strip()}' for '{s.token.strip()}' (p {s.alt_prob:.2f}, the code's {s.prob:.2f}): "
            f"passes {self.passed:.0%} of the tests ({self.gain:+.0%})"
        )

    def line_in(self, source: str, first_line: int) -> int:
        """The 1-based line of the swapped token in a document where ``source`` starts at ``first_line``."""
        return first_line + source.count("\n", 0, self.swap.start)


@dataclass(frozen=True)
class SwapResult:
    uncertainty: float | None  # swap_gain; None when there were no tests to run or no swap to try
    note: str
    outcomes: list[SwapOutcome]
    best: SwapOutcome | None  # the swap with the largest gain (None when none was tried)
    base: float | None = None  # pass(code)
    weighted: bool = False  # the tests were weighted by the model's solutions (else all count the same)
    seconds: float = 0.0

    def ranked(self) -> list[SwapOutcome]:
        """The swaps tried, the largest gain first (equal gains in the order tried)."""
        return sorted(self.outcomes, key=lambda o: -o.gain)


def token_swaps(
    trace: Trace,
    source: str,
    body_offset: int,
    positions: int,
    alternatives: int,
    floor: float,
    parses: Callable[[str], bool],
) -> list[TokenSwap]:
    """The variants to run: at each of the ``positions`` least likely code tokens of the body (a
    token of whitespace only is left out: its alternatives change layout, not code), up to
    ``alternatives`` of the model's tokens that are likelier than it and at least ``floor`` likely,
    taken in the model's order, each kept only where the variant still ``parses``. ``trace`` is the
    teacher-forced trace of ``source`` (its offsets are ``source``'s)."""
    body = [t for t in trace.tokens if t.start >= body_offset and t.scope == "code" and t.text.strip()]
    worst = sorted(body, key=lambda t: -surprisal(t.prob))[:positions]  # stable: ties keep the code's order
    out: list[TokenSwap] = []
    for rank, tok in enumerate(worst):
        kept = 0
        for alt in tok.alternatives:
            if kept >= alternatives:
                break
            if alt.token_id == tok.token_id or alt.text == tok.text or alt.prob < floor or alt.prob <= tok.prob:
                continue
            variant = source[: tok.start] + alt.text + source[tok.end :]
            if not parses(variant):
                continue
            out.append(TokenSwap(rank, tok.start, tok.end, tok.text, tok.prob, alt.text, alt.prob, variant))
            kept += 1
    return out


def usable_weights(n_tests: int, weights: Sequence[float] | None) -> list[float] | None:
    """``weights`` where they weigh ``n_tests`` tests and some test has weight; None: count them alike."""
    return list(weights) if weights is not None and len(weights) == n_tests and sum(weights) > 0 else None


def pass_share(statuses: Sequence[str], weights: Sequence[float] | None) -> float | None:
    """The weighted share of tests passed; equal weights where ``weights`` is None or sums to 0."""
    if not statuses:
        return None
    w = usable_weights(len(statuses), weights) or [1.0] * len(statuses)
    return sum(x for x, s in zip(w, statuses) if s == "passed") / sum(w)


def swap_gain(code: Sequence[str], swaps: Sequence[tuple[TokenSwap, Sequence[str]]], weights: Sequence[float] | None) -> SwapResult:
    """``code``: the code's test verdicts ("passed", "failed", ...); ``swaps``: each variant with its
    verdicts on the same tests; ``weights``: per test, the share of the model's solutions that pass it."""
    base = pass_share(code, weights)
    if base is None:
        return SwapResult(None, "no tests to run the swaps on", [], None)
    w = usable_weights(len(code), weights)
    weighted = w is not None
    outcomes = []
    for swap, statuses in swaps:
        passed = pass_share(statuses, w)
        if passed is not None:
            outcomes.append(SwapOutcome(swap, tuple(statuses), passed, passed - base))
    best = max(outcomes, key=lambda o: o.gain, default=None)  # the first of equal gains: the least likely place
    how = "weighted by the model's solutions" if weighted else "all tests counted alike"
    if best is None:
        # Nothing measured, not "no gain": the model's own greedy code never has a likelier token.
        note = "no likelier token at the code's least likely places (or none that parses): nothing to try"
        return SwapResult(None, note, [], None, base, weighted)
    if best.gain > 0:
        note = f"'{best.swap.alternative.strip()}' for '{best.swap.token.strip()}' passes {best.gain:.0%} more of the tests ({how})"
    elif best.gain == 0:
        note = f"none of {len(outcomes)} likelier tokens at the code's least likely places passes more of the tests ({how})"
    else:
        note = f"each of {len(outcomes)} likelier tokens at the code's least likely places passes fewer of the tests ({how})"
    return SwapResult(best.gain, note, outcomes, best, base, weighted)
