"""What a tool call returns to the agent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolResult:
    """The outcome of one tool call.

    `text` is what the model reads (on error: what was wrong and how to fix the call); `data` the structured
    result; `drawn` the element ids added or changed on the canvas; `image` PNG bytes for tools that return a
    picture (zoom), else None; `more_images` the images after the first of a tool that shows several (a code
    cell).
    """

    ok: bool
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    drawn: list[str] = field(default_factory=list)
    error: str | None = None
    image: bytes | None = None
    more_images: list[bytes] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict of the result, without the image bytes (their size instead)."""
        return {
            "ok": self.ok,
            "text": self.text,
            "data": self.data,
            "drawn": list(self.drawn),
            "error": self.error,
            "image_bytes": len(self.image) if self.image is not None else 0,
            "more_images": len(self.more_images),
        }
