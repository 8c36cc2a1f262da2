"""The op table: a canvas operation declared once is seen by the tool schemas, the prompt, the renderer, the SVG
writer, transforms, edits and the trace verifiers' replay; and the table is the one source of the built-in ops."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcot.agents.prompts import load_prompt
from mcot.agents.session import drawn_by
from mcot.canvas import (
    Canvas,
    CanvasError,
    Color,
    ElementKind,
    OpArgs,
    OpSpec,
    Point,
    Radius,
    Width,
    declare_op,
    element_kind,
    op_spec,
    op_specs,
    record_ops,
    remove_op,
)
from mcot.eval.verify import candidate_paths, drawn_elements
from mcot.tools import call, canvas_tools, openai_tools, registry
from mcot.tools.canvas_ops import prompt_listing
from mcot.tools.toolsets import schema_sha256, toolset
from PIL import ImageColor
from pydantic import Field

from mcot.commands.tools import list_tools


class CrossArgs(OpArgs):
    at: Point = Field(description="[x, y] of the cross's centre")
    size: Radius = Field(10.0, description="half the length of an arm in pixels")
    color: Color = Field("red", description="stroke colour")
    width: Width = Field(3.0, description="stroke width in pixels")


def _draw_cross(ctx: Any, p: dict[str, Any], base: Any) -> None:
    (x, y), r = p["at"], p["size"]
    ctx.set_source_rgb(*(c / 255 for c in ImageColor.getrgb(p["color"])))
    ctx.set_line_width(p["width"])
    for dx in (-r, r):
        ctx.move_to(x - dx, y - r)
        ctx.line_to(x + dx, y + r)
    ctx.stroke()


def _cross_svg(p: dict[str, Any], base: Any) -> str:
    (x, y), r = p["at"], p["size"]
    d = f"M{x - r},{y - r} L{x + r},{y + r} M{x + r},{y - r} L{x - r},{y + r}"
    return f'<path d="{d}" stroke="{p["color"]}" stroke-width="{p["width"]}" fill="none"/>'


def _cross_path(p: dict[str, Any]) -> list[tuple[float, float]]:
    (x, y), r = p["at"], p["size"]
    return [(x - r, y - r), (x + r, y + r)]  # the stroke a verifier reads: the falling diagonal


CROSS = OpSpec(
    "draw_cross",
    CrossArgs,
    "Draw a cross (an X) centred at a point, to mark a spot. Returns data.id of the new element.",
    {"at": [50, 50]},
    element=ElementKind(
        "cross", _draw_cross, _cross_svg, points=("at",), lengths=("size",), path=_cross_path, chains=True
    ),
)


@pytest.fixture
def cross() -> Iterator[OpSpec]:
    declare_op(CROSS)
    try:
        yield CROSS
    finally:
        remove_op("draw_cross")


def test_a_declared_op_is_a_tool_with_its_schema_and_defaults(cross: OpSpec, capsys: pytest.CaptureFixture) -> None:
    assert canvas_tools()[-1] == "draw_cross" and "draw_cross" in toolset("canvas")
    assert registry()["draw_cross"].group == "canvas" and drawn_by("draw_cross") == "model"
    (entry,) = openai_tools(["draw_cross"])
    params = entry["function"]["parameters"]
    assert entry["function"]["description"] == cross.description
    assert params["required"] == ["at"] and params["properties"]["size"]["default"] == 10.0
    assert list_tools(json_out=True) == 0
    listed = {tool["name"]: tool for tool in json.loads(capsys.readouterr().out)}
    assert listed["draw_cross"]["parameters"] == params and listed["draw_cross"]["example"] == {"at": [50, 50]}
    assert "size" in listed["update_element"]["parameters"]["properties"]
    assert "draw_cross" in prompt_listing()
    prompt = load_prompt("system.canvas.txt")
    assert "add_text, draw_cross) return the new element's id" in prompt.text


def test_a_declared_op_draws_renders_and_writes_svg(cross: OpSpec) -> None:
    c = Canvas(size=(100, 100))
    blank = c.snapshot().sha256
    result = call("draw_cross", {"at": [50, 50], "color": "Blue"}, c)
    assert result.ok and result.data == {"id": "e1"} and result.drawn == ["e1"]
    assert c.log == [
        {"op": "draw_cross", "args": {"at": [50.0, 50.0], "size": 10.0, "color": "blue", "width": 3.0}, "id": "e1"}
    ]
    image = c.rendering()
    assert c.snapshot().sha256 != blank
    assert image.getpixel((50, 50))[2] > 200 and image.getpixel((50, 50))[0] < 60  # the arms cross in blue
    assert image.getpixel((50, 45)) == (255, 255, 255)  # between the arms: untouched
    assert image.tobytes() == c.render_full().tobytes()
    assert '<g id="e1" class="cross"><path d="M40.0,40.0 L60.0,60.0' in c.svg()
    assert c.draw("draw_cross", at=[10, 10]) == "e2"
    with pytest.raises(CanvasError, match="bad arguments for draw_cross: no argument 'radius'"):
        c.draw("draw_cross", at=[10, 10], radius=3)
    with pytest.raises(CanvasError, match=r"size is 0, out of range"):
        c.draw("draw_cross", at=[10, 10], size=0)


def test_a_declared_op_moves_edits_undoes_and_replays(cross: OpSpec) -> None:
    c = Canvas(size=(200, 200))
    call("draw_cross", {"at": [50, 50]}, c)
    assert call("transform", {"ids": ["e1"], "scale": {"factor": 2, "center": [0, 0]}}, c).ok
    assert c.elements["e1"].props["at"] == [100.0, 100.0] and c.elements["e1"].props["size"] == 20.0
    assert call("transform", {"ids": ["e1"], "rotate": {"angle": 90, "center": [100, 0]}}, c).ok
    assert c.elements["e1"].props["at"] == [200.0, 0.0]  # straight down from the centre turns to its right
    assert call("update_element", {"id": "e1", "at": [120, 80], "color": "green"}, c).ok
    bad = call("update_element", {"id": "e1", "label": "x"}, c)
    assert not bad.ok and "cross element e1 has no property 'label'" in bad.text
    assert call("undo", {}, c).data == {"undone": True} and c.elements["e1"].props["at"] == [200.0, 0.0]
    assert call("redo", {}, c).ok is False  # redo is an op of the table, but no tool
    c.redo()
    replayed = Canvas.replay((200, 200), c.log)
    assert replayed.snapshot().sha256 == c.snapshot().sha256 and replayed.svg() == c.svg()
    # the verifiers' replay reads the element's path from its kind, and chains it as the kind says
    assert drawn_elements(c.log) == [("segment", [(100.0, 60.0), (140.0, 100.0)])]
    line = {"op": "draw_line", "args": {"start": [140, 100], "end": [190, 100]}, "id": "e2"}
    assert candidate_paths([*c.log, line]) == [[(100.0, 60.0), (140.0, 100.0), (190.0, 100.0)]]


def test_a_removed_op_is_gone_everywhere() -> None:
    before = (canvas_tools(), load_prompt("system.canvas.txt").sha256, schema_sha256("update_element"))
    declare_op(CROSS)
    with pytest.raises(CanvasError, match="already declared"):
        declare_op(CROSS)
    declare_op(CROSS, replace_existing=True)  # a plugin declaring again, on purpose
    during = (canvas_tools(), load_prompt("system.canvas.txt").sha256, schema_sha256("update_element"))
    remove_op("draw_cross")
    after = (canvas_tools(), load_prompt("system.canvas.txt").sha256, schema_sha256("update_element"))
    assert before == after and during != before
    assert "draw_cross" not in registry() and "draw_cross" not in record_ops()
    assert not call("draw_cross", {"at": [1, 1]}, Canvas(size=(10, 10))).ok
    with pytest.raises(CanvasError, match="unknown canvas operation 'draw_cross'"):
        Canvas(size=(10, 10)).apply({"op": "draw_cross", "args": {"at": [1, 1]}})


class Untyped(OpArgs):
    at: list[float]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (OpSpec("Draw Cross", CrossArgs, "x", element=CROSS.element), "lowercase identifiers"),
        (OpSpec("draw_line", CrossArgs, "x", element=CROSS.element), "already declared"),
        (OpSpec("draw_blob", CrossArgs, "x"), "needs the ElementKind"),
        (OpSpec("clear_all", CrossArgs, "x", role="edit"), "only drawing ops"),
        (OpSpec("draw_dot", Untyped, "x", element=ElementKind("dot", _draw_cross, _cross_svg)), "no canvas check"),
        (OpSpec("draw_other", CrossArgs, "x", element=ElementKind("line", _draw_cross, _cross_svg)), "kind named"),
    ],
)
def test_bad_declarations_are_refused_in_one_line(spec: OpSpec, message: str) -> None:
    names = [s.name for s in op_specs()]
    with pytest.raises(CanvasError, match=message):
        declare_op(spec)
    assert [s.name for s in op_specs()] == names and element_kind("line").name == "line"


def test_built_in_ops_cannot_be_removed_and_the_table_is_their_one_source() -> None:
    with pytest.raises(CanvasError, match="built-in"):
        remove_op("draw_line")
    assert record_ops() == (
        *("draw_line", "mark_point", "trace_path", "draw_arrow", "draw_circle", "draw_polygon", "add_text"),
        *("transform", "update_element", "remove_element", "undo", "redo", "show_grid"),
    )
    for spec in op_specs():
        assert spec.creates == (spec.role == "draw")
        assert spec.creates or callable(getattr(Canvas, spec.name)), spec.name
        assert spec.example is not None and "Returns" in spec.description, spec.name
    assert op_spec("zoom").changes_canvas is False and op_spec("redo").tool is False
    kinds = {s.element.name for s in op_specs() if s.element is not None}
    assert kinds == {"line", "point", "path", "arrow", "circle", "polygon", "text", "patch"}
    listing = prompt_listing()
    assert all(name in listing for name in canvas_tools())
    assert listing.startswith("Drawing tools (draw_line, mark_point, trace_path, draw_arrow, draw_circle, ")


def test_the_canvas_prompt_hash_is_stable_from_run_to_run() -> None:
    probe = "from mcot.agents.prompts import load_prompt; print(load_prompt('system.canvas.txt').sha256)"
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True) for _ in (1, 2)]
    assert runs[0].stdout.strip() == runs[1].stdout.strip() == load_prompt("system.canvas.txt").sha256
    assert "$canvas_tools" not in load_prompt("system.canvas.txt").text
