"""Figures opened from files: decoded once per file while it is unchanged, their opening PNG written once."""

from __future__ import annotations

import os
from pathlib import Path

from mcot.canvas import Canvas
from mcot.canvas._png import encode_png
from PIL import Image, ImageDraw


def _figure(path: Path, color: str) -> None:
    image = Image.new("RGB", (120, 90), "white")
    ImageDraw.Draw(image).ellipse((10, 10, 80, 70), outline=color, width=3)
    image.save(path)


def test_canvases_over_one_file_share_its_decoded_figure_and_opening(tmp_path: Path) -> None:
    path = tmp_path / "fig.png"
    _figure(path, "red")
    first = Canvas.from_path(path)
    opening = first.snapshot()
    second = Canvas.from_path(path)
    assert second.base is first.base  # decoded once
    assert second.snapshot() is opening  # written once: the same snapshot, its bytes those of a fresh encoding
    assert opening.png == encode_png(Image.open(path).convert("RGB"))


def test_drawing_on_one_canvas_leaves_the_others_over_the_figure_as_they_were(tmp_path: Path) -> None:
    path = tmp_path / "fig.png"
    _figure(path, "blue")
    drawn, plain = Canvas.from_path(path), Canvas.from_path(path)
    opening = drawn.snapshot()
    drawn.draw_line([0, 0], [119, 89], color="green", width=6)
    after = drawn.snapshot()
    assert after.png == encode_png(drawn.render_full()) and after.sha256 != opening.sha256
    assert plain.snapshot().png == opening.png
    third = Canvas.from_path(path)
    third.mark_point([60, 45], label="A")  # its first step starts from the figure's kept bands
    assert third.snapshot().png == encode_png(third.render_full())


def test_a_rewritten_file_is_decoded_again(tmp_path: Path) -> None:
    path = tmp_path / "fig.png"
    _figure(path, "red")
    red = Canvas.from_path(path).snapshot()
    _figure(path, "black")
    os.utime(path, ns=(1, 1))  # a rewrite within the clock's resolution: the stat still differs (mtime, ctime)
    black = Canvas.from_path(path)
    assert black.snapshot().sha256 != red.sha256
    assert black.snapshot().png == encode_png(Image.open(path).convert("RGB"))
