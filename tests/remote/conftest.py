"""The openai backend on the module's ``server`` fixture (each test module starts its own server).

llama.cpp's llama-server is not built by scripts/setup: before the first test runs, pytest runs
scripts/build-llama-server when a selected test needs it (instant when cached), and only then. A test
needs it when its module imports ``llama_server`` or ``llama_server_binary`` from remote_servers;
such tests also get the ``llama_server`` marker, so ``-m "not llama_server"`` leaves them (and the
build) out. A failed build is not a skip: each of those tests errors with the reason."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import pytest
import remote_servers

from qualm.model import load_model

MARKER = "llama_server"
BUILD_FAILED = pytest.StashKey[str]()


@pytest.fixture(scope="module")
def remote(server, settings):
    backend = load_model(replace(settings.model, backend="openai", endpoint=server, top_logprobs=10))
    yield backend
    backend.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: starts llama.cpp's llama-server (pytest builds it first: scripts/build-llama-server)")


def _needs_llama_server(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    return any(getattr(module, name, None) is getattr(remote_servers, name) for name in ("llama_server", "llama_server_binary"))


@pytest.hookimpl(tryfirst=True)  # before -m deselects: the marker must be there by then
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _needs_llama_server(item):
            item.add_marker(MARKER)


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    if config.option.collectonly or (session.testsfailed and not config.option.continue_on_collection_errors):
        return  # nothing will run: no tests, or collection errors stop the session
    needing = [item for item in session.items if item.get_closest_marker(MARKER)]
    if not needing:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():  # the build's progress shows as it goes
        if reporter is not None:
            reporter.write_line(f"== llama-server: {len(needing)} selected tests start it; building it unless cached (scripts/build-llama-server)")
        try:
            remote_servers.build_llama_server()
        except RuntimeError as e:
            config.stash[BUILD_FAILED] = str(e)
            if reporter is not None:
                reporter.write_line(f"== {e}; the {len(needing)} tests that start it will error", red=True, bold=True)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    failed = item.config.stash.get(BUILD_FAILED, None)
    if failed and item.get_closest_marker(MARKER):
        pytest.fail(failed, pytrace=False)  # an error at setup, never a skip


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    failed = config.stash.get(BUILD_FAILED, None)
    if failed:
        terminalreporter.write_line(failed, red=True, bold=True)
