"""qualm: how far to trust code written by a language model.

The engine (this package minus ``qualm.lsp``) is a library: document -> prompt -> model trace ->
signals -> assessment. The language server and the CLI are thin layers over it.
"""

__version__ = "0.1.0"
