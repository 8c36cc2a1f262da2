"""Trace verifiers on hand-made valid and invalid traces of generated game items."""

from __future__ import annotations

import itertools
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.eval.verify import candidate_paths, drawn_elements, trace_ops, verify_trace

from mcot.core.item import Item


def _tool(step: int, ops: list[dict[str, Any]], tool: str = "trace_path") -> dict[str, Any]:
    return {"step": step, "kind": "tool", "tool": tool, "ops": ops, "data": {}, "t": 0.0}


def _path_op(points: list[tuple[float, float]], element: str = "e1", **extra: Any) -> dict[str, Any]:
    return {"op": "trace_path", "args": {"points": [list(p) for p in points], **extra}, "id": element}


def _line_op(a: tuple[float, float], b: tuple[float, float], element: str, op: str = "draw_line") -> dict[str, Any]:
    return {"op": op, "args": {"start": list(a), "end": list(b)}, "id": element}


def _item(task: str, meta: dict[str, Any]) -> Item:
    return Item(
        id=f"{task}-1", benchmark="games", category=task, question="?", answer="A", answer_type="choice", meta=meta
    )


# ------------------------------------------------------------------------------------------- maze

MAZE = {
    "grid": ["#####", "S..##", "##.##", "#...A", "#B###"],
    "cell": 20,
    "origin": [10, 10],
    "start": [1, 0],
    "exits": {"A": {"cell": [3, 4], "color": [220, 0, 0]}, "B": {"cell": [4, 1], "color": [0, 0, 220]}},
    "target": "A",
    "path": [[1, 0], [1, 1], [1, 2], [2, 2], [3, 2], [3, 3], [3, 4]],
}


def _centre(r: int, c: int) -> tuple[float, float]:
    return (20 + 20 * c, 20 + 20 * r)


ROUTE = [_centre(r, c) for r, c in MAZE["path"]]


def test_maze_route_valid_and_reversed() -> None:
    item = _item("maze", MAZE)
    assert verify_trace(item, [_tool(1, [_path_op(ROUTE)])]).verdict == "valid"
    assert verify_trace(item, [_tool(1, [_path_op(ROUTE[::-1])])]).verdict == "valid"


def test_maze_route_through_a_wall_is_invalid() -> None:
    verdict = verify_trace(_item("maze", MAZE), [_tool(1, [_path_op([_centre(1, 0), _centre(3, 2), _centre(3, 4)])])])
    assert verdict.verdict == "invalid"
    assert "crosses the wall cell (2, 1)" in verdict.violation


def test_maze_route_to_the_wrong_exit_is_invalid() -> None:
    wrong = [_centre(1, 0), _centre(1, 2), _centre(3, 2), _centre(3, 1), _centre(4, 1)]
    verdict = verify_trace(_item("maze", MAZE), [_tool(1, [_path_op(wrong)])])
    assert verdict.verdict == "invalid"
    assert verdict.violation == "the route ends at exit B, not at the exit A"


def test_maze_route_not_from_the_start() -> None:
    verdict = verify_trace(_item("maze", MAZE), [_tool(1, [_path_op(ROUTE[2:])])])
    assert verdict.verdict == "invalid" and "not on the start cell" in verdict.violation


def test_maze_route_from_chained_lines_after_undo() -> None:
    wrong = _path_op([_centre(1, 0), _centre(3, 2)], "e1")
    lines = [_line_op(ROUTE[i], ROUTE[i + 1], f"e{i + 2}") for i in range(len(ROUTE) - 1)]
    steps = [_tool(1, [wrong]), _tool(2, [{"op": "undo", "args": {}}]), _tool(3, lines, "draw_line")]
    assert verify_trace(_item("maze", MAZE), steps).verdict == "valid"


def test_maze_absent_without_a_drawing() -> None:
    steps = [{"step": 0, "kind": "observation"}, _tool(1, [{"op": "mark_point", "args": {"at": [20, 40]}, "id": "e1"}])]
    assert verify_trace(_item("maze", MAZE), steps).verdict == "absent"
    assert verify_trace(_item("maze", MAZE), None).verdict == "absent"
    removed = [_tool(1, [_path_op(ROUTE)]), _tool(2, [{"op": "remove_element", "args": {"id": "e1"}}])]
    assert verify_trace(_item("maze", MAZE), removed).verdict == "absent"


