"""Canvas work of an item opened from its figure file, with the per-process figure cache and without it.

An item's canvas work: open the figure, the opening snapshot, `draw_line`, a snapshot, `mark_point`, a snapshot
(what the canvas arm does for perf/harness_overhead.py's scripted model). `Canvas.from_path` (the figure decoded
once per unchanged file, its opening PNG kept: canvas/_figures.py) is measured against the reference, measured in
the same run on the same files at the same PNG level: a canvas over a freshly decoded figure
(`Canvas(base=open_image(path))`, what every item did before the cache). Two shapes of data: every item its own
figure (`mcot gen games`, as the harness), and 13 questions a figure (GePBench's shape). CPU an item, medians.

Run: python perf/canvas_figures.py [--figures 60] [--repeats 5]
Last line: `own_ms=… own_ref_ms=… shared13_ms=… shared13_ref_ms=… shared13_speedup=…`
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from mcot.canvas import Canvas
from mcot.canvas._image import open_image


def item(open_canvas: Callable[[Path], Canvas], path: Path) -> None:
    """Do one item's canvas work on the figure at `path` (returns nothing)."""
    canvas = open_canvas(path)
    canvas.snapshot()
    canvas.draw_line([10, 10], [200, 120], color="blue")
    canvas.snapshot()
    canvas.mark_point([100, 100], label="A")
    canvas.snapshot()


def fresh(path: Path) -> Canvas:
    """Return a canvas over a freshly decoded figure (the reference: no figure cache)."""
    return Canvas(base=open_image(path), copy_base=False)


def cpu_ms_an_item(open_canvas: Callable[[Path], Canvas], paths: list[Path], questions: int) -> float:
    """Return the CPU milliseconds an item of `questions` items a figure over `paths`."""
    began = time.process_time()
    for path in paths:
        for _ in range(questions):
            item(open_canvas, path)
    return (time.process_time() - began) / (len(paths) * questions) * 1000


def copies(paths: list[Path], folder: Path) -> list[Path]:
    """Return new copies of the files at `paths` in `folder` (files no canvas of this process has opened)."""
    folder.mkdir()
    made = []
    for index, path in enumerate(paths):
        copy = folder / f"{index}.png"
        copy.write_bytes(path.read_bytes())
        made.append(copy)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", type=int, default=60, help="figures (mcot gen games, a sixth each task)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcot-figures-") as scratch:
        items = Path(scratch) / "items"
        per_task = max(1, args.figures // 6)
        command = [sys.executable, "-m", "mcot", "gen", "games", "--out", str(items), "--n", str(per_task)]
        subprocess.run([*command, "--seed", "0"], check=True, capture_output=True)
        paths = sorted((items / "images").rglob("*.png"))
        own, own_ref, shared, shared_ref = [], [], [], []
        quarter = paths[: max(1, len(paths) // 4)]
        for repeat in range(args.repeats):
            # new copies of the files for each measurement: the figure cache starts cold for every figure
            own_ref.append(cpu_ms_an_item(fresh, paths, 1))
            own.append(cpu_ms_an_item(Canvas.from_path, copies(paths, Path(scratch) / f"own{repeat}"), 1))
            shared_ref.append(cpu_ms_an_item(fresh, quarter, 13))
            shared.append(cpu_ms_an_item(Canvas.from_path, copies(quarter, Path(scratch) / f"shared{repeat}"), 13))
    m = statistics.median
    print(f"{len(paths)} games figures, {args.repeats} repeats, CPU an item (open, 3 snapshots, 2 drawing steps)")
    print(f"  every item its own figure: {m(own):.2f} ms (fresh decode: {m(own_ref):.2f} ms)")
    print(f"  13 questions a figure:     {m(shared):.2f} ms (fresh decode: {m(shared_ref):.2f} ms)")
    print(
        f"own_ms={m(own):.2f} own_ref_ms={m(own_ref):.2f} shared13_ms={m(shared):.2f} "
        f"shared13_ref_ms={m(shared_ref):.2f} shared13_speedup={m(shared_ref) / m(shared):.2f}"
    )


if __name__ == "__main__":
    main()
