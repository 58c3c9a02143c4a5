"""The VS Code settings schema (package.json) against the server's Settings: every server setting is
contributed with the server's default and a JSON type that the server accepts, and nothing else
under a server section is (the server rejects unknown keys). The settings come in titled sections
(contributes.configuration is a list), each setting in one."""

import json
import re
from dataclasses import asdict, fields, is_dataclass
from pathlib import Path

from qualm.backends import BACKENDS
from qualm.settings import CHOICES, LIMITS, Settings
from qualm.signals.lexical import ASSESS_SIGNALS, DERIVED, GATE_SCORES, SIGNAL_NAMES

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((ROOT / "package.json").read_text())
SECTIONS = MANIFEST["contributes"]["configuration"]
PROPS = {key: schema for section in SECTIONS for key, schema in section["properties"].items()}
SERVER_SECTIONS = [f.name for f in fields(Settings)]
# Renamed to snake_case; the old names stay declared, deprecated, and are still read by the extension.
RENAMED = {"qualm.inline.debounceMs": "qualm.inline.debounce_ms", "qualm.highlights.minimumLevel": "qualm.highlights.minimum_level"}


def test_the_settings_come_in_titled_ordered_sections_each_setting_in_one():
    assert isinstance(SECTIONS, list) and len(SECTIONS) > 1
    titles = [s["title"] for s in SECTIONS]
    assert all(titles) and len(set(titles)) == len(titles), titles
    assert sorted(s["order"] for s in SECTIONS) == list(range(1, len(SECTIONS) + 1))
    assert sum(len(s["properties"]) for s in SECTIONS) == len(PROPS), "a setting is in two sections"
    for section in SECTIONS:
        orders = [schema["order"] for schema in section["properties"].values()]
        assert sorted(orders) == list(range(1, len(orders) + 1)), section["title"]
    assert "qualm.trace.server" in SECTIONS[-1]["properties"] and SECTIONS[-1]["title"] == "Advanced"


def test_every_setting_name_is_snake_case_but_the_deprecated_old_names():
    for key in PROPS:
        if key in RENAMED:
            continue
        assert re.fullmatch(r"qualm(\.[a-z][a-z0-9_]*)+", key), f"{key} is not snake_case"


def test_the_old_names_are_declared_deprecated_beside_the_new_ones():
    advanced = next(s for s in SECTIONS if s["title"] == "Advanced")["properties"]
    for old, new in RENAMED.items():
        assert new in PROPS and "deprecationMessage" not in PROPS[new], new
        assert old in advanced, f"{old} is declared in Advanced"
        assert new in advanced[old]["deprecationMessage"] and f"#{new}#" in advanced[old]["markdownDeprecationMessage"], old
        same = ("type", "default", "minimum", "maximum", "enum")
        assert {k: advanced[old].get(k) for k in same} == {k: PROPS[new].get(k) for k in same}, old


def _server_settings():
    defaults = Settings()
    for section in fields(Settings):
        value = getattr(defaults, section.name)
        assert is_dataclass(value)
        for f in fields(value):
            yield f"qualm.{section.name}.{f.name}", getattr(value, f.name)


def _json_types(schema):
    t = schema["type"]
    return set(t if isinstance(t, list) else [t])


def test_every_server_setting_is_contributed_with_its_default_and_type():
    for key, default in _server_settings():
        assert key in PROPS, f"{key} is missing from package.json"
        schema = PROPS[key]
        assert schema.get("markdownDescription") or schema.get("description"), f"{key} has no description"
        expected = asdict(default) if is_dataclass(default) else list(default) if isinstance(default, tuple) else default
        assert schema["default"] == expected, f"{key}: package.json says {schema['default']!r}, the server {expected!r}"
        types = _json_types(schema)
        if default is None:
            assert "null" in types, key
        elif isinstance(default, bool):
            assert types == {"boolean"}, key
        elif isinstance(default, int):
            assert "integer" in types, key
        elif isinstance(default, float):
            assert "number" in types, key
        elif isinstance(default, str):
            assert "string" in types, key
        elif isinstance(default, tuple):
            assert types == {"array"} and schema["minItems"] == schema["maxItems"] == len(default), key
        elif is_dataclass(default):  # an object setting (ensemble.weights): exactly the server's keys
            assert types == {"object"} and schema.get("additionalProperties") is False, key
            assert set(schema["properties"]) == {f.name for f in fields(default)}, key


def test_nothing_under_a_server_section_is_unknown_to_the_server():
    known = {k for k, _ in _server_settings()}
    for key in PROPS:
        section = key.split(".")[1]
        if section in SERVER_SECTIONS:
            assert key in known, f"{key} is in package.json but the server does not know it"


def test_the_contributed_defaults_are_accepted_by_the_server():
    nested: dict = {}
    for key, schema in PROPS.items():
        _, section, *rest = key.split(".")
        if section in SERVER_SECTIONS:
            nested.setdefault(section, {})[rest[0]] = schema["default"]
    assert Settings.from_mapping(nested) == Settings()


def test_enums_match_what_the_server_accepts():
    assert set(PROPS["qualm.functional.sandbox_mode"]["enum"]) == {"auto", "bubblewrap", "limits"}
    assert set(PROPS["qualm.model.cpu_extra_buffers"]["enum"]) == {"auto", "on", "off"}
    assert set(PROPS["qualm.editor.diagnostic_level"]["enum"]) == {"low", "medium", "high"}
    for name, allowed in CHOICES.items():
        assert PROPS[f"qualm.{name}"]["enum"] == list(allowed), name
    assert PROPS["qualm.model.backend"]["enum"] == list(BACKENDS)


def test_the_settings_that_name_a_lexical_signal_offer_the_declared_ones():
    """A lexical signal is declared once (qualm.signals.lexical.SIGNALS); the settings whose choices
    are signals offer exactly the declared ones, and no other setting names one."""
    assert PROPS["qualm.lexical.assess_signal"]["enum"] == list(ASSESS_SIGNALS)
    assert PROPS["qualm.check.score"]["enum"] == list(GATE_SCORES)
    signals = {*SIGNAL_NAMES, *(s.name for s in DERIVED)}
    naming = {key for key, schema in PROPS.items() if signals & set(schema.get("enum", []))}
    assert naming == {"qualm.lexical.assess_signal", "qualm.check.score"}, naming


def test_bounds_match_what_the_server_accepts():
    # the editor's settings UI refuses what the server would refuse, and nothing more
    for key, _ in _server_settings():
        name = key.removeprefix("qualm.")
        schema = PROPS[key]
        if schema["type"] == "object":
            for prop, sub in schema["properties"].items():
                assert (sub.get("minimum"), sub.get("maximum")) == LIMITS.get(f"{name}.{prop}", (None, None)), f"{key}.{prop}"
            continue
        bounds = schema.get("items", schema) if schema["type"] == "array" else schema
        assert (bounds.get("minimum"), bounds.get("maximum")) == LIMITS.get(name, (None, None)), key


def test_every_menu_item_names_a_declared_command():
    # VS Code reports a menu item whose command is not in contributes.commands as an error in the
    # workbench; the server's own commands are registered by the language client and need no menu.
    manifest = json.loads((ROOT / "package.json").read_text())
    declared = {c["command"] for c in manifest["contributes"]["commands"]}
    named = {item["command"] for items in manifest["contributes"]["menus"].values() for item in items}
    assert named <= declared, sorted(named - declared)
