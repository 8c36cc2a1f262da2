"""The item images a process has read and checked, kept while their files stay as they were.

Items share figures (GePBench asks about thirteen questions of each), and every pair used to read its images
again, check them (a JPEG entropy-decoded at an eighth of its size), hash them and base64 them: about half a
millisecond a call. A file is looked up by what `os.stat` says of it (device, inode, size, modification and
change times), so a file written or replaced since is read and checked again; a file that fails its check is
never kept.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from mcot.agents.messages import ImagePart

MAX_BYTES = 64 * 1024 * 1024
"""The image bytes kept at most (their base64 text, made at the first send, adds a third again)."""

_Key = tuple[str, bool, int, int, int, int, int]


class _Reading:
    """The lock of a file being read, and how many threads hold or wait for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting = 0


class ImagePartCache:
    """Image parts by file, least recently used dropped first once their bytes pass `max_bytes`; thread-safe, and
    a file wanted by many threads at once is read by one of them while the others wait for its part."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._parts: OrderedDict[_Key, ImagePart] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._reading: dict[_Key, _Reading] = {}

    def kept(self, path: Path, canvas: bool) -> ImagePart | None:
        """Return the part kept for the file at `path` when the file is unchanged since it was read, else None
        (one `os.stat`, so a caller on the event loop can skip a trip to a thread)."""
        key = _key(path, canvas)
        return None if key is None else self._kept_by(key)

    def get(self, path: Path, canvas: bool, read: Callable[[Path, bool], ImagePart]) -> ImagePart:
        """Return the part of the file at `path`: the one kept when the file is unchanged, else `read(path, canvas)`."""
        key = _key(path, canvas)
        if key is None:  # missing, unreadable or not a regular file: `read` raises what it always has
            return read(path, canvas)
        part = self._kept_by(key)
        if part is not None:
            return part
        with self._lock:
            reading = self._reading.setdefault(key, _Reading())
            reading.waiting += 1
        try:
            with reading.lock:  # one read of a file at a time: the pairs of a run's first wave share its figures
                part = self._kept_by(key)
                if part is None:
                    part = read(path, canvas)
                    self._keep(key, part)
        finally:
            with self._lock:
                reading.waiting -= 1
                if not reading.waiting:
                    del self._reading[key]
        return part

    def _kept_by(self, key: _Key) -> ImagePart | None:
        # the part kept under `key`, made the most recently used; None when there is none
        with self._lock:
            part = self._parts.get(key)
            if part is not None:
                self._parts.move_to_end(key)
            return part

    def _keep(self, key: _Key, part: ImagePart) -> None:
        if len(part.data) > self.max_bytes:
            return
        with self._lock:
            if key not in self._parts:
                self._parts[key] = part
                self._bytes += len(part.data)
            while self._bytes > self.max_bytes:
                _, dropped = self._parts.popitem(last=False)
                self._bytes -= len(dropped.data)

    def __len__(self) -> int:
        return len(self._parts)


def _key(path: Path, canvas: bool) -> _Key | None:
    """Return what identifies the file at `path` as it is now, or None when it is no regular file."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    return (os.fspath(path), canvas, status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns,
            status.st_ctime_ns)  # fmt: skip
