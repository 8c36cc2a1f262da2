"""What inspect_ai's entry point loads: mcot's tasks, tools and scorers, registered by their decorators."""

from mcot.inspect_tasks.scorers import official
from mcot.inspect_tasks.tasks import games, gepbench, gobench, omniphys, rbench_v
from mcot.inspect_tasks.tools import canvas_tool

__all__ = ["canvas_tool", "games", "gepbench", "gobench", "official", "omniphys", "rbench_v"]
