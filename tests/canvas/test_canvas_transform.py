"""Transforms of elements and of copied base regions land where geometry says."""

from __future__ import annotations

import io
import math

import pytest
from mcot.canvas import Canvas
from PIL import Image

RED, BLUE, WHITE = (255, 0, 0), (0, 0, 255), (255, 255, 255)


def img(canvas: Canvas) -> Image.Image:
    return Image.open(io.BytesIO(canvas.snapshot().png)).convert("RGB")


def test_translate_moves_a_line() -> None:
    c = Canvas(size=(200, 100))
    eid = c.draw_line([10, 20], [90, 20], width=4)
    assert c.transform(ids=[eid], translate=[50, 40]) == [eid]
    assert c.elements[eid].props["start"] == [60.0, 60.0]
    assert c.elements[eid].props["end"] == [140.0, 60.0]
    image = img(c)
    assert image.getpixel((100, 60)) == RED
    assert image.getpixel((50, 20)) == WHITE


def test_rotated_point_lands_at_the_known_coordinates() -> None:
    c = Canvas(size=(100, 100))
    eid = c.mark_point([60, 50], radius=3)
    c.transform(ids=[eid], rotate={"angle": 90, "center": [50, 50]})
    # counter-clockwise on screen: right of the centre goes to above it (y points down)
    assert c.elements[eid].props["at"] == [50.0, 40.0]
    image = img(c)
    assert image.getpixel((50, 40)) == RED
    assert image.getpixel((60, 50)) == WHITE
    c.transform(ids=[eid], rotate={"angle": -30, "center": [50, 50]})
    x, y = c.elements[eid].props["at"]
    assert (x, y) == pytest.approx((55.0, 50 - 10 * math.cos(math.radians(30))), abs=1e-9)


def test_rotate_by_30_degrees() -> None:
    c = Canvas(size=(100, 100))
    eid = c.draw_line([50, 50], [70, 50])
    c.transform(ids=[eid], rotate={"angle": 30, "center": [50, 50]})
    end = c.elements[eid].props["end"]
    assert end == pytest.approx([50 + 20 * math.cos(math.radians(30)), 50 - 20 * math.sin(math.radians(30))])


def test_reflected_element_lands_where_geometry_says() -> None:
    c = Canvas(size=(200, 100))
    eid = c.draw_circle([30, 40], 8, fill="red", opacity=1.0, width=1)
    c.transform(ids=[eid], reflect={"line": [[100, 0], [100, 100]]})
    assert c.elements[eid].props["center"] == [170.0, 40.0]
    image = img(c)
    assert image.getpixel((170, 40)) == RED and image.getpixel((30, 40)) == WHITE
    diagonal = Canvas(size=(100, 100))
    pid = diagonal.mark_point([30, 10])
    diagonal.transform(ids=[pid], reflect={"line": [[0, 0], [1, 1]]})
    assert diagonal.elements[pid].props["at"] == [10.0, 30.0]


def test_scale_about_a_point_scales_geometry_and_radius() -> None:
    c = Canvas(size=(200, 200))
    circle = c.draw_circle([60, 60], 10)
    text = c.add_text([40, 40], "T", size=10)
    c.transform(ids=[circle, text], scale={"factor": 2, "center": [50, 50]})
    assert c.elements[circle].props["center"] == [70.0, 70.0]
    assert c.elements[circle].props["radius"] == 20.0
    assert c.elements[text].props["at"] == [30.0, 30.0]
    assert c.elements[text].props["size"] == 20.0
    image = img(c)
    assert image.getpixel((90, 70)) == RED and image.getpixel((70, 70)) == WHITE


def test_default_centre_is_the_bounding_box_centre() -> None:
    c = Canvas(size=(100, 100))
    eid = c.draw_line([20, 50], [80, 50])
    c.transform(ids=[eid], rotate={"angle": 90})
    assert c.elements[eid].props["start"] == [50.0, 80.0]
    assert c.elements[eid].props["end"] == [50.0, 20.0]
    assert c.log[-1]["args"]["rotate"] == {"angle": 90.0, "center": [50.0, 50.0]}


def _base_with_block() -> Image.Image:
    base = Image.new("RGB", (100, 100), WHITE)
    base.paste(BLUE, (10, 10, 20, 30))  # a 10 x 20 blue block, x 10..19, y 10..29
    return base


def test_region_translate_copies_the_base_pixels() -> None:
    c = Canvas(base=_base_with_block())
    ids = c.transform(region=[0, 0, 40, 40], translate=[50, 50])
    assert ids == ["e1"] and c.elements["e1"].kind == "patch"
    image = img(c)
    assert image.getpixel((15, 20)) == BLUE  # the original stays
    assert image.getpixel((65, 70)) == BLUE  # the copy
    assert image.getpixel((60, 79)) == BLUE and image.getpixel((69, 60)) == BLUE
    assert image.getpixel((70, 70)) == WHITE and image.getpixel((65, 81)) == WHITE
    assert c.log[-1] == {"op": "transform", "args": {"region": [0, 0, 40, 40], "translate": [50.0, 50.0]}, "id": "e1"}


def test_region_rotate_maps_pixels_by_the_rotation() -> None:
    c = Canvas(base=_base_with_block())
    c.transform(region=[0, 0, 40, 40], translate=[50, 0])
    c.transform(ids=["e1"], rotate={"angle": 90, "center": [70, 20]})
    image = img(c)
    # block centre (65, 20) after the translate; rotating 90 deg CCW about (70, 20) takes it to (70, 25),
    # and its 10 x 20 extent becomes 20 wide x 10 tall: x 60..80, y 20..30.
    assert image.getpixel((70, 25)) == BLUE
    assert image.getpixel((62, 22)) == BLUE and image.getpixel((78, 28)) == BLUE
    assert image.getpixel((70, 33)) == WHITE and image.getpixel((65, 15)) == WHITE


def test_region_reflect_and_matrix_update() -> None:
    c = Canvas(base=_base_with_block())
    (pid,) = c.transform(region=[0, 0, 50, 50], reflect={"line": [[50, 0], [50, 100]]})
    assert c.elements[pid].props["matrix"] == [-1.0, 0.0, 0.0, 1.0, 100.0, 0.0]
    image = img(c)
    assert image.getpixel((85, 20)) == BLUE  # x 10..19 mirrored to 80..89
    c.update_element(pid, matrix=[1, 0, 0, 1, 0, 60])
    image = img(c)
    assert image.getpixel((15, 80)) == BLUE and image.getpixel((85, 20)) == WHITE


def test_region_is_clipped_to_the_image() -> None:
    c = Canvas(base=_base_with_block())
    c.transform(region=[-20.5, -5, 30.2, 40], translate=[0, 50])
    assert c.elements["e1"].props["region"] == [0, 0, 31, 40]
