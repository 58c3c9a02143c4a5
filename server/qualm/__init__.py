"""qualm: how far to trust code written by a language model.

The engine (this package minus ``qualm.lsp``) is a library: document -> prompt -> model trace ->
signals -> assessment. The language server and the CLI are thin layers over it.
"""

import os
import sys
from importlib.metadata import distributions
from pathlib import Path


def _version() -> str:
    """qualm's version, from one place: pyproject.toml, as the installed metadata records it.

    Looked up beside this package first (a wheel's dist-info in the same site-packages), then along
    sys.path without the current folder: a lookup by name alone would let a checkout's qualm.egg-info
    in the current folder answer for another install (the engine's check ran there and read 0.1.0
    for 0.1.1). An editable install keeps its metadata in its environment's site-packages."""
    try:
        here = {"", ".", os.getcwd()}
    except OSError:  # the current folder was deleted
        here = {"", "."}
    paths = [str(Path(__file__).resolve().parent.parent), *(p for p in sys.path if p not in here)]
    for dist in distributions(path=paths):
        if dist.metadata["Name"] == "qualm":
            return dist.version
    return "0+unknown"  # the source tree on sys.path without an install


__version__ = _version()
