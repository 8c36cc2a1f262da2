"""Direct-light templates: vertical objects on level ground casting shadows from the sun or from a lamp (side view).

Scene unit: metres. x runs along the ground, y up, the ground at y = 0. An object is a vertical block
{"x": centre, "height", "width"}; its shadow lies on the ground from its sun-side edge to the tip, which is where
the ray grazing its top far corner meets the ground.
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

SKY = "#d6ecfa"
GROUND = {"grass": "#a8d08d", "sand": "#e8d6a4", "pavement": "#c9c9c9"}
OBJECT = "#7a4b28"
SHADOW = "#262626"
"""Fill of every shadow (pixel checks find shadows by this exact colour)."""
RAY = "#e69500"
SUN = "#ffcc33"
LAMP_POST = "#555555"
WIDTHS = (0.15, 0.3, 0.6)
SHADOW_THICKNESS_PX = 12.0

_LOW_SUN = re.compile(r"\b(sunset|sunrise|dawn|dusk|low sun|long shadows?|evening|morning|golden hour)\b")
_HIGH_SUN = re.compile(r"\b(noon|midday|high sun|short shadows?|overhead)\b")


# ----------------------------------------------------------------------------- the sun


def sun_params(rng: random.Random, given: Mapping[str, Any], prompt: str) -> dict[str, Any]:
    """Return a sun scene: elevation, the sun's side, 1–3 objects placed so their true shadows do not overlap."""
    low, high = (12.0, 25.0) if _LOW_SUN.search(prompt) else (55.0, 72.0) if _HIGH_SUN.search(prompt) else (20.0, 65.0)
    elevation = take(given, "elevation_deg", lambda: uniform(rng, low, high))
    side = take(given, "sun_side", lambda: rng.choice(["left", "right"]))
    ground = take(given, "ground", lambda: rng.choice(sorted(GROUND)))
    count = 1 + rng.randrange(2 if elevation < 30 else 3)
    objects = []
    x = 0.0
    for _ in range(count):
        height = uniform(rng, 0.8, 3.0)
        width = rng.choice(WIDTHS)
        x = round(x + width / 2, 2)
        objects.append({"x": x, "height": height, "width": width})
        try:
            x += width / 2 + optics.shadow_length(height, elevation) + uniform(rng, 0.4, 1.2)
        except ValueError:
            x += width / 2 + 1.0
    if side == "right":  # objects ordered away from the sun
        objects = [{**o, "x": round(-o["x"], 2)} for o in objects]
    objects = take(given, "objects", lambda: objects)
    return {"elevation_deg": elevation, "sun_side": side, "ground": ground, "objects": objects}


def _check_objects(scene: Mapping[str, Any]) -> list[dict[str, float]]:
    objects = scene.get("objects")
    if not isinstance(objects, list) or not 1 <= len(objects) <= 6:
        raise ValueError("scene field 'objects' must be a list of 1 to 6 objects")
    out = []
    for i, obj in enumerate(objects):
        need(isinstance(obj, Mapping), f"objects[{i}] must be a mapping with x, height and width")
        x = number(obj, "x", -1000, 1000)
        height = number(obj, "height", 0, 1000)
        width = number(obj, "width", 0, 100) if "width" in obj else 0.15
        out.append({"x": x, "height": height, "width": width})
    return out


