"""constraints.txt, the lock of qualm's Python dependencies (scripts/dependency_lock.py): made from
today's pyproject.toml, pinning every declared dependency within its range, and what the virtual
environment the tests run in really holds (scripts/setup installs with it)."""

from __future__ import annotations

import importlib.util
import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("dependency_lock", ROOT / "scripts" / "dependency_lock.py")
lock = importlib.util.module_from_spec(spec)
sys.modules["dependency_lock"] = lock
spec.loader.exec_module(lock)


def pins() -> list[Requirement]:
    lines = [line.strip() for line in lock.LOCK.read_text().splitlines()]
    return [Requirement(line) for line in lines if line and not line.startswith("#")]


def applying(requirements: list[Requirement]) -> dict[str, str]:
    """Name -> version of the pins whose markers hold on this machine."""
    env = default_environment()
    out = {}
    for r in requirements:
        if r.marker is None or r.marker.evaluate(env):
            (version,) = [s.version for s in r.specifier]
            out[canonicalize_name(r.name)] = version
    return out


def test_the_lock_is_made_from_today_s_pyproject():
    assert lock.recorded_digest() == lock.digest(), "pyproject.toml's dependencies changed since constraints.txt was made: run scripts/lock"


def test_the_digest_follows_the_dependency_lists(tmp_path):
    text = (ROOT / "pyproject.toml").read_text()
    edited = tmp_path / "pyproject.toml"
    edited.write_text(text.replace('"numpy>=1.24",', '"numpy>=1.25",'))
    assert lock.digest(edited) != lock.digest()
    edited.write_text(text.replace("[tool.ruff]", "[tool.ruff]\n# a comment changes no dependency"))
    assert lock.digest(edited) == lock.digest()


def test_every_pin_is_exact_and_every_declared_dependency_is_pinned_within_its_range():
    requirements = pins()
    assert all(len(r.specifier) == 1 and next(iter(r.specifier)).operator == "==" for r in requirements)
    assert all(not r.extras for r in requirements)  # pip refuses extras in a constraints file
    here = applying(requirements)
    declared = lock.declared()
    for line in [*declared["dependencies"], *(d for extra in declared["extras"].values() for d in extra)]:
        wanted = Requirement(line)
        name = canonicalize_name(wanted.name)
        assert name in here, f"{wanted.name} is declared in pyproject.toml but not locked"
        assert wanted.specifier.contains(here[name], prereleases=True), f"{wanted.name}: locked {here[name]}, declared {wanted.specifier}"


def test_the_environment_holds_the_locked_versions():
    """scripts/setup installed with the lock: every locked package present here has its locked version."""
    here = applying(pins())
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    wrong = {name: (installed[name], version) for name, version in here.items() if name in installed and installed[name] != version}
    assert not wrong, f"installed, locked: {wrong}; run scripts/setup"
    assert len(set(here) & set(installed)) >= 40  # the lock's packages really are this environment's


def test_the_setup_installs_with_the_lock():
    setup = (ROOT / "scripts" / "setup").read_text()
    assert re.search(r'pip install -c "\$ROOT/constraints.txt" -e "\$ROOT\[dev,eval\]"', setup)
