"""The language server assembled: a :class:`QualmServer` with every feature module registered."""

from __future__ import annotations

from .features import assess, codelens, completion, documents, hover, lifecycle, regenerate
from .server import QualmServer

FEATURES = (lifecycle, documents, hover, codelens, assess, completion, regenerate)


def create_server() -> QualmServer:
    server = QualmServer()
    for feature in FEATURES:
        feature.register(server)
    return server


def serve() -> None:
    create_server().start_io()
