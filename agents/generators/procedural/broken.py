"""Broken twins: the same scene with exactly one law violated (what is drawn changes; the true rays stay).

A violation maps the scene's truth (the closed forms) to what the broken twin shows. Which violation a scene's
twin has, and by what factor, is drawn from its seed (or set by the scene's "twin" field), so a scene and its
twin share every parameter and the same frame.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcot.agents.generators.procedural.frame import need
from mcot.agents.generators.procedural.optics import refraction_angle


@dataclass(frozen=True)
class Violation:
    """One law a twin breaks: ``factors`` are the ranges its factor is drawn from (empty: it takes none)."""

    name: str
    factors: tuple[tuple[float, float], ...]
    apply: Callable[[Mapping[str, Any], dict[str, Any], float | None], dict[str, Any]]


TOO_SHORT_OR_LONG = ((0.4, 0.6), (1.7, 2.2))


def _shadow_direction(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    for s in shown["shadows"]:
        away = s.get("away", truth.get("away"))
        x = (s["start"] + s["corner"][0]) / 2  # the object's centre
        half = abs(s["corner"][0] - s["start"]) / 2
        s["start"], s["tip"] = x + away * half, x - away * (half + s["length"])
    return shown


def _shadow_length(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    for s in shown["shadows"]:
        away = s.get("away", truth.get("away"))
        s["length"] *= factor
        s["tip"] = s["corner"][0] + away * s["length"]
    return shown


def _image_distance_plane(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    shown["image_distance"] *= factor
    shown["image"]["x"] = -shown["image_distance"]
    return shown


def _image_distance_spherical(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    di = truth["image_distance"] * factor
    m = -di / scene["object_distance"]
    shown.update(image_distance=di, magnification=m)
    shown["image"] = {"x": -di, "base": 0.0, "top": m * scene["object_height"]}
    return shown


def _plane_upside_down(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    image = shown["image"]
    image["base"], image["top"] = image["top"], image["base"]  # standing on the floor, pointing down
    shown["orientation"] = "inverted"
    return shown


def _spherical_upside_down(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    shown["image"]["top"] = -truth["image"]["top"]  # mirrored about the axis
    shown["orientation"] = "upright" if truth["orientation"] == "inverted" else "inverted"
    return shown


def _straw_deeper(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    shown["apparent_tip_depth"] = truth["real_tip_depth"] * truth["n1"] / truth["n2"]
    return shown


def _straw_break(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    shown["kink_depth"] = truth["real_tip_depth"] * factor
    return shown


def _coin(scene: Mapping[str, Any], truth: dict[str, Any], apparent: float) -> dict[str, Any]:
    """Return the truth with the coin's image at ``apparent`` depth and the rays bent to meet there."""
    shown = copy.deepcopy(truth)
    t_in = math.tan(math.radians(scene["ray_angle_deg"]))
    shown["apparent_depth"] = apparent
    shown["meet_depth"] = apparent
    shown["exit_angle_deg"] = math.degrees(math.atan(t_in * truth["real_depth"] / apparent))
    return shown


def _coin_deeper(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    return _coin(scene, truth, truth["real_depth"] * truth["n1"] / truth["n2"])


def _coin_ratio(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    return _coin(scene, truth, truth["real_depth"] * factor)


def _no_tir(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    for ray in shown["rays"]:
        if ray["fate"] == "reflected":
            ray["fate"] = "refracted"
            ray["exit_angle_deg"] = min(85.0, 55.0 + ray["incidence_deg"] - truth["critical_angle_deg"])
    return shown


def _toward_normal(scene: Mapping[str, Any], truth: dict[str, Any], factor: float | None) -> dict[str, Any]:
    shown = copy.deepcopy(truth)
    for ray in shown["rays"]:
        if ray["fate"] == "refracted":
            ray["exit_angle_deg"] = refraction_angle(ray["incidence_deg"], truth["n2"], truth["n1"])
    return shown


VIOLATIONS: dict[str, dict[str, Violation]] = {
    "shadow_sun": {
        "direction": Violation("direction", (), _shadow_direction),
        "length": Violation("length", TOO_SHORT_OR_LONG, _shadow_length),
    },
    "shadow_lamp": {
        "direction": Violation("direction", (), _shadow_direction),
        "length": Violation("length", TOO_SHORT_OR_LONG, _shadow_length),
    },
    "plane_mirror": {
        "distance": Violation("distance", ((0.45, 0.65), (1.5, 1.8)), _image_distance_plane),
        "orientation": Violation("orientation", (), _plane_upside_down),
    },
    "spherical_mirror": {
        "distance": Violation("distance", ((0.5, 0.65), (1.45, 1.7)), _image_distance_spherical),
        "orientation": Violation("orientation", (), _spherical_upside_down),
    },
    "straw": {
        "direction": Violation("direction", (), _straw_deeper),
        "break": Violation("break", ((0.3, 0.45),), _straw_break),
    },
    "apparent_depth": {
        "deeper": Violation("deeper", (), _coin_deeper),
        "ratio": Violation("ratio", ((0.3, 0.42),), _coin_ratio),
    },
    "total_internal_reflection": {
        "no_tir": Violation("no_tir", (), _no_tir),
        "toward_normal": Violation("toward_normal", (), _toward_normal),
    },
}
"""Template name → the violations its broken twin may have."""


def choose_twin(template: str, seed: int, given: Any = None) -> dict[str, Any]:
    """Return the twin's {"violation", "factor"}: ``given`` (a scene's "twin" field) checked, else drawn from the seed."""
    options = VIOLATIONS[template]
    rng = random.Random(f"procedural-twin:{template}:{seed}")
    name = rng.choice(sorted(options))
    ranges = options[name].factors
    factor = round(rng.uniform(*rng.choice(ranges)), 2) if ranges else None
    if given is None:
        return {"violation": name, "factor": factor}
    need(isinstance(given, Mapping), "scene field 'twin' must be a mapping {violation, factor}")
    name = given.get("violation", name)
    need(name in options, f"twin violation {name!r} is not one of {', '.join(sorted(options))} for {template}")
    ranges = options[name].factors
    if not ranges:
        return {"violation": name, "factor": None}
    factor = given.get("factor")
    if factor is None:
        factor = round(rng.uniform(*ranges[0]), 2)
    need(
        isinstance(factor, int | float) and factor > 0 and not math.isclose(factor, 1.0, abs_tol=0.15),
        f"twin factor must be a positive number at least 0.15 away from 1, got {factor!r}",
    )
    return {"violation": name, "factor": float(factor)}


def apply_violation(template: str, scene: Mapping[str, Any], truth: dict[str, Any], twin: Mapping[str, Any]) -> dict:
    """Return what the twin shows: the truth with the twin's one law violated."""
    return VIOLATIONS[template][twin["violation"]].apply(scene, truth, twin["factor"])
