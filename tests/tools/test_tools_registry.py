"""The registry and `call`: one source of truth, canvas tool names, argument errors a model can act on."""

from __future__ import annotations

import json

from mcot.canvas import Canvas
from mcot.tools import ToolResult, call, canvas_tools, registry

DESIGN_CANVAS_TOOLS = (
    "draw_line",
    "mark_point",
    "trace_path",
    "draw_arrow",
    "draw_circle",
    "draw_polygon",
    "add_text",
    "transform",
    "update_element",
    "remove_element",
    "undo",
    "zoom",
    "show_grid",
)
ISSUE_TOOLS = (
    "cast_ray",
    "simulate_projectile",
    "simulate_bounces",
    "trace_light_ray",
    "thin_lens",
    "spherical_mirror",
    "mirror_image",
    "solve",
    "solve_maze",
    "count_triangles",
    "measure",
    "find_color",
    "detect_shapes",
    "maze_from_image",
)


def test_canvas_tools_are_the_design_names_and_registered() -> None:
    assert canvas_tools() == DESIGN_CANVAS_TOOLS
    tools = registry()
    assert set(canvas_tools()) <= set(tools) and set(ISSUE_TOOLS) <= set(tools)
    assert list(tools)[: len(canvas_tools())] == list(canvas_tools())


def test_every_tool_is_documented_and_its_example_runs() -> None:
    for name, spec in registry().items():
        assert spec.name == name and name.islower() and " " not in name
        assert len(spec.description) > 20 and "Returns" in spec.description, name
        canvas = Canvas(size=(640, 640))
        if name in ("update_element", "remove_element"):
            call("draw_line", {"start": [0, 0], "end": [5, 5]}, canvas)
        result = call(name, json.dumps(spec.example), canvas)
        assert isinstance(result, ToolResult)
        from mcot.tools.code.sandbox import sandbox_problem

        sandboxless = name == "python" and sandbox_problem() is not None  # then the code tool says why, in one line
        assert result.ok or name == "maze_from_image" or sandboxless, (name, result.text)


def test_canvas_ops_keep_design_argument_names_and_log() -> None:
    c = Canvas(size=(200, 200))
    line = call("draw_line", {"start": [10, 10], "end": [100, 10], "dashed": True}, c)
    assert line.ok and line.data == {"id": "e1"} and line.drawn == ["e1"]
    assert c.log[-1] == {"op": "draw_line", "args": c.log[-1]["args"], "id": "e1"}
    assert call("update_element", {"id": "e1", "color": "blue"}, c).ok
    assert c.elements["e1"].props["color"] == "blue"
    moved = call("transform", {"ids": ["e1"], "translate": [5, 5]}, c)
    assert moved.ok and moved.data["ids"] == ["e1"]
    zoomed = call("zoom", {"region": [0, 0, 50, 50], "factor": 2}, c)
    assert zoomed.ok and zoomed.image is not None and zoomed.image[:8] == b"\x89PNG\r\n\x1a\n"
    assert zoomed.data["width"] == 100
    assert call("show_grid", {"on": True}, c).ok
    assert call("undo", {}, c).data == {"undone": True}
    assert call("remove_element", {"id": "e1"}, c).ok and "e1" not in c.elements


def test_arguments_may_arrive_as_json_text_or_malformed() -> None:
    c = Canvas(size=(100, 100))
    assert call("mark_point", '{"at": [5, 5]}', c).ok
    bad = call("mark_point", '{"at": [5, 5]', c)
    assert not bad.ok and "not valid JSON" in bad.text and '{"at": [100, 100]' in bad.text
    listy = call("mark_point", "[1, 2]", c)
    assert not listy.ok and "JSON object" in listy.text
    assert call("undo", "", c).ok and call("undo", None, c).ok


def test_errors_name_the_argument_and_the_fix() -> None:
    c = Canvas(size=(100, 100))
    missing = call("draw_line", {"start": [0, 0]}, c)
    assert not missing.ok and "`end` is required" in missing.text and "Example:" in missing.text
    wrong = call("draw_line", {"start": [0, "x"], "end": [1, 1]}, c)
    assert "`start[1]`" in wrong.text
    nan = call("draw_circle", {"center": [float("nan"), 0], "radius": 3}, c)
    assert not nan.ok and "finite" in nan.text
    extra = call("draw_line", {"start": [0, 0], "end": [1, 1], "colour": "red"}, c)
    assert "`colour` is not an argument" in extra.text
    unknown = call("draw_lines", {}, c)
    assert not unknown.ok and "Did you mean draw_line" in unknown.text
    canvas_refusal = call("remove_element", {"id": "e99"}, c)
    assert not canvas_refusal.ok and canvas_refusal.error
    assert c.log == []


def test_failed_call_leaves_canvas_unchanged() -> None:
    c = Canvas(size=(100, 100))
    call("draw_line", {"start": [0, 0], "end": [50, 50]}, c)
    before, log = c.snapshot().sha256, c.log
    for name, args in [
        ("trace_light_ray", {"origin": [500, 500], "direction": [1, 0]}),
        ("solve_maze", {"grid": ["..E"], "draw": True}),
        ("simulate_bounces", {"origin": [50, 50], "velocity": [0, 0]}),
        ("transform", {"ids": ["e7"], "translate": [1, 1]}),
    ]:
        res = call(name, args, c)
        assert not res.ok, name
        assert c.snapshot().sha256 == before and c.log == log


def test_sketch_rolls_back_when_the_canvas_refuses_a_drawing(monkeypatch) -> None:
    c = Canvas(size=(100, 100))
    call("draw_line", {"start": [0, 0], "end": [50, 50]}, c)
    before = c.snapshot().sha256
    real = c.mark_point
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            from mcot.canvas import CanvasError

            raise CanvasError("refused for the test")
        return real(*args, **kwargs)

    monkeypatch.setattr(c, "mark_point", flaky)
    res = call(
        "intersect",
        {
            "a": {"kind": "segment", "points": [[0, 0], [10, 10]]},
            "b": {"kind": "circle", "center": [5, 5], "radius": 3},
        },
        c,
    )
    assert not res.ok and "refused for the test" in res.text
    assert c.snapshot().sha256 == before and len(c.elements) == 1
