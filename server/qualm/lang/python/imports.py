"""Where a Python file's imports resolve: what the sandbox puts on the tests' module path.

A function's tests run its file's imports. Those that name the project's own modules (``from
helpers import clamp``, ``from .util import clamp``) resolve against the file's place on disk, as
they do when the project runs: its package's root, its own folder, its workspace. Installed
packages come from the interpreter that runs the tests (``functional.python``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..base import ImportRoots


def import_roots(path: Path, workspace: Sequence[Path] = ()) -> ImportRoots:
    """The folders ``path``'s imports resolve against, in the order they are searched: the folder above its
    outermost package (where ``pkg.sub.mod`` is found, as with ``python -m``), its own folder (a
    script's siblings, as with ``python file.py``) and the workspace folders that hold it (a
    project's top-level modules); and its package, where its relative imports resolve. A file
    that is not on disk has none."""
    try:
        path = path.resolve()
        if not path.is_file():
            return ImportRoots()
    except OSError:
        return ImportRoots()
    own = path.parent
    top, parts = own, []
    # A package is a folder with __init__.py whose name can be imported.
    while (top / "__init__.py").is_file() and top.name.isidentifier():
        parts.append(top.name)
        top = top.parent
    holders = [w.resolve() for w in workspace if _inside(own, w.resolve())]
    folders = dict.fromkeys(str(f) for f in (top, own, *holders))  # in order, once each
    return ImportRoots(tuple(folders), ".".join(reversed(parts)))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
