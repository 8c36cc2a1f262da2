"""One cell's outcome: what it printed, returned and showed, how long it took and how it ended."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["ok", "exception", "timeout", "restart", "refused"]
"""How a cell ended: ran to the end, raised, ran past its wall clock (interrupted), took the session down
(it was restarted: its variables are gone), or was refused before it ran (too long, empty)."""

RESTARTED = "the session restarted: its variables are gone"


@dataclass
class CellResult:
    """A cell's outputs as they come back to the model, each already bounded (`cut` says what was left out).

    `images` are PNG bytes (at most the session's images per cell, each within its pixel limit); `value` the
    text of the cell's last expression; `exception` the type name of what it raised; `message` the one line the
    model reads first when the cell did not end ok.
    """

    source: str
    outcome: Outcome = "ok"
    stdout: str = ""
    stderr: str = ""
    value: str | None = None
    images: list[bytes] = field(default_factory=list)
    duration_s: float = 0.0
    exception: str | None = None
    message: str | None = None
    traceback: str = ""
    restarted: bool = False
    cut: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Return whether the cell ran to its end without raising."""
        return self.outcome == "ok"

    def image_hashes(self) -> list[str]:
        """Return the sha256 of each image, in order (what replay compares)."""
        return [hashlib.sha256(data).hexdigest() for data in self.images]

    def text(self) -> str:
        """Return what the model reads: the one-line outcome first when not ok, then the outputs, then the cuts."""
        parts: list[str] = []
        if self.message:
            parts.append(self.message)
        if self.stdout:
            parts.append(f"[stdout]\n{self.stdout.rstrip()}")
        if self.stderr:
            parts.append(f"[stderr]\n{self.stderr.rstrip()}")
        if self.traceback:
            parts.append(f"[traceback]\n{self.traceback.rstrip()}")
        if self.value is not None:
            parts.append(f"[value]\n{self.value}")
        if self.images:
            parts.append(f"[{len(self.images)} image{'s' if len(self.images) > 1 else ''} shown]")
        parts += [f"[cut] {note}" for note in self.cut]
        return "\n".join(parts) or "(the cell ran and produced no output)"

    def trace_entry(self) -> dict[str, Any]:
        """Return the cell as its trace step records it (images by sha256; their bytes are blobs of the run)."""
        return {
            "source": self.source,
            "outcome": self.outcome,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "value": self.value,
            "images": self.image_hashes(),
            "duration_s": round(self.duration_s, 4),
            "exception": self.exception,
            "message": self.message,
            "restarted": self.restarted,
            "cut": list(self.cut),
        }
