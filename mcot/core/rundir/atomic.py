"""Files written the way a shared server needs: atomically (a temporary sibling, then a rename), with the umask's modes.

`tempfile.mkstemp` and `tempfile.mkdtemp` create 0600 files and 0700 folders whatever the umask, so whatever is
renamed into place from them stays unreadable to colleagues. Here temporary files are created with mode 0o666 and
folders with 0o777, and the kernel applies the process umask (and any default ACL of the folder) exactly as for
`open()` and `mkdir()`: 644 / 755 under the usual umask 022, 600 / 700 under 077. No umask is read or changed, so
this is safe in threads. This is the one atomic writer of mcot: every room imports it from `mcot.core.rundir`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import IO

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_ATTEMPTS = 100
_PREFIX_BYTES = 64
"""How much of a file's name its temporary sibling keeps: the sibling's name stays far below 255 bytes."""


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


def _sibling_prefix(path: Path) -> str:
    name = path.name.encode("utf-8", "surrogatepass")[:_PREFIX_BYTES].decode("utf-8", "ignore")
    return f".{name}."


def write_chunks_atomic(path: Path, chunks: Iterable[bytes]) -> Path:
    """Write the chunks to `path` through a temporary sibling and a rename (parents made as needed); return `path`.

    Readers see the old file or the new one, never a part; the file gets the umask's mode, as `open()` gives.
    The chunks are written as they come, so a large file never has to be held in memory whole.
    """
    path = Path(path)
    try:
        handle, temporary = temporary_file(path.parent, _sibling_prefix(path), ".tmp")
    except FileNotFoundError:  # the parents are made only when missing: a `mkdir` per file was a tenth of its cost
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = temporary_file(path.parent, _sibling_prefix(path), ".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            for chunk in chunks:
                stream.write(chunk)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to `path` atomically (see `write_chunks_atomic`); return `path`."""
    return write_chunks_atomic(path, (data,))


def write_text_atomic(path: Path, text: str) -> Path:
    """Write `text` as UTF-8 to `path` atomically (see `write_chunks_atomic`); return `path`."""
    return write_chunks_atomic(path, (text.encode("utf-8"),))


def copy_stream_atomic(path: Path, source: IO[bytes], chunk_bytes: int = 1 << 20) -> Path:
    """Copy what is left of an open binary stream to `path` atomically; return `path`."""
    return write_chunks_atomic(path, iter(lambda: source.read(chunk_bytes), b""))
