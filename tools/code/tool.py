"""The `python` tool: run one cell of Python in the pair's stateful, sandboxed session.

What the cell prints, the value of its last expression and every image it shows come back as text and images,
within the session's limits; a cell that raises, runs past its wall clock or takes the session down comes back
as a one-line error the model can act on, and the pair goes on.
"""

from __future__ import annotations

from mcot.tools.code.binding import session_for
from mcot.tools.registry import Context, Output, tool
from mcot.tools.toolsets import CODE_GROUP
from pydantic import BaseModel, ConfigDict, Field


class PythonArguments(BaseModel):
    """The one argument of `python`: the cell's source."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Python source of one cell; the session keeps its variables between cells")


@tool(CODE_GROUP, example={"code": "print(image.size)\nimage.crop((0, 0, 200, 200)).resize((400, 400))"})
def python(args: PythonArguments, ctx: Context) -> Output:
    """Run a cell of Python in a stateful session (like a notebook). Returns what the cell printed, the value of
    its last expression and the images it showed.

    Preloaded: `image` (the item's first image, a PIL image) and `images` (all of them), numpy as np, PIL's
    Image, ImageDraw, ImageOps, ImageFilter, ImageEnhance, matplotlib.pyplot as plt, shapely, sympy, networkx as
    nx and pymunk. Show an image by making it the cell's last expression, with display(img), or with a
    matplotlib figure. No network, no files outside /scratch, limited memory and time per cell."""
    result = session_for(ctx.canvas).run(args.code)
    first, rest = (result.images[0], result.images[1:]) if result.images else (None, [])
    return Output(
        text=result.text(),
        data={"cell": result.trace_entry()},
        image=first,
        more_images=list(rest),
        error=None if result.ok else (result.message or result.outcome),
    )
