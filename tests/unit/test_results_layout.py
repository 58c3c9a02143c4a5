"""results/ holds one folder per experiment: every folder directly under it has a README.md (the
question, the rule, the command, the commit and the outcome), no file is named by a relative time
("today", "before", "earlier": what they meant changes with every later run), and no code lives
there except the measured code listed below (the scripts that drove the lent GPU machines are in
scripts/gpu/). Reads the file tree only."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"

# Measurements running while this test was written: each has its rules.md (written before it
# measured) and gets its README.md, and names its files for good, with its outcome. Remove a folder
# from here once it has its README.
UNDER_WAY: set[str] = set()

# The only code allowed under results/: not scripts but the measured input itself, the hand-written
# classes `qualm assess` was run on (results/stateful-methods/README.md); renaming them would leave
# the recorded commands naming files that are not there.
MEASURED_CODE = {RESULTS / "stateful-methods"}

RELATIVE_TIME = re.compile(r"(?:^|[^a-z0-9])(today|before|earlier)(?:[^a-z0-9]|$)", re.I)


def experiment_folders() -> list[Path]:
    return sorted(p for p in RESULTS.iterdir() if p.is_dir())


def result_files() -> list[Path]:
    return sorted(p for p in RESULTS.rglob("*") if p.is_file() and not any(part in UNDER_WAY for part in p.relative_to(RESULTS).parts))


def test_every_experiment_folder_has_a_readme():
    folders = experiment_folders()
    assert len(folders) > 10
    for folder in folders:
        if folder.name in UNDER_WAY:
            assert (folder / "rules.md").is_file(), f"{folder.name}: under way, but no rules.md"
            continue
        assert (folder / "README.md").is_file(), f"results/{folder.name}/ has no README.md"


def test_no_file_is_named_by_a_relative_time():
    named = [str(p.relative_to(RESULTS)) for p in result_files() if RELATIVE_TIME.search(p.name)]
    assert not named, f"name these by what tells them apart (a date, a commit, a setting): {named}"


def test_no_code_outside_the_allowed_folders():
    code = [str(p.relative_to(RESULTS)) for p in result_files() if p.suffix in {".py", ".sh"} and not any(a in p.parents for a in MEASURED_CODE)]
    assert not code, f"code under results/: {code}"


def test_the_allow_lists_name_folders_that_exist():
    for folder in MEASURED_CODE:
        assert folder.is_dir(), folder


def test_the_relative_time_pattern():
    assert RELATIVE_TIME.search("fit_chance-before-asserts.txt")
    assert RELATIVE_TIME.search("assess-quality-tune-today.jsonl")
    assert RELATIVE_TIME.search("Earlier_machine.txt")
    assert not RELATIVE_TIME.search("beforehand-todays.txt")
    assert not RELATIVE_TIME.search("fit_chance-at-20e196e-no-asserts.txt")
