"""Procedural scenes: templates from GOBench prompts, scenes from YAML/JSON, determinism, and the broken twins."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from mcot.agents.generators.procedural import (
    CATEGORIES,
    TEMPLATES,
    SceneError,
    build_scene,
    draw,
    load_scene,
    render_scene,
)
from mcot.agents.generators.procedural.broken import VIOLATIONS
from mcot.agents.generators.procedural.questions import template_spec

# real prompts of the three GOBench categories (data_total.json), and prompts naming a specific setup
GOBENCH_PROMPTS = [
    (
        "direct_light_images",
        "A lonely oak tree stands in a bright sunny meadow under a clear blue sky. It casts a "
        "long, sharp shadow across the green grass.",
        {"shadow_sun"},
    ),
    (
        "direct_light_images",
        "create a realistic photo that shows : A towering lighthouse casts a dramatically long, "
        "sharp shadow across the rocky coast under the low sun.",
        {"shadow_sun"},
    ),
    (
        "reflect_light_images",
        "Create a realistic photo of a small puddle formed on a street after rain, its surface "
        "reflecting the colorful, shimmering lights of surrounding city buildings.",
        {"plane_mirror"},
    ),
    (
        "reflect_light_images",
        "Create a realistic photo focusing on a concave mirror, with a small, bright light source "
        "placed near its focal point.",
        {"spherical_mirror"},
    ),
    (
        "refracted_light_images",
        "create a realistic photo that shows : a red laser beam passing through a tilted clear "
        "glass pane. The beam bends twice.",
        {"total_internal_reflection"},
    ),
    (
        "refracted_light_images",
        "create a realistic photo that shows: Looking out through a window pane during heavy rain.",
        set(CATEGORIES["refracted_light_images"]),
    ),
]


class TestTemplates:
    @pytest.mark.parametrize(("category", "prompt", "expected"), GOBENCH_PROMPTS)
    def test_gobench_prompts_map_to_their_category_templates(self, category: str, prompt: str, expected: set) -> None:
        meta = draw(prompt, seed=1, category=category).meta
        assert meta["template"] in expected
        assert meta["template"] in CATEGORIES[category]
        assert meta["category"] == category

    @pytest.mark.parametrize(
        ("prompt", "template"),
        [
            ("A street lamp at night lights a bench.", "shadow_lamp"),
            ("A child looks into a bathroom mirror.", "plane_mirror"),
            ("A convex security mirror in a shop.", "spherical_mirror"),
            ("A straw in a glass of water looks bent.", "straw"),
            ("A coin at the bottom of a swimming pool looks shallower.", "apparent_depth"),
            ("Total internal reflection beyond the critical angle in an optical fiber.", "total_internal_reflection"),
        ],
    )
    def test_prompts_without_a_category_choose_by_keywords(self, prompt: str, template: str) -> None:
        assert draw(prompt, seed=2).meta["template"] == template

    def test_prompt_hints_set_parameters(self) -> None:
        assert build_scene("a concave shaving mirror", None, 5)["mirror"] == "concave"
        assert build_scene("a convex security mirror", None, 5)["mirror"] == "convex"
        assert build_scene("long shadows at sunset", "direct_light_images", 5)["elevation_deg"] <= 25
        assert build_scene("a coin under a glass block", "refracted_light_images", 5)["medium"] == "glass"

    def test_every_template_has_five_questions_and_each_violation_breaks_one(self) -> None:
        for name in TEMPLATES:
            spec = template_spec(name)
            assert len(spec.questions) == 5
            assert set(spec.violations) == set(VIOLATIONS[name])
            assert name in CATEGORIES[spec.category]

    def test_many_seeds_build_and_draw(self) -> None:
        for seed in range(60):
            scene = build_scene("", None, seed)
            meta = render_scene(scene, (128, 128), broken=seed % 2 == 1).meta
            assert len(meta["questions"]) == len(meta["known_answers"]) == 5
            assert not any("{" in q for q in meta["questions"])


class TestDeterminism:
    def test_same_seed_same_bytes(self) -> None:
        for name in TEMPLATES:
            first = draw("", seed=11, scene={"template": name})
            again = draw("", seed=11, scene={"template": name})
            assert first.png == again.png and first.meta == again.meta

    def test_other_seeds_other_scenes(self) -> None:
        pngs = {draw("", seed=seed, scene={"template": "spherical_mirror"}).png for seed in range(6)}
        assert len(pngs) == 6

    def test_a_scene_and_its_twin_share_every_parameter(self) -> None:
        for seed in range(3):
            correct = draw("a shadow", seed=seed, category="direct_light_images")
            broken = draw("a shadow", seed=seed, category="direct_light_images", broken=True)
            assert correct.meta["scene"] == broken.meta["scene"]
            assert correct.meta["layout"]["frame"] == broken.meta["layout"]["frame"]
            assert correct.png != broken.png


class TestSceneFiles:
    def test_yaml_scene_file(self, tmp_path: Path) -> None:
        path = tmp_path / "mirror.yaml"
        path.write_text(
            "template: spherical_mirror\nmirror: concave\nfocal_length: 10\nobject_distance: 30\nobject_height: 4\n"
        )
        meta = draw("anything", seed=0, scene=load_scene(path)).meta
        assert meta["scene"]["object_distance"] == 30 and meta["truth"]["image_distance"] == pytest.approx(15.0)

    def test_json_scene_file_and_text(self, tmp_path: Path) -> None:
        scene = {"template": "apparent_depth", "medium": "water", "depth": 13.33}
        path = tmp_path / "coin.json"
        path.write_text(json.dumps(scene))
        from_file = draw("", seed=4, scene=load_scene(path)).meta
        from_text = draw("", seed=4, scene=json.dumps(scene)).meta
        assert from_file == from_text
        assert from_file["truth"]["apparent_depth"] == pytest.approx(13.33 / 1.333)
        # the fields the scene left out were drawn from the seed
        assert set(from_file["scene"]) >= {"width", "coin_x", "ray_angle_deg", "twin"}

    def test_a_partial_scene_keeps_its_fields_and_draws_the_rest(self) -> None:
        scene = build_scene("", None, 9, {"template": "shadow_sun", "elevation_deg": 40.0})
        assert scene["elevation_deg"] == 40.0 and scene["objects"]

    @pytest.mark.parametrize(
        ("scene", "message"),
        [
            ({"template": "spherical_mirrors"}, "did you mean 'spherical_mirror'"),
            ({"template": "straw", "colour": "red"}, "'colour' are not parameters of straw"),
            ({"template": "shadow_sun", "elevation_deg": 95}, "elevation_deg"),
            ({"template": "shadow_sun", "elevation_deg": "30"}, "'elevation_deg' must be a number"),
            ({"template": "shadow_sun", "objects": [{"x": 0, "height": -1}]}, "'height' must be > 0"),
            (
                {"template": "spherical_mirror", "mirror": "concave", "focal_length": 10, "object_distance": 10.5},
                "focal point",
            ),
            (
                {"template": "shadow_lamp", "lamp_height": 2.0, "objects": [{"x": 1.0, "height": 2.5, "width": 0.2}]},
                "not lower than the lamp",
            ),
            ({"template": "plane_mirror", "twin": {"violation": "colour"}}, "not one of distance, orientation"),
            ({"template": "plane_mirror", "twin": {"violation": "distance", "factor": 1.05}}, "away from 1"),
        ],
    )
    def test_unusable_scenes_say_what_is_wrong(self, scene: dict, message: str) -> None:
        with pytest.raises(SceneError, match=message):
            build_scene("", None, 0, scene)

    def test_a_scene_that_is_not_a_mapping(self) -> None:
        with pytest.raises(SceneError, match="mapping"):
            load_scene("- just\n- a list\n")

    def test_a_draw_that_cannot_be_placed_is_drawn_again_from_the_seed(self) -> None:
        # seed 111778's first draw puts the eye exactly on the object's top (34.3, 19.9): a dead end of the draw
        prompt, seed = "a plane mirror on a wall", 111778
        scene = build_scene(prompt, "reflect_light_images", seed)
        assert scene["template"] == "plane_mirror"
        eye, top = (scene["eye_distance"], scene["eye_height"]), (scene["object_distance"], scene["object_height"])
        assert eye != top and build_scene(prompt, "reflect_light_images", seed) == scene  # the same seed, same scene
        assert draw(prompt, seed=seed, category="reflect_light_images").png.startswith(b"\x89PNG")
        # a scene that sets the coinciding fields itself is the dead end: it is refused, with the reason
        given = {"template": "plane_mirror", "object_distance": 30.0, "object_height": 12.0}
        with pytest.raises(SceneError, match="the eye and the object's top coincide"):
            build_scene(prompt, None, seed, {**given, "eye_distance": 30.0, "eye_height": 12.0})
        kept = build_scene(prompt, None, seed, {**given, "eye_height": 12.0})  # the eye distance is drawn
        assert (kept["object_distance"], kept["eye_height"]) == (30.0, 12.0)

    def test_scene_yaml_with_aliases_is_refused(self) -> None:
        with pytest.raises(SceneError, match=r"YAML aliases \(\*h\) are not allowed"):
            load_scene("template: plane_mirror\nobject_height: &h 12.0\neye_height: *h\n")


def _pairs(name: str, seeds: range = range(8)):
    for seed in seeds:
        for violation in VIOLATIONS[name]:
            scene = build_scene("", None, seed, {"template": name, "twin": {"violation": violation}})
            yield violation, render_scene(scene, (128, 128)).meta, render_scene(scene, (128, 128), broken=True).meta


class TestBrokenTwins:
    def test_known_answers_flip_exactly_where_the_violation_breaks(self) -> None:
        for name in TEMPLATES:
            spec = template_spec(name)
            for violation, correct, broken in _pairs(name, range(2)):
                assert correct["known_answers"] == ["Yes"] * 5 and correct["broken"] is False
                expected = ["No" if violation in q.breaks else "Yes" for q in spec.questions]
                assert broken["known_answers"] == expected and "No" in expected
                assert broken["broken"] is True and broken["violation"] == violation
                assert broken["questions"] == correct["questions"]

    def test_shadow_twins_break_only_direction_or_only_length(self) -> None:
        for name in ("shadow_sun", "shadow_lamp"):
            for violation, correct, broken in _pairs(name):
                for true, shown in zip(correct["shown"]["shadows"], broken["shown"]["shadows"], strict=True):
                    same_side = (true["tip"] - true["start"]) * (shown["tip"] - shown["start"]) > 0
                    ratio = shown["length"] / true["length"]
                    if violation == "direction":
                        assert not same_side and ratio == pytest.approx(1.0, rel=1e-4)
                    else:
                        assert same_side and ratio == pytest.approx(broken["scene"]["twin"]["factor"], rel=1e-4)

    def test_mirror_twins_break_only_distance_or_only_orientation(self) -> None:
        for name in ("plane_mirror", "spherical_mirror"):
            for violation, correct, broken in _pairs(name):
                true, shown = correct["shown"]["image"], broken["shown"]["image"]
                true_up = true["top"] > true["base"]
                shown_up = shown["top"] > shown["base"]
                if violation == "orientation":
                    assert shown["x"] == pytest.approx(true["x"]) and shown_up != true_up
                else:
                    factor = broken["scene"]["twin"]["factor"]
                    assert shown["x"] == pytest.approx(true["x"] * factor, rel=1e-4) and shown_up == true_up

    def test_refraction_twins(self) -> None:
        for violation, correct, broken in _pairs("straw"):
            true, shown = correct["shown"], broken["shown"]
            if violation == "direction":  # deeper than real, still bent at the surface
                assert shown["apparent_tip_depth"] > true["real_tip_depth"] > true["apparent_tip_depth"]
                assert shown["kink_depth"] == 0
            else:  # bent below the surface, apparent depth right
                assert shown["kink_depth"] > 0
                assert shown["apparent_tip_depth"] == pytest.approx(true["apparent_tip_depth"])
        for violation, correct, broken in _pairs("apparent_depth"):
            true, shown = correct["shown"], broken["shown"]
            incidence = broken["scene"]["ray_angle_deg"]
            if violation == "deeper":  # bends towards the normal, image below the coin
                assert shown["apparent_depth"] > true["real_depth"] and shown["exit_angle_deg"] < incidence
            else:  # bends the right way, too much
                assert shown["apparent_depth"] < true["apparent_depth"]
                assert shown["exit_angle_deg"] > true["exit_angle_deg"] > incidence
            assert shown["meet_depth"] == pytest.approx(shown["apparent_depth"])
        for violation, correct, broken in _pairs("total_internal_reflection"):
            critical = correct["truth"]["critical_angle_deg"]
            for true, shown in zip(correct["shown"]["rays"], broken["shown"]["rays"], strict=True):
                if true["incidence_deg"] > critical + 1e-6:
                    assert true["fate"] == "reflected"
                    assert shown["fate"] == ("refracted" if violation == "no_tir" else "reflected")
                elif true["fate"] == "refracted":
                    assert true["exit_angle_deg"] > true["incidence_deg"]
                    if violation == "toward_normal":
                        assert shown["exit_angle_deg"] < shown["incidence_deg"]
                    else:
                        assert shown["exit_angle_deg"] == pytest.approx(true["exit_angle_deg"])

    def test_twin_factors_stay_clear_of_the_truth(self) -> None:
        for name in TEMPLATES:
            for _, _, broken in _pairs(name, range(20)):
                factor = broken["scene"]["twin"]["factor"]
                assert factor is None or abs(factor - 1) >= 0.3
                assert not math.isnan(factor or 0.0)
