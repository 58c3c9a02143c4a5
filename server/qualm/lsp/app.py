"""The language server assembled: a :class:`QualmServer` with every feature module registered."""

from __future__ import annotations

import logging

from pygls.exceptions import JsonRpcInvalidParams

from .features import assess, codelens, completion, documents, hover, lifecycle, regenerate
from .server import QualmServer

FEATURES = (lifecycle, documents, hover, codelens, assess, completion, regenerate)


def create_server() -> QualmServer:
    server = QualmServer()
    for feature in FEATURES:
        feature.register(server)
    return server


class AnsweredRefusals(logging.Filter):
    """A request qualm refuses on purpose (``JsonRpcInvalidParams``: no such document, a file that
    does not parse, no function there) is answered with its reason, and the client shows it. pygls
    also logs it with a traceback as if the server had failed; the log keeps one line instead, so a
    traceback in the server's output always means a fault."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, JsonRpcInvalidParams):
            record.msg, record.args, record.exc_info, record.exc_text = "refused a request: %s", (exc.message,), None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def serve() -> None:
    logging.getLogger("pygls.protocol.json_rpc").addFilter(AnsweredRefusals())
    create_server().start_io()
