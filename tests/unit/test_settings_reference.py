"""docs/settings.md is generated from package.json's contributes.configuration by
scripts/settings_reference.py: these tests keep the two equal, so a setting changed in package.json
cannot leave the reference behind."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ".venv/bin/python scripts/settings_reference.py"


def _generator():
    spec = importlib.util.spec_from_file_location("settings_reference", ROOT / "scripts" / "settings_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _manifest():
    return json.loads((ROOT / "package.json").read_text(encoding="utf-8"))


def test_docs_settings_md_is_what_the_generator_writes_from_package_json():
    expected = _generator().render(_manifest())
    actual = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert actual == expected, f"docs/settings.md differs from package.json's settings: regenerate it with `{COMMAND}` and commit it"


def test_every_section_and_setting_is_in_the_reference_once_in_the_settings_uis_order():
    generator = _generator()
    text = generator.render(_manifest())
    sections = generator.sections(_manifest())
    headings = [line.removeprefix("## ") for line in text.splitlines() if line.startswith("## ")]
    assert headings == [s["title"] for s in sections]
    rows = [line.split(" | ")[0].removeprefix("| ").split(" ")[0].strip("`") for line in text.splitlines() if line.startswith("| `qualm.")]
    assert rows == [key for s in sections for key, _ in generator.settings(s)]
    assert len(rows) == len(set(rows))


def test_a_row_shows_type_default_range_choices_and_deprecation():
    generator = _generator()
    manifest = {
        "contributes": {
            "configuration": [
                {
                    "title": "Later",
                    "order": 2,
                    "properties": {
                        "qualm.b.old_name": {
                            "type": "integer",
                            "default": 1,
                            "minimum": 0,
                            "maximum": 9,
                            "order": 2,
                            "description": "Old.",
                            "markdownDeprecationMessage": "Renamed to `#qualm.b.new_name#`.",
                        },
                        "qualm.b.choice": {"type": ["string", "null"], "default": None, "enum": ["x", "y"], "enumDescriptions": ["ex", "why | not"], "order": 1, "markdownDescription": "Pick\none."},
                    },
                },
                {
                    "title": "First",
                    "order": 1,
                    "properties": {"qualm.a.list": {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 3, "maxItems": 3, "default": [1, 2, 3], "description": "Three."}},
                },
            ]
        }
    }
    text = generator.render(manifest)
    assert text.index("## First") < text.index("## Later") < text.index("`qualm.b.choice`") < text.index("`qualm.b.old_name`")
    assert "| `qualm.a.list` | array of number | `[1, 2, 3]` | 3 items<br>each: ≥ 0 | Three. |" in text
    assert '| `qualm.b.choice` | string or null | `null` | `"x"`: ex<br>`"y"`: why \\| not | Pick one. |' in text
    assert "| `qualm.b.old_name` (deprecated) | integer | `1` | 0 to 9 | **Deprecated.** Renamed to `qualm.b.new_name`. Old. |" in text


def test_check_mode_says_how_to_regenerate(tmp_path, monkeypatch, capsys):
    generator = _generator()
    stale = tmp_path / "settings.md"
    stale.write_text("# Settings\n")
    monkeypatch.setattr(generator, "REFERENCE", stale)
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    assert generator.main(["settings_reference.py", "--check"]) == 1
    assert "run scripts/settings_reference.py" in capsys.readouterr().err
    assert generator.main(["settings_reference.py"]) == 0
    assert generator.main(["settings_reference.py", "--check"]) == 0
    assert stale.read_text(encoding="utf-8") == generator.render(_manifest())
