"""Every drawing operation, checked pixel by pixel on a blank canvas."""

from __future__ import annotations

import io

import pytest
from mcot.canvas import Canvas
from PIL import Image

RED, BLUE, WHITE, GREEN = (255, 0, 0), (0, 0, 255), (255, 255, 255), (0, 128, 0)


@pytest.fixture
def blank() -> Canvas:
    """Return a blank white 200x100 canvas."""
    return Canvas(size=(200, 100))


def img(canvas: Canvas) -> Image.Image:
    return Image.open(io.BytesIO(canvas.snapshot().png)).convert("RGB")


def test_blank_canvas_is_white_and_sized() -> None:
    c = Canvas(size=(64, 32))
    image = img(c)
    assert (c.width, c.height) == (64, 32)
    assert image.size == (64, 32)
    assert image.getcolors() == [(64 * 32, WHITE)]


def test_red_line_makes_the_expected_pixels_red(blank: Canvas) -> None:
    eid = blank.draw_line([10, 50], [190, 50], color="red", width=3)
    image = img(blank)
    assert eid == "e1"
    for x in (12, 50, 100, 150, 188):
        assert image.getpixel((x, 50)) == RED
        assert image.getpixel((x, 49)) == RED
    for x in (12, 100, 188):
        assert image.getpixel((x, 45)) == WHITE
        assert image.getpixel((x, 55)) == WHITE
    assert image.getpixel((5, 50)) == WHITE and image.getpixel((195, 50)) == WHITE


def test_line_width_and_hex_colour(blank: Canvas) -> None:
    blank.draw_line([100, 0], [100, 100], color="#0000ff", width=9)
    image = img(blank)
    assert [image.getpixel((x, 50)) for x in range(96, 104)] == [BLUE] * 8
    assert image.getpixel((94, 50)) == WHITE and image.getpixel((106, 50)) == WHITE


def test_dashed_line_has_gaps(blank: Canvas) -> None:
    blank.draw_line([0, 50], [200, 50], width=2, dashed=True)
    row = [img(blank).getpixel((x, 50)) for x in range(200)]
    assert row.count(RED) > 60
    assert row.count(WHITE) > 40
    # dash 8 px on, 5 px off with width 2: x=2 is in the first dash, x=10 in the first gap.
    assert row[2] == RED and row[10] == WHITE


def test_mark_point_draws_a_disc_and_its_label(blank: Canvas) -> None:
    blank.mark_point([50, 60], label="A", color="blue", radius=6)
    image = img(blank)
    assert image.getpixel((50, 60)) == BLUE
    assert image.getpixel((53, 60)) == BLUE
    assert image.getpixel((50, 70)) == WHITE
    label_box = image.crop((58, 30, 80, 52))
    assert any(c[2] > 200 and c[0] < 60 for _, c in label_box.getcolors())
    unlabelled = Canvas(size=(200, 100))
    unlabelled.mark_point([50, 60], color="blue", radius=6)
    assert img(unlabelled).crop((58, 30, 80, 52)).getcolors() == [(22 * 22, WHITE)]


def test_trace_path_open_closed_and_arrowhead() -> None:
    c = Canvas(size=(100, 100))
    c.trace_path([[10, 10], [90, 10], [90, 90]], color="green", width=2)
    image = img(c)
    assert image.getpixel((50, 10)) == GREEN and image.getpixel((90, 50)) == GREEN
    assert image.getpixel((50, 50)) == WHITE  # open: the diagonal back to the start is not drawn
    closed = Canvas(size=(100, 100))
    closed.trace_path([[10, 10], [90, 10], [90, 90]], closed=True, color="green", width=2)
    assert img(closed).getpixel((50, 50)) == GREEN
    arrow = Canvas(size=(100, 100))
    arrow.trace_path([[10, 50], [90, 50]], arrow=True, color="green", width=2)
    image = img(arrow)
    # the head is 12 px long and 10 px wide at its base: at x=80 it spans y 46..54, beyond the 2 px shaft
    assert image.getpixel((80, 47)) == GREEN and image.getpixel((80, 52)) == GREEN
    assert image.getpixel((30, 46)) == WHITE


