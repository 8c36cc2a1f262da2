"""What inspect_ai's entry point loads: mcot's tasks, tools and scorers, registered by their decorators."""

from mcot.inspect_tasks.scorers import official
from mcot.inspect_tasks.tasks import (
    bounce,
    dart,
    dots,
    games,
    gepbench,
    gobench,
    maze,
    omniphys,
    ray,
    rbench_v,
    triangles,
)
from mcot.inspect_tasks.tools import canvas_tool

__all__ = [
    "bounce",
    "canvas_tool",
    "dart",
    "dots",
    "games",
    "gepbench",
    "gobench",
    "maze",
    "official",
    "omniphys",
    "ray",
    "rbench_v",
    "triangles",
]
