"""Atomic writes with the umask's modes, for the blob store.

The same rule as benchmarks/files.py (canvas imports none of the other packages, so it keeps this small copy):
the temporary file is created with mode 0o666 and the kernel applies the umask, whereas `tempfile.mkstemp`
would leave 0600 files that colleagues on a shared server cannot read.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_ATTEMPTS = 100


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to `path` through a temporary sibling (mode 0o666 less the umask) and a rename; return `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(_ATTEMPTS):
        temporary = path.with_name(f".{path.name[:12]}-{secrets.token_hex(6)}.tmp")
        try:
            handle = os.open(temporary, _FLAGS, 0o666)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(f"no free temporary file name in {path.parent} after {_ATTEMPTS} tries")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path
