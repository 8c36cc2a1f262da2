"""Files written the way a shared server needs: atomically (a temporary sibling, then a rename), with the umask's modes.

`tempfile.mkstemp` and `tempfile.mkdtemp` create 0600 files and 0700 folders whatever the umask, so whatever is
renamed into place from them stays unreadable to colleagues. Here temporary files are created with mode 0o666 and
folders with 0o777, and the kernel applies the process umask (and any default ACL of the folder) exactly as for
`open()` and `mkdir()`: 644 / 755 under the usual umask 022, 600 / 700 under 077. No umask is read or changed, so
this is safe in threads.

This is the lowest package that eval, agents and mcot all may import; `canvas` (which imports nothing of the
others) keeps its own copy of `write_bytes_atomic` in canvas/_files.py.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_ATTEMPTS = 100


def _fresh(directory: Path, prefix: str, suffix: str) -> Path:
    return Path(directory) / f"{prefix}{secrets.token_hex(6)}{suffix}"


def temporary_file(directory: Path, prefix: str = ".tmp.", suffix: str = "") -> tuple[int, Path]:
    """Return (descriptor open for writing, path) of a new empty file in `directory`, mode 0o666 less the umask."""
    for _ in range(_ATTEMPTS):
        path = _fresh(directory, prefix, suffix)
        try:
            return os.open(path, _FLAGS, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {directory} after {_ATTEMPTS} tries")


def temporary_dir(directory: Path, prefix: str = ".tmp.") -> Path:
    """Return a new empty folder in `directory`, mode 0o777 less the umask (unlike tempfile.mkdtemp's 0o700)."""
    for _ in range(_ATTEMPTS):
        path = _fresh(directory, prefix, "")
        try:
            os.mkdir(path, 0o777)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"no free temporary folder name in {directory} after {_ATTEMPTS} tries")


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to `path` through a temporary sibling and a rename (parents made as needed); return `path`.

    Readers see the old file or the new one, never a part; the file gets the umask's mode, as `open()` gives.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = temporary_file(path.parent, f".{path.name}.", ".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    """Write `text` as UTF-8 to `path` atomically (see `write_bytes_atomic`); return `path`."""
    return write_bytes_atomic(path, text.encode("utf-8"))
