"""Decoding that keeps to a given start: the indentation healed before a completion's cursor.

qualm's fill-in-the-middle prompt leaves the cursor line's indentation out, so that the model writes
it together with what follows, in the tokens it was trained on (``qualm.engine.infill``). Left free,
the model may then write less indentation than the line has (it closes the block and begins
something after it) or more; neither can be inserted at the cursor, and the stop rules cut such a
completion to nothing. Constrained, the model's text begins with exactly that indentation and then
something that is not more of it: the healing of guidance's "token healing", for whitespace.

The constraint is a mask over the vocabulary for the first steps only (while the text written so far
is still a start of the indentation), built from an index of the vocabulary's tokens that begin with
white space, made once per model (about 0.15 s for Qwen2.5-Coder's 151,936 tokens).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

BLANK = b" \t"


@dataclass(frozen=True)
class LeadIndex:
    """The vocabulary's tokens by the spaces and tabs they begin with."""

    blank_start: np.ndarray  # bool per token id: its text begins with a space or a tab
    pure: dict[bytes, np.ndarray]  # a text of only spaces and tabs → the token ids that are exactly it
    runs: dict[bytes, np.ndarray]  # the run of spaces and tabs a token begins with → ids of those with more text after it
    ends: np.ndarray  # the model's end tokens, always allowed: an empty completion stays the model's choice

    @classmethod
    def of(cls, pieces: Iterable[bytes], ends: Iterable[int] = ()) -> LeadIndex:
        pieces = list(pieces)
        blank = np.zeros(len(pieces), dtype=bool)
        pure: dict[bytes, list[int]] = defaultdict(list)
        runs: dict[bytes, list[int]] = defaultdict(list)
        for i, piece in enumerate(pieces):
            if piece[:1] not in (b" ", b"\t"):
                continue
            blank[i] = True
            rest = piece.lstrip(BLANK)
            (runs[piece[: len(piece) - len(rest)]] if rest else pure[piece]).append(i)
        as_arrays = lambda d: {k: np.array(v, dtype=np.int64) for k, v in d.items()}  # noqa: E731
        return cls(blank, as_arrays(pure), as_arrays(runs), np.array(sorted(set(ends)), dtype=np.int64))

    def allowed(self, lead: bytes, written: bytes) -> np.ndarray | None:
        """Which tokens may come next (a bool per token id) when the text must begin with ``lead``
        and has ``written`` so far; None where nothing is constrained any more. The model's end is
        always among them: forced on where it would end, it writes what the stop rules then cut
        (tried on the real-code tune part's empty completions)."""
        if not lead or len(written) > len(lead) or not lead.startswith(written):
            return None
        left = lead[len(written) :]
        if not left:  # the whole indentation is written: anything but more of it
            mask = ~self.blank_start
        else:
            mask = np.zeros(len(self.blank_start), dtype=bool)
            # tokens that are a start of what is left; all of it only where it ends in a tab: the
            # model's tokenizer writes a run of spaces before a word or a bracket as the run less
            # one space, then the word with that space (Qwen2's pre-tokenizer), so a token of every
            # space would leave the model where its training never was (it then mostly ends: the
            # tune part's completions came back empty where "            print(" was written)
            whole = 0 if left.endswith(b" ") else 1
            for n in range(1, len(left) + whole):
                ids = self.pure.get(left[:n])
                if ids is not None:
                    mask[ids] = True
            ids = self.runs.get(left)  # tokens that end it and go on with something else
            if ids is not None:
                mask[ids] = True
        mask[self.ends] = True
        return mask


def constrained(logits: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """``logits`` with the tokens outside ``mask`` made impossible (a copy; the same array where
    nothing is constrained)."""
    return logits if mask is None else np.where(mask, logits, np.float32(-np.inf)).astype(logits.dtype, copy=False)
