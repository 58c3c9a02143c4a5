"""Parameters of qualm's custom LSP methods, which pygls hands over untyped."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams


def plain(params: Any) -> dict:
    """Custom methods arrive as pygls's namedtuples (or dicts): make them plain dicts."""
    value = plain_value(params)
    return value if isinstance(value, dict) else {}


def plain_value(v: Any) -> Any:
    if hasattr(v, "_asdict"):
        return {k: plain_value(x) for k, x in v._asdict().items()}
    if isinstance(v, dict):
        return {k: plain_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain_value(x) for x in v]
    return v


def get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def invalid(message: str) -> Exception:
    return JsonRpcInvalidParams(message)
