"""The prompt of an (item, arm) as a trainer starts an episode from it, and the item as an environment rebuilds it.

The opening is what the solver sends before the model's first turn (agents/session.py): in an arm with tools a
system prompt and a user turn holding the canvas note, the canvas (the item's first image, as it is: no element
drawn yet), the item's other images and the task; in the text arm one user turn (the images, the task). RL rows
(`verl`, `trl`) start from it whether they come from a run or from an items directory, so that the canvas a tool
or an environment rebuilds is the image in the prompt, pixel for pixel.

`environment_item` is the item as `mcot.env` rebuilds it (images by export name, the canvas size): the answer
and, where the benchmark has a trace verifier, the `meta` the verifier reads; what only a loader needs is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcot.agents.prompts import load_prompt
from mcot.eval.registry import scoring_spec
from mcot.export.conversation import Part, canvas_size, offered_tools, system_prompt, task_text
from mcot.export.images import ImageCatalog
from mcot.export.records import Pair

ENV_ITEM_FIELDS = ("id", "benchmark", "category", "question", "choices", "answer", "answer_type")


@dataclass(frozen=True)
class Opening:
    """The start of an episode: the system prompt (None without tools), the user turn's parts, the tools offered."""

    system: str | None
    parts: list[Part]
    tools: tuple[str, ...]
    canvas: tuple[int, int] | None
    """The canvas size in pixels (None without tools)."""

    @property
    def images(self) -> list[str]:
        """Return the export names of the user turn's images, in order (the canvas first)."""
        return [value for kind, value in self.parts if kind == "image"]


def opening(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> Opening:
    """Return the opening of a pair: what the model is given before its first turn (see the module docstring)."""

    offered = offered_tools(pair)
    task = task_text(pair, notes)
    images: list[Part] = [("image", name) for name in catalog.add_all(pair.item_image_paths())]
    if not offered:
        return Opening(None, [*images, ("text", task)], (), None)
    width, height = canvas_size(pair)
    note = load_prompt("observation.initial.txt").render(width=width, height=height, scaled="", changed="none")
    return Opening(
        system_prompt(pair, offered, notes), [("text", note), *images, ("text", task)], offered, (width, height)
    )


def environment_item(pair: Pair, start: Opening, *, full: bool = True) -> dict[str, Any]:
    """Return the item as mcot.env and mcot.rewards rebuild it: its fields, images by export name, the canvas size
    and its meta (with `full` False only where the benchmark has a trace verifier, which reads it)."""

    item = pair.item
    data: dict[str, Any] = {name: getattr(item, name) for name in ENV_ITEM_FIELDS}
    data["images"] = start.images[: len(item.images)]
    data["canvas"] = list(start.canvas) if start.canvas is not None else None
    data["meta"] = item.meta if full or scoring_spec(item.benchmark).verifier is not None else {}
    return data
