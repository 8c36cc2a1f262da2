"""The procedural generator's closed forms against values computed by hand, and each template's truth."""

from __future__ import annotations

import math

import pytest
from mcot.agents.generators.procedural import build_scene, optics, render_scene


class TestShadows:
    def test_shadow_length_is_height_over_tan_elevation(self) -> None:
        assert optics.shadow_length(2.0, 45.0) == pytest.approx(2.0)
        assert optics.shadow_length(1.5, 30.0) == pytest.approx(1.5 * math.sqrt(3))  # 2.598
        assert optics.shadow_length(3.0, 60.0) == pytest.approx(3.0 / math.sqrt(3))  # 1.732

    def test_a_low_sun_casts_a_longer_shadow(self) -> None:
        assert optics.shadow_length(1.0, 10.0) > optics.shadow_length(1.0, 45.0) > optics.shadow_length(1.0, 80.0)

    @pytest.mark.parametrize("elevation", [0.0, 90.0, -5.0])
    def test_elevations_outside_0_90_are_refused(self, elevation: float) -> None:
        with pytest.raises(ValueError, match="elevation"):
            optics.shadow_length(1.0, elevation)

    def test_point_light_shadow_by_similar_triangles(self) -> None:
        # lamp 4 m high, object 1 m tall, 3 m from the lamp's foot: L = 1·3 / (4 − 1) = 1 m, elevation 45°
        assert optics.point_light_shadow_length(4.0, 1.0, 3.0) == pytest.approx(1.0)
        assert optics.point_light_elevation(4.0, 1.0, 3.0) == pytest.approx(45.0)
        # and L = h / tan(elevation) holds for the point light too
        assert optics.point_light_shadow_length(5.0, 2.0, 1.5) == pytest.approx(2.0 / math.tan(math.atan2(3.0, 1.5)))

    def test_an_object_taller_than_the_lamp_is_refused(self) -> None:
        with pytest.raises(ValueError, match="higher than the object"):
            optics.point_light_shadow_length(2.0, 2.5, 1.0)


class TestMirrors:
    @pytest.mark.parametrize(
        ("f", "do", "di", "m"),
        [
            (10.0, 30.0, 15.0, -0.5),  # concave, beyond C: real, inverted, diminished
            (10.0, 20.0, 20.0, -1.0),  # concave, at C: real, inverted, same size
            (10.0, 15.0, 30.0, -2.0),  # concave, between F and C: real, inverted, magnified
            (10.0, 5.0, -10.0, 2.0),  # concave, inside F: virtual, upright, magnified
            (-10.0, 10.0, -5.0, 0.5),  # convex: virtual, upright, diminished
            (-10.0, 30.0, -7.5, 0.25),
        ],
    )
    def test_mirror_equation_and_magnification(self, f: float, do: float, di: float, m: float) -> None:
        assert optics.mirror_image_distance(f, do) == pytest.approx(di)
        assert optics.magnification(di, do) == pytest.approx(m)
        assert 1 / f == pytest.approx(1 / do + 1 / di)

    def test_plane_mirror_image_is_as_far_behind(self) -> None:
        assert optics.plane_mirror_image_distance(25.0) == -25.0

    def test_an_object_at_the_focal_point_is_refused(self) -> None:
        with pytest.raises(ValueError, match="infinity"):
            optics.mirror_image_distance(10.0, 10.0)


class TestRefraction:
    def test_apparent_depth_is_real_depth_times_n2_over_n1(self) -> None:
        assert optics.apparent_depth(2.0, 4 / 3, 1.0) == pytest.approx(1.5)  # 2 m of water looks 1.5 m deep
        assert optics.apparent_depth(3.0, 1.5, 1.0) == pytest.approx(2.0)  # 3 cm of glass looks 2 cm thick
        assert optics.apparent_depth(1.0, 1.0, 1.333) == pytest.approx(1.333)  # a fish sees a bird farther away

    def test_critical_angle_is_asin_n2_over_n1(self) -> None:
        assert optics.critical_angle(2.0, 1.0) == pytest.approx(30.0)
        assert optics.critical_angle(math.sqrt(2), 1.0) == pytest.approx(45.0)
        assert optics.critical_angle(1.5, 1.0) == pytest.approx(41.8103, abs=1e-4)
        assert optics.critical_angle(1.333, 1.0) == pytest.approx(48.6066, abs=1e-4)

    def test_no_critical_angle_into_a_denser_medium(self) -> None:
        with pytest.raises(ValueError, match="n1 > n2"):
            optics.critical_angle(1.0, 1.5)

    def test_snell_law_and_total_internal_reflection(self) -> None:
        assert optics.refraction_angle(30.0, 1.0, 1.5) == pytest.approx(math.degrees(math.asin(1 / 3)))  # 19.47°
        assert optics.refraction_angle(19.4712206, 1.5, 1.0) == pytest.approx(30.0, abs=1e-6)
        assert optics.refraction_angle(60.0, 1.5, 1.0) is None  # beyond 41.8°: totally reflected
        assert optics.refraction_angle(optics.critical_angle(1.5, 1.0), 1.5, 1.0) == pytest.approx(90.0)


