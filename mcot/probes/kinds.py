"""What each probe kind puts in place of the images a model saw after its first drawing.

`blank`: the canvas the model saw before its first drawing (a code cell's images are left out); `shuffle`: the
images another item's model saw after its own drawing, in order (the last one repeated when it saw fewer);
`perturb`: each canvas view re-rendered from the op log with the model's own elements moved by `shift` pixels
right and down, or mirrored about the canvas's vertical centre line (`mirror`); images tools returned stay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot.agents.budget import Budget
from mcot.agents.messages import ImagePart
from mcot.agents.session import BLANK_CANVAS
from mcot.canvas import Canvas, CanvasError
from mcot.core.errors import UsageError
from mcot.probes.conversation import FinalRequest, Slot

KINDS = ("blank", "shuffle", "perturb")
Replace = Callable[[Slot], ImagePart | None]


@dataclass(frozen=True)
class Perturbation:
    """How `perturb` changes the model's drawing: moved by `shift` pixels right and down, or mirrored."""

    shift: float = 20.0
    mirror: bool = False

    def setting(self) -> dict[str, Any]:
        """Return the amounts a probe line records (`{"shift": [dx, dy]}` or `{"mirror": "vertical"}`)."""
        return {"mirror": "vertical"} if self.mirror else {"shift": [self.shift, self.shift]}


def parse_kinds(text: str) -> tuple[str, ...]:
    """Return the probe kinds a comma-separated list names, in the order given; raise UsageError for another."""
    kinds = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        raise UsageError(f"--kinds takes {', '.join(KINDS)} (comma-separated), got {text!r}")
    return kinds


def blank(request: FinalRequest) -> Replace:
    """Return the replacement of `blank`: the canvas before the first drawing; a cell's image is left out."""
    before = request.image(request.before) if request.before else None

    def replace(slot: Slot) -> ImagePart | None:
        return None if slot.source == "cell" else before

    return replace


def shuffle(donor: FinalRequest) -> Replace:
    """Return the replacement of `shuffle`: the donor's images after its drawing, slot for slot."""
    images = [donor.image(slot.blob) for slot in donor.slots]

    def replace(slot: Slot) -> ImagePart | None:
        return images[min(slot.index, len(images) - 1)]

    return replace


def perturb(request: FinalRequest, perturbation: Perturbation) -> Replace:
    """Return the replacement of `perturb`: each canvas view re-rendered with the model's elements moved or
    mirrored (UsageError when the op log does not replay); other images as they were."""
    base = request.item_images[0] if request.item_images else None
    rows = request.rows
    budget = Budget()

    def replace(slot: Slot) -> ImagePart | None:
        if slot.source != "observation":
            return request.image(slot.blob)
        try:
            canvas = Canvas.from_path(base) if base is not None else Canvas(size=BLANK_CANVAS)
            mine: list[str] = []
            for row in rows[: slot.step]:
                records = (row.get("ops") or []) if row.get("kind") == "tool" else []
                for record in records:
                    created = canvas.apply(record)
                    if row.get("drawn_by") == "model" and created:
                        mine.append(created)
            present = [element for element in dict.fromkeys(mine) if element in canvas.elements]
            if present:
                if perturbation.mirror:
                    middle = canvas.width / 2
                    canvas.transform(ids=present, reflect={"line": [[middle, 0], [middle, canvas.height]]})
                else:
                    canvas.transform(ids=present, translate=[perturbation.shift, perturbation.shift])
            jpeg = Path(slot.blob).suffix.lower() in (".jpg", ".jpeg")
            seen = canvas.observe(max_side=budget.observe_max_side, format="jpeg" if jpeg else "png")
        except (CanvasError, OSError) as exc:
            raise UsageError(f"the op log does not replay for perturb: {exc}") from exc
        return ImagePart(seen.data, seen.media_type, canvas=True)

    return replace
