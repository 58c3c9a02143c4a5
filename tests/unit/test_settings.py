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
        ({"algorithmic": {"n_plans": 1}}, r"qualm.algorithmic.n_plans must be at least 2, got 1"),
        ({"algorithmic": {"top_p": 1.5}}, r"qualm.algorithmic.top_p must be between 0 and 1, got 1.5"),
        ({"functional": {"timeout": 0}}, r"qualm.functional.timeout must be at least 0.1"),
        ({"ensemble": {"weights": [0.2, -0.1, 0.4]}}, r"qualm.ensemble.weights.algorithmic must be at least 0, got -0.1"),
        ({"ensemble": {"weights": {"functional": -1}}}, r"qualm.ensemble.weights.functional must be at least 0, got -1"),
        ({"ensemble": {"weights": {"syntax": 1}}}, "unknown setting qualm.ensemble.weights.syntax"),
        ({"ensemble": {"weights": [0.2, 0.4]}}, "list of 3 numbers"),
        ({"model": {"n_ctx": None}}, "qualm.model.n_ctx cannot be null"),
        ({"ensemble": {"weights": None}}, "qualm.ensemble.weights cannot be null"),
        ({"model": {"backend": "vllm"}}, "qualm.model.backend must be one of llama_cpp, openai, scripted, got 'vllm'"),
        ({"ensemble": {"weights": [0, 0, 0]}}, "at least one weight must be above 0"),
        ({"lexical": {"level_thresholds": [1.0, 0.5, 2.0]}}, "must rise"),
        ({"functional": {"sandbox_mode": "docker"}}, "must be one of auto, bubblewrap, limits, got 'docker'"),
        ({"editor": {"diagnostic_level": "hi"}}, "must be one of low, medium, high"),
    ],
)
def test_bad_settings_are_named(data, message):
    with pytest.raises(SettingsError, match=message):
        Settings.from_mapping(data)


def test_user_settings_file(tmp_path, monkeypatch):
    from qualm.settings import load_user_settings

    path = tmp_path / "settings.json"
    monkeypatch.setenv("QUALM_CONFIG", str(path))
    assert load_user_settings() == Settings()  # no file: defaults
    path.write_text('{"model": {"path": "/models/other.gguf", "n_gpu_layers": -1}, "lexical": {"top_k": 3}}')
    s = load_user_settings()
    assert s.model.path == "/models/other.gguf" and s.model.n_gpu_layers == -1 and s.lexical.top_k == 3
    path.write_text('{"model": {"gpu": 1}}')
    with pytest.raises(SettingsError, match="settings.json: unknown setting qualm.model.gpu"):
        load_user_settings()
    path.write_text("{oops")
    with pytest.raises(SettingsError, match="not readable JSON"):
        load_user_settings()


def test_overrides_are_checked_too_and_unset_values_pass():
    with pytest.raises(SettingsError, match="n_tests must be at least 1"):
        Settings().with_overrides(functional={"n_tests": 0})
    assert Settings.from_mapping({"model": {"n_threads": None}}).model.n_threads is None
    assert Settings.from_mapping({"model": {"path": None}}).model.path is None
    assert Settings.from_mapping({"ensemble": {"calibration_file": None}}).ensemble.calibration_file is None


def test_ensemble_weights_by_axis_name_and_in_the_older_list_form():
    from qualm.settings import AxisWeights

    listed = Settings().with_overrides(ensemble={"weights": [0.2, 0.0, 0.4]}).ensemble.weights
    named = Settings.from_mapping({"ensemble": {"weights": {"lexical": 0.2, "algorithmic": 0, "functional": 0.4}}}).ensemble.weights
    assert listed == named == AxisWeights(0.2, 0.0, 0.4)
    assert named.as_dict() == {"lexical": 0.2, "algorithmic": 0.0, "functional": 0.4}
    # a partial mapping changes only the axes it names
    assert Settings.from_mapping({"ensemble": {"weights": {"algorithmic": 0}}}).ensemble.weights == AxisWeights(0.2, 0.0, 0.4)


def test_on_the_command_line_the_tests_run_with_the_activated_virtual_environment(tmp_path):
    from qualm.cli.common import tests_python

    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    assert tests_python("", {"VIRTUAL_ENV": str(tmp_path / "venv")}) == str(python)
    assert tests_python("/mine/python", {"VIRTUAL_ENV": str(tmp_path / "venv")}) == "/mine/python"  # the settings file wins
    assert tests_python("", {}) == ""  # qualm's own
    assert tests_python("", {"VIRTUAL_ENV": str(tmp_path / "gone")}) == ""
