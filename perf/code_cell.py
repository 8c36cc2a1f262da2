"""Round trip of code cells in the sandboxed session, beside a plain multiprocessing worker (PyVision's design).

Measured in one run: a trivial cell (`1 + 1`) and a crop-and-zoom cell on a 640 × 640 image (a random 320 × 320
crop resized 2× with bicubic, shown as the cell's value: the PNG comes back) through mcot's sandboxed Jupyter
session, the same two cells in an unisolated worker process that exec()s them and sends back the value's repr
or the image as PNG over a pipe, and the crop-and-zoom reference of perf/env_step.py (the same PIL calls in
this process, no PNG); then a session from the warm pool (its `take`), a cold session start, and the resident
memory of an idle session (bwrap and the kernel). Medians; the sandbox's and the worker's cells are timed in
turn, so that the machine's other load moves both alike: their ratio holds better than either time.

    python perf/code_cell.py [--cells 200] [--starts 3]

The last line is `key=value` pairs: trivial_ms, crop_zoom_ms, worker_trivial_ms, worker_crop_zoom_ms,
crop_zoom_ratio_vs_worker, reference_ms, pool_take_ms, cold_start_s, idle_mb.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

from mcot.tools.code.kernel import CodeSession
from mcot.tools.code.pool import SessionPool
from PIL import Image

TRIVIAL = "1 + 1"
CROP_ZOOM = (
    "x, y = _rng.randrange(0, 320), _rng.randrange(0, 320)\n"
    "image.crop((x, y, x + 320, y + 320)).resize((640, 640), Image.Resampling.BICUBIC)"
)
SETUP = "import random as _random\n_rng = _random.Random(0)"


def _worker(conn: Connection, path: str) -> None:
    """The unisolated worker: exec each cell in one namespace; send the last value's repr, or an image as PNG."""
    import ast

    namespace: dict[str, object] = {"Image": Image, "image": Image.open(path).convert("RGB")}
    while True:
        code = conn.recv()
        if code is None:
            return
        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<cell>", "exec"), namespace)
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace) if last is not None else None
        if isinstance(value, Image.Image):
            buffer = io.BytesIO()
            value.save(buffer, format="PNG", compress_level=1)
            conn.send(buffer.getvalue())
        else:
            conn.send(repr(value))


def median_ms(run: Callable[[], object], n: int) -> float:
    """Return the median wall time of `run()` over n calls, in milliseconds."""
    times = []
    for _ in range(n):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def paired_median_ms(first: Callable[[], object], second: Callable[[], object], n: int) -> tuple[float, float]:
    """Return the median wall times of `first()` and `second()` in milliseconds, called in turn n times each, so
    that a change in the machine's other load falls on both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(n):
        for run, kept in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            run()
            kept.append((time.perf_counter() - started) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> None:
    """Measure and print the table and the key=value line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "figure.png"
        Image.effect_noise((640, 640), 64).convert("RGB").save(path)
        picture = Image.open(path).convert("RGB")

        session = CodeSession().start()
        session.load_images([path])
        parent, child = multiprocessing.Pipe()
        worker = multiprocessing.get_context("spawn").Process(target=_worker, args=(child, str(path)), daemon=True)
        worker.start()

        def ask(code: str) -> object:
            parent.send(code)
            return parent.recv()

        for run in (session.run, ask):
            run(SETUP)
            for _ in range(10):
                run(CROP_ZOOM)
        # the same cell in the sandbox and in the worker in turn: the ratio of two medians under the same load
        trivial, worker_trivial = paired_median_ms(lambda: session.run(TRIVIAL), lambda: ask(TRIVIAL), args.cells)
        crop, worker_crop = paired_median_ms(lambda: session.run(CROP_ZOOM), lambda: ask(CROP_ZOOM), args.cells)
        idle_mb = session.memory_bytes() / 2**20
        session.close()
        parent.send(None)
        worker.join(10)

        def reference() -> Image.Image:
            x, y = rng.randrange(0, 320), rng.randrange(0, 320)
            return picture.crop((x, y, x + 320, y + 320)).resize((640, 640), Image.Resampling.BICUBIC)

        ref = median_ms(reference, args.cells)

        cold = median_ms(lambda: CodeSession().start().close(), args.starts) / 1000
        pool = SessionPool(size=1)
        takes = []
        for _ in range(args.starts):
            pool.fill()
            pool.wait_ready(1)
            started = time.perf_counter()
            taken = pool.take()
            takes.append((time.perf_counter() - started) * 1000)
            taken.close()
        pool.close()
        take = statistics.median(takes)

    print("(medians; a busy shared machine: compare the ratios measured side by side)")
    print(f"{'what':<58} {'mcot sandbox':>14} {'plain worker':>14}")
    print(f"{'trivial cell round trip (1 + 1)':<58} {trivial:>11.2f} ms {worker_trivial:>11.2f} ms")
    print(f"{'crop-and-zoom cell, 640 × 640, PNG back':<58} {crop:>11.2f} ms {worker_crop:>11.2f} ms")
    print(f"{'crop-and-zoom reference in process (perf/env_step.py)':<58} {ref:>11.2f} ms")
    print(f"{'a session from the warm pool':<58} {take:>11.2f} ms")
    print(f"{'a cold session start':<58} {cold:>12.2f} s")
    print(f"{'an idle session, resident memory':<58} {idle_mb:>11.1f} MB")
    print(
        f"trivial_ms={trivial:.2f} crop_zoom_ms={crop:.2f} worker_trivial_ms={worker_trivial:.2f} "
        f"worker_crop_zoom_ms={worker_crop:.2f} crop_zoom_ratio_vs_worker={crop / worker_crop:.2f} "
        f"reference_ms={ref:.2f} pool_take_ms={take:.2f} cold_start_s={cold:.2f} idle_mb={idle_mb:.1f}"
    )


if __name__ == "__main__":
    main()
