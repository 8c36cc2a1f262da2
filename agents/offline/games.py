"""Offline strategies for the generated game items (maze, ray, dart, bounce, dots, triangles).

Each strategy reads only what a model sees: it recognises its game by a phrase of the question (never by the
benchmark's name or the item's category) and plays from the question text, the choices and the canvas image.
It plays in three beats, each a model turn: look (perception tools, nothing drawn), solve (the domain tool
with draw=true, so the trace shows the solution on the canvas), answer (from the solver's result). Which beat
comes next is decided from the tool results already in the conversation, so a strategy keeps no state of its
own. Perception results are refined from the canvas pixels where a tool's answer is too coarse or missing
(arrow tips, thin mirrors, the sharp corners of glass prisms, the numbers next to dots, the strokes of a line
drawing: mcot.agents.offline.pixels and mcot.agents.offline.linework); the canvas is still clean then, because the look
beat draws nothing.

Every strategy here computes its answer with domain tools (solve_maze, trace_light_ray, simulate_projectile,
cast_ray, measure/intersect/analyze_polygon, count_triangles) and declares them in `needs`; where the request
does not offer them (the canvas arm), the policy does not play it but says what it would need and guesses.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from mcot.agents.messages import ToolResultPart
from mcot.agents.offline import linework, pixels
from mcot.agents.offline.guess import fixed_guess
from mcot.agents.offline.pixels import PixelError
from mcot.agents.offline.strategies import Move, OfflineView, Strategy
from mcot.agents.prompts import format_final_answer
from shapely.geometry import LinearRing, LineString, Point, box

# The colours the game pictures use for labelled things (exits, targets, balloons, bricks), by the names the
# questions use. CSS's own "orange", "purple" or "gold" are other shades, so tools get these as hex.
PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (220, 0, 0),
    "blue": (0, 90, 220),
    "orange": (255, 140, 0),
    "purple": (150, 0, 200),
    "magenta": (230, 0, 160),
    "teal": (0, 150, 150),
    "brown": (140, 80, 20),
    "gold": (230, 190, 0),
}
MIRROR_GREY = (64, 64, 64)
GLASS_BLUE = (173, 216, 230)
SOURCE_RED = (220, 0, 0)
BLACK = (0, 0, 0)
LETTERS = "ABCDEFGH"


class GiveUp(Exception):
    """The strategy recognised the item but could not read it; the policy answers with its fixed guess."""


def hex_color(rgb: Sequence[int]) -> str:
    """Return '#rrggbb' for an RGB triple."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def color_of(name: str) -> str:
    """Return the hex colour the pictures use for a colour name (the name itself when unknown)."""
    return hex_color(PALETTE[name]) if name in PALETTE else name


def results(view: OfflineView, name: str) -> list[ToolResultPart]:
    """Return this conversation's results of tool `name`, oldest first."""
    return [r for r in view.tool_results if r.name == name]


def latest(view: OfflineView, name: str) -> ToolResultPart | None:
    """Return the latest result of tool `name`, or None."""
    found = results(view, name)
    return found[-1] if found else None


def answer(view: OfflineView, value: str, reasoning: str) -> Move:
    """Return the final move: a line of reasoning and the value in the benchmark's answer format."""
    return Move(text=f"{reasoning}\n{format_final_answer(view.benchmark, value)}")


def choice_letter(view: OfflineView, pick: Callable[[str], bool]) -> str:
    """Return the letter of the first choice for which `pick` is true (GiveUp when none is)."""
    for i, choice in enumerate(view.choices or ()):
        if pick(choice):
            return LETTERS[i]
    raise GiveUp("no choice matches the solution")


def canvas_pixels(view: OfflineView) -> np.ndarray:
    """Return the pixels of the canvas image the policy was last shown."""
    if view.canvas is None:
        raise GiveUp("no canvas image")
    return pixels.decode(view.canvas)


def asks(*cues: str) -> Callable[[OfflineView], bool]:
    """Return a recogniser: whether the question contains every one of the phrases `cues`."""

    def recognises(view: OfflineView) -> bool:
        return all(cue in view.question for cue in cues)

    return recognises


