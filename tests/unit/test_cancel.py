"""A cancel token as a sandbox run's should_stop: cancelled, or out of time."""

from __future__ import annotations

import time

from qualm.model import CancelToken


def test_or_after_stops_on_cancel_or_when_the_time_is_up():
    token = CancelToken()
    soon, later = token.or_after(0.05), token.or_after(60)
    assert not soon() and not later()
    time.sleep(0.1)
    assert soon() and not later()  # each from its own start
    child = CancelToken(token)
    stop = child.or_after(60)
    token.cancel()  # a parent's cancel reaches the child's stop
    assert later() and stop()
