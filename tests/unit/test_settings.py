import pytest

from qualm.settings import Settings, SettingsError


def test_defaults_are_the_papers():
    s = Settings()
    assert s.lexical.top_k == 5 and s.generation.seed == 42 and s.generation.max_tokens == 1024
    assert s.model.path is None and s.model.n_gpu_layers == 0 and s.model.threads() >= 1


def test_from_mapping_merges_nested_sections():
    s = Settings.from_mapping({"model": {"path": "/m.gguf", "n_gpu_layers": -1}, "lexical": {"top_k": 3, "level_thresholds": [0.1, 0.2, 0.3]}})
    assert s.model.path == "/m.gguf" and s.model.n_gpu_layers == -1
    assert s.lexical.top_k == 3 and s.lexical.level_thresholds == (0.1, 0.2, 0.3)
    assert s.generation == Settings().generation


@pytest.mark.parametrize(
    "data, message",
    [
        ({"modle": {}}, "unknown setting qualm.modle"),
        ({"model": {"n_gpu_layers": "all"}}, "must be an integer"),
        ({"lexical": {"top_k": 2.5}}, "must be an integer"),
        ({"lexical": {"level_thresholds": [1, 2]}}, "list of 3"),
        ({"model": 3}, "must be an object"),
    ],
)
def test_bad_settings_are_named(data, message):
    with pytest.raises(SettingsError, match=message):
        Settings.from_mapping(data)
