"""Pixel checks: the geometry found by colour in the PNG lies where the closed forms put it (within a few pixels).

Expected positions are computed here by hand from the scene's numbers and mapped to pixels with the frame the
image reports in its meta (`layout.frame`: pixels per scene unit and the pixel of the scene's origin).
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from mcot.agents.generators.procedural import build_scene, mirrors, refraction, render_scene, shadows
from PIL import Image

SIZE = (512, 512)


def _draw(scene: dict, *, broken: bool = False) -> tuple[np.ndarray, dict]:
    rendered = render_scene(build_scene("", None, 0, scene), SIZE, broken=broken)
    pixels = np.asarray(Image.open(io.BytesIO(rendered.png)).convert("RGB")).astype(int)
    return pixels, rendered.meta


def _mask(pixels: np.ndarray, color: str) -> np.ndarray:
    """Return where the image has exactly ``color`` (#rrggbb)."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return np.all(pixels == rgb, axis=-1)


def _px(meta: dict, x: float, y: float) -> tuple[float, float]:
    frame = meta["layout"]["frame"]
    return frame["origin"][0] + x * frame["px_per_unit"], frame["origin"][1] - y * frame["px_per_unit"]


def _runs(columns: np.ndarray) -> list[tuple[int, int]]:
    """Return the [first, last] of each run of consecutive column indices."""
    runs: list[tuple[int, int]] = []
    for c in sorted(set(columns.tolist())):
        if runs and c == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], c)
        else:
            runs.append((c, c))
    return runs


SUN = {
    "template": "shadow_sun",
    "elevation_deg": 30.0,
    "sun_side": "left",
    "ground": "grass",
    "objects": [{"x": 0.0, "height": 2.0, "width": 0.2}],
}


class TestShadowPixels:
    def test_sun_shadow_far_end_where_height_over_tan_elevation_puts_it(self) -> None:
        pixels, meta = _draw(SUN)
        cols = np.nonzero(_mask(pixels, shadows.SHADOW))[1]
        start, tip = cols.min(), cols.max() + 1
        assert tip == pytest.approx(_px(meta, 0.1 + 2.0 / math.tan(math.radians(30.0)), 0)[0], abs=2.0)
        assert start == pytest.approx(_px(meta, -0.1, 0)[0], abs=2.0)

    def test_sun_shadow_ratio_measured_without_the_frame(self) -> None:
        pixels, _ = _draw(SUN)
        rows, cols = np.nonzero(_mask(pixels, shadows.OBJECT))
        height_px = rows.max() - rows.min() + 1
        right_edge = cols.max() + 1
        tip = np.nonzero(_mask(pixels, shadows.SHADOW))[1].max() + 1
        assert (tip - right_edge) / height_px == pytest.approx(1 / math.tan(math.radians(30.0)), rel=0.02)

    def test_broken_twin_casts_the_shadow_towards_the_sun(self) -> None:
        pixels, meta = _draw({**SUN, "twin": {"violation": "direction"}}, broken=True)
        cols = np.nonzero(_mask(pixels, shadows.SHADOW))[1]
        assert cols.max() + 1 == pytest.approx(_px(meta, 0.1, 0)[0], abs=2.0)
        assert cols.min() == pytest.approx(_px(meta, -0.1 - 2.0 * math.sqrt(3), 0)[0], abs=2.0)

    def test_broken_twin_of_the_wrong_length(self) -> None:
        pixels, meta = _draw({**SUN, "twin": {"violation": "length", "factor": 2.0}}, broken=True)
        tip = np.nonzero(_mask(pixels, shadows.SHADOW))[1].max() + 1
        assert tip == pytest.approx(_px(meta, 0.1 + 4.0 * math.sqrt(3), 0)[0], abs=2.0)

    def test_lamp_shadows_point_away_on_both_sides(self) -> None:
        scene = {
            "template": "shadow_lamp",
            "lamp_height": 4.0,
            "lamp_x": 0.0,
            "ground": "pavement",
            "objects": [{"x": 2.9, "height": 1.0, "width": 0.2}, {"x": -1.4, "height": 2.0, "width": 0.2}],
        }
        pixels, meta = _draw(scene)
        (left_start, left_end), (right_start, right_end) = _runs(np.nonzero(_mask(pixels, shadows.SHADOW))[1])
        assert left_start == pytest.approx(_px(meta, -1.5 - 1.5, 0)[0], abs=2.0)  # 2·1.5/(4−2) = 1.5 m beyond
        assert left_end + 1 == pytest.approx(_px(meta, -1.3, 0)[0], abs=2.0)
        assert right_start == pytest.approx(_px(meta, 2.8, 0)[0], abs=2.0)
        assert right_end + 1 == pytest.approx(_px(meta, 3.0 + 1.0, 0)[0], abs=2.0)  # 1·3/(4−1) = 1 m beyond