def guarded(play: Callable[[OfflineView], Move]) -> Callable[[OfflineView], Move]:
    """Return `play` turned into a move that never raises: an unreadable picture gets the fixed guess."""

    def run(view: OfflineView) -> Move:
        try:
            return play(view)
        except (GiveUp, PixelError, KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as exc:
            return Move(text=f"I could not read the picture ({exc}).\n{fixed_guess(view)}")

    return run


# --- maze --------------------------------------------------------------------------------------------------


def _play_maze(view: OfflineView) -> Move:
    """Return the next move on a block-maze item: maze_from_image, then solve_maze (drawn), then the answer."""
    exits = dict(re.findall(r"\b([A-Z]) \((\w+)\)", view.question.split("?")[0]))
    if not exits:
        raise GiveUp("the question names no exits")
    read = latest(view, "maze_from_image")
    if read is None:
        labels = {color_of(color): label for label, color in exits.items()}
        return Move(tool_calls=(("maze_from_image", {"labels": labels}),))
    if read.is_error:
        raise GiveUp(read.text)
    solved = latest(view, "solve_maze")
    target = re.search(r"to exit ([A-Z]) \(", view.question)
    if solved is None:
        grid = read.data["grid"]
        found = [label for label in exits if any(label in row for row in grid)]
        targets = [target.group(1)] if target else found
        args = {"grid": grid, "targets": targets, "cell": read.data["cell"], "origin": read.data["origin"]}
        return Move(tool_calls=(("solve_maze", {**args, "draw": True, "color": "red"}),))
    if target is not None:
        if solved.is_error:
            raise GiveUp(solved.text)
        steps = solved.data["length"]
        return answer(view, str(steps), f"The shortest route to exit {target.group(1)} takes {steps} moves.")
    if solved.is_error:
        raise GiveUp(solved.text)
    reachable = [label for label, d in solved.data["distances"].items() if d is not None]
    if len(reachable) != 1:
        raise GiveUp(f"{len(reachable)} exits are reachable")
    label = reachable[0]
    letter = choice_letter(view, lambda c: re.match(rf"exit {label}\b", c) is not None)
    return answer(view, letter, f"Only exit {label} can be reached from the start.")


# --- ray -----------------------------------------------------------------------------------------------


def _square_colors(view: OfflineView) -> list[str]:
    colors = [m.group(1) for c in view.choices or () if (m := re.match(r"the (\w+) square", c))]
    if len(colors) != len(view.choices or ()):
        raise GiveUp("the choices do not name coloured squares")
    return colors


def _glass_indices(question: str) -> list[float]:
    single = re.search(r"glass block with refractive index n = ([\d.]+)", question)
    if single:
        return [float(single.group(1))]
    listing = re.search(r"their refractive indices are (.*?); the rest", question)
    return [float(v) for v in re.findall(r"n = ([\d.]+)", listing.group(1))] if listing else []


def _look_calls(colors: Sequence[str]) -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(("find_color", {"color": color_of(c), "tolerance": 12, "min_area": 20}) for c in colors)


def _regions_by_color(view: OfflineView, colors: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Return the find_color regions of each named colour (matched by the RGB the tool reports)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in results(view, "find_color"):
        rgb = tuple(r.data.get("color", ()))
        for c in colors:
            if c in PALETTE and rgb == PALETTE[c]:
                out[c] = r.data.get("regions", [])
    return out


def _detect(rgb: tuple[int, int, int], min_area: int) -> tuple[str, dict[str, Any]]:
    return ("detect_shapes", {"color": hex_color(rgb), "tolerance": 12, "min_area": min_area})


def _detections(view: OfflineView, calls: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Pair each detect_shapes call of the look beat with its result (results come back in call order)."""
    asked = [args["color"] for name, args in calls if name == "detect_shapes"]
    found = [r for r in view.tool_results if r.name == "detect_shapes"][: len(asked)]
    return {color: list(r.data.get("shapes", [])) for color, r in zip(asked, found, strict=False) if not r.is_error}


RAY_LOOK = (_detect(MIRROR_GREY, 20), _detect(GLASS_BLUE, 100), _detect(SOURCE_RED, 40))


def _play_ray(view: OfflineView) -> Move:
    """Return the next move on a light-ray item: detect the scene, trace_light_ray (drawn), then the answer."""
    colors = _square_colors(view)
    traced = latest(view, "trace_light_ray")
    if not view.tool_results:
        return Move(tool_calls=RAY_LOOK + _look_calls(colors))
    if traced is None:
        return Move(tool_calls=(("trace_light_ray", _ray_scene(view)),))
    if traced.is_error:
        raise GiveUp(traced.text)
    squares = _regions_by_color(view, colors)
    hit = _first_box(traced.data["points"], {c: [reg["box"] for reg in squares.get(c, [])] for c in colors})
    if hit is None:
        raise GiveUp("the traced ray reaches no square")
    letter = choice_letter(view, lambda c: c == f"the {hit} square")
    events = ", ".join(e["type"] for e in traced.data.get("events", []) if e["type"] != "exit") or "no events"
    return answer(view, letter, f"The traced ray ({events}) first reaches the {hit} square.")


def _ray_scene(view: OfflineView) -> dict[str, Any]:
    found = _detections(view, RAY_LOOK)
    pix = canvas_pixels(view)
    red = pixels.color_mask(pix, SOURCE_RED)
    sources = found.get(hex_color(SOURCE_RED), [])
    if not sources:
        raise GiveUp("no red source in the picture")
    blob = pixels.points(red, _grow(sources[0]["box"], 2))
    origin = pixels.refine_center(blob, pixels.disc_center(blob, 7.0), 7.5)
    snapped = pixels.snap(origin)
    origin = (snapped[0], snapped[1])
    tip = pixels.snap(pixels.arrow_tip(blob, origin, 10.0))
    grey = pixels.color_mask(pix, MIRROR_GREY)
    surfaces: list[dict[str, Any]] = []
    for shape in found.get(hex_color(MIRROR_GREY), []):
        a, b = pixels.stroke_segment(pixels.points(grey, _grow(shape["box"], 1)))
        surfaces.append({"kind": "mirror", "points": [_round1(a), _round1(b)]})
    blocks = sorted(found.get(hex_color(GLASS_BLUE), []), key=lambda s: s["centroid"][0])
    indices = _glass_indices(view.question)
    if len(indices) != len(blocks):
        raise GiveUp(f"{len(blocks)} glass blocks seen, {len(indices)} indices given")
    glass = pixels.color_mask(pix, GLASS_BLUE)
    for shape, n in zip(blocks, indices, strict=True):
        x0, y0, x1, y1 = (int(v) for v in _grow(shape["box"], 1))
        own = np.zeros_like(glass)
        own[y0:y1, x0:x1] = glass[y0:y1, x0:x1]
        try:  # the tool's outline clips sharp corners; fit each side to the pixels instead
            corners = pixels.sharpen_polygon(own, shape["vertices"])
        except (PixelError, np.linalg.LinAlgError):
            corners = shape["vertices"]
        surfaces.append({"kind": "block", "polygon": [_round1(v) for v in corners], "n": n})
    direction = [tip[0] - origin[0], tip[1] - origin[1]]
    return {"origin": list(origin), "direction": direction, "surfaces": surfaces, "max_events": 20, "draw": True}


def _grow(b: Sequence[float], by: float) -> list[float]:
    return [b[0] - by, b[1] - by, b[2] + by, b[3] + by]


def _round1(p: Sequence[float]) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def _first_box(path: Sequence[Sequence[float]], boxes: dict[str, list[Sequence[float]]]) -> str | None:
    """Return the name of the first box the polyline enters, or None."""
    for a, b in itertools.pairwise(path):
        leg = LineString([a, b])
        entries = []
        for name, bs in boxes.items():
            for bx in bs:
                shape = box(*bx)
                if leg.intersects(shape):
                    entries.append((Point(a).distance(leg.intersection(shape)), name))
        if entries:
            return min(entries)[1]
    return None


# --- the black dot and its red arrow (dart, bounce) -------------------------------------------------------


def _dot_and_arrow(
    view: OfflineView, dot: dict[str, Any], radius: float, avoid: Sequence[Sequence[float]] = ()
) -> tuple[list[float], list[float]]:
    """Return the centre of the black dot (found by find_color) and the tip of the red arrow drawn from it.

    The arrow is drawn over the dot, so the centre comes from the black and red pixels within the dot's radius;
    red pixels inside `avoid` boxes (a red brick) are not the arrow.
    """
    pix = canvas_pixels(view)
    black = pixels.color_mask(pix, BLACK)
    red = pixels.color_mask(pix, SOURCE_RED)
    for b in avoid:
        red[max(0, int(b[1]) - 1) : int(b[3]) + 1, max(0, int(b[0]) - 1) : int(b[2]) + 1] = False
    cx, cy = dot["centroid"]
    reach = radius + 4
    near = pixels.points(black | red, [cx - reach, cy - reach, cx + reach + 1, cy + reach + 1])
    center = pixels.snap(pixels.refine_center(near, (cx, cy), radius + 0.5))
    span = 120.0
    arrow = pixels.points(red, [center[0] - span, center[1] - span, center[0] + span, center[1] + span])
    tip = pixels.snap(pixels.arrow_tip(arrow, (center[0], center[1]), radius + 2))
    return center, tip


def _black_dot(view: OfflineView) -> dict[str, Any]:
    """Return the largest black region find_color reported (the dot)."""
    for r in results(view, "find_color"):
        if tuple(r.data.get("color", ())) == BLACK and r.data.get("regions"):
            return r.data["regions"][0]
    raise GiveUp("no black dot in the picture")


def _number(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    if found is None:
        raise GiveUp(f"the question does not say {pattern!r}")
    return float(found.group(1))


# --- dart --------------------------------------------------------------------------------------------------


def _balloon_colors(view: OfflineView) -> list[str]:
    colors = [m.group(1) for c in view.choices or () if (m := re.match(r"the (\w+) balloon", c))]
    if not colors or len(colors) != len(view.choices or ()):
        raise GiveUp("the choices do not name coloured balloons")
    return colors


def _play_dart(view: OfflineView) -> Move:
    """Return the next move on a dart item: find the dart, arrow and balloons, simulate_projectile (drawn),
    then the balloon it pops."""
    colors = _balloon_colors(view)
    if not view.tool_results:
        black = ("find_color", {"color": hex_color(BLACK), "tolerance": 12, "min_area": 10})
        return Move(tool_calls=(black, *_look_calls(colors)))
    flown = latest(view, "simulate_projectile")
    balloons = [(c, reg) for c, regs in _regions_by_color(view, colors).items() for reg in regs[:1]]
    if flown is None:
        center, tip = _dot_and_arrow(view, _black_dot(view), 5.0)
        per_px = _number(r"each pixel of arrow length stands for ([\d.]+) px/s", view.question)
        gravity = _number(r"g = ([\d.]+) px/s", view.question)
        velocity = [(tip[0] - center[0]) * per_px, (tip[1] - center[1]) * per_px]
        obstacles = [
            {"kind": "circle", "center": reg["centroid"], "radius": (reg["box"][2] - reg["box"][0] - 1) / 2}
            for _, reg in balloons
        ]
        args = {"origin": center, "velocity": velocity, "gravity": gravity, "obstacles": obstacles, "draw": True}
        return Move(tool_calls=(("simulate_projectile", args),))
    if flown.is_error:
        raise GiveUp(flown.text)
    hit = flown.data.get("hit")
    if not hit:
        raise GiveUp("the simulated dart pops no balloon")
    color = balloons[int(hit["index"])][0]
    letter = choice_letter(view, lambda c: c == f"the {color} balloon")
    return answer(view, letter, f"The simulated dart first touches the {color} balloon at t = {hit['t']:.2f} s.")


# --- bounce ------------------------------------------------------------------------------------------------

BOUNCE_RADIUS = 8.0


def _nearest_palette(rgb: Sequence[float]) -> tuple[str, float]:
    name = min(PALETTE, key=lambda n: sum((a - b) ** 2 for a, b in zip(PALETTE[n], rgb, strict=True)))
    return name, math.dist(PALETTE[name], rgb)


def _play_bounce(view: OfflineView) -> Move:
    """Return the next move on a bounce item: find the box, bricks, ball and arrow, cast_ray (drawn) for the
    ball's centre among the walls and bricks grown by its radius, then the first brick or the bounces before it.

    cast_ray rather than simulate_bounces: simulate_bounces misses some face contacts (see the report)."""
    if not view.tool_results:
        black = ("find_color", {"color": hex_color(BLACK), "tolerance": 12, "min_area": 10})
        return Move(tool_calls=(black, ("detect_shapes", {"min_area": 60, "max_shapes": 40})))
    shapes = [s for r in results(view, "detect_shapes") if not r.is_error for s in r.data.get("shapes", [])]
    frames = [s for s in shapes if math.dist(s["rgb"], MIRROR_GREY) < 20]
    if not frames:
        raise GiveUp("no grey box in the picture")
    outer = max(frames, key=lambda s: s["area"])["box"]
    walls = [outer[0] + 8, outer[1] + 8, outer[2] - 8, outer[3] - 8]
    dot = _black_dot(view)
    bricks: list[tuple[str, list[float]]] = []
    for s in shapes:
        name, off = _nearest_palette(s["rgb"])
        x0, y0, x1, y1 = s["box"]
        holds_dot = x0 - 2 <= dot["centroid"][0] <= x1 + 2 and y0 - 2 <= dot["centroid"][1] <= y1 + 2
        if off < 20 and not holds_dot and s.get("filled", True):
            bricks.append((name, [float(x0), float(y0), float(x1), float(y1)]))
    if not bricks:
        raise GiveUp("no bricks in the picture")
    rolled = latest(view, "cast_ray")
    if rolled is None:
        center, tip = _dot_and_arrow(view, dot, BOUNCE_RADIUS, avoid=[b for n, b in bricks if n == "red"])
        args = {
            "origin": center,
            "direction": [tip[0] - center[0], tip[1] - center[1]],
            "walls": _grown_walls(walls, [b for _, b in bricks], BOUNCE_RADIUS),
            "max_bounces": 12,
            "draw": True,
        }
        return Move(tool_calls=(("cast_ray", args),))
    if rolled.is_error:
        raise GiveUp(rolled.text)
    hits = rolled.data.get("hits", [])
    first = next((k for k, h in enumerate(hits) if isinstance(h["wall"], int) and h["wall"] >= 4), None)
    if first is None:
        raise GiveUp("the ball's centre meets no brick")
    color = bricks[(int(hits[first]["wall"]) - 4) // 4][0]
    if view.choices:
        letter = choice_letter(view, lambda c: c == f"the {color} brick")
        return answer(view, letter, f"The ball's centre path first meets the {color} brick.")
    return answer(view, str(first), f"The ball bounces off {first} wall(s), then touches the {color} brick.")


def _grown_walls(walls: Sequence[float], bricks: Sequence[Sequence[float]], radius: float) -> list[list[list[float]]]:
    """Return the segments the ball's centre bounces off: the box shrunk and each brick grown by the radius.

    The first four are the box's sides; brick k's four sides follow at 4 + 4k .. 7 + 4k. (A ball's contact
    with a brick corner is a rounded corner of the grown brick; the generated items avoid those.)
    """
    x0, y0, x1, y1 = walls[0] + radius, walls[1] + radius, walls[2] - radius, walls[3] - radius
    out = _rect_sides(x0, y0, x1, y1)
    for bx0, by0, bx1, by1 in bricks:
        out += _rect_sides(bx0 - radius, by0 - radius, bx1 + radius, by1 + radius)
    return out


def _rect_sides(x0: float, y0: float, x1: float, y1: float) -> list[list[list[float]]]:
    corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    return [[corners[i], corners[(i + 1) % 4]] for i in range(4)]


# --- dots --------------------------------------------------------------------------------------------------

DOT_RADIUS = 5
LABEL_OFFSET = 20.0  # px: each number sits this far from its dot, away from the picture's centre
STRAIGHT_DEGREES = 6.0  # a dot where the line turns by less than this is passed straight through


def _read_dots(view: OfflineView) -> list[list[float]]:
    """Return the dots' centres in the order of their numbers (read from the pixels next to each dot)."""
    shapes = [s for r in results(view, "detect_shapes") if not r.is_error for s in r.data.get("shapes", [])]
    side = 2 * DOT_RADIUS + 1
    dots = [s for s in shapes if s["kind"] == "circle" and abs(s["box"][2] - s["box"][0] - side) <= 1]
    marks = [s for s in shapes if s not in dots]
    if len(dots) < 3:
        raise GiveUp(f"{len(dots)} dots found")
    pix = canvas_pixels(view)
    black = pixels.color_mask(pix, BLACK)
    mid = (pix.shape[1] / 2, pix.shape[0] / 2)
    numbered: dict[int, list[float]] = {}
    for dot in dots:
        x, y = dot["centroid"]
        norm = math.hypot(x - mid[0], y - mid[1]) or 1.0
        at = (x + LABEL_OFFSET * (x - mid[0]) / norm, y + LABEL_OFFSET * (y - mid[1]) / norm)
        near = [m for m in marks if math.dist(m["centroid"], at) < 12]
        if not near:
            raise GiveUp(f"no number next to the dot at ({x:.0f}, {y:.0f})")
        x0 = min(m["box"][0] for m in near)
        y0 = min(m["box"][1] for m in near)
        x1 = max(m["box"][2] for m in near)
        y1 = max(m["box"][3] for m in near)
        label, mismatch = pixels.read_number(black[y0:y1, x0:x1])
        if mismatch > 0.25 or int(label) in numbered:
            raise GiveUp(f"cannot read the number next to the dot at ({x:.0f}, {y:.0f})")
        numbered[int(label)] = [float(x), float(y)]
    if sorted(numbered) != list(range(1, len(numbered) + 1)):
        raise GiveUp(f"the numbers read are {sorted(numbered)}")
    return [numbered[k] for k in sorted(numbered)]


def _play_dots(view: OfflineView) -> Move:
    """Return the next move on a numbered-dots item: detect the dots and numbers, draw the closed figure with
    measure and intersect (crossings marked), analyze_polygon when it is simple, then the answer."""
    if not view.tool_results:
        return Move(tool_calls=(("detect_shapes", {"color": hex_color(BLACK), "min_area": 5, "max_shapes": 80}),))
    measured = latest(view, "measure")
    if measured is None:
        pts = _read_dots(view)
        n = len(pts)
        edges = [{"kind": "segment", "points": [pts[i], pts[(i + 1) % n]]} for i in range(n)]
        calls: list[tuple[str, dict[str, Any]]] = [
            ("trace_path", {"points": pts, "closed": True, "color": "blue", "width": 2}),
            ("measure", {"points": pts, "closed": True}),
        ]
        for i in range(n):
            for j in range(i + 2, n):
                if not (i == 0 and j == n - 1):
                    calls.append(("intersect", {"a": edges[i], "b": edges[j], "draw": True}))
        if LinearRing(pts).is_simple:  # analyze_polygon takes simple polygons only
            calls.append(("analyze_polygon", {"points": pts}))
        return Move(tool_calls=tuple(calls))
    if measured.is_error:
        raise GiveUp(measured.text)
    crossings = sum(int(r.data.get("count", 0)) for r in results(view, "intersect") if not r.is_error)
    angles = [a["angle"] for a in measured.data["angles"]]
    corners = sum(1 for a in angles if STRAIGHT_DEGREES < a < 180 - STRAIGHT_DEGREES)
    question = view.question
    if "cross itself" in question:
        return answer(view, str(crossings), f"Drawn in order, the sides cross at {crossings} point(s).")
    if "How many sides" in question:
        return answer(view, str(corners), f"The figure turns at {corners} of the dots, so it has {corners} sides.")
    if crossings:
        want = f"{crossings} crossing"
        letter = choice_letter(view, lambda c: c.startswith("a self-crossing") and want in c)
        return answer(view, letter, f"The closed figure crosses itself at {crossings} point(s).")
    shape = latest(view, "analyze_polygon")
    if shape is None or shape.is_error:
        raise GiveUp(shape.text if shape else "the figure was not analysed")
    convex = bool(shape.data["convex"])
    name = POLYGON_NAMES.get(corners, f"{corners}-gon")
    wanted = f"a {'convex' if convex else 'concave'} {name}"
    letter = choice_letter(view, lambda c: c == wanted)
    return answer(view, letter, f"The figure has {corners} corners, no crossings, and is {wanted[2:]}.")


POLYGON_NAMES = {
    3: "triangle",
    4: "quadrilateral",
    5: "pentagon",
    6: "hexagon",
    7: "heptagon",
    8: "octagon",
    9: "nonagon",
    10: "decagon",
}


# --- triangles ---------------------------------------------------------------------------------------------


def _play_triangles(view: OfflineView) -> Move:
    """Return the next move on a count-the-triangles item: find the ink, read its segments from the pixels
    (drawn over in blue), count_triangles (drawn), then the count."""
    if not view.tool_results:
        return Move(tool_calls=(("find_color", {"color": hex_color(BLACK), "tolerance": 60, "min_area": 30}),))
    counted = latest(view, "count_triangles")
    if counted is None:
        ink = pixels.color_mask(canvas_pixels(view), BLACK, 60)
        segments = [[list(a), list(b)] for a, b in linework.read_figure(ink)]
        lines = tuple(("draw_line", {"start": a, "end": b, "color": "blue", "width": 2}) for a, b in segments)
        return Move(tool_calls=(*lines, ("count_triangles", {"segments": segments, "tolerance": 2, "draw": True})))
    if counted.is_error:
        raise GiveUp(counted.text)
    count = int(counted.data["count"])
    n = len(results(view, "draw_line"))
    return answer(view, str(count), f"The {n} segments read from the figure form {count} triangles.")


STRATEGIES: dict[str, Strategy] = {
    "games-maze": Strategy(
        kind="a block maze seen from above",
        recognises=asks("maze seen from above"),
        play=guarded(_play_maze),
        needs=("maze_from_image", "solve_maze"),
    ),
    "games-ray": Strategy(
        kind="a light ray among mirrors and glass",
        recognises=asks("thin light ray starts"),
        play=guarded(_play_ray),
        needs=("detect_shapes", "find_color", "trace_light_ray"),
    ),
    "games-dart": Strategy(
        kind="a dart thrown under gravity at balloons",
        recognises=asks("A dart, the black dot"),
        play=guarded(_play_dart),
        needs=("find_color", "simulate_projectile"),
    ),
    "games-bounce": Strategy(
        kind="a ball bouncing between walls and bricks",
        recognises=asks("bounces elastically off the grey walls"),
        play=guarded(_play_bounce),
        needs=("find_color", "detect_shapes", "cast_ray"),
    ),
    "games-dots": Strategy(
        kind="a join-the-numbered-dots figure",
        recognises=asks("black dots numbered"),
        play=guarded(_play_dots),
        needs=("detect_shapes", "trace_path", "measure", "intersect", "analyze_polygon"),
    ),
    "games-triangles": Strategy(
        kind="a count-the-triangles line drawing",
        recognises=asks("straight black line segments", "How many triangles"),
        play=guarded(_play_triangles),
        needs=("find_color", "draw_line", "count_triangles"),
    ),
}
"""The game strategies by name; each needs the tools it lists (the policy checks they are offered)."""