def sun_check(scene: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unusable field of a sun scene."""
    number(scene, "elevation_deg", 0, 90)
    choice(scene, "sun_side", ("left", "right"))
    choice(scene, "ground", tuple(sorted(GROUND)))
    _check_objects(scene)


def sun_truth(scene: Mapping[str, Any]) -> dict[str, Any]:
    """Return the shadows by construction: direction away from the sun, length = height / tan(elevation)."""
    away = 1 if scene["sun_side"] == "left" else -1
    shadows = []
    for obj in _check_objects(scene):
        length = optics.shadow_length(obj["height"], scene["elevation_deg"])
        edge = obj["x"] + away * obj["width"] / 2
        shadows.append(
            {
                "start": obj["x"] - away * obj["width"] / 2,
                "corner": [edge, obj["height"]],
                "length": length,
                "tip": edge + away * length,
            }
        )
    return {"away": away, "elevation_deg": scene["elevation_deg"], "shadows": shadows}


def _ground_frame(
    scene: Mapping[str, Any], variants: list[dict[str, Any]], width: int, height: int, extra_ys: list[float]
) -> Frame:
    xs: list[float] = []
    for variant in variants:
        for s in variant["shadows"]:
            xs += [s["start"], s["tip"], s["corner"][0]]
    for obj in scene["objects"]:
        xs += [obj["x"] - obj["width"] / 2, obj["x"] + obj["width"] / 2]
    span = max(xs) - min(xs)
    xs += [min(xs) - 0.08 * span, max(xs) + 0.08 * span]
    ys = [0.0, *extra_ys, *(o["height"] for o in scene["objects"])]
    return fit(xs, ys, (0.04 * width, 0.22 * height, 0.96 * width, 0.74 * height))


def _draw_ground(svg: Svg, frame: Frame, ground: str) -> float:
    gy = frame.y0
    svg.rect(0, 0, svg.width, gy, SKY)
    svg.rect(0, gy, svg.width, svg.height - gy, GROUND[ground])
    svg.line((0, gy), (svg.width, gy), "#6b8f4e" if ground == "grass" else "#8c7b55", 1.5)
    return gy


def _draw_shadows(svg: Svg, frame: Frame, shown: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    gy = frame.y0
    for s in shown["shadows"]:
        x1, _ = frame.px(s["start"], 0)
        x2, _ = frame.px(s["tip"], 0)
        svg.polygon([(x1, gy), (x2, gy), (x2, gy + SHADOW_THICKNESS_PX), (x1, gy + SHADOW_THICKNESS_PX)], SHADOW)
        out.append({"start_px": round(x1, 3), "tip_px": round(x2, 3)})
    return out


def _draw_objects(svg: Svg, frame: Frame, scene: Mapping[str, Any]) -> None:
    for obj in scene["objects"]:
        x1, y1 = frame.px(obj["x"] - obj["width"] / 2, obj["height"])
        x2, y2 = frame.px(obj["x"] + obj["width"] / 2, 0)
        svg.rect(x1, y1, x2 - x1, y2 - y1, OBJECT)
        svg.text((x2 + 4, y1 + 12), f"{obj['height']:g} m", size=12)


def sun_draw(
    svg: Svg, scene: Mapping[str, Any], truth: dict[str, Any], shown: dict[str, Any], twin: dict[str, Any]
) -> dict[str, Any]:
    """Draw sky, ground, sun, parallel rays to the true shadow tips, the shown shadows and objects; return the layout."""
    frame = _ground_frame(scene, [truth, twin], svg.width, svg.height, [])
    gy = _draw_ground(svg, frame, scene["ground"])
    away = truth["away"]
    e = math.radians(scene["elevation_deg"])
    ux, uy = -away * math.cos(e), -math.sin(e)  # towards the sun, in pixels (y down)
    tallest = max(truth["shadows"], key=lambda s: s["corner"][1])
    cx, cy = frame.px(*tallest["corner"])
    radius = 0.045 * min(svg.width, svg.height)
    reach = []
    for bound, pos, step in ((radius + 6, cx, ux), (svg.width - radius - 6, cx, ux), (radius + 6, cy, uy)):
        if step != 0 and (bound - pos) / step > 0:
            reach.append((bound - pos) / step)
    t = min(reach) if reach else 0.3 * svg.width
    sun = (cx + ux * t, cy + uy * t)
    for s in truth["shadows"]:
        tip = frame.px(s["tip"], 0)
        corner = frame.px(*s["corner"])
        far = (corner[0] + ux * 2 * svg.width, corner[1] + uy * 2 * svg.width)
        svg.line(far, tip, RAY, 1.5, dash="7 5")
    svg.circle(sun, radius, SUN, stroke="#e0a000", width=2)
    label_x = min(max(sun[0], 70.0), svg.width - 70.0)
    label_y = sun[1] + radius + 16 if sun[1] < svg.height * 0.3 else sun[1] - radius - 8
    svg.text((label_x, label_y), f"sun, elevation {scene['elevation_deg']:g}°", size=13, anchor="middle")
    shadows = _draw_shadows(svg, frame, shown)
    _draw_objects(svg, frame, scene)
    return {
        "frame": frame.to_dict(),
        "ground_y_px": round(gy, 3),
        "shadows": shadows,
        "sun_px": [round(v, 3) for v in sun],
    }


# ----------------------------------------------------------------------------- a lamp (point light)


def lamp_params(rng: random.Random, given: Mapping[str, Any], prompt: str) -> dict[str, Any]:
    """Return a lamp scene: a lamp post at x = 0 and 1–3 objects on both sides, lower than 45 % of the lamp."""
    lamp_height = take(given, "lamp_height", lambda: uniform(rng, 3.0, 5.0))
    ground = take(given, "ground", lambda: rng.choice(sorted(GROUND)))
    count = 1 + rng.randrange(3)
    sides = [rng.choice([-1, 1])]
    sides += [-sides[0], sides[0]][: count - 1]
    objects = []
    taken = {-1: 0.0, 1: 0.0}
    for side in sides:
        width = rng.choice(WIDTHS[:2])
        distance = taken[side] + uniform(rng, 0.8, 1.8)
        height = uniform(rng, 0.6, max(0.7, 0.45 * lamp_height))
        objects.append({"x": round(side * distance, 2), "height": height, "width": width})
        corner = distance + width / 2
        taken[side] = corner + height * corner / max(lamp_height - height, 0.1) + 0.4
    objects = take(given, "objects", lambda: objects)
    return {
        "lamp_height": lamp_height,
        "lamp_x": take(given, "lamp_x", lambda: 0.0),
        "ground": ground,
        "objects": objects,
    }


def lamp_check(scene: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unusable field of a lamp scene."""
    lamp_height = number(scene, "lamp_height", 0, 1000)
    lamp_x = number(scene, "lamp_x", -1000, 1000)
    choice(scene, "ground", tuple(sorted(GROUND)))
    for i, obj in enumerate(_check_objects(scene)):
        need(
            obj["height"] < lamp_height,
            f"objects[{i}] is {obj['height']} m tall, not lower than the lamp "
            f"({lamp_height} m): a point light casts no bounded shadow of it",
        )
        need(abs(obj["x"] - lamp_x) > obj["width"] / 2, f"objects[{i}] stands under the lamp; move it aside")


def lamp_truth(scene: Mapping[str, Any]) -> dict[str, Any]:
    """Return the shadows by construction: away from the lamp, length = h·d / (H − h) = h / tan(elevation)."""
    shadows = []
    lamp_x, lamp_h = scene["lamp_x"], scene["lamp_height"]
    for obj in _check_objects(scene):
        away = 1 if obj["x"] > lamp_x else -1
        edge = obj["x"] + away * obj["width"] / 2
        distance = abs(edge - lamp_x)
        length = optics.point_light_shadow_length(lamp_h, obj["height"], distance)
        elevation = optics.point_light_elevation(lamp_h, obj["height"], distance)
        shadows.append(
            {
                "away": away,
                "start": obj["x"] - away * obj["width"] / 2,
                "corner": [edge, obj["height"]],
                "length": length,
                "elevation_deg": elevation,
                "tip": edge + away * length,
            }
        )
    return {"lamp": [lamp_x, lamp_h], "shadows": shadows}


def lamp_draw(
    svg: Svg, scene: Mapping[str, Any], truth: dict[str, Any], shown: dict[str, Any], twin: dict[str, Any]
) -> dict[str, Any]:
    """Draw the lamp, rays from the bulb past each object's top to its true tip, the shown shadows; return the layout."""
    lamp_x, lamp_h = truth["lamp"]
    variants = [truth, twin, {"shadows": [{"start": lamp_x, "tip": lamp_x, "corner": [lamp_x, lamp_h]}]}]
    frame = _ground_frame(scene, variants, svg.width, svg.height, [lamp_h])
    gy = _draw_ground(svg, frame, scene["ground"])
    bulb = frame.px(lamp_x, lamp_h)
    post_w = max(4.0, 0.08 * frame.scale)
    svg.rect(bulb[0] - post_w / 2, bulb[1], post_w, gy - bulb[1], LAMP_POST)
    for s in truth["shadows"]:
        svg.line(bulb, frame.px(s["tip"], 0), RAY, 1.5, dash="7 5")
    radius = max(7.0, 0.022 * min(svg.width, svg.height))
    svg.circle(bulb, radius * 1.9, "#fff3b0")
    svg.circle(bulb, radius, SUN, stroke="#e0a000", width=2)
    svg.text((bulb[0], bulb[1] - radius * 2.2), f"lamp, {lamp_h:g} m high", size=13, anchor="middle")
    shadows = _draw_shadows(svg, frame, shown)
    _draw_objects(svg, frame, scene)
    return {
        "frame": frame.to_dict(),
        "ground_y_px": round(gy, 3),
        "shadows": shadows,
        "lamp_px": [round(v, 3) for v in bulb],
    }
