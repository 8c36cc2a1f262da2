"""Perception tools on drawn images: measure, find_color, detect_shapes, maze_from_image."""

from __future__ import annotations

import math

import pytest
from mcot.canvas import Canvas
from mcot.tools import call
from PIL import Image, ImageDraw


def test_measure_lengths_and_angles() -> None:
    res = call("measure", {"points": [[0, 0], [30, 40], [30, 100]]}, Canvas(size=(200, 200)))
    assert res.data["lengths"] == pytest.approx([50, 60]) and res.data["total"] == pytest.approx(110)
    assert res.data["angles"][0]["angle"] == pytest.approx(180 - math.degrees(math.atan2(30, 40)))
    assert res.data["headings"][1] == pytest.approx(-90)  # straight down the screen
    square = call("measure", {"points": [[0, 0], [10, 0], [10, 10], [0, 10]], "closed": True}, Canvas(size=(20, 20)))
    assert [a["angle"] for a in square.data["angles"]] == pytest.approx([90, 90, 90, 90])


def _shapes_image() -> Image.Image:
    img = Image.new("RGB", (400, 300), "white")
    d = ImageDraw.Draw(img)
    d.rectangle([40, 40, 119, 119], fill=(0, 0, 230))  # square, 80 px
    d.ellipse([200, 40, 300, 140], fill=(220, 0, 0))  # circle r = 50 centred (250, 90)
    d.polygon([(60, 260), (160, 260), (110, 180)], fill=(0, 160, 0))  # triangle
    d.ellipse([240, 200, 360, 260], outline=(0, 0, 0), width=3)  # outlined ellipse
    d.rectangle([330, 20, 339, 29], fill=(220, 0, 0))  # small red square
    return img


def test_find_color_by_name_and_hex() -> None:
    c = Canvas(base=_shapes_image())
    res = call("find_color", {"color": "red", "tolerance": 40}, c)
    assert res.ok and res.data["count"] == 2
    big, small = res.data["regions"]
    assert big["centroid"] == pytest.approx([250, 90], abs=0.6) and big["area"] == pytest.approx(
        math.pi * 2500, rel=0.05
    )
    assert small["box"] == [330, 20, 340, 30] and small["area"] == 100
    blue = call("find_color", {"color": "#0000e6", "tolerance": 5}, c)
    assert blue.data["regions"][0]["box"] == [40, 40, 120, 120]
    inside = call("find_color", {"color": "red", "region": [310, 0, 400, 100]}, c)
    assert inside.data["count"] == 1 and inside.data["regions"][0]["box"] == [330, 20, 340, 30]
    bad = call("find_color", {"color": "reddish"}, c)
    assert not bad.ok and "CSS colour name" in bad.text


def test_find_color_reads_the_image_not_the_drawings() -> None:
    c = Canvas(size=(100, 100))
    call("draw_circle", {"center": [50, 50], "radius": 20, "color": "red", "fill": "red"}, c)
    assert call("find_color", {"color": "red"}, c).data["count"] == 0
    assert call("find_color", {"color": "red", "source": "canvas"}, c).data["count"] == 1


def test_detect_shapes() -> None:
    res = call("detect_shapes", {"min_area": 150}, Canvas(base=_shapes_image()))
    assert res.ok, res.text
    kinds = {s["color"]: s for s in res.data["shapes"]}
    assert kinds["blue"]["kind"] == "square" and kinds["blue"]["filled"]
    assert kinds["blue"]["centroid"] == pytest.approx([79.5, 79.5], abs=1)
    assert kinds["red"]["kind"] == "circle" and kinds["red"]["radius"] == pytest.approx(50, rel=0.05)
    assert kinds["green"]["kind"] == "triangle" and len(kinds["green"]["vertices"]) == 3
    assert kinds["black"]["kind"] == "ellipse" and not kinds["black"]["filled"]
    axes = sorted(kinds["black"]["ellipse"]["axes"])
    assert axes == [pytest.approx(30, rel=0.1), pytest.approx(60, rel=0.1)]


GRID = [
    "#########",
    "#S..#...#",
    "#.#.#.#.#",
    "#.#...#.#",
    "#.#####.#",
    "#...#...R",
    "###.#.###",
    "#.....#.#",
    "###B#####",
]
COLOURS = {"#": (0, 0, 0), ".": (255, 255, 255), "S": (0, 170, 0), "R": (220, 0, 0), "B": (0, 0, 230)}


def _maze(cell: int, origin: tuple[int, int], size: tuple[int, int] = (400, 400)) -> Image.Image:
    img = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(img)
    for r, row in enumerate(GRID):
        for c, ch in enumerate(row):
            x, y = origin[0] + c * cell, origin[1] + r * cell
            d.rectangle([x, y, x + cell - 1, y + cell - 1], fill=COLOURS[ch])
    return img


@pytest.mark.parametrize(("cell", "origin"), [(20, (30, 40)), (17, (13, 21)), (32, (0, 0))])
def test_maze_from_image_reads_the_grid(cell: int, origin: tuple[int, int]) -> None:
    c = Canvas(base=_maze(cell, origin))
    res = call("maze_from_image", {"labels": {"red": "R", "blue": "B"}}, c)
    assert res.ok, res.text
    assert res.data["grid"] == GRID
    assert res.data["cell"] == pytest.approx(cell) and res.data["origin"] == pytest.approx(list(origin))
    assert res.data["start"] == [1, 1]
    exits = {e["label"]: e for e in res.data["exits"]}
    assert exits["R"]["cell"] == [5, 8] and exits["R"]["color"] == "red"
    assert exits["B"]["center"] == pytest.approx([origin[0] + 3.5 * cell, origin[1] + 8.5 * cell])
    # the grid goes straight into solve_maze
    route = call(
        "solve_maze",
        {
            "grid": res.data["grid"],
            "targets": ["R"],
            "cell": res.data["cell"],
            "origin": res.data["origin"],
            "draw": True,
        },
        c,
    )
    assert route.ok and route.data["length"] == 15  # counted by hand: 14 to the cell left of R, +1
    assert route.data["distances"] == {"B": 9, "R": 15}


def test_maze_from_image_default_labels_and_given_geometry() -> None:
    c = Canvas(base=_maze(20, (30, 40)))
    default = call("maze_from_image", {}, c)
    assert {e["label"]: e["color"] for e in default.data["exits"]} == {"B": "blue", "R": "red"}
    given = call("maze_from_image", {"cell": 20, "origin": [30, 40]}, c)
    assert given.data["grid"] == default.data["grid"]
    blank = call("maze_from_image", {}, Canvas(size=(100, 100)))
    assert not blank.ok and "no maze found" in blank.text


def test_detect_shapes_faces_of_a_line_drawing() -> None:
    img = Image.new("RGB", (300, 300), "white")
    d = ImageDraw.Draw(img)
    d.rectangle([50, 50, 250, 250], outline=(0, 0, 0), width=3)
    d.ellipse([100, 100, 200, 200], outline=(0, 0, 0), width=3)  # nested: one connected mark, two faces
    c = Canvas(base=img)
    assert call("detect_shapes", {}, c).data["count"] == 2  # the square and the circle stand apart as marks
    faces = call("detect_shapes", {"mode": "faces"}, c).data["shapes"]
    assert [f["kind"] for f in faces] == ["square", "circle"]
    assert faces[1]["centroid"] == pytest.approx([150, 150], abs=1)
