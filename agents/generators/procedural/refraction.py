"""Refraction templates: a straw in a glass of liquid, a coin's apparent depth, total internal reflection (side view).

Scene unit: centimetres. The liquid's (or glass block's) surface is y = 0, depths are negative y, the viewer is in
the air above (medium 2). Closed forms: apparent depth = real depth × n2 / n1 near the normal; critical angle =
asin(n2 / n1); Snell's law at the surface.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from typing import Any

from mcot.agents.generators.procedural import optics
from mcot.agents.generators.procedural.frame import choice, fit, need, number, take, uniform
from mcot.agents.generators.procedural.svg import Svg

MEDIA = {"water": optics.N_WATER, "oil": 1.47, "glass": optics.N_GLASS}
LIQUID = {"water": "#bfe3f5", "oil": "#f3e3a6", "glass": "#d4efec"}
SURFACE = "#3b8fc4"
STRAW = "#e4572e"
"""Colour of the straw as the viewer sees it (pixel checks find it by this exact colour)."""
REAL = "#7f8c8d"
COIN = "#b8860b"
APPARENT_COIN = "#f7d774"
"""Fill of the coin's image (pixel checks find it by this exact colour)."""
RAY_IN = "#d62728"
RAY_OUT = "#ff7f0e"
"""Colour of rays transmitted into the air."""
PARTIAL = "#f1948a"

_GLASS = re.compile(r"\b(glass block|glass slab|block of glass|prism|acrylic|perspex|crystal|diamond)\b")
_OIL = re.compile(r"\boil\b")


def _medium(rng: random.Random, given: Mapping[str, Any], prompt: str, options: tuple[str, ...]) -> str:
    guess = (
        "glass"
        if _GLASS.search(prompt) and "glass" in options
        else "oil"
        if _OIL.search(prompt) and "oil" in options
        else None
    )
    return take(given, "medium", lambda: guess or ("water" if rng.random() < 0.7 else options[-1]))


def _n(scene: Mapping[str, Any]) -> tuple[float, float]:
    """Return (n1, n2): the medium's index (the object's side) and air's (the viewer's side)."""
    return MEDIA[scene["medium"]], optics.N_AIR


def _eye(svg: Svg, at: tuple[float, float], label: str) -> None:
    svg.ellipse(at, 8, 13, "#ffffff", stroke="#333333")
    svg.circle((at[0], at[1] + 4), 4, "#2c3e50")
    svg.text((at[0] + 16, at[1] + 4), label, size=12)


# ----------------------------------------------------------------------------- a straw in a glass


def straw_params(rng: random.Random, given: Mapping[str, Any], prompt: str) -> dict[str, Any]:
    """Return a straw scene: the glass, the liquid's depth, the straw's tilt and side, how deep its end reaches."""
    medium = _medium(rng, given, prompt, ("water", "oil"))
    glass_width = take(given, "glass_width", lambda: uniform(rng, 8.0, 12.0))
    depth = take(given, "liquid_depth", lambda: uniform(rng, 9.0, 13.0))
    tilt = take(given, "tilt_deg", lambda: uniform(rng, 15.0, 30.0))
    side = take(given, "tip_side", lambda: rng.choice(["left", "right"]))
    tip_depth = take(given, "tip_depth", lambda: round(depth * rng.uniform(0.55, 0.7), 1))
    run = tip_depth * math.tan(math.radians(tilt))
    s = 1 if side == "right" else -1
    entry = take(given, "entry_x", lambda: round(-s * min(glass_width / 2 - 1.0, run / 2), 2))
    return {
        "medium": medium,
        "glass_width": glass_width,
        "liquid_depth": depth,
        "tilt_deg": tilt,
        "tip_side": side,
        "tip_depth": tip_depth,
        "entry_x": entry,
    }


