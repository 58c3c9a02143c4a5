"""Start-up, settings and shutdown: settings from initializationOptions and workspace/configuration
(section ``qualm``), reloaded on didChangeConfiguration; the model loads after initialize."""

from __future__ import annotations

from lsprotocol import types

from ..server import QualmServer


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
