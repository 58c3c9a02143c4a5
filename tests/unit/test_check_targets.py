"""`qualm check`'s choice of files: named files and folders, and the files changed against a git ref
(a real temporary git repository: modified, staged, committed on a branch, untracked, ignored,
deleted and renamed files)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from qualm.check import TargetError, choose_targets


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, capture_output=True, text=True, check=True)
    return out.stdout


def write(path: Path, text: str = "def f():\n    return 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def names(targets) -> list[str]:
    return [targets.display(p) for p in targets.files]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in ("pkg/kept.py", "pkg/edited.py", "pkg/gone.py", "pkg/moved.py", "docs/notes.md", "top.py"):
        write(root / name)
    write(root / ".gitignore", "build/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_named_files_and_folders_keep_only_files_of_qualms_languages(repo: Path):
    write(repo / ".venv/lib/site.py")
    write(repo / "pkg/__pycache__/cached.py")
    write(repo / "pkg/sub/deep.py")
    t = choose_targets(["pkg", "top.py", "docs/notes.md"], None, repo)
    assert names(t) == ["pkg/edited.py", "pkg/gone.py", "pkg/kept.py", "pkg/moved.py", "pkg/sub/deep.py", "top.py"]
    assert t.root == repo.resolve()
    assert t.ignored == (("docs/notes.md", "not a language qualm handles"),)


def test_a_path_named_twice_is_checked_once_and_relative_to_the_repository_root(repo: Path):
    t = choose_targets(["kept.py", "../pkg/kept.py", "."], None, repo / "pkg")
    assert names(t) == ["pkg/edited.py", "pkg/gone.py", "pkg/kept.py", "pkg/moved.py"]


def test_a_missing_path_is_a_usage_error(repo: Path):
    with pytest.raises(TargetError, match="nope.py: no such file or folder"):
        choose_targets(["nope.py"], None, repo)


def test_changed_against_head_has_edits_staged_or_not_and_untracked_files_but_no_deleted_ones(repo: Path):
    write(repo / "pkg/edited.py", "def f():\n    return 2\n")
    (repo / "pkg/gone.py").unlink()
    git(repo, "mv", "pkg/moved.py", "pkg/renamed.py")
    write(repo / "new.py")
    write(repo / "build/generated.py")  # ignored by .gitignore
    write(repo / "docs/notes.md", "changed, but not code\n")
    git(repo, "add", "docs/notes.md")
    t = choose_targets([], "HEAD", repo)
    assert names(t) == ["new.py", "pkg/edited.py", "pkg/renamed.py"]


def test_changed_against_a_branch_includes_its_commits_and_can_be_kept_to_named_paths(repo: Path):
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo / "pkg/kept.py", "def f():\n    return 3\n")
    write(repo / "top.py", "def g():\n    return 4\n")
    git(repo, "commit", "-q", "-am", "feature work")
    assert names(choose_targets([], "main", repo)) == ["pkg/kept.py", "top.py"]
    assert names(choose_targets(["pkg"], "main", repo)) == ["pkg/kept.py"]
    assert names(choose_targets([], "HEAD", repo)) == []  # committed: nothing differs from HEAD


def test_changed_with_a_bad_ref_or_outside_a_repository_is_a_usage_error(repo: Path, tmp_path: Path):
    with pytest.raises(TargetError, match="git diff --name-only failed"):
        choose_targets([], "no-such-branch", repo)
    with pytest.raises(TargetError, match="cannot start with '-'"):
        choose_targets([], "--output=/tmp/x", repo)
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(TargetError, match="not in a git work tree"):
        choose_targets([], "HEAD", outside)
