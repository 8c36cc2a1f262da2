"""Every bad input raises CanvasError with an actionable message and leaves the canvas exactly as it was."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from mcot.canvas import MAX_ELEMENTS, Canvas, CanvasError
from PIL import Image


def _canvas() -> Canvas:
    c = Canvas(size=(100, 80))
    c.draw_line([0, 0], [100, 80])
    c.mark_point([50, 40], label="M")
    c.snapshot()
    return c


NAN, INF = float("nan"), float("inf")

BAD_CALLS: list[tuple[str, Callable[[Canvas], object], str]] = [
    ("nan coordinate", lambda c: c.draw_line([NAN, 0], [10, 10]), "finite"),
    ("inf coordinate", lambda c: c.draw_line([0, 0], [INF, 10]), "finite"),
    ("string coordinate", lambda c: c.mark_point(["10", 5]), "must be a number"),
    ("None coordinate", lambda c: c.draw_arrow([None, 1], [2, 2]), "must be a number"),
    ("bool coordinate", lambda c: c.mark_point([True, 5]), "must be a number"),
    ("point of three numbers", lambda c: c.mark_point([1, 2, 3]), "[x, y]"),
    ("point as a string", lambda c: c.mark_point("10,20"), "[x, y]"),
    ("huge coordinate", lambda c: c.draw_line([0, 0], [1e9, 0]), "out of range"),
    ("nan in a path", lambda c: c.trace_path([[0, 0], [1, NAN]]), "finite"),
    ("path of one point", lambda c: c.trace_path([[0, 0]]), "between 2"),
    ("polygon of two points", lambda c: c.draw_polygon([[0, 0], [5, 5]]), "between 3"),
    ("nan radius", lambda c: c.draw_circle([10, 10], NAN), "finite"),
    ("zero radius", lambda c: c.draw_circle([10, 10], 0), "out of range"),
    ("unknown colour", lambda c: c.draw_line([0, 0], [5, 5], color="reddish"), "not a known colour"),
    ("bad hex colour", lambda c: c.draw_line([0, 0], [5, 5], color="#12345g"), "#rrggbb"),
    ("colour as a tuple", lambda c: c.draw_line([0, 0], [5, 5], color=(255, 0, 0)), "colour string"),
    ("unknown fill", lambda c: c.draw_polygon([[0, 0], [5, 0], [5, 5]], fill="sky"), "not a known colour"),
    ("zero width", lambda c: c.draw_line([0, 0], [5, 5], width=0), "out of range"),
    ("negative width", lambda c: c.draw_line([0, 0], [5, 5], width=-2), "out of range"),
    ("too wide", lambda c: c.draw_line([0, 0], [5, 5], width=101), "<= 100"),
    ("opacity above one", lambda c: c.draw_polygon([[0, 0], [5, 0], [5, 5]], opacity=1.5), "<= 1"),
    ("empty text", lambda c: c.add_text([1, 1], "  "), "empty"),
    ("text too long", lambda c: c.add_text([1, 1], "x" * 1001), "at most 1000"),
    ("font too big", lambda c: c.add_text([1, 1], "x", size=1000), "out of range"),
    ("dashed not a bool", lambda c: c.draw_line([0, 0], [5, 5], dashed="yes"), "true or false"),
    ("unknown id to update", lambda c: c.update_element("e99", color="blue"), "unknown element id 'e99'"),
    ("unknown id to remove", lambda c: c.remove_element("e42"), "the canvas has: e1, e2"),
    ("unknown id to transform", lambda c: c.transform(ids=["e1", "e9"], translate=[1, 1]), "unknown element id"),
    ("unknown property", lambda c: c.update_element("e1", radius=3), "has no property 'radius'"),
    ("bad property value", lambda c: c.update_element("e1", color="nope"), "not a known colour"),
    ("update with nothing", lambda c: c.update_element("e1"), "at least one property"),
    (
        "transform with two transforms",
        lambda c: c.transform(ids=["e1"], translate=[1, 1], scale={"factor": 2}),
        "exactly one of translate",
    ),
    ("transform with no target", lambda c: c.transform(translate=[1, 1]), "exactly one of ids"),
    (
        "transform ids and region",
        lambda c: c.transform(ids=["e1"], region=[0, 0, 5, 5], translate=[1, 1]),
        "exactly one of ids",
    ),
    ("rotate without angle", lambda c: c.transform(ids=["e1"], rotate={"center": [1, 1]}), "needs 'angle'"),
    ("rotate nan angle", lambda c: c.transform(ids=["e1"], rotate={"angle": NAN}), "finite"),
    ("rotate unknown key", lambda c: c.transform(ids=["e1"], rotate={"angle": 5, "pivot": [0, 0]}), "unknown keys"),
    ("degenerate mirror", lambda c: c.transform(ids=["e1"], reflect={"line": [[5, 5], [5, 5]]}), "distinct"),
    ("zero scale", lambda c: c.transform(ids=["e1"], scale={"factor": 0}), "out of range"),
    (
        "scale pushes out of range",
        lambda c: c.transform(ids=["e1"], scale={"factor": 100, "center": [-20000, 0]}),
        "after the transform",
    ),
    ("empty region", lambda c: c.transform(region=[10, 10, 10, 20], translate=[1, 1]), "empty"),
    ("region off the image", lambda c: c.transform(region=[200, 200, 300, 300], translate=[1, 1]), "does not overlap"),
    ("duplicate ids", lambda c: c.transform(ids=["e1", "e1"], translate=[1, 1]), "twice"),
    (
        "patch region is read-only",
        lambda c: (c.transform(region=[0, 0, 10, 10], translate=[1, 1]), c.update_element("e3", region=[0, 0, 5, 5])),
        "cannot be changed",
    ),
    ("grid step too small", lambda c: c.show_grid(True, step=2), "out of range"),
    ("grid on not a bool", lambda c: c.show_grid("on"), "true or false"),
    ("zoom factor too big", lambda c: c.zoom([0, 0, 10, 10], factor=100), "out of range"),
    ("zoom empty region", lambda c: c.zoom([10, 10, 5, 20]), "empty"),
    ("observe bad format", lambda c: c.observe(format="gif"), "'png' or 'jpeg'"),
    ("observe tiny side", lambda c: c.observe(max_side=2), "out of range"),
    ("apply unknown op", lambda c: c.apply({"op": "explode", "args": {}}), "unknown canvas operation"),
    ("apply bad args", lambda c: c.apply({"op": "draw_line", "args": {"begin": [0, 0]}}), "bad arguments"),
    ("apply not a record", lambda c: c.apply(["draw_line"]), "must be a dict"),
]


@pytest.mark.parametrize(("what", "call", "message"), BAD_CALLS, ids=[b[0] for b in BAD_CALLS])
def test_bad_input_raises_and_changes_nothing(what: str, call: Callable[[Canvas], object], message: str) -> None:
    c = _canvas()
    before = (c.snapshot().sha256, c.log, dict(c.elements), c.version, c.grid_step, c.svg())
    if what == "patch region is read-only":
        with pytest.raises(CanvasError, match="cannot be changed"):
            call(c)
        assert c.elements["e3"].props["region"] == [0, 0, 10, 10]
        assert len(c.log) == len(before[1]) + 1
        return
    with pytest.raises(CanvasError) as info:
        call(c)
    assert message in str(info.value), str(info.value)
    after = (c.snapshot().sha256, c.log, dict(c.elements), c.version, c.grid_step, c.svg())
    assert after == before
    assert c.undo() is True and list(c.elements) == ["e1"]  # history is intact too


@pytest.mark.parametrize(
    ("size", "message"),
    [
        ((8193, 10), "<= 8192"),
        ((10, 0), "out of range"),
        ((10.5, 10), "whole number"),
        (("a", 10), "number"),
        (None, "exactly one"),
    ],
)
def test_bad_canvas_sizes(size: object, message: str) -> None:
    with pytest.raises(CanvasError, match=message):
        Canvas(size=size)  # type: ignore[arg-type]


def test_base_and_size_together_are_refused() -> None:
    with pytest.raises(CanvasError, match="exactly one"):
        Canvas(base=Image.new("RGB", (4, 4)), size=(4, 4))
    with pytest.raises(CanvasError, match="PIL image"):
        Canvas(base="picture.png")  # type: ignore[arg-type]


def test_base_image_over_the_side_limit() -> None:
    with pytest.raises(CanvasError, match="at most 8192"):
        Canvas(base=Image.new("1", (8200, 2)))


def test_element_limit() -> None:
    c = Canvas(size=(50, 50))
    for _ in range(MAX_ELEMENTS):
        c.mark_point([1, 1])
    with pytest.raises(CanvasError, match="at most 5000"):
        c.draw_line([0, 0], [1, 1])
    with pytest.raises(CanvasError, match="at most 5000"):
        c.transform(region=[0, 0, 5, 5], translate=[1, 1])
    assert len(c.elements) == MAX_ELEMENTS
    c.remove_element("e1")
    assert c.draw_line([0, 0], [1, 1]) == f"e{MAX_ELEMENTS + 1}"


def _png_header_only(width: int, height: int) -> bytes:
    """Return a PNG whose header claims width x height (no real pixel data): a decompression bomb."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


@pytest.mark.parametrize(("width", "height"), [(60000, 60000), (8000, 8190), (9000, 100)])
def test_decompression_bombs_are_refused_before_decoding(tmp_path: Path, width: int, height: int) -> None:
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_header_only(width, height))
    with pytest.raises(CanvasError) as info:
        Canvas.from_path(path)
    text = str(info.value)
    assert "at most" in text and ("pixels" in text or "8192" in text)


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    with pytest.raises(CanvasError, match="cannot read"):
        Canvas.from_path(junk)
    with pytest.raises(CanvasError, match="no image file"):
        Canvas.from_path(tmp_path / "missing.png")
