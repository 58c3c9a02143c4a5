"""Start-up, settings and shutdown: settings from initializationOptions and workspace/configuration
(section ``qualm``), reloaded on didChangeConfiguration; the model loads after initialize; the
client and server check each other's protocol version with ``qualm/handshake``."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ... import __version__
from ...lang import language_ids
from ..params import plain as _plain
from ..protocol import HANDSHAKE, PROTOCOL_VERSION
from ..server import QualmServer


def handshake(client_version: Any, client_protocol: Any) -> dict[str, Any]:
    """What the server answers a client that names its version and protocol."""
    compatible = client_protocol == PROTOCOL_VERSION
    if compatible:
        message = f"qualm {__version__}, protocol {PROTOCOL_VERSION}"
    else:
        newer = "newer" if isinstance(client_protocol, int) and client_protocol > PROTOCOL_VERSION else "older"
        message = (
            f"the qualm extension ({client_version}, protocol {client_protocol}) is {newer} than the qualm server "
            f"({__version__}, protocol {PROTOCOL_VERSION}): install the same version of both (scripts/setup builds both from one checkout)"
        )
    return {"serverVersion": __version__, "protocol": PROTOCOL_VERSION, "languages": language_ids(), "compatible": compatible, "message": message}


def register(server: QualmServer) -> None:
    @server.feature(types.INITIALIZE)
    def on_initialize(ls: QualmServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: QualmServer, params: types.InitializedParams) -> None:
        await _pull_configuration(ls)
        ls.load_model_in_background()  # never blocks initialize: status says loading, then ready

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: QualmServer, params: types.DidChangeConfigurationParams) -> None:
        reload = ls.apply_settings(params.settings) if params.settings else False
        reload = await _pull_configuration(ls) or reload
        if reload:
            ls.log("qualm: model settings changed, reloading the model")
            ls.load_model_in_background()

    @server.feature(HANDSHAKE)
    def on_handshake(ls: QualmServer, params: Any) -> dict[str, Any]:
        p = _plain(params)
        answer = handshake(p.get("clientVersion"), p.get("protocol"))
        if not answer["compatible"]:
            ls.log(f"qualm: {answer['message']}", types.MessageType.Error)
        return answer

    @server.feature(types.SHUTDOWN)
    def on_shutdown(ls: QualmServer, params: None) -> None:
        ls.worker.stop()


async def _pull_configuration(ls: QualmServer) -> bool:
    caps = ls.client_capabilities.workspace
    if caps is None or not caps.configuration:
        return False
    try:
        result = await ls.workspace_configuration_async(types.ConfigurationParams(items=[types.ConfigurationItem(section="qualm")]))
    except Exception as exc:  # noqa: BLE001 - a client that cannot answer keeps the defaults
        ls.log(f"qualm: workspace/configuration failed: {exc}", types.MessageType.Warning)
        return False
    return ls.apply_settings(result[0] if result else None)
