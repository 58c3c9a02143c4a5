"""Three real fill-in-the-middle clients' post-processing, re-implemented from their own sources so
that a benchmark can apply them to the same raw model output as qualm.

* ``benchmarks.completion.peers.llama_vscode``: llama.vscode (and llama.vim) with llama-server's
  ``/infill`` (``n_indent``),
* ``benchmarks.completion.peers.continue_dev``: Continue's tab autocomplete (core and VS Code),
* ``benchmarks.completion.peers.tabby``: Tabby's agent and server.

Each module has ``finish(raw, ctx) -> PeerResult``: ``raw`` is the model's whole greedy output (to its
end-of-middle token or the benchmark's token cap; a client that stops early truncates this same
stream, so its streaming filters are functions of the whole text), ``ctx`` the document around the
cursor, and the result what the client inserts (``""`` for nothing), the rule that cut or dropped it,
and how many characters after the cursor its edit replaces. Each also has ``own_prompt(prefix,
suffix, filename, language) -> (prefix, suffix)``: the prefix and suffix that client would put in its
FIM prompt, with its default windows; its docstring says what is left out. The repositories, files
and commits each port was read from are in its docstring; the tests are
``tests/unit/test_peer_rules.py``.
"""

from benchmarks.completion.peers.common import PeerContext, PeerResult

__all__ = ["PeerContext", "PeerResult"]