def _meta(scene: dict, broken: bool = False) -> dict:
    return render_scene(build_scene("", None, 0, scene), (256, 256), broken=broken).meta


class TestTruthOfScenes:
    """Each template's meta carries the closed-form values its drawing is built from."""

    def test_sun_scene(self) -> None:
        objects = [{"x": 0.0, "height": 2.0, "width": 0.2}, {"x": 5.0, "height": 1.0, "width": 0.2}]
        scene = {
            "template": "shadow_sun",
            "elevation_deg": 30.0,
            "sun_side": "left",
            "ground": "grass",
            "objects": objects,
        }
        shadows = _meta(scene)["truth"]["shadows"]
        assert [s["length"] for s in shadows] == pytest.approx([2 * math.sqrt(3), math.sqrt(3)])
        assert [s["tip"] for s in shadows] == pytest.approx([0.1 + 2 * math.sqrt(3), 5.1 + math.sqrt(3)])

    def test_lamp_scene(self) -> None:
        objects = [{"x": 2.9, "height": 1.0, "width": 0.2}, {"x": -1.4, "height": 2.0, "width": 0.2}]
        scene = {"template": "shadow_lamp", "lamp_height": 4.0, "lamp_x": 0.0, "ground": "sand", "objects": objects}
        shadows = _meta(scene)["truth"]["shadows"]
        # far corners at 3.0 m and 1.5 m from the lamp: L = 1·3/3 = 1 and 2·1.5/2 = 1.5, pointing away
        assert [s["length"] for s in shadows] == pytest.approx([1.0, 1.5])
        assert [s["tip"] for s in shadows] == pytest.approx([4.0, -3.0])
        assert shadows[0]["elevation_deg"] == pytest.approx(45.0)

    def test_spherical_mirror_scenes(self) -> None:
        concave = _meta(
            {
                "template": "spherical_mirror",
                "mirror": "concave",
                "focal_length": 10.0,
                "object_distance": 30.0,
                "object_height": 4.0,
            }
        )["truth"]
        assert (concave["image_distance"], concave["magnification"]) == pytest.approx((15.0, -0.5))
        assert concave["image"]["top"] == pytest.approx(-2.0) and concave["orientation"] == "inverted"
        convex = _meta(
            {
                "template": "spherical_mirror",
                "mirror": "convex",
                "focal_length": 10.0,
                "object_distance": 10.0,
                "object_height": 4.0,
            }
        )["truth"]
        assert (convex["image_distance"], convex["magnification"]) == pytest.approx((-5.0, 0.5))
        assert convex["image"]["x"] == pytest.approx(5.0) and convex["orientation"] == "upright"

    def test_refraction_scenes(self) -> None:
        depth = _meta(
            {
                "template": "apparent_depth",
                "medium": "glass",
                "depth": 12.0,
                "width": 20.0,
                "coin_x": 0.0,
                "ray_angle_deg": 8.0,
            }
        )["truth"]
        assert depth["apparent_depth"] == pytest.approx(8.0)
        assert depth["exit_angle_deg"] == pytest.approx(math.degrees(math.asin(1.5 * math.sin(math.radians(8.0)))))
        tir = _meta(
            {
                "template": "total_internal_reflection",
                "medium": "water",
                "source_depth": 4.0,
                "incidence_deg": [20.0, 60.0],
            }
        )["truth"]
        assert tir["critical_angle_deg"] == pytest.approx(48.6066, abs=1e-4)
        assert [r["fate"] for r in tir["rays"]] == ["refracted", "grazing", "reflected"]
        straw = _meta(
            {
                "template": "straw",
                "medium": "water",
                "glass_width": 10.0,
                "liquid_depth": 12.0,
                "tilt_deg": 20.0,
                "tip_side": "right",
                "tip_depth": 8.0,
                "entry_x": -1.0,
            }
        )["truth"]
        assert straw["apparent_tip_depth"] == pytest.approx(8.0 / 1.333)