def test_items_without_a_verifier_get_none() -> None:
    item = Item(id="t", benchmark="games", category="triangles", question="?", answer="3", answer_type="number")
    assert verify_trace(item, [_tool(1, [_path_op(ROUTE)])]) is None


# -------------------------------------------------------------------------------------------- ray

MIRROR_RAY = {
    "origin": [100, 300],
    "direction": [1.0, 0.0],
    "surfaces": [{"kind": "mirror", "points": [[250, 350], [350, 250]]}],
}
BLOCK_RAY = {
    "origin": [100, 300],
    "direction": [1.0, -0.5],
    "surfaces": [{"kind": "block", "polygon": [[300, 100], [500, 100], [500, 400], [300, 400]], "n": 1.5}],
}


def _slab_path() -> list[tuple[float, float]]:
    theta1 = math.atan2(0.5, 1.0)
    theta2 = math.asin(math.sin(theta1) / 1.5)
    exit_y = 200 - 200 * math.tan(theta2)
    return [(100, 300), (300, 200), (500, exit_y), (700, exit_y - 100)]


def test_mirror_reflection_valid_and_invalid() -> None:
    item = _item("ray", MIRROR_RAY)
    assert verify_trace(item, [_tool(1, [_path_op([(100, 300), (300, 300), (300, 100)])])]).verdict == "valid"
    bad = verify_trace(item, [_tool(1, [_path_op([(100, 300), (300, 300), (400, 100)])])])
    assert bad.verdict == "invalid" and "law of reflection" in bad.violation


def test_turn_where_there_is_no_surface() -> None:
    bad = verify_trace(_item("ray", MIRROR_RAY), [_tool(1, [_path_op([(100, 300), (200, 300), (200, 100)])])])
    assert bad.violation == "the path turns at (200, 300), where there is no surface"


def test_ray_must_leave_along_the_arrow() -> None:
    bad = verify_trace(_item("ray", MIRROR_RAY), [_tool(1, [_path_op([(100, 300), (300, 200)])])])
    assert bad.verdict == "invalid" and "off the given direction" in bad.violation


def test_refraction_through_a_slab() -> None:
    item = _item("ray", BLOCK_RAY)
    assert verify_trace(item, [_tool(1, [_path_op(_slab_path())])]).verdict == "valid"
    straight = verify_trace(item, [_tool(1, [_path_op([(100, 300), (700, 0)])])])
    assert straight.verdict == "invalid" and "passes through a glass surface" in straight.violation
    bent_wrong = verify_trace(item, [_tool(1, [_path_op([(100, 300), (300, 200), (500, 180)])])])
    assert bent_wrong.verdict == "invalid" and "refraction" in bent_wrong.violation


def test_total_internal_reflection_expected_inside_glass() -> None:
    # inside a block of n = 1.5, hitting the top face at 60° from the normal (critical angle 41.8°) reflects
    meta = {
        "origin": [150, 300],
        "direction": [math.sin(math.radians(60)), -math.cos(math.radians(60))],
        "surfaces": [{"kind": "block", "polygon": [[0, 200], [600, 200], [600, 400], [0, 400]], "n": 1.5}],
    }
    dx = 100 * math.tan(math.radians(60))
    reflected = [(150, 300), (150 + dx, 200), (150 + 2 * dx, 300)]
    assert verify_trace(_item("ray", meta), [_tool(1, [_path_op(reflected)])]).verdict == "valid"
    escaped = [(150, 300), (150 + dx, 200), (150 + dx + 50, 100)]
    assert verify_trace(_item("ray", meta), [_tool(1, [_path_op(escaped)])]).verdict == "invalid"


# ----------------------------------------------------------------------------------------- bounce

BOUNCE = {
    "box": [40, 40, 600, 440],
    "ball": {"start": [100, 100], "radius": 8},
    "direction": [1, 1],
    "bricks": [{"label": "red", "rect": [380, 60, 420, 90]}],
    "path": [[100, 100], [432, 432], [592, 272], [400, 80]],
}


def test_bounce_reflections() -> None:
    item = _item("bounce", BOUNCE)
    assert verify_trace(item, [_tool(1, [_path_op(BOUNCE["path"])])]).verdict == "valid"
    touching_walls = [(100, 100), (440, 440), (600, 280), (410, 90)]
    assert verify_trace(item, [_tool(1, [_path_op(touching_walls)])]).verdict == "valid"
    wrong = verify_trace(item, [_tool(1, [_path_op([(100, 100), (432, 432), (600, 400)])])])
    assert wrong.verdict == "invalid" and "law of reflection" in wrong.violation


