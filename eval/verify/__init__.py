"""Trace verifiers: check what a model drew on the canvas against the solution geometry of an item.

Split by concern: `replay` rebuilds a trace's drawing with the canvas's own replay (the op records of its tool
steps applied by `Canvas.apply`) and reads the candidate paths from it; `games` holds the verifiers of the
generated games (maze, ray, bounce, dart, dots); `diagram` the diagram verifier (`meta.solution_path`);
`dispatch` finds an item's verifier; `plane` is the geometry of drawn paths; `verdict` the verdict type.
A trace is `valid` when one candidate satisfies the task, `invalid` with the first violation of the candidate
that went furthest when none does, and `absent` when nothing was drawn. Only what the model drew is credited:
ops of tool steps marked `drawn_by: "tool"` are replayed, so that undo and ids stay right, but the elements they
create are no candidates (counted apart as `tool_drawn`); a step without `drawn_by` (an older trace) counts as
the model's.
"""

from mcot.eval.verify.diagram import solution_geometry, verify_diagram_trace, verify_solution_path
from mcot.eval.verify.dispatch import VERIFIED_TASKS, verifier_tasks, verify_trace
from mcot.eval.verify.games import (
    VERIFIERS,
    verify_bounce,
    verify_dart,
    verify_dots,
    verify_games_trace,
    verify_maze,
    verify_ray,
)
from mcot.eval.verify.plane import Path, Point, reflect_direction, refract_direction
from mcot.eval.verify.replay import (
    MODEL,
    TOOL,
    candidate_paths,
    canvas_size,
    chain,
    drawn_elements,
    drawn_paths,
    replay,
    trace_ops,
)
from mcot.eval.verify.verdict import TraceVerdict

__all__ = [
    "MODEL",
    "TOOL",
    "VERIFIED_TASKS",
    "VERIFIERS",
    "Path",
    "Point",
    "TraceVerdict",
    "candidate_paths",
    "canvas_size",
    "chain",
    "drawn_elements",
    "drawn_paths",
    "reflect_direction",
    "refract_direction",
    "replay",
    "solution_geometry",
    "trace_ops",
    "verifier_tasks",
    "verify_bounce",
    "verify_dart",
    "verify_diagram_trace",
    "verify_dots",
    "verify_games_trace",
    "verify_maze",
    "verify_ray",
    "verify_solution_path",
    "verify_trace",
]
