"""Reflection templates: a plane mirror with an eye (side view) and a spherical-mirror ray diagram.

Scene unit: centimetres. The mirror's vertex is at x = 0; the object stands on the left at x = −do (light comes
from the left); an image at distance di (real-is-positive signs, see optics) is drawn at x = −di, so a virtual
image (di < 0) lies behind the mirror on the right. y is up; the floor (plane mirror) or the principal axis
(spherical mirror) is y = 0.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from typing import Any

from mcot.agents.generators.procedural import optics
from mcot.agents.generators.procedural.frame import Frame, choice, fit, need, number, take, uniform
from mcot.agents.generators.procedural.svg import Svg

OBJECT = "#1f5fbf"
IMAGE = "#8e44ad"
"""Colour of every drawn image arrow (pixel checks find the image by this exact colour)."""
RAY = "#e67e22"
MIRROR = "#4a6fa5"
GLASS = "#cfe3f2"
AXIS = "#7f7f7f"
FLOOR = "#8c7b6b"

_CONCAVE = re.compile(r"\b(concave|shaving|make-?up|magnifying|satellite dish|inside of a spoon|focus\w*|focal)\b")
_CONVEX = re.compile(
    r"\b(convex|security|side mirror|wing mirror|rear-?view|sphere|ball|bauble|dome|back of a spoon)\b"
)


def _arrow_px(
    svg: Svg, frame: Frame, x: float, y0: float, y1: float, color: str, *, dashed: bool = False
) -> list[float]:
    """Draw a vertical arrow from height y0 to y1 at x; return its tip in pixels."""
    tail, tip = frame.px(x, y0), frame.px(x, y1)
    width = 5.0
    svg.arrow(tail, tip, color, width, head=16.0, dash="8 5" if dashed else None)
    return [round(tip[0], 3), round(tip[1], 3)]


def _eye(svg: Svg, at: tuple[float, float], facing: int) -> None:
    """Draw a schematic eye at ``at`` (pixels) looking towards +x (facing 1) or −x (facing −1)."""
    svg.ellipse(at, 13, 8, "#ffffff", stroke="#333333")
    svg.circle((at[0] + facing * 4, at[1]), 4, "#2c3e50")
    svg.text((at[0], at[1] + 24), "eye", size=12, anchor="middle")


# ----------------------------------------------------------------------------- plane mirror


def plane_params(rng: random.Random, given: Mapping[str, Any], prompt: str) -> dict[str, Any]:
    """Return a plane-mirror scene: an upright object and an eye in front of a vertical mirror standing on the floor."""
    do = take(given, "object_distance", lambda: uniform(rng, 20.0, 50.0))
    ho = take(given, "object_height", lambda: uniform(rng, 12.0, 28.0))
    de = take(given, "eye_distance", lambda: uniform(rng, 15.0, 45.0))
    he = take(given, "eye_height", lambda: uniform(rng, 8.0, 36.0))
    return {"object_distance": do, "object_height": ho, "eye_distance": de, "eye_height": he}


def plane_check(scene: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unusable field of a plane-mirror scene."""
    number(scene, "object_distance", 0, 10000)
    number(scene, "object_height", 0, 10000)
    de = number(scene, "eye_distance", 0, 10000)
    number(scene, "eye_height", 0, 10000)
    need(
        not math.isclose(de, scene["object_distance"]) or scene["eye_height"] != scene["object_height"],
        "the eye and the object's top coincide; move the eye",
    )


def plane_truth(scene: Mapping[str, Any]) -> dict[str, Any]:
    """Return the image by construction: as far behind the mirror as the object is in front, upright, same size."""
    do, ho = scene["object_distance"], scene["object_height"]
    de, he = scene["eye_distance"], scene["eye_height"]
    di = optics.plane_mirror_image_distance(do)
    hit = ho + (he - ho) * do / (do + de)  # where the line from the image's top to the eye crosses the mirror
    return {
        "image_distance": di,
        "magnification": 1.0,
        "image": {"x": -di, "base": 0.0, "top": ho},
        "reflection_point": [0.0, hit],
    }


