"""A cancel token as a sandbox run's should_stop: cancelled, or out of time (on a fake clock, so
how fast the machine is does not matter)."""

from __future__ import annotations

import types

from qualm.model import CancelToken
from qualm.model import backend as backend_module


def test_or_after_stops_on_cancel_or_when_the_time_is_up(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(backend_module, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    token = CancelToken()
    soon = token.or_after(0.05)
    now[0] += 0.02
    later = token.or_after(60)  # from its own start, 0.02 s after the first
    assert not soon() and not later()
    now[0] += 0.04  # 0.06 s after the first start: only the first is out of time
    assert soon() and not later()
    now[0] += 59.0  # 59.04 s after the second's start
    assert not later()
    child = CancelToken(token)
    stop = child.or_after(60)
    token.cancel()  # a parent's cancel reaches the child's stop
    assert later() and stop()
