"""Per-token log-probabilities as each engine sends them, read into one neutral form.

The shapes (README "Team setup" names the versions they were read from):

* OpenAI legacy completions (llama-cpp-python's server, vLLM, SGLang, llama-server's /v1):
  ``choices[0].logprobs = {"tokens": [str], "token_logprobs": [float|None],
  "top_logprobs": [{str: float}|None], "text_offset": [int]}``; with ``echo`` the prompt's tokens
  come first (the very first has no log-probability).
* llama.cpp's native ``/completion`` with ``n_probs``: ``completion_probabilities = [{"id", "token",
  "bytes", "logprob", "top_logprobs": [{"id", "token", "bytes", "logprob"}]}]`` (token ids and raw
  bytes: a token that splits a UTF-8 character stays exact).
* vLLM's ``prompt_logprobs``: one entry per prompt token, ``None`` for the first, else
  ``{"<token id>": {"logprob", "rank", "decoded_token"}}`` holding the prompt's own token and the
  top N.
* SGLang's native ``/generate`` with ``return_logprob``: ``meta_info.input_token_logprobs =
  [[logprob, id, text]]`` and ``input_top_logprobs = [[[logprob, id, text]]]``, from
  ``logprob_start_len`` on; ``output_token_logprobs`` / ``output_top_logprobs`` for the answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...entropy_bounds import Estimator, entropy_bound
from ...trace import Alternative
from ..text_stream import TokenStats


class WireFormatError(ValueError):
    """A response did not have the shape its engine documents."""


@dataclass(frozen=True)
class WireToken:
    text: str
    raw: bytes  # the token's bytes where the engine gives them, else its text in UTF-8
    token_id: int  # -1: the engine names tokens by text only
    logprob: float | None  # of this token; None where the engine gives none (a prompt's first)
    top: tuple[tuple[str, float, int], ...]  # (text, logprob, id) of the most probable, best first


def _top(entries: Sequence[tuple[str, float, int]]) -> tuple[tuple[str, float, int], ...]:
    return tuple(sorted(((t, float(lp), i) for t, lp, i in entries if lp is not None and math.isfinite(float(lp))), key=lambda e: -e[1]))


def openai_tokens(logprobs: Any) -> list[WireToken]:
    """The legacy completions ``logprobs`` object (one stream chunk's or a whole answer's); also
    llama-server's /v1 form, ``{"content": [entries as in completion_probabilities]}``."""
    if not logprobs:
        return []
    if isinstance(logprobs, dict) and "content" in logprobs and "tokens" not in logprobs:
        return llama_server_tokens(logprobs["content"])
    try:
        tokens = logprobs["tokens"]
        lps = logprobs.get("token_logprobs") or [None] * len(tokens)
        tops = logprobs.get("top_logprobs") or [None] * len(tokens)
        out = []
        for text, lp, top in zip(tokens, lps, tops):
            text = _token_text(text)
            entries = [(_token_text(t), v, -1) for t, v in (top or {}).items()]
            out.append(WireToken(text, text.encode("utf-8"), -1, None if lp is None else float(lp), _top(entries)))
        return out
    except (KeyError, TypeError, AttributeError) as exc:
        raise WireFormatError(f"logprobs without tokens/token_logprobs/top_logprobs: {str(logprobs)[:200]}") from exc


def _token_text(t: str) -> str:
    # vLLM writes a token that is not whole UTF-8 as "bytes:\xe2\x80"; the text is then unknown
    return "" if isinstance(t, str) and t.startswith("bytes:") else str(t)


def llama_server_tokens(probabilities: Any) -> list[WireToken]:
    """llama.cpp's ``completion_probabilities`` (native /completion, ``n_probs``)."""
    out = []
    try:
        for p in probabilities or []:
            raw = bytes(p["bytes"]) if p.get("bytes") is not None else str(p.get("token", "")).encode("utf-8")
            entries = [(str(t.get("token", "")), t["logprob"], int(t.get("id", -1))) for t in p.get("top_logprobs", [])]
            out.append(WireToken(str(p.get("token", "")), raw, int(p.get("id", -1)), float(p["logprob"]), _top(entries)))
    except (KeyError, TypeError, ValueError) as exc:
        raise WireFormatError(f"completion_probabilities entry without id/token/logprob: {str(probabilities)[:200]}") from exc
    return out


def vllm_prompt_tokens(prompt_logprobs: Any, token_ids: Sequence[int], n: int) -> list[WireToken]:
    """vLLM's ``prompt_logprobs`` (asked with ``n``) for the prompt ``token_ids`` (the same length).
    Each entry holds the prompt's own token (always, with its rank: 1 is the most probable) and
    the top n; the own token counts among the alternatives only when its rank is within n."""
    if not isinstance(prompt_logprobs, list) or len(prompt_logprobs) != len(token_ids):
        raise WireFormatError(f"prompt_logprobs has {len(prompt_logprobs) if isinstance(prompt_logprobs, list) else 'no'} entries for {len(token_ids)} prompt tokens")
    out = []
    try:
        for entry, tid in zip(prompt_logprobs, token_ids):
            if entry is None:
                out.append(WireToken("", b"", tid, None, ()))
                continue
            own = entry.get(str(tid))
            extra = own is not None and int(own.get("rank") or 1) > n
            entries = [(str(v.get("decoded_token", "")), v["logprob"], int(k)) for k, v in entry.items() if not (extra and k == str(tid))]
            text = str(own.get("decoded_token", "")) if own else ""
            out.append(WireToken(text, text.encode("utf-8"), tid, float(own["logprob"]) if own else None, _top(entries)))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise WireFormatError(f"a prompt_logprobs entry is not {{id: {{logprob, rank, decoded_token}}}}: {str(prompt_logprobs)[:200]}") from exc
    return out


