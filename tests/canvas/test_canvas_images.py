"""Snapshots, observations, zoom, the grid, SVG export and opening files."""

from __future__ import annotations

import hashlib
import io
import xml.etree.ElementTree as ET
from pathlib import Path

from mcot.canvas import Canvas
from PIL import Image

RED, WHITE = (255, 0, 0), (255, 255, 255)


def decode(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def test_snapshot_is_png_with_its_sha256_and_is_cached() -> None:
    c = Canvas(size=(64, 48))
    c.draw_line([0, 0], [64, 48])
    snap = c.snapshot()
    assert snap.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert snap.sha256 == hashlib.sha256(snap.png).hexdigest()
    assert (snap.width, snap.height) == (64, 48)
    assert c.snapshot() is snap
    c.mark_point([10, 10])
    assert c.snapshot().sha256 != snap.sha256


def test_same_operations_give_identical_bytes_across_canvases() -> None:
    def build() -> bytes:
        c = Canvas(size=(300, 200))
        c.draw_polygon([[10, 10], [290, 30], [150, 190]], fill="#336699", opacity=0.4)
        c.add_text([20, 150], "F = ma", size=18, color="black")
        c.mark_point([150, 100], label="O")
        return c.snapshot().png

    assert build() == build()


def test_observe_png_at_full_size_is_the_snapshot() -> None:
    c = Canvas(size=(200, 100))
    c.draw_line([0, 50], [200, 50])
    obs = c.observe(max_side=1024)
    assert obs.media_type == "image/png" and obs.suffix == ".png"
    assert obs.data == c.snapshot().png and obs.sha256 == c.snapshot().sha256
    assert (obs.width, obs.height) == (200, 100)


def test_observe_downscales_the_longer_side_and_encodes_jpeg() -> None:
    c = Canvas(size=(2000, 1000))
    c.draw_line([0, 500], [2000, 500], width=20)
    small = c.observe(max_side=500)
    assert (small.width, small.height) == (500, 250)
    image = decode(small.data)
    assert image.size == (500, 250)
    r, g, b = image.getpixel((250, 125))
    assert r == 255 and g < 10 and b < 10
    assert image.getpixel((250, 20)) == WHITE
    jpeg = c.observe(max_side=500, format="jpeg")
    assert jpeg.media_type == "image/jpeg" and jpeg.suffix == ".jpg" and jpeg.data[:2] == b"\xff\xd8"
    r, g, b = decode(jpeg.data).getpixel((250, 125))
    assert r > 230 and g < 30 and b < 30
    assert c.snapshot().width == 2000  # the trace keeps full resolution


def test_zoom_magnifies_without_changing_the_canvas() -> None:
    c = Canvas(size=(100, 100))
    c.draw_line([0, 50], [100, 50], width=2)
    before = (c.snapshot().sha256, c.log, c.version)
    view = c.zoom([40, 40, 60, 60], factor=4)
    assert view.size == (80, 80)
    assert view.getpixel((40, 40)) == RED  # canvas y 50 -> zoomed y (50 - 40) * 4 = 40
    assert view.getpixel((40, 5)) == WHITE
    assert (c.snapshot().sha256, c.log, c.version) == before


def test_grid_draws_lines_at_the_step_and_hides_again() -> None:
    c = Canvas(size=(300, 200))
    plain = c.snapshot().sha256
    c.show_grid(True, step=50)
    image = decode(c.snapshot().png)
    r, _, b = image.getpixel((50, 120))
    assert b == 255 and r < 200  # a bluish grid line at x = 50
    assert image.getpixel((75, 120)) == WHITE
    label_area = image.crop((52, 1, 70, 14))
    assert any(c[2] > 150 and c[0] < 100 for _, c in label_area.getcolors())  # the "50" label
    assert c.log[-1] == {"op": "show_grid", "args": {"on": True, "step": 50}}
    c.show_grid(False)
    assert c.snapshot().sha256 == plain
    c.show_grid(True)
    assert c.grid_step == 25  # default: a round step, about a dozen lines across the longer side


def test_grid_does_not_enter_the_cached_vector_layer() -> None:
    c = Canvas(size=(200, 200))
    c.show_grid(True, step=20)
    c.snapshot()
    c.draw_line([0, 100], [200, 100])
    c.show_grid(False)
    fresh = Canvas(size=(200, 200))
    fresh.draw_line([0, 100], [200, 100])
    assert c.snapshot().png == fresh.snapshot().png


def test_svg_lists_every_element_and_parses() -> None:
    c = Canvas(size=(120, 90))
    c.draw_line([0, 0], [10, 10], dashed=True)
    c.mark_point([5, 5], label="A<B")
    c.trace_path([[0, 0], [5, 5], [9, 1]], arrow=True)
    c.draw_arrow([1, 1], [50, 50])
    c.draw_circle([30, 30], 5, fill="blue", opacity=0.5)
    c.draw_polygon([[0, 0], [5, 0], [5, 5]])
    c.add_text([3, 3], "hi & bye")
    c.transform(region=[0, 0, 10, 10], translate=[20, 20])
    c.show_grid(True, step=30)
    root = ET.fromstring(c.svg())
    ns = "{http://www.w3.org/2000/svg}"
    groups = root.findall(f"{ns}g")
    assert [g.get("id") for g in groups] == ["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "grid"]
    assert [g.get("class") for g in groups[:8]] == [
        "line",
        "point",
        "path",
        "arrow",
        "circle",
        "polygon",
        "text",
        "patch",
    ]
    assert root.get("width") == "120" and root.get("height") == "90"
    assert "A&lt;B" in c.svg() and "data:image/png;base64," in c.svg()


def test_from_path_opens_and_flattens(tmp_path: Path) -> None:
    path = tmp_path / "item.png"
    Image.new("RGBA", (40, 30), (0, 0, 255, 255)).save(path)
    c = Canvas.from_path(path)
    assert (c.width, c.height) == (40, 30)
    assert decode(c.snapshot().png).getpixel((5, 5)) == (0, 0, 255)
    gray = tmp_path / "gray.jpg"
    Image.new("L", (20, 10), 128).save(gray)
    assert Canvas.from_path(gray).base.mode == "RGB"


def test_replay_from_a_size() -> None:
    c = Canvas(size=(50, 40))
    c.draw_line([0, 0], [50, 40])
    assert Canvas.replay((50, 40), c.log).snapshot().png == c.snapshot().png
