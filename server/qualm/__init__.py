"""qualm: how far to trust code written by a language model.

The engine (this package minus ``qualm.lsp``) is a library: document -> prompt -> model trace ->
signals -> assessment. The language server and the CLI are thin layers over it.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    # one place for the version: pyproject.toml, read from the installed metadata (a wheel or `pip install -e`)
    __version__ = version("qualm")
except PackageNotFoundError:  # the source tree on sys.path without an install
    __version__ = "0+unknown"
