"""A worked example of an offline strategy (docs/extending.md, "An offline strategy"): the picture's centre.

The offline policy (`--model offline`) asks each declared strategy in turn whether it recognises an item, from
what a model is shown. This one recognises "Where is the centre of the picture?": on its first turn it marks the
centre with `mark_point`; once the tool has answered, it gives the centre's coordinates as the final answer, in
the benchmark's answer format. Importing this module declares it (a plugin's declare module does the same).
"""

import io

from mcot.agents.prompts import format_final_answer
from PIL import Image

import mcot


def recognises(view: mcot.OfflineView) -> bool:
    """Return whether the item asks for the centre of its picture (and there is a picture to measure)."""
    return "centre of the picture" in view.question.lower() and bool(view.images or view.canvas)


def centre(view: mcot.OfflineView) -> tuple[float, float]:
    """Return the centre of the item's first image (else of the canvas), in its pixels."""
    picture = view.images[0] if view.images else view.canvas
    width, height = Image.open(io.BytesIO(picture or b"")).size
    return width / 2, height / 2


def play(view: mcot.OfflineView) -> mcot.Move:
    """Return the next move: mark the centre first, then answer its coordinates."""
    x, y = centre(view)
    if not any(result.name == "mark_point" for result in view.tool_results):
        return mcot.Move(tool_calls=(("mark_point", {"at": [x, y], "label": "centre"}),))
    value = f"({x:g}, {y:g})"
    return mcot.Move(
        text=f"I marked the centre of the picture at {value}.\n{format_final_answer(view.benchmark, value)}"
    )


CENTRE = mcot.Strategy(
    kind="a question about the centre of a picture",
    recognises=recognises,
    play=play,
    needs=("mark_point",),
)

mcot.declare_strategy("centre", CENTRE, replace=True)
