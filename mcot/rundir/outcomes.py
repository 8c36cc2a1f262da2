"""The latest outcome of every (item, arm) pair of a run, kept small enough for runs of any size.

A run reads its ledger once when it starts and notes each line it appends; what it keeps is one byte a pair
(the latest status) and, for the pairs whose latest line is not ok, that line's status and error. So the end
of a run can say how many pairs succeeded and why the others failed without holding a result line per pair.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from mcot.rundir.results import OK, Result


@dataclass(frozen=True)
class Unfinished:
    """The latest status of a pair that did not end with an answer, and its error."""

    status: str
    error: str | None


class PairOutcomes:
    """The latest status of each pair of `item_index` × `arms` (lines naming other pairs are ignored)."""

    def __init__(self, item_index: Mapping[str, int], arms: Sequence[str]) -> None:
        self._items = item_index
        self._arms = {arm: k for k, arm in enumerate(arms)}
        self._status = bytearray(len(item_index) * len(self._arms))
        self._names: list[str] = [""]
        self._codes: dict[str, int] = {}
        self._unfinished: dict[int, Unfinished] = {}

    def _position(self, item_id: str, arm: str) -> int | None:
        n, k = self._items.get(item_id), self._arms.get(arm)
        return None if n is None or k is None else n * len(self._arms) + k

    def _code(self, status: str) -> int:
        code = self._codes.get(status)
        if code is None:
            if len(self._names) >= 255:  # a byte a pair: beyond 254 distinct statuses, the rest are "other"
                status = "other"
                code = self._codes.get(status)
            if code is None:
                code = self._codes[status] = len(self._names)
                self._names.append(status)
        return code

    def note(self, record: Result) -> None:
        """Take a result line as its pair's latest."""
        position = self._position(record.id, record.mode)
        if position is None:
            return
        self._status[position] = self._code(record.status)
        if record.status == OK:
            self._unfinished.pop(position, None)
        else:
            self._unfinished[position] = Unfinished(record.status, record.error)

    def status(self, item_id: str, arm: str) -> str | None:
        """Return the latest status of (item_id, arm), or None when it has no result line."""
        position = self._position(item_id, arm)
        code = self._status[position] if position is not None else 0
        return self._names[code] if code else None

    def count(self, status: str) -> int:
        """Return how many pairs have `status` as their latest."""
        code = self._codes.get(status)
        return self._status.count(code) if code is not None else 0

    def not_ok(self) -> Iterator[Unfinished | None]:
        """Yield, for each pair whose latest status is not ok, its status and error (None: never run), in pair order."""
        for position, code in enumerate(self._status):
            if code == 0:
                yield None
            elif self._names[code] != "ok":
                yield self._unfinished[position]
