"""Every model qualm can fetch ships a calibration file with a chance of passing, found by the
model file's SHA-256 (issue 23: the default model and the 1.5B)."""

from __future__ import annotations

from qualm.calibration_file import SHIPPED_DIR, Calibration, find_calibration
from qualm.engine.calibration import calibration_settings
from qualm.model.files import KNOWN_MODELS
from qualm.model.identity import ModelIdentity
from qualm.settings import Settings


def test_each_known_model_has_its_calibration_with_a_pass_model(tmp_path):
    for known in KNOWN_MODELS.values():
        cal = find_calibration(ModelIdentity("gguf", known.sha256, known.display_name), None, tmp_path)
        assert cal is not None, f"no shipped calibration for {known.key}"
        assert cal.path == str(SHIPPED_DIR / f"{known.key}.json")
        assert cal.pass_model is not None and cal.pass_model.quality.get("auroc") is not None
        # made with the settings' defaults, so an assessment with them reports no difference
        assert cal.differences(calibration_settings(Settings())) == []


def test_shipped_files_all_belong_to_known_models():
    digests = {k.sha256 for k in KNOWN_MODELS.values()}
    for path in SHIPPED_DIR.glob("*.json"):
        assert Calibration.load(path).model_sha256 in digests, path.name
