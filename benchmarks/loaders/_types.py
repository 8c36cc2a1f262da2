"""The records a loader produces: loaded items, skips with reasons, and the summary of a conversion."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mcot.core.item import Item


class LoaderError(ValueError):
    """Native files could not be read at all (or not one usable item was found); the message says why."""


class SkipItem(Exception):
    """Raised inside a loader when one record cannot become an item; the driver turns it into a `Skip`."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class Skip:
    """One record that did not become an item: where it was, a short kind, and a one-line reason."""

    locator: str
    kind: str
    reason: str

    def to_json_line(self) -> str:
        """Return the skip as one JSON line of skipped.jsonl (no trailing newline)."""
        return json.dumps({"id": self.locator, "kind": self.kind, "reason": self.reason}, ensure_ascii=False)


@dataclass
class LoadedItem:
    """An item plus the bytes of every image it needs, keyed by the relative path the item references."""

    item: Item
    images: dict[str, bytes] = field(default_factory=dict)


@dataclass
class Tally:
    """Counts the native records a loader has read (a record may yield no item, one, or share one)."""

    records: int = 0


@dataclass
class LoadResult:
    """Everything a loader produced from one source: items, skips and the number of native records read."""

    format: str
    items: list[LoadedItem]
    skipped: list[Skip]
    records: int

    def reasons(self) -> dict[str, int]:
        """Return how many records were skipped for each kind of reason, most frequent first."""
        return dict(Counter(skip.kind for skip in self.skipped).most_common())


@dataclass(frozen=True)
class ConvertSummary:
    """What `convert` did: records read, items written, skips by kind, and where it wrote them."""

    format: str
    out: Path
    records: int
    written: int
    skipped: int
    reasons: dict[str, int]

    def lines(self) -> list[str]:
        """Return the human-readable summary that `mcot convert` prints."""
        lines = [
            f"{self.format}: read {self.records} records, wrote {self.written} items to {self.out}, "
            f"skipped {self.skipped}"
        ]
        for kind, count in self.reasons.items():
            lines.append(f"  skipped {count}: {kind}")
        if self.skipped:
            lines.append(f"  details: {self.out / 'skipped.jsonl'}")
        return lines
