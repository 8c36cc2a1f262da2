"""The results ledger, RUN/results.jsonl: one line per finished (item id, arm), appended, the resume ledger.

Each line is handed to the kernel as it is appended (a killed process loses nothing it wrote); the disk is synced
at most once a second and on close. A half-written last line (a killed run) is dropped before appending, so
appended lines stay parseable. When an (id, mode) appears twice (a retried error), the last line wins.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, Protocol, TypeVar

from mcot.core.rundir.atomic import write_bytes_atomic
from mcot.core.rundir.errors import RunDirError
from mcot.core.rundir.jsonl import iter_jsonl
from mcot.core.rundir.layout import RESULTS
from mcot.core.rundir.results import Result

SYNC_EVERY_S = 1.0
"""How often the results ledger is synced to disk while a run appends to it."""
_TAIL_BYTES = 1 << 16


class Keyed(Protocol):
    """A line about one pair: a `Result` or a `Score`."""

    @property
    def key(self) -> tuple[str, str]:
        """Return the pair: (item id, arm)."""
        ...


Line = TypeVar("Line", bound=Keyed)


def latest_by_key(records: Iterable[Line]) -> dict[tuple[str, str], Line]:
    """Return the last line for each (id, mode): a retried item's newest line wins."""
    return {record.key: record for record in records}


class ResultsLedger:
    """RUN/results.jsonl: read it line by line, or open it and append result lines."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / RESULTS
        self._handle: BinaryIO | None = None
        self._synced = float("-inf")

    def records(self) -> Iterator[Result]:
        """Yield every line of the ledger in the order written (a retried pair has several), read as it goes.

        A line that is not a result line (no id or arm, a field of the wrong type, a newer schema) raises
        RunDirError naming the file.
        """
        where = str(self.path)
        for row in iter_jsonl(self.path):
            yield Result.from_line(row, where)

    def latest(self) -> dict[tuple[str, str], Result]:
        """Return the newest result line per (id, mode)."""
        return latest_by_key(self.records())

    def open(self) -> None:
        """Drop a torn last line, then open the ledger for appending."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair_torn_tail(self.path)
        self._handle = self.path.open("ab")

    def append(self, record: Result) -> None:
        """Append one result line, handed to the kernel at once and synced at most once a second."""
        if self._handle is None:
            raise RunDirError(f"{self.path} is not open for appending")
        self._handle.write((record.to_line() + "\n").encode("utf-8"))
        self._handle.flush()
        now = time.monotonic()
        if now - self._synced >= SYNC_EVERY_S:
            os.fsync(self._handle.fileno())
            self._synced = now

    def close(self) -> None:
        """Sync and close the ledger."""
        if self._handle is not None:
            try:
                self._handle.flush()
                os.fsync(self._handle.fileno())
            finally:
                self._handle.close()
                self._handle = None


def repair_torn_tail(path: Path) -> None:
    """End a JSONL file at a whole line: drop a half-written last line (a killed writer), reading only the
    file's tail; a last line that lacks only its newline (a file-size limit can cut just that) is a whole JSON
    object, which every reader already reads, so it is kept and its newline added."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0:
        return
    with path.open("rb") as handle:
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        keep = 0
        position = size
        while position > 0:
            start = max(0, position - _TAIL_BYTES)
            handle.seek(start)
            chunk = handle.read(position - start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        handle.seek(keep)
        whole = _is_json_object(handle.read())
    if whole:
        with path.open("ab") as handle:
            handle.write(b"\n")
    elif keep == 0:
        write_bytes_atomic(path, b"")
    else:
        with path.open("r+b") as handle:
            handle.truncate(keep)


def _is_json_object(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except (UnicodeDecodeError, ValueError):
        return False