def _image(pixels: np.ndarray) -> tuple[float, int, int, int]:
    """Return the image arrow's mean x, top and bottom edges (px) and the row where it is widest (its arrowhead)."""
    rows, cols = np.nonzero(_mask(pixels, mirrors.IMAGE))
    widths = np.bincount(rows)
    return float(cols.mean()), int(rows.min()), int(rows.max()) + 1, int(widths.argmax())


PLANE = {
    "template": "plane_mirror",
    "object_distance": 30.0,
    "object_height": 20.0,
    "eye_distance": 15.0,
    "eye_height": 28.0,
}


class TestMirrorPixels:
    def test_plane_mirror_image_as_far_behind_upright_same_height(self) -> None:
        pixels, meta = _draw(PLANE)
        x, top, bottom, widest = _image(pixels)
        assert x == pytest.approx(_px(meta, 30.0, 0)[0], abs=1.5)
        assert top == pytest.approx(_px(meta, 0, 20.0)[1], abs=3.0)
        assert widest < (top + bottom) / 2  # the arrowhead is at the top: upright
        object_rows = np.nonzero(_mask(pixels, mirrors.OBJECT))[0]
        assert top == pytest.approx(object_rows.min(), abs=1)  # the same height as the object
        mirror_x = np.nonzero(_mask(pixels, mirrors.GLASS))[1].mean()
        object_x = np.nonzero(_mask(pixels, mirrors.OBJECT))[1].mean()
        assert x - mirror_x == pytest.approx(mirror_x - object_x, abs=1.5)

    def test_plane_mirror_broken_twins(self) -> None:
        pixels, meta = _draw({**PLANE, "twin": {"violation": "orientation"}}, broken=True)
        x, top, bottom, widest = _image(pixels)
        assert x == pytest.approx(_px(meta, 30.0, 0)[0], abs=1.5)
        assert bottom == pytest.approx(_px(meta, 0, 0)[1], abs=3.0)
        assert widest > (top + bottom) / 2  # the arrowhead is at the bottom: upside down
        pixels, meta = _draw({**PLANE, "twin": {"violation": "distance", "factor": 1.6}}, broken=True)
        assert _image(pixels)[0] == pytest.approx(_px(meta, 48.0, 0)[0], abs=1.5)

    @pytest.mark.parametrize(
        ("mirror", "do", "ho", "di", "hi"),
        [
            ("concave", 30.0, 4.0, 15.0, -2.0),  # real, inverted, half size
            ("concave", 5.0, 3.0, -10.0, 6.0),  # inside F: virtual, upright, twice the size
            ("convex", 10.0, 4.0, -5.0, 2.0),  # virtual, upright, half size
        ],
    )
    def test_spherical_mirror_image_where_the_mirror_equation_puts_it(
        self, mirror: str, do: float, ho: float, di: float, hi: float
    ) -> None:
        scene = {
            "template": "spherical_mirror",
            "mirror": mirror,
            "focal_length": 10.0,
            "object_distance": do,
            "object_height": ho,
        }
        pixels, meta = _draw(scene)
        x, top, bottom, _ = _image(pixels)
        tip_x, tip_y = _px(meta, -di, hi)
        assert x == pytest.approx(tip_x, abs=1.5)
        assert (top if hi > 0 else bottom) == pytest.approx(tip_y, abs=3.0)
        axis_y = _px(meta, 0, 0)[1]
        assert (bottom if hi > 0 else top) == pytest.approx(axis_y, abs=2.0)  # the image stands on the axis

    def test_spherical_mirror_twin_upside_down(self) -> None:
        scene = {
            "template": "spherical_mirror",
            "mirror": "concave",
            "focal_length": 10.0,
            "object_distance": 30.0,
            "object_height": 4.0,
            "twin": {"violation": "orientation"},
        }
        pixels, meta = _draw(scene, broken=True)
        _, top, _, _ = _image(pixels)
        assert top == pytest.approx(_px(meta, 0, 2.0)[1], abs=3.0)  # upright: a real image the wrong way up