# ------------------------------------------------------------------------------------------- dart


def _parabola(t: float) -> tuple[float, float]:
    return (50 + 100 * t, 400 - 200 * t + 50 * t * t)


DART = {
    "origin": [50, 400],
    "velocity": [100, -200],
    "gravity": 100,
    "path": [list(_parabola(k * 0.05)) for k in range(61)],
    "hit": {"balloon": "red", "index": 0, "at": list(_parabola(3.0))},
}


def test_dart_trajectory() -> None:
    item = _item("dart", DART)
    drawn = [_parabola(k * 0.25) for k in range(13)]
    assert verify_trace(item, [_tool(1, [_path_op(drawn)])]).verdict == "valid"
    chord = verify_trace(item, [_tool(1, [_path_op([_parabola(0), _parabola(3)])])])
    assert chord.verdict == "invalid" and "off the true path" in chord.violation
    short = verify_trace(item, [_tool(1, [_path_op([_parabola(k * 0.25) for k in range(5)])])])
    assert short.verdict == "invalid" and "before reaching the balloon" in short.violation


# ------------------------------------------------------------------------------------------- dots

DOTS = {"points": [[100, 100], [200, 100], [200, 200], [100, 200]]}


def test_dots_connected_in_order() -> None:
    item = _item("dots", DOTS)
    square = [tuple(p) for p in DOTS["points"]]
    assert verify_trace(item, [_tool(1, [_path_op(square, closed=True)])]).verdict == "valid"
    assert verify_trace(item, [_tool(1, [_path_op(square[::-1])])]).verdict == "valid"
    lines = [_line_op(square[i], square[(i + 1) % 4], f"e{i + 1}") for i in range(4)]
    assert verify_trace(item, [_tool(1, lines, "draw_line")]).verdict == "valid"
    polygon = {"op": "draw_polygon", "args": {"points": [list(p) for p in square]}, "id": "e1"}
    assert verify_trace(item, [_tool(1, [polygon], "draw_polygon")]).verdict == "valid"


def test_dots_out_of_order_or_missing() -> None:
    item = _item("dots", DOTS)
    crossed = [(100, 100), (200, 200), (200, 100), (100, 200)]
    verdict = verify_trace(item, [_tool(1, [_path_op(crossed)])])
    assert verdict.violation == "after dot 1 the line goes to dot 3, not dot 2"
    partial = verify_trace(item, [_tool(1, [_path_op([(100, 100), (200, 100), (200, 200)])])])
    assert partial.violation == "dot 4 is never reached"
    stray = verify_trace(item, [_tool(1, [_path_op([(100, 100), (150, 160), (200, 100)])])])
    assert stray.violation == "the line bends at (150, 160), which is no dot"


# ------------------------------------------------------------------------------------ drawn geometry


def test_replay_of_edits_transforms_and_redo() -> None:
    ops = [
        _line_op((0, 0), (10, 0), "e1"),
        {"op": "transform", "args": {"ids": ["e1"], "translate": [5, 5]}},
        {"op": "update_element", "args": {"id": "e1", "end": [20, 5]}},
        _line_op((100, 100), (110, 100), "e2"),
        {"op": "show_grid", "args": {"on": True, "step": 50}},
        {"op": "undo", "args": {}},
        {"op": "undo", "args": {}},
        {"op": "redo", "args": {}},
        {"op": "transform", "args": {"ids": ["e2"], "rotate": {"angle": 90, "center": [100, 100]}}},
    ]
    elements = drawn_elements(ops)
    assert elements[0] == ("segment", [(5.0, 5.0), (20.0, 5.0)])
    _kind, points = elements[1]
    assert points[0] == (100.0, 100.0)
    assert points[1][0] == 100.0 and abs(points[1][1] - 90.0) < 1e-9  # counter-clockwise on screen
    assert len(candidate_paths(ops)) == 2


