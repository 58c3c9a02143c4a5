"""Where an assessment's tests run: the sandbox's limits and interpreter from the settings, the
file's import roots, and whether the code can be loaded there at all."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from qualm_sandbox import SandboxConfig

from ..lang import ImportRoots, Language
from ..settings import FunctionalSettings

_LOAD = "the candidate failed to load: "  # the runner's message when the program itself raised


def roots_for(language: Language, path: str | Path | None, workspace: Sequence[Path] = ()) -> ImportRoots | None:
    """Where the imports of the file at ``path`` (None: no file) resolve, in ``language``'s way;
    None where its tests do not run or there is no file."""
    if path is None or language.import_roots is None:
        return None
    return language.import_roots(Path(path), workspace)


def sandbox_config(f: FunctionalSettings, roots: ImportRoots | None = None) -> SandboxConfig:
    """The sandbox for a function's tests: the settings' limits and interpreter, and the folders and
    package of its file (``roots``; None for code with no file)."""
    roots = roots or ImportRoots()
    return SandboxConfig(
        timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode,
        python=os.path.expanduser(f.python) if f.python else "",
        import_paths=roots.folders, package=roots.package,
    )


def unimportable(messages: Iterable[str], config: SandboxConfig) -> str | None:
    """Why the code cannot load where its tests run (``messages``: the runner's, one a test), when
    its imports are the reason: a module they name is not found there, a relative import has no
    package, or a module of the project raised as it was imported (it reads a file or a variable
    the sandbox does not have). That says nothing of the code, so its tests must not count. None
    when the code loads, or fails to load for a reason of its own, in its own text (a NameError, an
    import of a name a module lacks)."""
    error = next((m[len(_LOAD) :] for m in messages if m.startswith(_LOAD)), None)
    if error is None:
        return None
    if error.startswith("ModuleNotFoundError"):
        where = "" if config.import_paths else "the code is in no saved file, so its project's modules are not on the path; "
        if hidden := _unreadable_to_tests(config.import_paths):
            where = f"the tests run as nobody (qualm runs as root), who cannot read {', '.join(hidden)}; "
        return (
            f"its imports fail where the tests run ({error}); {where}the tests ran with {config.interpreter}: "
            "if the module is installed in the project's environment, set qualm.functional.python to its python"
        )
    if error.startswith("ImportError: attempted relative import"):
        return f"its imports fail where the tests run ({error}): a relative import needs the file saved inside its package"
    if " (while importing " in error and error.endswith(")"):
        # a module of the project raised as it was imported: it expects what the sandbox has not
        return (
            f"its imports fail where the tests run ({error}): the tests run in an empty working folder, "
            "with no network and only a minimal environment, and that module needs more as it loads"
        )
    return None


def _unreadable_to_tests(folders: Sequence[str]) -> list[str]:
    """The folders a test cannot read when qualm runs as root: its tests then run as nobody, for
    whom a folder must be readable and searchable by others."""
    if os.geteuid() != 0:
        return []
    found = []
    for folder in folders:
        try:
            if os.stat(folder).st_mode & 0o005 != 0o005:
                found.append(folder)
        except OSError:
            continue
    return found


def imports_from_project(program: str, folders: Sequence[str]) -> bool:
    """Whether ``program`` imports a module of the project: relatively, or by a name found in one
    of ``folders`` (a ``.py`` file or a package there). Its runs then depend on files the user may
    edit, so they are not kept between assessments. True for a program that does not parse."""
    if not folders:
        return False
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                return True
            names.add((node.module or "").split(".")[0])
        elif isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
    return any((Path(f) / f"{n}.py").is_file() or (Path(f) / n).is_dir() for f in folders for n in names if n)
