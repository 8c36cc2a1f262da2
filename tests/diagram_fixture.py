"""The OmniPhys diagram-editing fixture, made by the tests (never shipped): diagrams drawn with PIL, native records.

Three items in OmniPhys's native form (Chinese keys, read through the real loader with a field mapping):

- `reflect-1` (optics): a plane mirror, a light source S and the incident ray to P; draw the reflected ray.
- `throw-1` (mechanics): a ball leaving a table edge horizontally; draw its trajectory to the ground.
- `reflect-2` (optics): the same task with another source.

Each carries `solution_path` (the correct drawing, canvas pixels) and a reference output PNG made by drawing that
solution on a real canvas over the input, so a correct canvas answer is pixel-identical to the reference.
`CORRECT` and `WRONG` are the canvas tool calls a model would make (name, arguments).
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

SIZE = (320, 240)
MAPPING = "id=编号,question=题目,type=题型,images=图片,output_image=参考图,domain=领域"

MIRROR_Y = 200
SOURCES = {"reflect-1": ((60, 60), (160, MIRROR_Y)), "reflect-2": ((100, 40), (200, MIRROR_Y))}
"""Item → (source S, point of incidence P) on the mirror y = 200."""

BALL, V0, HALF_G, GROUND = (40.0, 80.0), 60.0, 70.0, 220.0
"""The thrown ball: start (px), horizontal speed (px per unit time), g / 2 (px per unit time²), ground line y."""


def reflected_path(item_id: str) -> list[list[float]]:
    """Return the reflected ray of a mirror item: from P until it is back at the height of S (canvas pixels)."""
    (sx, sy), (px, py) = SOURCES[item_id]
    return [[float(px), float(py)], [float(px + (px - sx)), float(sy)]]


def trajectory() -> list[list[float]]:
    """Return the ball's parabola x = x0 + v t, y = y0 + (g/2) t² down to the ground, as 15 points."""
    t_land = math.sqrt((GROUND - BALL[1]) / HALF_G)
    times = [t_land * k / 14 for k in range(15)]
    return [[round(BALL[0] + V0 * t, 3), round(BALL[1] + HALF_G * t * t, 3)] for t in times]


SOLUTIONS: dict[str, list[list[float]]] = {
    "reflect-1": reflected_path("reflect-1"),
    "throw-1": trajectory(),
    "reflect-2": reflected_path("reflect-2"),
}

CORRECT: dict[str, tuple[str, dict[str, Any]]] = {
    "reflect-1": ("draw_arrow", {"start": SOLUTIONS["reflect-1"][0], "end": SOLUTIONS["reflect-1"][1]}),
    "throw-1": ("trace_path", {"points": SOLUTIONS["throw-1"], "arrow": True}),
    "reflect-2": ("draw_arrow", {"start": SOLUTIONS["reflect-2"][0], "end": SOLUTIONS["reflect-2"][1]}),
}
"""The correct drawing of each item as one canvas tool call."""

WRONG: dict[str, tuple[str, dict[str, Any]]] = {
    # the ray sent back towards the source instead of mirrored
    "reflect-1": ("draw_arrow", {"start": [160, MIRROR_Y], "end": [60, 60]}),
    # a straight line from the ball to where it lands: right ends, wrong shape
    "throw-1": ("draw_line", {"start": list(BALL), "end": SOLUTIONS["throw-1"][-1]}),
    "reflect-2": ("draw_arrow", {"start": [200, MIRROR_Y], "end": [100, 40]}),
}

QUESTIONS = {
    "reflect-1": "光线从光源 S 射到平面镜上的 P 点。Draw the reflected ray from P up to the height of S.",
    "throw-1": "小球从桌边水平抛出。Draw the ball's trajectory until it hits the ground.",
    "reflect-2": "光线从光源 S 射到平面镜上的 P 点。Draw the reflected ray from P (second mirror).",
}


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _arrow(draw: ImageDraw.ImageDraw, start: tuple[float, float], end: tuple[float, float], color: str) -> None:
    draw.line([start, end], fill=color, width=2)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    for side in (-0.45, 0.45):
        tip = (end[0] - 10 * math.cos(angle + side), end[1] - 10 * math.sin(angle + side))
        draw.line([end, tip], fill=color, width=2)


