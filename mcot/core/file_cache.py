"""What a process made of a file (its image part, its decoded figure), kept while the file stays as it was.

Items share figures (GePBench asks about thirteen questions of each), and every pair used to read its images
again and redo the work on them. A file is looked up by what `os.stat` says of it (device, inode, size,
modification and change times), so a file written or replaced since is read again; a file whose reading fails is
never kept. Each use has its own `FileCache` with its own byte bound: `mcot.agents.image_cache` for the image
parts sent to models, `mcot.canvas` for the decoded figures a canvas opens.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")

_Key = tuple[str, bool, int, int, int, int, int]


class _Reading:
    """The lock of a file being read, and how many threads hold or wait for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting = 0


class FileCache(Generic[T]):
    """Values by file (and a flag saying which reading of it), least recently used dropped first once their
    `size`s pass `max_bytes`; thread-safe, and a file wanted by many threads at once is read by one of them while
    the others wait for its value."""

    def __init__(self, max_bytes: int, size: Callable[[T], int]) -> None:
        self.max_bytes = max_bytes
        self._size = size
        self._values: OrderedDict[_Key, tuple[T, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._reading: dict[_Key, _Reading] = {}

    def kept(self, path: Path, flag: bool = False) -> T | None:
        """Return the value kept for the file at `path` when the file is unchanged since it was read, else None
        (one `os.stat`, so a caller on the event loop can skip a trip to a thread)."""
        key = _key(path, flag)
        return None if key is None else self._kept_by(key)

    def get(self, path: Path, flag: bool, read: Callable[[Path, bool], T]) -> T:
        """Return the value of the file at `path`: the one kept when the file is unchanged, else `read(path, flag)`."""
        key = _key(path, flag)
        if key is None:  # missing, unreadable or not a regular file: `read` raises what it always has
            return read(path, flag)
        value = self._kept_by(key)
        if value is not None:
            return value
        with self._lock:
            reading = self._reading.setdefault(key, _Reading())
            reading.waiting += 1
        try:
            with reading.lock:  # one read of a file at a time: the pairs of a run's first wave share its figures
                value = self._kept_by(key)
                if value is None:
                    value = read(path, flag)
                    self._keep(key, value)
        finally:
            with self._lock:
                reading.waiting -= 1
                if not reading.waiting:
                    del self._reading[key]
        return value

    def _kept_by(self, key: _Key) -> T | None:
        # the value kept under `key`, made the most recently used; None when there is none
        with self._lock:
            kept = self._values.get(key)
            if kept is not None:
                self._values.move_to_end(key)
            return None if kept is None else kept[0]

    def _keep(self, key: _Key, value: T) -> None:
        size = self._size(value)
        if size > self.max_bytes:
            return
        with self._lock:
            if key not in self._values:
                self._values[key] = (value, size)
                self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped) = self._values.popitem(last=False)
                self._bytes -= dropped

    def __len__(self) -> int:
        return len(self._values)


def _key(path: Path, flag: bool) -> _Key | None:
    """Return what identifies the file at `path` as it is now, or None when it is no regular file."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    return (os.fspath(path), flag, status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns,
            status.st_ctime_ns)  # fmt: skip