STRAW = {
    "template": "straw",
    "medium": "water",
    "glass_width": 10.0,
    "liquid_depth": 12.0,
    "tilt_deg": 20.0,
    "tip_side": "right",
    "tip_depth": 8.0,
    "entry_x": -1.0,
}


def _straw_bottom(meta: dict, depth: float) -> float:
    """Return the lowest pixel row of a 7-px straw whose end is drawn at ``depth`` (its butt end's lower corner)."""
    run = 8.0 * math.tan(math.radians(20.0))
    (x0, y0), (x1, y1) = _px(meta, -1.0, 0.0), _px(meta, -1.0 + run, -depth)
    return y1 + 3.5 * abs(x1 - x0) / math.hypot(x1 - x0, y1 - y0)


class TestRefractionPixels:
    def test_straw_appears_raised_to_depth_times_n2_over_n1(self) -> None:
        pixels, meta = _draw(STRAW)
        rows = np.nonzero(_mask(pixels, refraction.STRAW))[0]
        assert rows.max() + 1 == pytest.approx(_straw_bottom(meta, 8.0 / 1.333), abs=2.0)

    def test_broken_straw_bends_the_wrong_way(self) -> None:
        pixels, meta = _draw({**STRAW, "twin": {"violation": "direction"}}, broken=True)
        rows = np.nonzero(_mask(pixels, refraction.STRAW))[0]
        assert rows.max() + 1 == pytest.approx(_straw_bottom(meta, 8.0 * 1.333), abs=2.0)

    def test_coin_image_at_the_apparent_depth(self) -> None:
        scene = {
            "template": "apparent_depth",
            "medium": "glass",
            "depth": 12.0,
            "width": 20.0,
            "coin_x": 0.0,
            "ray_angle_deg": 8.0,
        }
        pixels, meta = _draw(scene)
        rows, cols = np.nonzero(_mask(pixels, refraction.APPARENT_COIN))
        assert rows.mean() == pytest.approx(_px(meta, 0, -8.0)[1], abs=1.0)  # 12 × 1/1.5
        assert cols.mean() == pytest.approx(_px(meta, 0, 0)[0], abs=1.0)  # straight above the coin
        pixels, meta = _draw({**scene, "twin": {"violation": "deeper"}}, broken=True)
        rows = np.nonzero(_mask(pixels, refraction.APPARENT_COIN))[0]
        assert rows.mean() == pytest.approx(_px(meta, 0, -18.0)[1], abs=1.0)  # 12 × 1.5: deeper than the coin

    def test_no_light_leaves_beyond_the_critical_angle(self) -> None:
        scene = {
            "template": "total_internal_reflection",
            "medium": "water",
            "source_depth": 4.0,
            "incidence_deg": [20.0, 60.0],
        }

        def escaping(pixels: np.ndarray, meta: dict) -> int:
            """Count transmitted-ray pixels in the air above where the 60° ray meets the surface."""
            hit_x, surface_y = _px(meta, 4.0 * math.tan(math.radians(60.0)), 0)
            out = _mask(pixels, refraction.RAY_OUT)
            return int(out[: int(surface_y) - 5, int(hit_x) + 3 :].sum())

        assert escaping(*_draw(scene)) == 0
        assert escaping(*_draw({**scene, "twin": {"violation": "no_tir"}}, broken=True)) > 50
