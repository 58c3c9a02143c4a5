#!/usr/bin/env python3
"""Write docs/settings.md, the settings reference, from package.json's contributes.configuration: one
section per titled group of the editor's settings UI, one table row per setting (type, default, the
values it allows, its description). Standard library only; the server never imports this.

    scripts/settings_reference.py            write docs/settings.md
    scripts/settings_reference.py --check    exit 1 if docs/settings.md differs from what it would write

tests/unit/test_settings_reference.py keeps docs/settings.md equal to what this writes.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "package.json"
REFERENCE = ROOT / "docs" / "settings.md"
COMMAND = "scripts/settings_reference.py"


def sections(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """contributes.configuration as a list of sections in the settings UI's order (one object, the
    older form, is one section)."""
    configuration = manifest["contributes"]["configuration"]
    if isinstance(configuration, dict):
        configuration = [configuration]
    return sorted(configuration, key=lambda s: s.get("order", len(configuration)))


def settings(section: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A section's settings in the settings UI's order: by `order`, then by name."""
    props = section.get("properties", {})
    return sorted(props.items(), key=lambda item: (item[1].get("order", float("inf")), item[0]))


def _markdown(text: str) -> str:
    """Settings-UI markdown as a table cell: `#qualm.x#` links as code, no line breaks, pipes escaped."""
    text = re.sub(r"`#([\w.]+)#`", r"`\1`", text)
    text = re.sub(r"#(qualm\.[\w.]+)#", r"`\1`", text)
    return text.replace("\r", "").replace("\n\n", "<br><br>").replace("\n", " ").replace("|", "\\|")


def _code(value: Any) -> str:
    return "`" + json.dumps(value, ensure_ascii=False, separators=(", ", ": ")) + "`"


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type", [])
    return list(t) if isinstance(t, list) else [t]


def type_of(schema: dict[str, Any]) -> str:
    names = []
    for t in _types(schema):
        if t == "array" and isinstance(schema.get("items"), dict) and "type" in schema["items"]:
            names.append(f"array of {' or '.join(_types(schema['items']))}")
        else:
            names.append(t)
    return " or ".join(names)


def _bounds(schema: dict[str, Any]) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"{low} to {high}"
    if low is not None:
        return f"≥ {low}"
    if high is not None:
        return f"≤ {high}"
    return ""


def _choices(schema: dict[str, Any]) -> str:
    values = schema.get("enum")
    if not values:
        return ""
    described = schema.get("enumDescriptions") or schema.get("markdownEnumDescriptions") or []
    if not described:
        return ", ".join(_code(v) for v in values)
    return "<br>".join(f"{_code(v)}: {_markdown(d)}" if d else _code(v) for v, d in zip(values, described + [""] * len(values)))


def allowed(schema: dict[str, Any]) -> str:
    """The values a setting allows beyond its type: its choices, its range, and for a list or an
    object those of its items."""
    parts = [p for p in (_choices(schema), _bounds(schema)) if p]
    items = schema.get("items")
    if isinstance(items, dict):
        each = "; ".join(p for p in (_choices(items), _bounds(items)) if p)
        count = ""
        if schema.get("minItems") is not None and schema.get("minItems") == schema.get("maxItems"):
            count = f"{schema['minItems']} items"
        elif schema.get("minItems") is not None or schema.get("maxItems") is not None:
            count = f"{schema.get('minItems', 0)} to {schema.get('maxItems', 'any number of')} items"
        if count:
            parts.append(count)
        if each:
            parts.append(f"each: {each}")
        if schema.get("uniqueItems"):
            parts.append("each once")
    for name, sub in (schema.get("properties") or {}).items():
        rule = "; ".join(p for p in (type_of(sub), _choices(sub), _bounds(sub)) if p)
        parts.append(f"`{name}`: {rule}")
    if schema.get("properties") and schema.get("additionalProperties") is False:
        parts.append("no other keys")
    return "<br>".join(parts)


# What a setting that an untrusted workspace may not set names (its `x-restricted` field, which
# extension/test/unit/restricted.test.ts keeps equal to restrictedConfigurations).
_RESTRICTED = {
    "program": "it names a program that qualm runs",
    "file": "it names a file that qualm loads",
    "server": "it names a server that qualm talks to",
    "secret": "it names where a secret comes from",
    "sandbox": "it decides how the tests of your code are isolated",
}


def description(schema: dict[str, Any]) -> str:
    text = schema.get("markdownDescription") or schema.get("description") or ""
    deprecated = schema.get("markdownDeprecationMessage") or schema.get("deprecationMessage")
    if deprecated:
        text = f"**Deprecated.** {deprecated} {text}".strip()
    restricted = schema.get("x-restricted")
    if restricted:
        why = _RESTRICTED.get(restricted, f"it names a {restricted}")
        text += f" **Restricted Mode:** {why}, so in an untrusted workspace only your user settings count (the workspace's value is ignored, and qualm says so)."
    return _markdown(text)


def _anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def render(manifest: dict[str, Any]) -> str:
    groups = sections(manifest)
    count = sum(len(s.get("properties", {})) for s in groups)
    lines = [
        "# Settings",
        "",
        f"<!-- Generated from package.json by {COMMAND}: do not edit by hand; change package.json and run it again. -->",
        "",
        f"Every setting of qualm's VS Code extension ({count}), in the groups of the editor's settings UI",
        "(*Extensions › qualm* in **Preferences: Open Settings (UI)**, or *Settings* in the menu of qualm's",
        "status bar item). A setting whose description begins *Server setting* is sent to the language server",
        "(`qualm serve`); the command line reads those and `qualm.check.*` from its settings file",
        "(`~/.config/qualm/settings.json` on Linux, or the file `QUALM_CONFIG` names), nested and without `qualm.`:",
        '`{"model": {"path": "..."}}`.',
        "",
    ]
    lines += [f"- [{s.get('title', 'qualm')}](#{_anchor(s.get('title', 'qualm'))}) ({len(s.get('properties', {}))})" for s in groups]
    for section in groups:
        lines += ["", f"## {section.get('title', 'qualm')}", "", "| Setting | Type | Default | Allowed | Description |", "| --- | --- | --- | --- | --- |"]
        for key, schema in settings(section):
            name = f"`{key}`" + (" (deprecated)" if schema.get("deprecationMessage") or schema.get("markdownDeprecationMessage") else "")
            default = _code(schema["default"]) if "default" in schema else ""
            lines.append(f"| {name} | {type_of(schema)} | {default} | {allowed(schema)} | {description(schema)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = render(json.loads(MANIFEST.read_text(encoding="utf-8")))
    if argv[1:] == ["--check"]:
        if REFERENCE.exists() and REFERENCE.read_text(encoding="utf-8") == text:
            return 0
        print(f"{REFERENCE.relative_to(ROOT)} differs from package.json: run {COMMAND}", file=sys.stderr)
        return 1
    if argv[1:]:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    REFERENCE.write_text(text, encoding="utf-8")
    print(f"wrote {REFERENCE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