def test_arrow_has_a_head_at_its_end() -> None:
    c = Canvas(size=(100, 100))
    c.draw_arrow([10, 50], [90, 50], color="blue", width=2)
    image = img(c)
    assert image.getpixel((50, 50)) == BLUE
    assert image.getpixel((80, 47)) == BLUE and image.getpixel((80, 52)) == BLUE
    assert image.getpixel((18, 47)) == WHITE  # no head at the start
    assert image.getpixel((95, 50)) == WHITE


def test_circle_outline_and_fill() -> None:
    c = Canvas(size=(100, 100))
    c.draw_circle([50, 50], 30, color="blue", width=4)
    image = img(c)
    assert image.getpixel((80, 50)) == BLUE and image.getpixel((50, 20)) == BLUE
    assert image.getpixel((50, 50)) == WHITE
    filled = Canvas(size=(100, 100))
    filled.draw_circle([50, 50], 30, color="blue", fill="red", opacity=1.0)
    assert img(filled).getpixel((50, 50)) == RED
    half = Canvas(size=(100, 100))
    half.draw_circle([50, 50], 30, fill="red", opacity=0.5)
    r, g, b = img(half).getpixel((50, 50))
    assert r == 255 and 120 <= g <= 135 and 120 <= b <= 135


def test_polygon_translucent_fill_blends_with_the_base() -> None:
    c = Canvas(base=Image.new("RGB", (100, 100), (0, 0, 0)))
    c.draw_polygon([[10, 10], [90, 10], [90, 90], [10, 90]], color="white", fill="#ff0000", opacity=0.3)
    inside = img(c).getpixel((50, 50))
    assert abs(inside[0] - round(255 * 0.3)) <= 1 and inside[1:] == (0, 0)
    assert img(c).getpixel((10, 50)) == WHITE
    assert img(c).getpixel((95, 95)) == (0, 0, 0)


def test_polygon_default_fill_is_its_colour() -> None:
    c = Canvas(size=(100, 100))
    c.draw_polygon([[10, 10], [90, 10], [50, 90]], color="blue", opacity=1.0)
    assert img(c).getpixel((50, 40)) == BLUE


def test_add_text_top_left_anchor() -> None:
    c = Canvas(size=(200, 100))
    c.add_text([20, 30], "HELLO", color="blue", size=20)
    image = img(c)
    blue = [(x, y) for x in range(200) for y in range(100) if image.getpixel((x, y)) == BLUE]
    assert blue
    xs, ys = [p[0] for p in blue], [p[1] for p in blue]
    assert 19 <= min(xs) <= 24 and min(ys) >= 30 and max(ys) <= 52 and max(xs) < 120


def test_coordinates_outside_the_image_are_clipped(blank: Canvas) -> None:
    blank.draw_line([-500, 50], [5000, 50], width=2)
    image = img(blank)
    assert image.getpixel((0, 50)) == RED and image.getpixel((199, 50)) == RED
    assert blank.elements["e1"].props["end"] == [5000.0, 50.0]


def test_ids_are_sequential_and_elements_are_addressable(blank: Canvas) -> None:
    ids = [blank.draw_line([0, 0], [10, 10]), blank.mark_point([5, 5]), blank.add_text([1, 1], "x")]
    assert ids == ["e1", "e2", "e3"]
    assert [e.kind for e in blank.elements.values()] == ["line", "point", "text"]
    assert blank.elements["e2"].props == {"at": [5.0, 5.0], "label": None, "color": "red", "radius": 5.0}


def test_drawing_over_an_image_base_keeps_untouched_pixels() -> None:
    base = Image.new("RGB", (50, 50), (10, 200, 30))
    c = Canvas(base=base)
    c.draw_line([0, 25], [50, 25], width=2, color="black")
    image = img(c)
    assert image.getpixel((25, 25)) == (0, 0, 0)
    assert image.getpixel((25, 10)) == (10, 200, 30)


def test_rgba_base_is_flattened_over_white() -> None:
    base = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    assert img(Canvas(base=base)).getpixel((5, 5)) == WHITE
