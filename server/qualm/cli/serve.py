"""``qualm serve``: the language server over stdio."""

from __future__ import annotations

import faulthandler
import logging

import typer


def serve(
    stdio: bool = typer.Option(True, "--stdio", help="Talk LSP over stdin/stdout (the only transport; clients such as vscode-languageclient pass it)."),
) -> None:
    """Run the language server over stdio (for VS Code, Neovim or any LSP client)."""
    from ..lsp.app import serve as run_server  # noqa: PLC0415 - pygls loads only for this command

    logging.basicConfig(level=logging.WARNING)  # stdout is the protocol: logs go to stderr
    # A fatal signal (SIGBUS from a model file cut on disk mid-read, SIGSEGV in native code) leaves
    # its Python stack on stderr, which the editor's crash notification quotes.
    faulthandler.enable()
    run_server()