def straw_check(scene: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unusable field of a straw scene."""
    choice(scene, "medium", ("water", "oil"))
    width = number(scene, "glass_width", 0, 1000)
    depth = number(scene, "liquid_depth", 0, 1000)
    tilt = number(scene, "tilt_deg", 0, 60)
    choice(scene, "tip_side", ("left", "right"))
    tip_depth = number(scene, "tip_depth", 0, depth)
    entry = number(scene, "entry_x", -width / 2, width / 2)
    s = 1 if scene["tip_side"] == "right" else -1
    tip_x = entry + s * tip_depth * math.tan(math.radians(tilt))
    need(
        abs(tip_x) < width / 2,
        f"the straw's end (x = {tip_x:.1f} cm) would poke through the glass "
        f"(half-width {width / 2:g} cm); reduce tilt_deg or tip_depth, or move entry_x",
    )


def straw_truth(scene: Mapping[str, Any]) -> dict[str, Any]:
    """Return the straw as seen from above: bent at the surface, each submerged point raised to depth × n2/n1."""
    n1, n2 = _n(scene)
    s = 1 if scene["tip_side"] == "right" else -1
    tip_x = scene["entry_x"] + s * scene["tip_depth"] * math.tan(math.radians(scene["tilt_deg"]))
    return {
        "n1": n1,
        "n2": n2,
        "tip_x": tip_x,
        "real_tip_depth": scene["tip_depth"],
        "apparent_tip_depth": optics.apparent_depth(scene["tip_depth"], n1, n2),
        "kink_depth": 0.0,
    }


def straw_draw(
    svg: Svg, scene: Mapping[str, Any], truth: dict[str, Any], shown: dict[str, Any], twin: dict[str, Any]
) -> dict[str, Any]:
    """Draw the glass, the liquid, the straw's real position (dashed) and where it appears (solid); return the layout."""
    width, depth = scene["glass_width"], scene["liquid_depth"]
    rim = 0.4 * depth
    tilt = math.radians(scene["tilt_deg"])
    s = 1 if scene["tip_side"] == "right" else -1
    entry = scene["entry_x"]
    above = rim + 0.35 * depth
    top = (entry - s * above * math.tan(tilt), above)
    eye_at = (truth["tip_x"], above + 0.35 * depth)
    deepest = max(depth, twin["apparent_tip_depth"], shown["apparent_tip_depth"])
    xs = [-width / 2, width / 2, top[0], eye_at[0]]
    span = max(xs) - min(xs)
    xs += [min(xs) - 0.25 * span, max(xs) + 0.45 * span]
    frame = fit(
        xs,
        [-deepest * 1.04, eye_at[1] + 0.06 * depth],
        (0.04 * svg.width, 0.1 * svg.height, 0.96 * svg.width, 0.95 * svg.height),
    )
    svg.rect(0, 0, svg.width, svg.height, "#fbfaf7")
    g0, g1 = frame.px(-width / 2, rim), frame.px(width / 2, -depth)
    surface_y = frame.px(0, 0)[1]
    svg.rect(g0[0], surface_y, g1[0] - g0[0], g1[1] - surface_y, LIQUID[scene["medium"]])
    svg.rect(g0[0], g0[1], g1[0] - g0[0], g1[1] - g0[1], "none", stroke="#9aa5ad")
    svg.line((g0[0], surface_y), (g1[0], surface_y), SURFACE, 2.0)
    svg.line(frame.px(entry, 0), frame.px(truth["tip_x"], -truth["real_tip_depth"]), REAL, 2.0, dash="5 4")
    points = [frame.px(*top), frame.px(entry, 0)]
    kink = shown["kink_depth"]
    if kink > 0:
        points.append(frame.px(entry + s * kink * math.tan(tilt), -kink))
    tip = frame.px(truth["tip_x"], -shown["apparent_tip_depth"])
    points.append(tip)
    svg.polyline(points, STRAW, 7.0)
    n1, n2 = truth["n1"], truth["n2"]
    svg.text((g1[0] + 8, surface_y + 18), f"{scene['medium']}, n = {n1:.2f}", size=12)
    svg.text((g1[0] + 8, surface_y - 8), f"air, n = {n2:.2f}", size=12)
    svg.text((g0[0], g1[1] + 16), "dashed: the straw's real position", size=11, color="#555555")
    _eye(svg, frame.px(*eye_at), "viewer looking down")
    return {
        "frame": frame.to_dict(),
        "surface_y_px": round(surface_y, 3),
        "apparent_tip_px": [round(tip[0], 3), round(tip[1], 3)],
        "straw_width_px": 7.0,
    }


# ----------------------------------------------------------------------------- a coin's apparent depth


def depth_params(rng: random.Random, given: Mapping[str, Any], prompt: str) -> dict[str, Any]:
    """Return an apparent-depth scene: the medium, its depth, the container's width, the coin and the ray angle."""
    medium = _medium(rng, given, prompt, ("water", "glass"))
    depth = take(given, "depth", lambda: uniform(rng, 10.0, 20.0))
    width = take(given, "width", lambda: round(depth * rng.uniform(1.3, 1.8), 1))
    coin = take(given, "coin_x", lambda: round(width * rng.uniform(-0.15, 0.15), 1))
    angle = take(given, "ray_angle_deg", lambda: uniform(rng, 7.0, 10.0))
    return {"medium": medium, "depth": depth, "width": width, "coin_x": coin, "ray_angle_deg": angle}


def depth_check(scene: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unusable field of an apparent-depth scene."""
    choice(scene, "medium", ("water", "glass"))
    depth = number(scene, "depth", 0, 10000)
    width = number(scene, "width", 0, 100000)
    coin = number(scene, "coin_x", -width / 2, width / 2)
    angle = number(scene, "ray_angle_deg", 0, 20)
    reach = depth * math.tan(math.radians(angle))
    need(abs(coin) + reach < width / 2, "the drawn rays would leave the container; widen it or centre the coin")


def _meet_depth(depth: float, incidence: float, exit_angle: float) -> float:
    """Return the depth where the back-extensions of the two rays at ±incidence meet (exit at ±exit_angle)."""
    return depth * math.tan(math.radians(incidence)) / math.tan(math.radians(exit_angle))


def depth_truth(scene: Mapping[str, Any]) -> dict[str, Any]:
    """Return the coin's image by construction: depth × n2/n1, rays bent away from the normal by Snell's law."""
    n1, n2 = _n(scene)
    exit_angle = optics.refraction_angle(scene["ray_angle_deg"], n1, n2)
    if exit_angle is None:  # depth_check keeps the ray under 20°, well inside the critical angle
        raise ValueError("the coin's rays would be totally reflected at the surface; lower ray_angle_deg")
    return {
        "n1": n1,
        "n2": n2,
        "real_depth": scene["depth"],
        "apparent_depth": optics.apparent_depth(scene["depth"], n1, n2),
        "exit_angle_deg": exit_angle,
        "meet_depth": _meet_depth(scene["depth"], scene["ray_angle_deg"], exit_angle),
    }


def depth_draw(
    svg: Svg, scene: Mapping[str, Any], truth: dict[str, Any], shown: dict[str, Any], twin: dict[str, Any]
) -> dict[str, Any]:
    """Draw the medium, the coin, two rays refracting to the eye, their dashed back-extensions and the coin's image."""
    depth, width, cx = scene["depth"], scene["width"], scene["coin_x"]
    eye_h = 0.75 * depth
    deepest = max(depth, twin["apparent_depth"], shown["apparent_depth"], twin["meet_depth"])
    frame = fit(
        [-width / 2 - 0.05 * width, width / 2 + 0.45 * width],
        [-deepest * 1.06, eye_h * 1.15],
        (0.03 * svg.width, 0.05 * svg.height, 0.97 * svg.width, 0.95 * svg.height),
    )
    svg.rect(0, 0, svg.width, svg.height, "#f7fbff")
    b0, b1 = frame.px(-width / 2, 0), frame.px(width / 2, -depth)
    svg.rect(b0[0], b0[1], b1[0] - b0[0], b1[1] - b0[1], LIQUID[scene["medium"]], stroke="#9aa5ad")
    svg.line(b0, (b1[0], b0[1]), SURFACE, 2.0)
    coin_px = frame.px(cx, -depth)
    rx = max(8.0, 0.04 * width * frame.scale)
    svg.ellipse((coin_px[0], coin_px[1] - 5), rx, 5, COIN, stroke="#6e520a")
    t_in = math.tan(math.radians(scene["ray_angle_deg"]))
    t_out = math.tan(math.radians(shown["exit_angle_deg"]))
    for sign in (-1, 1):
        hit = (cx + sign * depth * t_in, 0.0)
        out = (hit[0] + sign * eye_h * t_out, eye_h)
        svg.ray([frame.px(cx, -depth), frame.px(*hit)], RAY_IN, 2.0)
        svg.ray([frame.px(*hit), frame.px(*out)], RAY_IN, 2.0)
        svg.line(frame.px(*hit), frame.px(cx, -shown["meet_depth"]), RAY_IN, 1.3, dash="5 4")
    image = frame.px(cx, -shown["apparent_depth"])
    svg.ellipse(image, rx, 5, APPARENT_COIN, stroke=COIN, dash="3 2")
    svg.text((b1[0] + 8, b0[1] + 18), f"{scene['medium']}, n = {truth['n1']:.2f}", size=12)
    svg.text((b1[0] + 8, b0[1] - 8), f"air, n = {truth['n2']:.2f}", size=12)
    svg.text((coin_px[0] + rx + 6, coin_px[1] - 2), "coin", size=12)
    svg.text((image[0] + rx + 6, image[1] + 4), "image of the coin", size=12)
    _eye(svg, frame.px(cx, eye_h), "eye")
    return {
        "frame": frame.to_dict(),
        "surface_y_px": round(b0[1], 3),
        "coin_px": [round(v, 3) for v in coin_px],
        "image_px": [round(image[0], 3), round(image[1], 3)],
    }


# ----------------------------------------------------------------------------- total internal reflection


def tir_params(rng: random.Random, given: Mapping[str, Any], prompt: str) -> dict[str, Any]:
    """Return a TIR scene: the medium, the source's depth and four incidence angles, two each side of critical."""
    medium = _medium(rng, given, prompt, ("water", "glass"))
    depth = take(given, "source_depth", lambda: uniform(rng, 3.0, 6.0))
    critical = optics.critical_angle(MEDIA.get(medium, optics.N_WATER), optics.N_AIR)
    a = uniform(rng, 8.0, 18.0)
    b = uniform(rng, a + 8.0, critical - 7.0)
    c = uniform(rng, critical + 7.0, critical + 11.0)
    d = uniform(rng, critical + 16.0, min(critical + 21.0, 72.0))
    angles = take(given, "incidence_deg", lambda: [a, b, c, d])
    return {"medium": medium, "source_depth": depth, "incidence_deg": angles}


def tir_check(scene: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unusable field of a TIR scene."""
    choice(scene, "medium", ("water", "glass"))
    number(scene, "source_depth", 0, 10000)
    angles = scene.get("incidence_deg")
    if not isinstance(angles, list) or not 1 <= len(angles) <= 8:
        raise ValueError("scene field 'incidence_deg' must be a list of 1 to 8 angles")
    for a in angles:
        need(isinstance(a, int | float) and 0 <= a <= 80, f"incidence angles must lie in [0, 80] degrees, got {a!r}")


def tir_truth(scene: Mapping[str, Any]) -> dict[str, Any]:
    """Return each ray's fate: refracted (Snell) below the critical angle asin(n2/n1), grazing at it, reflected beyond."""
    n1, n2 = _n(scene)
    critical = optics.critical_angle(n1, n2)
    depth = scene["source_depth"]
    rays = []
    for angle in sorted({*scene["incidence_deg"], round(critical, 6)}):
        exit_angle = optics.refraction_angle(angle, n1, n2)
        fate = "grazing" if math.isclose(angle, critical, abs_tol=1e-5) else "refracted" if exit_angle else "reflected"
        if fate == "grazing":
            exit_angle = 90.0
        rays.append(
            {
                "incidence_deg": angle,
                "fate": fate,
                "exit_angle_deg": exit_angle,
                "hit_x": depth * math.tan(math.radians(angle)),
            }
        )
    return {"n1": n1, "n2": n2, "critical_angle_deg": critical, "rays": rays}


def tir_draw(
    svg: Svg, scene: Mapping[str, Any], truth: dict[str, Any], shown: dict[str, Any], twin: dict[str, Any]
) -> dict[str, Any]:
    """Draw the surface, the source, each ray with its fate as shown, and the critical angle; return the layout."""
    depth = scene["source_depth"]
    ends = [r["hit_x"] + 0.9 * depth * math.tan(math.radians(r["incidence_deg"])) for r in truth["rays"]]
    frame = fit(
        [-0.5 * depth, max(ends) * 1.05],
        [-depth * 1.25, depth * 1.1],
        (0.03 * svg.width, 0.06 * svg.height, 0.97 * svg.width, 0.95 * svg.height),
    )
    surface_y = frame.px(0, 0)[1]
    svg.rect(0, 0, svg.width, surface_y, "#f4f9ff")
    svg.rect(0, surface_y, svg.width, svg.height - surface_y, LIQUID[scene["medium"]])
    svg.line((0, surface_y), (svg.width, surface_y), SURFACE, 2.0)
    source = frame.px(0, -depth)
    top = 1.15 * depth
    for ray in shown["rays"]:
        hit = (ray["hit_x"], 0.0)
        theta = math.radians(ray["incidence_deg"])
        down = (hit[0] + 0.9 * depth * math.tan(theta), -0.9 * depth)
        if ray["fate"] == "reflected":
            svg.ray([frame.px(*hit), frame.px(*down)], RAY_IN, 2.0)
        elif ray["fate"] == "grazing":
            svg.line(frame.px(*hit), (svg.width, surface_y - 1.5), RAY_OUT, 2.5)
        else:
            svg.line(frame.px(*hit), frame.px(*down), PARTIAL, 1.0)
            out = math.radians(ray["exit_angle_deg"])
            svg.ray([frame.px(*hit), frame.px(hit[0] + top * math.tan(out), top)], RAY_OUT, 2.0)
        svg.ray([source, frame.px(*hit)], RAY_IN, 2.0)
    critical = next(r for r in truth["rays"] if r["fate"] == "grazing")
    hit = frame.px(critical["hit_x"], 0)
    svg.line(
        (hit[0], hit[1] - 0.5 * depth * frame.scale),
        (hit[0], hit[1] + 0.7 * depth * frame.scale),
        "#666666",
        1.2,
        dash="4 4",
    )
    arc_r = 0.4 * depth * frame.scale
    theta_c = math.radians(truth["critical_angle_deg"])
    svg.arc(
        (hit[0], hit[1] + arc_r),
        (hit[0] - arc_r * math.sin(theta_c), hit[1] + arc_r * math.cos(theta_c)),
        arc_r,
        "#333333",
        1.2,
        sweep=True,
    )
    svg.text((hit[0] + 6, hit[1] + arc_r + 14), f"critical angle θc = {truth['critical_angle_deg']:.1f}°", size=12)
    svg.circle(source, 7, "#ffcc33", stroke="#e0a000", width=2)
    svg.text((source[0] + 10, source[1] + 20), "light source", size=12)
    svg.text((8, surface_y + 18), f"{scene['medium']}, n = {truth['n1']:.2f}", size=12)
    svg.text((8, surface_y - 8), f"air, n = {truth['n2']:.2f}", size=12)
    return {
        "frame": frame.to_dict(),
        "surface_y_px": round(surface_y, 3),
        "source_px": [round(v, 3) for v in source],
        "critical_hit_px": [round(hit[0], 3), round(hit[1], 3)],
    }
