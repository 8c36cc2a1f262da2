"""Time of one environment step: CanvasEnv (TRL) and CanvasTool.execute (verl) against the crop-and-zoom reference.

A step is one drawing call (`draw_line` between random points) on a 640 × 640 GePBench figure and the
observation the model gets back as a PIL image. The reference is the tool the thinking-with-images projects give
their models: a PIL crop of the same image (a random 320 × 320 region) resized 2× with bicubic, measured in the
same run, one reference call after each step so that both see the same load of a shared machine. Episodes of
`--steps` calls are repeated `--episodes` times (a fresh canvas each, as a rollout gets); the medians per call
are printed, and the ratios: env/reference (goal ≤ 0.5) and verl/env (goal ≤ 1.2; CanvasEnv measured again right
after the verl tool).

The verl tool is measured only where verl is installed (the `rl` extra); its figures are printed as "n/a" else.

Run: python perf/env_step.py [--steps 20] [--episodes 15] [--seed 0]. The last line is `env_step_ms=…
reference_ms=… ratio_vs_crop_zoom=… verl_step_ms=… verl_ratio_vs_env=…`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image


def figure(folder: Path) -> tuple[Path, dict[str, Any]]:
    """Return a 640 × 640 GePBench figure made here and the `item` column of an environment row drawn on it."""
    from mcot.benchmarks.generators.gepbench.engine import write

    from mcot.core.item import ItemsWriter, iter_items

    with ItemsWriter(folder / "items") as writer:
        write(writer, 1, 0, "easy")
    item = next(iter_items(folder / "items"))
    return folder / "items" / item.images[0], json.loads(item.to_json_line())


def crop_zoom(image: Image.Image, rng: random.Random) -> Image.Image:
    """Return the reference tool's output: a random 320 × 320 crop resized 2× with bicubic."""
    x, y = rng.randrange(0, image.width - 320), rng.randrange(0, image.height - 320)
    return image.crop((x, y, x + 320, y + 320)).resize((640, 640), Image.Resampling.BICUBIC)


def line(rng: random.Random) -> dict[str, Any]:
    """Return random draw_line arguments inside a 640 × 640 canvas."""
    return {"start": [rng.uniform(0, 640), rng.uniform(0, 640)], "end": [rng.uniform(0, 640), rng.uniform(0, 640)]}


def time_interleaved(
    call: Callable[[], Any], reference: Callable[[], Any], steps: int, episodes: int, reset: Callable[[], None]
) -> tuple[list[float], list[float]]:
    """Return the times (ms) of `steps` calls per episode (after a `reset` each) and of as many reference calls,
    one of each in turn, so that both see the same load of a shared machine."""
    calls, references = [], []
    for _ in range(episodes):
        reset()
        for _ in range(steps):
            start = time.perf_counter()
            call()
            middle = time.perf_counter()
            reference()
            calls.append((middle - start) * 1000)
            references.append((time.perf_counter() - middle) * 1000)
    return calls, references


def verl_times(row: dict[str, Any], steps: int, episodes: int, rng: random.Random) -> list[float] | None:
    """Return the time (ms) of CanvasTool.execute calls, or None without verl."""
    try:
        from verl.tools.schemas import OpenAIFunctionToolSchema

        from mcot.env.verl import CanvasTool
        from mcot.env.verl_config import verl_tool_schema
    except ImportError:
        return None
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # BaseTool prints its schema
        tool = CanvasTool(
            {"type": "native", "toolset": "canvas"},
            OpenAIFunctionToolSchema.model_validate(verl_tool_schema("draw_line")),
        )

    async def run() -> list[float]:
        times = []
        for episode in range(episodes):
            instance, _ = await tool.create(f"perf-{episode}", item=row["item"], image=row["images"][0])
            for _ in range(steps):
                start = time.perf_counter()
                response, _, _ = await tool.execute(instance, line(rng))
                times.append((time.perf_counter() - start) * 1000)
                assert response.image
            await tool.release(instance)
        return times

    return asyncio.run(run())


def main() -> None:
    """Measure and print the medians and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="calls per episode")
    parser.add_argument("--episodes", type=int, default=15, help="episodes per measurement")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from mcot.env import CanvasEnv

    with tempfile.TemporaryDirectory() as tmp:
        path, item = figure(Path(tmp))
        image = Image.open(path).convert("RGB")
        row = {"item": json.dumps(item), "images": [image], "prompt": [{"role": "user", "content": "…"}]}
        rng = random.Random(args.seed)
        env = CanvasEnv()
        env.reset(**row)
        for _ in range(10):  # warm-up: imports, caches, the font
            env.draw_line(**line(rng))
            crop_zoom(image, rng)
        steps, reference = time_interleaved(
            lambda: env.draw_line(**line(rng)),
            lambda: crop_zoom(image, rng),
            args.steps,
            args.episodes,
            lambda: env.reset(**row),
        )
        check = env.draw_line(**line(rng))
        assert isinstance(check[0]["image"], Image.Image) and check[0]["image"].size == (640, 640)
        verl = verl_times(row, args.steps, args.episodes, rng)
        env_again, _ = time_interleaved(
            lambda: env.draw_line(**line(rng)), lambda: None, args.steps, args.episodes, lambda: env.reset(**row)
        )
    ref = statistics.median(reference)
    step = statistics.median(steps)
    step_near_verl = statistics.median(env_again)
    print(f"crop-and-zoom reference (PIL crop 320 × 320, bicubic 2×): median {ref:.2f} ms")
    print(f"CanvasEnv.draw_line + observation (PIL 640 × 640): median {step:.2f} ms ({step / ref:.2f}× the reference)")
    if verl is not None:
        verl_step = statistics.median(verl)
        ratio = verl_step / step_near_verl
        print(
            f"CanvasTool.execute (verl): median {verl_step:.2f} ms ({ratio:.2f}× CanvasEnv's {step_near_verl:.2f} ms "
            "measured right after it)"
        )
        tail = f"verl_step_ms={verl_step:.2f} verl_ratio_vs_env={ratio:.2f}"
    else:
        print("CanvasTool.execute (verl): not measured, verl is not installed (pip install 'mcot[rl]')")
        tail = "verl_step_ms=n/a verl_ratio_vs_env=n/a"
    print(f"env_step_ms={step:.2f} reference_ms={ref:.2f} ratio_vs_crop_zoom={step / ref:.2f} {tail}")


if __name__ == "__main__":
    main()
