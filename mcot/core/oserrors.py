"""What the operating system refused, said in one line: a full disk, a read-only or forbidden folder, a missing file.

An OSError that reaches the command line (a write to a full disk, an `--out` on a read-only mount, a file-size
limit) is reported as one line naming the file (or, when the error names none, the folder the command writes)
and what to do, never as a traceback. Exit 2 when the command could not do what it was asked with what it was
given (a read-only or forbidden folder, a missing file, an input that is not a regular file); 1 when the machine
stopped it part-way (disk full, a quota, a file-size limit, an I/O error). Whatever was finished is kept: the
run directory's ledger drops a torn last line on the next start, and whole files are written atomically.

A ground-floor module: it imports no room, and the CLI calls it from its dispatch.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_MAX_PATH_CHARS = 200
_OUTPUT_OPTIONS = ("out", "run_dir")
"""The options naming what a command writes, in the order they are looked up."""

_USAGE = {
    errno.EROFS,
    errno.EACCES,
    errno.EPERM,
    errno.ENOENT,
    errno.ENOTDIR,
    errno.EISDIR,
    errno.ENAMETOOLONG,
    errno.ELOOP,
    errno.EEXIST,
}


def os_failure(exc: OSError, options: Mapping[str, Any] | None = None) -> tuple[str, int]:
    """Return (one-line reason, exit code) for an OSError; `options` are the command's, to name its output."""
    path = _path(exc.filename) or _output(options or {})
    where = f" {path}" if path else ""
    code = exc.errno
    if code == errno.ENOSPC:
        reason = f"no space left on the device{_of(path)}: free some space, then re-run the same command"
    elif code == errno.EDQUOT:
        reason = f"disk quota exceeded{_of(path)}: free some space, then re-run the same command"
    elif code == errno.EFBIG:
        reason = f"a file grew past the file-size limit (ulimit -f){_of(path)}: raise it, then re-run the command"
    elif code == errno.EROFS:
        reason = f"cannot write{where}: the file system is read-only (write elsewhere, or mount it read-write)"
    elif code in (errno.EACCES, errno.EPERM):
        reason = f"permission denied:{where or ' (no file named)'}; choose a folder you may write, or fix its modes"
    elif code == errno.ENOENT:
        reason = f"no such file or folder:{where or ' (no file named)'}"
    elif code == errno.EIO:
        reason = f"input/output error{_of(path)}: the disk or network file system failed; re-run the command"
    elif exc.errno is None:  # raised with a message of ours (an input that is not a regular file, …)
        reason = _one_line(str(exc)) or type(exc).__name__
    else:
        reason = f"{exc.strerror or type(exc).__name__}{_of(path)}"
    exit_code = 2 if code in _USAGE or code is None else 1
    return reason, exit_code


def _of(path: str) -> str:
    return f" (writing {path})" if path else ""


def _output(options: Mapping[str, Any]) -> str:
    for name in _OUTPUT_OPTIONS:
        value = options.get(name)
        if isinstance(value, (str, os.PathLike)) and str(value):
            return _path(value)
    return ""


def _path(value: Any) -> str:
    if value is None:
        return ""
    path = Path(os.fsdecode(value) if isinstance(value, (bytes, os.PathLike)) else str(value))
    if path.name.startswith(".") and path.parent != path:  # a temporary sibling (.NAME.<hex>.tmp): its folder
        path = path.parent
    text = _one_line(str(path))
    return text if len(text) <= _MAX_PATH_CHARS else text[: _MAX_PATH_CHARS - 1] + "…"


def _one_line(text: str) -> str:
    return " ".join(text.split())
