"""Start-up, settings and shutdown: settings from initializationOptions and workspace/configuration
(section ``qualm``, asked once per workspace folder with its ``scopeUri`` and once without a scope
for the window), asked again on didChangeConfiguration and when the workspace folders change; the
model loads after initialize; the client and server check each other's protocol version with
``qualm/handshake``."""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types

from ... import __version__
from ...lang import language_ids
from ...settings import Settings
from ..params import plain as _plain
from ..protocol import HANDSHAKE, PROTOCOL_VERSION
from ..server import QualmServer
from .diagnostics import publish


def handshake(client_version: Any, client_protocol: Any) -> dict[str, Any]:
    """What the server answers a client that names its version and protocol (and its process id:
    the client's log names it, and the editor's end-to-end tests kill that process)."""
    compatible = client_protocol == PROTOCOL_VERSION
    if compatible:
        message = f"qualm {__version__}, protocol {PROTOCOL_VERSION}"
    else:
        newer = "newer" if isinstance(client_protocol, int) and client_protocol > PROTOCOL_VERSION else "older"
        message = (
            f"the qualm extension ({client_version}, protocol {client_protocol}) is {newer} than the qualm server "
            f"({__version__}, protocol {PROTOCOL_VERSION}): install the same version of both (scripts/setup builds both from one checkout)"
        )
    return {"serverVersion": __version__, "protocol": PROTOCOL_VERSION, "languages": language_ids(), "compatible": compatible, "message": message, "pid": os.getpid()}


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
        before = ls.document_settings()
        reload = ls.apply_settings(params.settings) if params.settings else False
        await _reconfigure(ls, before, reload)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def on_folders(ls: QualmServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        # pygls has updated ls.workspace.folders before this runs: ask for the folders now open (a
        # removed folder's settings stay in use until the answer comes)
        await _reconfigure(ls, ls.document_settings(), False)

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


async def _reconfigure(ls: QualmServer, before: dict[str, Settings], reload: bool) -> None:
    """Ask for the settings again; publish the marks of every document whose settings changed since
    ``before`` (its folder's levels), and reload the model only when the model settings changed."""
    pulled = await _pull_configuration(ls)
    changed = [uri for uri, old in before.items() if uri in ls.docs and ls.settings_for(uri) != old]
    for uri in changed:
        if ls.docs[uri].marks:
            publish(ls, uri)
    if changed:
        caps = ls.client_capabilities.workspace
        if caps is not None and caps.code_lens is not None and caps.code_lens.refresh_support:
            ls.workspace_code_lens_refresh(None)  # the lens's headline may be another
    if reload or pulled:
        ls.log("qualm: model settings changed, reloading the model")
        ls.load_model_in_background()


async def _pull_configuration(ls: QualmServer) -> bool:
    """``workspace/configuration`` for ``qualm``: one item per workspace folder (its ``scopeUri``),
    then one without a scope (the window: the model, and documents outside every folder). True if
    the model must be reloaded."""
    caps = ls.client_capabilities.workspace
    if caps is None or not caps.configuration:
        return False
    folders = list(ls.workspace.folders.values())
    items = [types.ConfigurationItem(section="qualm", scope_uri=f.uri) for f in folders] + [types.ConfigurationItem(section="qualm")]
    try:
        result = await ls.workspace_configuration_async(types.ConfigurationParams(items=items))
    except Exception as exc:  # noqa: BLE001 - a client that cannot answer keeps the defaults
        ls.log(f"qualm: workspace/configuration failed: {exc}", types.MessageType.Warning)
        return False
    answers = list(result or [])
    answers += [None] * (len(items) - len(answers))
    return ls.apply_configuration(answers[len(folders)], {f.uri: (f.name, answers[i]) for i, f in enumerate(folders)})
