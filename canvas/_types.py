"""Value types the canvas hands out: elements, snapshots and observations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Element:
    """One ID-addressable drawing on the canvas.

    ``kind`` is one of point, line, path, arrow, circle, polygon, text, patch; ``props`` holds its canonical
    properties (JSON values). Elements are never mutated in place: every change makes a new Element.
    """

    id: str
    kind: str
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def order(self) -> int:
        """Return the creation number of the element (``e7`` -> 7), which is also its drawing order."""
        return int(self.id[1:])

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable copy: ``{"id", "kind", "props"}``."""
        return {"id": self.id, "kind": self.kind, "props": _copy_json(self.props)}


@dataclass(frozen=True)
class Snapshot:
    """The canvas rendered at full resolution as PNG bytes, with the bytes' sha256 hex digest."""

    png: bytes
    sha256: str
    width: int
    height: int


@dataclass(frozen=True)
class Observation:
    """The image a model receives: possibly downscaled, PNG or JPEG, with its media type and sha256."""

    data: bytes
    media_type: str
    sha256: str
    width: int
    height: int

    @property
    def suffix(self) -> str:
        """Return the file suffix for the data (``.png`` or ``.jpg``)."""
        return ".jpg" if self.media_type == "image/jpeg" else ".png"


def _copy_json(value: Any) -> Any:
    """Return a deep copy of a JSON-like value (dicts, lists, scalars)."""
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy_json(v) for v in value]
    return value