def plane_draw(
    svg: Svg, scene: Mapping[str, Any], truth: dict[str, Any], shown: dict[str, Any], twin: dict[str, Any]
) -> dict[str, Any]:
    """Draw floor, mirror, object, eye, the ray to the eye with its extension to the true image, and the shown image."""
    do, ho = scene["object_distance"], scene["object_height"]
    de, he = scene["eye_distance"], scene["eye_height"]
    mirror_top = max(ho, he, truth["reflection_point"][1]) * 1.3
    xs = [-do, -de, truth["image"]["x"], twin["image"]["x"], 0.0]
    span = max(xs) - min(xs)
    xs += [min(xs) - 0.12 * span, max(xs) + 0.12 * span]
    frame = fit(xs, [0.0, mirror_top * 1.1], (0.04 * svg.width, 0.1 * svg.height, 0.96 * svg.width, 0.8 * svg.height))
    svg.rect(0, 0, svg.width, svg.height, "#fbfaf7")
    floor_y = frame.y0
    svg.rect(0, floor_y, svg.width, svg.height - floor_y, "#e9e2d8")
    svg.line((0, floor_y), (svg.width, floor_y), FLOOR, 2)
    mx, mtop = frame.px(0, mirror_top)
    svg.rect(mx - 4, mtop, 8, floor_y - mtop, GLASS, stroke=MIRROR)
    for k in range(int((floor_y - mtop) // 12)):
        y = mtop + 6 + 12 * k
        svg.line((mx + 4, y), (mx + 11, y - 7), MIRROR, 1.2)
    svg.text((mx, mtop - 8), "plane mirror", size=13, anchor="middle")
    obj_tip = _arrow_px(svg, frame, -do, 0, ho, OBJECT)
    svg.text((obj_tip[0], floor_y + 18), "object", size=12, anchor="middle")
    image = shown["image"]
    image_tip = _arrow_px(svg, frame, image["x"], image["base"], image["top"], IMAGE, dashed=True)
    svg.text((frame.px(image["x"], 0)[0], floor_y + 18), "image", size=12, anchor="middle")
    hit = frame.px(*truth["reflection_point"])
    eye = frame.px(-de, he)
    svg.line((hit[0] - 40, hit[1]), hit, AXIS, 1.2, dash="4 4")  # the normal at the point of reflection
    svg.ray([frame.px(-do, ho), hit, eye], RAY, 2.0)
    true_top = frame.px(truth["image"]["x"], truth["image"]["top"])
    svg.line(hit, true_top, RAY, 1.5, dash="6 5")
    _eye(svg, eye, -1)
    return {
        "frame": frame.to_dict(),
        "floor_y_px": round(floor_y, 3),
        "mirror_x_px": round(mx, 3),
        "object_tip_px": obj_tip,
        "image_tip_px": image_tip,
    }


# ----------------------------------------------------------------------------- spherical mirror


REGIMES = {"beyond_c": (2.3, 3.2), "between_f_and_c": (1.35, 1.8), "inside_f": (0.4, 0.7), "convex": (0.7, 2.5)}


def spherical_params(rng: random.Random, given: Mapping[str, Any], prompt: str) -> dict[str, Any]:
    """Return a spherical-mirror scene: the mirror's kind, focal length (magnitude), object distance and height."""
    guess = "concave" if _CONCAVE.search(prompt) else "convex" if _CONVEX.search(prompt) else None
    mirror = take(given, "mirror", lambda: guess or rng.choice(["concave", "convex"]))
    f = take(given, "focal_length", lambda: uniform(rng, 8.0, 16.0))
    regime = rng.choice(["beyond_c", "between_f_and_c", "inside_f"]) if mirror == "concave" else "convex"
    low, high = REGIMES[regime]
    do = take(given, "object_distance", lambda: uniform(rng, low * f, high * f))
    ho = take(given, "object_height", lambda: uniform(rng, 0.3 * f, 0.5 * f))
    return {"mirror": mirror, "focal_length": f, "object_distance": do, "object_height": ho}


def spherical_check(scene: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unusable field of a spherical-mirror scene."""
    choice(scene, "mirror", ("concave", "convex"))
    f = number(scene, "focal_length", 0, 10000)
    do = number(scene, "object_distance", 0, 10000)
    ho = number(scene, "object_height", 0, 10000)
    if scene["mirror"] == "concave":
        need(
            abs(do - f) >= 0.15 * f,
            f"an object at {do:g} cm is too near the focal point ({f:g} cm): its image "
            "would be at or near infinity; keep |do − f| ≥ 0.15 f",
        )
    need(ho <= 0.6 * f, f"object_height {ho:g} cm is too tall for a ray diagram at f = {f:g} cm; keep it ≤ 0.6 f")


def spherical_truth(scene: Mapping[str, Any]) -> dict[str, Any]:
    """Return the image by construction: di from 1/f = 1/do + 1/di, m = −di/do, image height m·ho."""
    f = scene["focal_length"] if scene["mirror"] == "concave" else -scene["focal_length"]
    do, ho = scene["object_distance"], scene["object_height"]
    di = optics.mirror_image_distance(f, do)
    m = optics.magnification(di, do)
    return {
        "f": f,
        "image_distance": di,
        "magnification": m,
        "real": di > 0,
        "orientation": "inverted" if m < 0 else "upright",
        "image": {"x": -di, "base": 0.0, "top": m * ho},
        "focus_x": -f,
        "centre_x": -2 * f,
    }


def spherical_draw(
    svg: Svg, scene: Mapping[str, Any], truth: dict[str, Any], shown: dict[str, Any], twin: dict[str, Any]
) -> dict[str, Any]:
    """Draw axis, mirror, F and C, object, two principal rays (true law) and the shown image; return the layout."""
    f, do, ho = truth["f"], scene["object_distance"], scene["object_height"]
    radius = 2 * abs(f)
    xs = [-do, truth["image"]["x"], twin["image"]["x"], truth["focus_x"], truth["centre_x"], 0.0]
    heights = [abs(ho), abs(truth["image"]["top"]), abs(twin["image"]["top"])]
    aperture = min(max(1.5 * ho, 0.3 * radius), 0.9 * radius)
    ymax = max([*heights, aperture]) * 1.12
    span = max(xs) - min(xs)
    xs += [min(xs) - 0.1 * span, max(xs) + 0.06 * span]
    frame = fit(xs, [-ymax, ymax], (0.03 * svg.width, 0.06 * svg.height, 0.97 * svg.width, 0.94 * svg.height))
    svg.rect(0, 0, svg.width, svg.height, "#ffffff")
    left = (0 - frame.x0) / frame.scale  # scene x of the image's left edge
    axis_y = frame.y0
    svg.line((0, axis_y), (svg.width, axis_y), AXIS, 1.2)
    # the mirror: an arc of the true radius through the vertex; hatching on its back
    sag = radius - math.sqrt(radius**2 - aperture**2)
    back = 1 if f > 0 else -1  # concave: the edges bend towards the object (left)
    top = frame.px(-back * sag, aperture)
    bottom = frame.px(-back * sag, -aperture)
    svg.arc(top, bottom, radius * frame.scale, MIRROR, 4.0, sweep=f > 0)
    for k in range(9):
        y = -aperture + (k + 0.5) * 2 * aperture / 9
        x = -back * (radius - math.sqrt(radius**2 - y**2))
        p = frame.px(x, y)
        svg.line((p[0] + 3, p[1]), (p[0] + 10, p[1] - 7), MIRROR, 1.2)
    kind = "concave" if f > 0 else "convex"
    svg.text((10, 20), f"{kind} mirror, f = {abs(f):g} cm", size=13)
    for x, name in ((truth["focus_x"], "F"), (truth["centre_x"], "C")):
        p = frame.px(x, 0)
        svg.circle(p, 4, "#000000")
        svg.text((p[0], p[1] + 18), name, size=14, anchor="middle")
    obj_tip = _arrow_px(svg, frame, -do, 0, ho, OBJECT)
    svg.text((obj_tip[0], obj_tip[1] - 8), "object", size=12, anchor="middle")
    # ray 1: parallel to the axis, reflected through F (concave) or as if from F behind (convex)
    # ray 2: to the vertex, reflected symmetrically about the axis
    true_tip = frame.px(truth["image"]["x"], truth["image"]["top"])
    hit1, hit2 = frame.px(0, ho), frame.px(0, 0)
    far = left - 20 / frame.scale
    end1 = frame.px(far, ho * (1 + far / f))  # through F: y = ho (1 + x / f)
    end2 = frame.px(far, ho * far / do)  # mirrored about the axis: y = ho x / do
    svg.ray([frame.px(-do, ho), hit1, end1], RAY, 2.0)
    svg.ray([frame.px(-do, ho), hit2, end2], RAY, 2.0)
    if not truth["real"]:
        svg.line(hit1, true_tip, RAY, 1.5, dash="6 5")
        svg.line(hit2, true_tip, RAY, 1.5, dash="6 5")
    image = shown["image"]
    virtual = image["x"] > 0
    image_tip = _arrow_px(svg, frame, image["x"], 0, image["top"], IMAGE, dashed=virtual)
    label_y = image_tip[1] + (-8 if image["top"] > 0 else 20)
    svg.text((image_tip[0], label_y), "image", size=12, anchor="middle")
    return {
        "frame": frame.to_dict(),
        "axis_y_px": round(axis_y, 3),
        "object_tip_px": obj_tip,
        "image_tip_px": image_tip,
        "true_image_tip_px": [round(true_tip[0], 3), round(true_tip[1], 3)],
    }