def sglang_tokens(token_logprobs: Any, top_logprobs: Any) -> list[WireToken]:
    """SGLang's ``*_token_logprobs`` and ``*_top_logprobs`` (``return_text_in_logprobs``)."""
    out = []
    try:
        tops = top_logprobs or [None] * len(token_logprobs)
        for own, top in zip(token_logprobs, tops):
            lp, tid, text = own[0], int(own[1]), str(own[2] if len(own) > 2 and own[2] is not None else "")
            entries = [(str(t[2] if len(t) > 2 and t[2] is not None else ""), t[0], int(t[1])) for t in (top or [])]
            out.append(WireToken(text, text.encode("utf-8"), tid, None if lp is None else float(lp), _top(entries)))
    except (TypeError, IndexError, ValueError) as exc:
        raise WireFormatError(f"SGLang logprobs are not [logprob, id, text] lists: {str(token_logprobs)[:200]}") from exc
    return out


def token_stats(token: WireToken, vocab_size: int, estimator: Estimator, top_alternatives: int) -> TokenStats:
    """A record's numbers from what the engine told: the chosen token's probability, the top
    alternatives, and the entropy's bounds and estimate from every probability known (the top N
    and the chosen token, which may lie outside them)."""
    known: dict[object, float] = {}
    for text, lp, tid in token.top:
        known.setdefault(tid if tid >= 0 else text, math.exp(lp))
    if token.logprob is not None:
        prob = math.exp(token.logprob)
    else:  # only a prompt's first token: look it up among the alternatives
        prob = next((math.exp(lp) for text, lp, tid in token.top if (tid >= 0 and tid == token.token_id) or text == token.text), 0.0)
    if token.logprob is not None:
        known.setdefault(token.token_id if token.token_id >= 0 else token.text, prob)
    bound = entropy_bound(list(known.values()), vocab_size, estimator)
    alternatives = tuple(Alternative(tid, text, math.exp(lp)) for text, lp, tid in token.top[:top_alternatives])
    return TokenStats(
        token_id=token.token_id,
        entropy=bound.estimate,
        prob=prob,
        alternatives=alternatives,
        entropy_bounds=(bound.lower, bound.upper),
        tail_mass=bound.tail_mass,
    )


def llama_cpp_python_echo_tokens(logprobs: Any, text: str) -> list[WireToken]:
    """The tokens of ``text`` (the end of the echoed prompt) from llama-cpp-python's ``echo`` with
    ``logprobs``, corrected for how 0.3.36 builds them (llama_cpp/llama.py, ``_create_completion``):
    entry i's ``top_logprobs`` is the distribution *after* token i (it pairs token i with the logits
    row that predicts token i + 1), its ``token_logprobs`` is token i's probability in that wrong
    row, and ``text_offset`` counts the prompt without its special tokens. So token i's numbers are
    read from entry i - 1's distribution, its own probability looked up there by its text, and the
    text's tokens are found by matching their strings at the end of the echo (the one generated
    token after it excluded). A token outside entry i - 1's top N has only an upper bound, the
    N-th probability (its surprisal a lower bound). Alternatives are keyed by their text decoded
    with errors ignored, so a token that is not whole UTF-8 can take a likely token's key and hide
    its probability: asking for more alternatives makes that likelier (measured: at N = 100 one of
    18 tokens of a test function lost its probability so, at N = 10 none), so the setting's N is
    asked, not more."""
    tokens = openai_tokens(logprobs)
    strings = [t.text for t in tokens]
    for end in (len(strings) - 1, len(strings)):  # the generated token, or none (end of text)
        acc, start = "", end
        while start > 0 and len(acc) < len(text):
            start -= 1
            acc = strings[start] + acc
        if acc == text and start > 0:
            break
    else:
        raise WireFormatError("the echoed tokens do not end with the scored text (a token spans the prompt's end)")
    out = []
    for i in range(start, end):
        # the distribution that predicted token i, without the keys of tokens that are not whole
        # UTF-8 (decoded with errors ignored, they collapse to "" or onto another token's text)
        dist = tuple(e for e in tokens[i - 1].top if e[0])
        own = next((lp for t, lp, _ in dist if t == strings[i]), None)
        if own is None and dist:
            own = dist[-1][1]  # below the N-th: its probability is at most that one's
        out.append(WireToken(strings[i], strings[i].encode("utf-8"), -1, own, dist))
    return out