def test_trace_ops_reads_only_tool_steps_and_tags_who_drew() -> None:
    steps = [
        {"kind": "model", "ops": [_path_op([(0, 0), (1, 1)])]},
        _tool(1, [_path_op([(0, 0), (5, 5)])]),
        {**_tool(2, [_path_op([(1, 1), (6, 6)], "e2")], "solve_maze"), "drawn_by": "tool"},
        {**_tool(3, [_path_op([(2, 2), (7, 7)], "e3")]), "drawn_by": "model"},
    ]
    assert trace_ops(steps) == [
        {**_path_op([(0, 0), (5, 5)]), "drawn_by": "model"},  # no drawn_by: an older trace, the model's
        {**_path_op([(1, 1), (6, 6)], "e2"), "drawn_by": "tool"},
        {**_path_op([(2, 2), (7, 7)], "e3"), "drawn_by": "model"},
    ]


# ------------------------------------------------------------------------- drawn by a tool, not the model


def _solve_maze_step(step: int) -> dict[str, Any]:
    """A domain tool step that drew the solved route on the canvas (solve_maze with draw=true)."""
    return {**_tool(step, [_path_op(ROUTE, "t1")], "solve_maze"), "drawn_by": "tool"}


def test_a_tool_drawn_maze_route_is_not_credited_to_the_model() -> None:
    verdict = verify_trace(_item("maze", MAZE), [_solve_maze_step(1)])
    assert verdict is not None
    assert (verdict.verdict, verdict.tool_drawn, verdict.candidates) == ("absent", 1, 0)


def test_the_same_route_drawn_by_draw_line_steps_is_valid() -> None:
    steps = [
        {**_tool(i + 1, [_line_op(a, b, f"e{i + 1}")], "draw_line"), "drawn_by": "model"}
        for i, (a, b) in enumerate(itertools.pairwise(ROUTE))
    ]
    verdict = verify_trace(_item("maze", MAZE), steps)
    assert verdict is not None
    assert (verdict.verdict, verdict.tool_drawn) == ("valid", 0)


def test_model_drawing_next_to_a_tool_drawing_is_judged_alone() -> None:
    wall = [_centre(1, 0), _centre(3, 2), _centre(3, 4)]  # through a wall
    steps = [_solve_maze_step(1), _tool(2, [_path_op(wall, "e1")])]
    verdict = verify_trace(_item("maze", MAZE), steps)
    assert verdict is not None
    assert (verdict.verdict, verdict.tool_drawn, verdict.candidates) == ("invalid", 1, 1)
    # the model's undo removes its own last element, not the tool's: nothing of the model's is left
    undone = verify_trace(_item("maze", MAZE), [*steps, _tool(3, [{"op": "undo", "args": {}}], "undo")])
    assert undone is not None and (undone.verdict, undone.tool_drawn) == ("absent", 1)


_coord = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-1000, 1000), st.text(max_size=2))
_point = st.lists(_coord, min_size=0, max_size=3)
_op = st.fixed_dictionaries(
    {
        "op": st.sampled_from(
            [
                "trace_path",
                "draw_line",
                "draw_arrow",
                "draw_polygon",
                "undo",
                "redo",
                "remove_element",
                "update_element",
                "transform",
                "bogus",
            ]
        ),
        "args": st.one_of(
            st.fixed_dictionaries(
                {
                    "points": st.lists(_point, max_size=5),
                    "start": _point,
                    "end": _point,
                    "id": st.sampled_from(["e1", "e2"]),
                }
            ),
            st.fixed_dictionaries(
                {
                    "ids": st.lists(st.sampled_from(["e1", "e2", 3]), max_size=2),
                    "translate": _point,
                    "rotate": st.just({"angle": "x"}),
                }
            ),
            st.lists(st.integers(), max_size=2),
            st.none(),
        ),
    }
)


@settings(max_examples=120, deadline=None)
@given(st.lists(_op, max_size=8), st.sampled_from(["maze", "ray", "bounce", "dart", "dots"]))
def test_verifiers_never_raise_on_junk_ops(ops: list[dict[str, Any]], task: str) -> None:
    metas = {"maze": MAZE, "ray": BLOCK_RAY, "bounce": BOUNCE, "dart": DART, "dots": DOTS}
    verdict = verify_trace(_item(task, metas[task]), [_tool(1, ops)])
    assert verdict is not None and verdict.verdict in ("valid", "invalid", "absent")


def test_a_transform_with_an_empty_translate_leaves_the_element_where_it_was() -> None:
    ops = [
        {"op": "draw_line", "id": "e1", "args": {"start": [0, 0], "end": [10, 0]}},
        {"op": "transform", "args": {"ids": ["e1"], "translate": []}},
    ]
    assert drawn_elements(ops) == [("segment", [(0.0, 0.0), (10.0, 0.0)])]
