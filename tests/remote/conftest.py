"""The openai backend on the module's ``server`` fixture (each test module starts its own server)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from qualm.model import load_model


@pytest.fixture(scope="module")
def remote(server, settings):
    backend = load_model(replace(settings.model, backend="openai", endpoint=server, top_logprobs=10))
    yield backend
    backend.close()
