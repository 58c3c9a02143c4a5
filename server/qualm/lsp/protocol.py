"""qualm's own LSP messages: names, and the protocol version the extension checks at start-up.

Bump :data:`PROTOCOL_VERSION` whenever a message below changes shape; the extension sends its own
in ``qualm/handshake`` and says plainly when the two differ (README, "LSP messages").
"""

from __future__ import annotations

PROTOCOL_VERSION = 2  # 2: tokens carry text, offsets and level only; qualm/accepted carries the text, not a trace id

HANDSHAKE = "qualm/handshake"  # request: {clientVersion, protocol} -> {serverVersion, protocol, languages, compatible, message}
STATUS = "qualm/status"  # notification: {state, message, model}
MARKS = "qualm/marks"  # notification: {uri, version, marks: [{range, level}]}
COMPLETE = "qualm/complete"  # request, partial results through $/progress
ACCEPTED = "qualm/accepted"  # notification: {textDocument, range, text}
ASSESS = "qualm/assess"  # request with work-done progress
REGENERATE = "qualm/regenerate"  # request {data: a qualm code action's data, seed?}, partial results through $/progress

ASSESS_COMMAND = "qualm.assessFunction"
SCORE_COMMAND = "qualm.scoreDocument"
CLEAR_COMMAND = "qualm.clear"
STATUS_COMMAND = "qualm.status"
