"""Whether a loaded model's file is still the one that was loaded.

llama.cpp memory-maps the GGUF: its weights are read from the file's pages while the model runs. A
file truncated or rewritten in place under a running server (a download started again, a copy
over it) turns the next read of a missing page into SIGBUS, and the process dies without a word.
The server compares the file with its stamp before each piece of model work and stops using a
model whose file changed, with a message that names the file and says what to do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileStamp:
    path: Path
    size: int
    mtime_ns: int
    inode: int

    @classmethod
    def of(cls, locator: str) -> FileStamp | None:
        """The stamp of a model's file; None where the model is not a local file (a served model)."""
        path = Path(locator) if locator else None
        try:
            st = os.stat(path) if path is not None and path.is_file() else None
        except OSError:
            st = None
        return None if st is None else cls(path, st.st_size, st.st_mtime_ns, st.st_ino)  # type: ignore[arg-type]

    def change(self) -> str | None:
        """What happened to the file since the stamp, in words; None where it is as it was."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return "it was deleted"
        except OSError as exc:
            return f"it cannot be read any more ({exc.strerror})"
        if st.st_ino != self.inode:
            return "another file replaced it"
        if st.st_size != self.size:
            return f"its size went from {self.size:,} to {st.st_size:,} bytes"
        if st.st_mtime_ns != self.mtime_ns:
            return "it was written to"
        return None


def changed_model_message(stamp: FileStamp, what: str) -> str:
    return (
        f"the model file {stamp.path} changed on disk while qualm had it loaded ({what}): qualm stopped using it. "
        "Restart qualm (qualm: Restart Language Server); if it then says the file is damaged, download it again (scripts/setup, or qualm.model.path for your own file)."
    )
