"""qualm's Python dependencies, locked in constraints.txt at the repository's root.

``scripts/setup`` installs qualm with ``pip install -c constraints.txt``, so a fresh machine gets the
versions the tests last passed with, not whatever is newest that day (a numpy or SciPy release can
change a fit's last digits, or whether an optimiser converges). The lock is made by uv's resolver
(``uv pip compile --universal``: one file, with markers, for every platform and Python >= 3.11, the
oldest Python the dev tools install on) from pyproject.toml's dependencies and its dev and eval extras.

    scripts/lock                            # make constraints.txt again after editing pyproject.toml
    scripts/lock --upgrade                  # also move every pin to the newest release that fits
    .venv/bin/python scripts/dependency_lock.py check   # is the lock made from today's pyproject.toml?

The lock's third line is a digest of the dependency lists it was made from; tests/unit/test_dependency_lock.py
fails when pyproject.toml's lists change without a new lock, and when the virtual environment holds a
version other than the locked one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "constraints.txt"
EXTRAS = ("dev", "eval")
LOCK_PYTHON = "3.11"
DIGEST_PREFIX = "# pyproject.toml dependencies sha256: "


def declared(pyproject: Path = PYPROJECT) -> dict:
    """What the lock is made from: the Python range, the dependencies and the locked extras."""
    project = tomllib.loads(pyproject.read_text())["project"]
    extras = project.get("optional-dependencies", {})
    return {"requires-python": project.get("requires-python"), "dependencies": project.get("dependencies", []), "extras": {name: extras.get(name, []) for name in EXTRAS}}


def digest(pyproject: Path = PYPROJECT) -> str:
    return hashlib.sha256(json.dumps(declared(pyproject), sort_keys=True).encode()).hexdigest()


def recorded_digest(lock: Path = LOCK) -> str | None:
    for line in lock.read_text().splitlines()[:10]:
        if line.startswith(DIGEST_PREFIX):
            return line.removeprefix(DIGEST_PREFIX).strip()
    return None


def write(upgrade: bool) -> None:
    """Resolve with uv (the dev extra installs it) and write the lock with its header."""
    uv = Path(sys.executable).with_name("uv")
    command = [str(uv) if uv.exists() else "uv", "pip", "compile", "pyproject.toml", *(f"--extra={e}" for e in EXTRAS), "--universal", f"--python-version={LOCK_PYTHON}", "--quiet"]
    if upgrade:
        command.append("--upgrade")
    elif LOCK.exists():
        command.append(f"--constraints={LOCK.name}")  # keep today's pins where they still fit
    resolved = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    header = [
        "# qualm's Python dependencies, locked: scripts/setup installs with `pip install -c constraints.txt`.",
        "# Made by scripts/lock from pyproject.toml (its dependencies and the dev and eval extras); do not edit.",
        DIGEST_PREFIX + digest(),
    ]
    LOCK.write_text("\n".join(header) + "\n" + resolved)
    print(f"wrote {LOCK.relative_to(ROOT)}: {sum(1 for line in resolved.splitlines() if line and not line.startswith(' ') and not line.startswith('#'))} pins")


def check() -> int:
    if not LOCK.exists():
        print("constraints.txt is missing: run scripts/lock", file=sys.stderr)
        return 1
    if recorded_digest() != digest():
        print("pyproject.toml's dependencies changed since constraints.txt was made: run scripts/lock", file=sys.stderr)
        return 1
    print("constraints.txt is made from today's pyproject.toml")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="is the lock made from today's pyproject.toml?")
    w = sub.add_parser("write", help="make constraints.txt again")
    w.add_argument("--upgrade", action="store_true", help="move every pin to the newest release that fits")
    args = parser.parse_args()
    if args.command == "check":
        return check()
    write(args.upgrade)
    return 0


if __name__ == "__main__":
    sys.exit(main())