def mirror_diagram(item_id: str) -> bytes:
    """Return the input diagram of a mirror item: the mirror (hatched below), S, and the incident ray S → P."""
    (sx, sy), (px, py) = SOURCES[item_id]
    image = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(image)
    draw.line([(40, MIRROR_Y), (280, MIRROR_Y)], fill="black", width=4)
    for x in range(44, 280, 12):
        draw.line([(x, MIRROR_Y + 2), (x - 8, MIRROR_Y + 12)], fill="black", width=1)
    draw.ellipse([sx - 6, sy - 6, sx + 6, sy + 6], fill="orange", outline="black")
    draw.text((sx - 18, sy - 8), "S", fill="black")
    _arrow(draw, (sx, sy), (px, py), "black")
    draw.text((px - 4, py + 14), "P", fill="black")
    return _png(image)


def table_diagram() -> bytes:
    """Return the input diagram of the thrown ball: a table, the ground line, the ball and its velocity arrow."""
    image = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, BALL[1] + 6, BALL[0], GROUND], fill=(200, 200, 200), outline="black")
    draw.line([(0, GROUND), (SIZE[0], GROUND)], fill="black", width=3)
    x, y = BALL
    draw.ellipse([x - 6, y - 6, x + 6, y + 6], fill="blue", outline="black")
    _arrow(draw, (x + 8, y), (x + 40, y), "black")
    draw.text((x + 20, y - 16), "v0", fill="black")
    return _png(image)


def input_diagram(item_id: str) -> bytes:
    """Return the input diagram (PNG bytes) of a fixture item."""
    return table_diagram() if item_id == "throw-1" else mirror_diagram(item_id)


def canvas_after(item_id: str, calls: list[tuple[str, dict[str, Any]]]) -> bytes:
    """Return the PNG of a real canvas over the item's input diagram after the given tool calls."""
    from mcot.canvas import Canvas

    canvas = Canvas(base=Image.open(io.BytesIO(input_diagram(item_id))))
    for name, arguments in calls:
        getattr(canvas, name)(**arguments)
    return canvas.snapshot().png


def reference_diagram(item_id: str) -> bytes:
    """Return the reference output of a fixture item: its correct drawing on a canvas over the input."""
    return canvas_after(item_id, [CORRECT[item_id]])


def native_records(root: Path, ids: tuple[str, ...] = tuple(SOLUTIONS)) -> Path:
    """Write the fixture in OmniPhys's native form (root/diagrams.jsonl, root/img/*.png); return the JSONL path."""
    (root / "img").mkdir(parents=True, exist_ok=True)
    lines = []
    for item_id in ids:
        (root / "img" / f"{item_id}.png").write_bytes(input_diagram(item_id))
        (root / "img" / f"{item_id}-ref.png").write_bytes(reference_diagram(item_id))
        record = {
            "编号": item_id,
            "题目": QUESTIONS[item_id],
            "题型": "作图题",
            "图片": f"img/{item_id}.png",
            "参考图": f"img/{item_id}-ref.png",
            "领域": "Mechanics" if item_id == "throw-1" else "Optics",
            "solution_path": SOLUTIONS[item_id],
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    path = root / "diagrams.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def items_dir(root: Path, ids: tuple[str, ...] = tuple(SOLUTIONS)) -> Path:
    """Convert the native fixture through the real OmniPhys loader (with the field mapping); return the items dir."""
    from mcot.benchmarks.loaders import convert

    source = native_records(root / "native", ids)
    out = root / "items"
    summary = convert("omniphys", source, out, mapping=MAPPING)
    assert summary.written == len(ids) and summary.skipped == 0, summary
    return out
