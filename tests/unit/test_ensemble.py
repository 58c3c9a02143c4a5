import json

import pytest

from qualm.calibration_file import Calibration, CalibrationError, find_calibration, new_calibration
from qualm.ensemble import ensemble
from qualm.model.identity import ModelIdentity


def cal(tmp_path=None):
    rows = [{"lexical": x, "algorithmic": x / 10, "functional": None if x == 3 else x / 5} for x in (1.0, 2.0, 3.0, 4.0)]
    return new_calibration("m", "abc", "test", rows, {"seed": 42})


def test_percentile_is_the_mid_rank():
    c = cal()
    assert c.percentile("lexical", 0.5) == 0.0
    assert c.percentile("lexical", 2.0) == pytest.approx((1 + 0.5) / 4)
    assert c.percentile("lexical", 2.5) == 0.5
    assert c.percentile("lexical", 9.0) == 1.0
    assert len(c.scores["functional"]) == 3  # rows without the axis are left out


def test_ensemble_reweights_over_available_axes():
    w = {"lexical": 0.2, "algorithmic": 0.4, "functional": 0.4}
    full = ensemble({"lexical": 1.0, "algorithmic": 0.5, "functional": 0.0}, w)
    assert full.score == pytest.approx(0.2 + 0.2)
    partial = ensemble({"lexical": 1.0, "algorithmic": 0.5, "functional": None}, w)
    assert partial.weights_used == pytest.approx({"lexical": 1 / 3, "algorithmic": 2 / 3})
    assert partial.score == pytest.approx(1 / 3 + 1 / 3)
    assert ensemble({"lexical": None}, w).score is None


def test_save_load_and_find(tmp_path):
    c = cal()
    c.save(tmp_path / "x.json")
    loaded = Calibration.load(tmp_path / "x.json")
    assert loaded.scores == c.scores and loaded.model_sha256 == "abc"
    assert find_calibration(ModelIdentity("gguf", "abc", "m"), None, tmp_path).path == str(tmp_path / "x.json")
    assert find_calibration(ModelIdentity("gguf", "other", "m"), None, tmp_path) is None
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CalibrationError):
        Calibration.load(tmp_path / "bad.json")
    data = json.loads((tmp_path / "x.json").read_text())
    data["version"] = 99
    (tmp_path / "v.json").write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="format"):
        Calibration.load(tmp_path / "v.json")


def test_differences_name_the_settings_a_reference_was_made_with():
    from qualm.engine.calibration import calibration_settings
    from qualm.settings import Settings

    c = new_calibration("m", "abc", "test", [], {"seed": 42, "n_plans": 10, "score_batch": 1})
    now = calibration_settings(Settings())
    assert now["score_batch"] == 64 and now["n_plans"] == 3
    # keys the file does not record (older files) are not compared
    assert c.differences(now) == ["n_plans 10, now 3", "score_batch 1, now 64"]
    assert new_calibration("m", "abc", "test", [], now).differences(now) == []
