"""Which files ``qualm check`` looks at: named files and folders, or the files changed against a git ref.

Only files of a language qualm handles (``qualm.lang``, by suffix) are kept. Paths are shown and
reported relative to the root: the git work tree holding the current folder, else that folder (SARIF
locations are relative to it, which is what code scanning resolves against the checkout).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..lang import LANGUAGES

# Folders a walk never enters: tool state and environments, not the project's code.
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})


class TargetError(ValueError):
    """The files to check cannot be chosen: a path that does not exist, not a git work tree, a bad ref."""


@dataclass(frozen=True)
class Targets:
    root: Path  # absolute; locations are relative to it
    files: tuple[Path, ...]  # absolute, sorted, each once
    ignored: tuple[tuple[str, str], ...] = ()  # (path, why) of named files that are not checked

    def display(self, path: Path) -> str:
        return display_path(path, self.root)


def display_path(path: Path, root: Path) -> str:
    """A file's name in reports: relative to the root (POSIX separators), else its absolute path."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def handled(path: Path) -> bool:
    """Whether a language qualm knows reads files with this name."""
    return any(path.name.endswith(lang.file_suffixes) for lang in LANGUAGES.values())


def git_root(folder: Path) -> Path | None:
    """The git work tree holding ``folder``, or None outside one (or without git)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return Path(out.stdout.strip()).resolve() if out.returncode == 0 and out.stdout.strip() else None


def _git(root: Path, *args: str) -> list[str]:
    """NUL-separated names from a git command run in the root (-z: any file name survives)."""
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except OSError as exc:
        raise TargetError(f"--changed needs git: {exc}") from exc
    if out.returncode != 0:
        why = out.stderr.decode(errors="replace").strip().splitlines()
        raise TargetError(f"git {' '.join(args[:2])} failed: {why[-1] if why else f'exit code {out.returncode}'}")
    return [name for name in out.stdout.decode("utf-8", errors="surrogateescape").split("\0") if name]


def changed_files(root: Path, ref: str) -> list[Path]:
    """Files that differ from ``ref`` in the work tree (committed, staged or not) and untracked files
    that are not ignored; deleted files are left out (there is nothing left to check)."""
    if ref.startswith("-"):
        raise TargetError(f"--changed {ref}: a git ref cannot start with '-'")
    diff = _git(root, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", ref, "--")
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    paths = {(root / name).resolve() for name in (*diff, *untracked)}
    # a submodule or a file deleted since (it still shows in the diff as changed) is not a file to read
    return sorted(p for p in paths if p.is_file())


def files_under(folder: Path) -> list[Path]:
    """Every handled file below a folder, skipping hidden folders (.git, .venv, .tox) and tool state."""
    found: list[Path] = []
    for path in folder.rglob("*"):
        inside = path.relative_to(folder).parts[:-1]
        if any(part.startswith(".") or part in SKIPPED_FOLDERS for part in inside):
            continue
        if path.is_file() and handled(path):
            found.append(path.resolve())
    return found


def _inside(path: Path, folders: Sequence[Path]) -> bool:
    return any(path == f or f in path.parents for f in folders)


def choose_targets(paths: Sequence[str], changed: str | None, cwd: Path) -> Targets:
    """The files to check: ``paths`` (files, and folders walked for handled files); with ``changed``,
    the files changed against that git ref, kept to ``paths`` when some are named."""
    cwd = cwd.resolve()
    repo = git_root(cwd)
    root = repo or cwd
    named: list[Path] = []
    for p in paths:
        path = (cwd / p).resolve()
        if not path.exists():
            raise TargetError(f"{p}: no such file or folder")
        named.append(path)
    ignored: list[tuple[str, str]] = []
    if changed is not None:
        if repo is None:
            raise TargetError(f"--changed {changed}: {cwd} is not in a git work tree")
        files = [f for f in changed_files(repo, changed) if handled(f) and (not named or _inside(f, named))]
    else:
        found: set[Path] = set()
        for path in named:
            if path.is_dir():
                found.update(files_under(path))
            elif handled(path):
                found.add(path)
            else:
                ignored.append((display_path(path, root), "not a language qualm handles"))
        files = sorted(found)
    return Targets(root=root, files=tuple(files), ignored=tuple(ignored))
