"""Time one canvas step (apply + render + observe() PNG) on a 1024x1024 scene against two references.

References, measured in the same run, on this machine, on the same scene: a matplotlib figure redrawn per step
(what code-executing sketchpad agents do), and the PNG floor: encoding alone of the final observation with the
canvas's own PNG writer (`mcot.canvas._png.encode_png`, every band compressed afresh), at its zlib level (PNG_LEVEL) and at the observation's own
size, so that the ratio compares like with like. Pillow's writer at the same level is printed beside it. Prints medians and ratios; the last line is
``step_ms=<median> ratio_vs_matplotlib=<x> ratio_vs_encode_floor=<y>``.

Run: python perf/canvas_render.py [--steps 50] [--seed 0]
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from mcot.canvas import Canvas
from mcot.canvas._canvas import PNG_LEVEL
from mcot.canvas._png import encode_png
from PIL import Image, ImageDraw

SIZE = 1024
OBSERVE_SIDE = 1024
"""The longer side of the observation each step encodes (the solver's default)."""


def make_base(seed: int) -> Image.Image:
    """Return a 1024x1024 RGB diagram-like base (a benchmark figure): flat background, shapes, thin lines."""
    rng = random.Random(seed)
    image = Image.new("RGB", (SIZE, SIZE), (248, 248, 245))
    draw = ImageDraw.Draw(image)
    for _ in range(40):
        x, y = rng.uniform(0, SIZE), rng.uniform(0, SIZE)
        r = rng.uniform(10, 80)
        colour = tuple(rng.randrange(60, 230) for _ in range(3))
        if rng.random() < 0.5:
            draw.ellipse((x - r, y - r, x + r, y + r), outline=colour, width=3)
        else:
            draw.rectangle((x - r, y - r, x + r, y + r * 0.6), fill=colour)
    for _ in range(30):
        draw.line([(rng.uniform(0, SIZE), rng.uniform(0, SIZE)) for _ in range(2)], fill=(40, 40, 40), width=2)
    return image


def make_ops(n: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """Return ``n`` mixed drawing operations: lines, labelled points, a 30-point path, arrows, a polygon."""
    rng = random.Random(seed + 1)

    def pt() -> list[float]:
        return [round(rng.uniform(0, SIZE), 1), round(rng.uniform(0, SIZE), 1)]

    colours = ["red", "blue", "green", "orange", "purple", "#008080"]
    ops: list[tuple[str, dict[str, Any]]] = [
        ("trace_path", {"points": [[20 + 32 * i, 500 + 200 * ((i % 4) - 1.5) / 2] for i in range(30)], "arrow": True}),
        ("draw_polygon", {"points": [pt() for _ in range(5)], "fill": "yellow", "opacity": 0.35, "color": "black"}),
    ]
    kinds = ["draw_line", "mark_point", "draw_arrow"]
    while len(ops) < n:
        kind = kinds[len(ops) % 3]
        colour = rng.choice(colours)
        if kind == "draw_line":
            ops.append((kind, {"start": pt(), "end": pt(), "color": colour, "width": 3, "dashed": rng.random() < 0.3}))
        elif kind == "mark_point":
            ops.append((kind, {"at": pt(), "label": f"P{len(ops)}", "color": colour}))
        else:
            ops.append((kind, {"start": pt(), "end": pt(), "color": colour}))
    return ops


def time_canvas(base: Image.Image, ops: list[tuple[str, dict[str, Any]]]) -> tuple[list[float], Image.Image]:
    """Return per-step milliseconds of apply + render + observe() PNG, and the final observation's image."""
    canvas = Canvas(base=base)
    canvas.observe()  # the initial observation every trace starts with
    times = []
    seen = None
    for name, args in ops:
        args = dict(args)
        positional = [args.pop(k) for k in ("start", "end", "at", "points") if k in args]
        t0 = time.perf_counter()
        getattr(canvas, name)(*positional, **args)
        seen = canvas.observe(max_side=OBSERVE_SIDE, format="png")
        times.append((time.perf_counter() - t0) * 1000)
    assert seen is not None
    return times, Image.open(io.BytesIO(seen.data)).convert("RGB")  # the size the canvas itself encoded


def time_matplotlib(base: Image.Image, ops: list[tuple[str, dict[str, Any]]], steps: list[int]) -> list[float]:
    """Return milliseconds per step of a matplotlib figure rebuilt with all elements so far, saved as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    pixels = np.asarray(base)
    times = []
    for upto in steps:
        t0 = time.perf_counter()
        fig = plt.figure(figsize=(SIZE / 100, SIZE / 100), dpi=100)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.imshow(pixels)
        ax.set_xlim(0, SIZE)
        ax.set_ylim(SIZE, 0)
        ax.axis("off")
        for name, a in ops[:upto]:
            colour = a.get("color", "red")
            if name == "draw_line":
                (x1, y1), (x2, y2) = a["start"], a["end"]
                ax.plot([x1, x2], [y1, y2], color=colour, lw=2.2, ls="--" if a.get("dashed") else "-")
            elif name == "mark_point":
                ax.plot(*a["at"], "o", color=colour, ms=7)
                ax.text(a["at"][0] + 8, a["at"][1] - 8, a["label"], color=colour, fontsize=11, weight="bold")
            elif name == "draw_arrow":
                (x1, y1), (x2, y2) = a["start"], a["end"]
                ax.annotate(
                    "", xy=(x2, y2), xytext=(x1, y1), arrowprops={"arrowstyle": "->", "color": colour, "lw": 2.2}
                )
            elif name == "trace_path":
                xs, ys = zip(*a["points"], strict=True)
                ax.plot(xs, ys, color=colour, lw=2.2)
            elif name == "draw_polygon":
                ax.fill(*zip(*a["points"], strict=True), facecolor=a["fill"], alpha=a["opacity"], edgecolor="black")
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100)
        plt.close(fig)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def time_encode(encode: Callable[[Image.Image], bytes], image: Image.Image, repeats: int) -> tuple[list[float], int]:
    """Return milliseconds of ``encode(image)``, ``repeats`` times, and the size of the PNG it made."""
    times = []
    size = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        size = len(encode(image))
        times.append((time.perf_counter() - t0) * 1000)
    return times, size


def pillow_png(image: Image.Image) -> bytes:
    """Return ``image`` as PNG bytes from Pillow's writer at the canvas's zlib level."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=PNG_LEVEL)
    return buffer.getvalue()


def _median(fn: Callable[[], list[float]]) -> float:
    return statistics.median(fn())


def main() -> None:
    """Run the measurement and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--matplotlib-samples", type=int, default=11, help="steps sampled for the matplotlib reference")
    options = parser.parse_args()
    base = make_base(options.seed)
    ops = make_ops(options.steps, options.seed)
    canvas_ms, final = time_canvas(base, ops)
    step_ms = statistics.median(canvas_ms)
    last_ms = statistics.median(canvas_ms[-10:])
    sample = sorted(
        {max(1, round(options.steps * (i + 1) / options.matplotlib_samples)) for i in range(options.matplotlib_samples)}
    )
    mpl_ms = statistics.median(time_matplotlib(base, ops, sample))
    floor, floor_bytes = time_encode(lambda image: encode_png(image, PNG_LEVEL), final, 9)
    pillow, pillow_bytes = time_encode(pillow_png, final, 9)
    floor_ms, pillow_ms = statistics.median(floor), statistics.median(pillow)
    tail = min(10, len(ops))
    import matplotlib
    import PIL

    print(f"canvas step (apply + render + observe PNG), median over {len(ops)} steps: {step_ms:.1f} ms")
    print(f"canvas step, median of the last {tail} steps ({len(ops) - tail + 1}-{len(ops)} elements): {last_ms:.1f} ms")
    print(f"matplotlib figure redrawn per step, median over {len(sample)} steps: {mpl_ms:.1f} ms")
    print(
        f"PNG floor: the canvas's own PNG writer on the final {final.width}x{final.height} observation at zlib level "
        f"{PNG_LEVEL}, encoding alone, median of 9: {floor_ms:.1f} ms ({floor_bytes} bytes)"
    )
    print(f"  (Pillow's writer, same image and level: {pillow_ms:.1f} ms, {pillow_bytes} bytes)")
    print(
        f"references measured in this run on this machine ({os.cpu_count()} CPUs, "
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, Pillow {PIL.__version__}, "
        f"matplotlib {matplotlib.__version__})"
    )
    print(
        f"step_ms={step_ms:.1f} ratio_vs_matplotlib={step_ms / mpl_ms:.3f} ratio_vs_encode_floor={step_ms / floor_ms:.2f}"
    )


if __name__ == "__main__":
    main()
