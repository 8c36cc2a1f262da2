"""One writer per run directory: an exclusive lock on RUN/.mcot.lock, held for a command's life.

`run_lock(RUN, "mcot run")` takes an `flock` on the lock file, or refuses at once (RunInUseError, one line naming
the holder's pid, command and start time). The kernel releases the lock when the process ends in any way, a
crash or SIGKILL included, so a lock is never stale: a file left by a killed process is simply locked anew.
A command that returns removes the file (and the run directory, when it made it and nothing else was written
there). Within one process the lock is re-entrant (`mcot demo` runs, scores and views one run).
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mcot.core.rundir.clock import now_iso
from mcot.core.rundir.errors import RunDirError, RunInUseError
from mcot.core.rundir.layout import LOCK

try:
    import fcntl
except ImportError:  # not POSIX: no lock (one writer is then the user's to ensure)
    fcntl = None  # type: ignore[assignment]

_HELD: dict[str, RunLock] = {}
_GUARD = threading.Lock()
_ATTEMPTS = 20


@dataclass
class RunLock:
    """The lock of one run directory held by this process (`depth` counts re-entrant holds)."""

    root: Path
    command: str
    depth: int = 0
    _fd: int | None = field(default=None, repr=False)
    _made: list[Path] = field(default_factory=list, repr=False)

    @property
    def path(self) -> Path:
        """Return RUN/.mcot.lock."""
        return self.root / LOCK

    def acquire(self) -> None:
        """Take the lock (making the run directory if needed); raise RunInUseError when another process holds it."""
        self._made = _make_dirs(self.root)
        try:
            for _ in range(_ATTEMPTS):
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
                try:
                    if fcntl is not None:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = _holder(fd)
                    os.close(fd)
                    raise RunInUseError(f"{self.root} is in use by another mcot process ({holder})") from None
                except BaseException:
                    os.close(fd)
                    raise
                if _same_file(fd, self.path):
                    self._fd = fd
                    try:
                        _write_holder(fd, self.command)
                    except BaseException:  # a full disk: let go of the file made for it, and of its folders
                        self.release()
                        raise
                    return
                os.close(fd)  # the holder removed the file as we opened it: lock the new one
            raise RunDirError(f"cannot lock {self.root}: the lock file {self.path} keeps changing")
        except BaseException:  # an OSError (a full disk, a read-only folder) reaches the user as one line, exit 1
            self._remove_made()
            raise

    def release(self) -> None:
        """Remove the lock file and let the lock go; remove the run directory when this lock made it and it is empty."""
        if self._fd is None:
            return
        try:
            if _same_file(self._fd, self.path):
                self.path.unlink(missing_ok=True)
        except OSError:
            pass
        finally:
            os.close(self._fd)
            self._fd = None
        self._remove_made()

    def _remove_made(self) -> None:
        for folder in reversed(self._made):
            try:
                folder.rmdir()
            except OSError:
                break
        self._made = []


@contextmanager
def run_lock(root: Path, command: str) -> Iterator[RunLock]:
    """Hold RUN's lock for the body of a `with` (re-entrant in one process); refuse at once when another holds it."""
    key = os.path.realpath(root)
    with _GUARD:
        held = _HELD.get(key)
        if held is None:
            held = RunLock(Path(root), command)
            held.acquire()
            _HELD[key] = held
        held.depth += 1
    try:
        yield held
    finally:
        with _GUARD:
            held.depth -= 1
            if held.depth == 0:
                _HELD.pop(key, None)
                held.release()


def _make_dirs(root: Path) -> list[Path]:
    """Make `root` and its missing parents; return the folders made, outermost first."""
    missing: list[Path] = []
    for folder in (root, *root.parents):
        if folder.exists():
            break
        missing.append(folder)
    root.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))


def _same_file(fd: int, path: Path) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _write_holder(fd: int, command: str) -> None:
    info = {"pid": os.getpid(), "host": socket.gethostname(), "command": command, "since": now_iso()}
    data = (json.dumps(info) + "\n").encode("utf-8")
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def _holder(fd: int) -> str:
    """Return how the refusal names the holder: `pid N, mcot run since …` (what its lock file says)."""
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        info = {}
    if not isinstance(info, dict) or "pid" not in info:
        return "pid unknown"
    where = f" on {info['host']}" if info.get("host") and info.get("host") != socket.gethostname() else ""
    return f"pid {info['pid']}{where}, {info.get('command', 'mcot')} since {info.get('since', '?')}"
