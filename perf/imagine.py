"""Time image generation: procedural scenes per second on one core, and the diffusers route's cost per image.

Procedural: build a scene from a prompt and seed, draw it as SVG, rasterise it with cairosvg to a 512×512 PNG —
the whole `ProceduralGenerator.generate` path — for a mix of GOBench prompts of the three categories, both
variants; the process is pinned to one core where the OS allows it; the median of several runs.

Diffusers (when the `gen` extra is installed): a tiny Stable Diffusion pipeline with random weights is built and
saved here (nothing is downloaded), loaded through the real `diffusers:PATH` route, and driven by `ImageSolver`
into a disk blob store, one image per item. Per image: the solve's wall time, and inside it the pipeline call's
own time (the generator reports it as usage.pipeline_s); mcot's overhead is the difference (argument building,
the worker thread, PNG encoding, the blob write, the trace). A bare pipeline call with the same arguments, on a
separately loaded copy and in a worker thread as the generator makes it, is timed too for reference (it
includes starting an event loop, under a millisecond).

Last line: ``procedural_img_s=<median> diffusers_overhead_ms=<median> diffusers_overhead_pct=<median %>``
(the diffusers figures are ``na`` when the extra is missing).

Run: python perf/imagine.py [--scenes 200] [--runs 5] [--images 12] [--steps 4] [--size 64]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcot.agents.generators import ImageRequest
from mcot.agents.generators.procedural import ProceduralGenerator

PROMPTS = [
    ("direct_light_images", "A lonely oak tree stands in a bright sunny meadow and casts a long, sharp shadow."),
    ("direct_light_images", "A street lamp at night lights a bench and a bin on the pavement."),
    ("reflect_light_images", "A cat sits before a bathroom mirror."),
    ("reflect_light_images", "A concave shaving mirror magnifies a face."),
    ("refracted_light_images", "A straw in a glass of water looks bent at the surface."),
    ("refracted_light_images", "A coin at the bottom of a swimming pool looks shallower than it is."),
    ("refracted_light_images", "Total internal reflection of a laser in an optical fiber."),
]


@contextlib.contextmanager
def one_core() -> Iterator[str]:
    """Pin the process to one CPU while inside; yield a note saying whether pinning was possible."""
    if not hasattr(os, "sched_setaffinity"):
        yield "not pinned (no sched_setaffinity here)"
        return
    before = os.sched_getaffinity(0)
    core = min(before)
    os.sched_setaffinity(0, {core})
    try:
        yield f"pinned to CPU {core}"
    finally:
        os.sched_setaffinity(0, before)


def time_procedural(scenes: int, runs: int) -> list[float]:
    """Return images per second of each run of ``scenes`` generate calls (one 512×512 image each)."""
    generators = [ProceduralGenerator("correct"), ProceduralGenerator("broken")]

    async def one_run(offset: int) -> float:
        started = time.perf_counter()
        for i in range(scenes):
            category, prompt = PROMPTS[i % len(PROMPTS)]
            request = ImageRequest(prompt=prompt, category=category, seed=offset + i, size=(512, 512))
            await generators[i % 2].generate(request)
        return scenes / (time.perf_counter() - started)

    asyncio.run(one_run(-1000))  # warm-up: imports, template files, fonts
    return [asyncio.run(one_run(run * scenes)) for run in range(runs)]


# ----------------------------------------------------------------------------- the tiny diffusers pipeline


class TimedGenerator:
    """A generator passed through unchanged, keeping each response's own pipeline time (usage.pipeline_s)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.spec, self.provider, self.model = inner.spec, inner.provider, inner.model
        self.pipeline_s: list[float] = []

    def capabilities(self) -> dict[str, str]:
        """Return the wrapped generator's capabilities."""
        return self.inner.capabilities()

    async def generate(self, request: ImageRequest) -> Any:
        """Return the wrapped generator's response, noting its pipeline time."""
        response = await self.inner.generate(request)
        self.pipeline_s.append(float(response.usage["pipeline_s"]))
        return response

    async def edit(self, request: ImageRequest) -> Any:
        """Return the wrapped generator's edit."""
        return await self.inner.edit(request)


def time_diffusers(images: int, steps: int, size: int) -> dict[str, float] | None:
    """Return medians per image (solve, pipeline inside it, overhead, bare pipeline), or None without the extra."""
    try:
        import diffusers
        import torch
    except ImportError:
        return None
    from mcot.agents.generators import ImageOptions, ImageSolver, load_generator

    from mcot.core.item import Item
    from mcot.core.rundir import BlobStore
    from mcot.testing.tiny_pipeline import build_tiny_pipeline

    diffusers.utils.logging.set_verbosity_error()
    diffusers.utils.logging.disable_progress_bar()
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()

    with tempfile.TemporaryDirectory() as tmp:
        folder = build_tiny_pipeline(Path(tmp) / "tiny-sd")
        timed = TimedGenerator(load_generator(f"diffusers:{folder}"))
        timed.inner.load()
        solver = ImageSolver(timed, "diffusers", ImageOptions(seed=0, steps=steps, size=(size, size)))
        blobs = BlobStore(Path(tmp) / "run" / "blobs")
        items = [
            Item(
                id=f"p{i}",
                benchmark="gobench",
                category=PROMPTS[i % len(PROMPTS)][0],
                question="",
                answer="",
                answer_type="image",
                meta={"prompt": PROMPTS[i % len(PROMPTS)][1], "sample": i},
            )
            for i in range(images + 1)
        ]

        async def solve_all() -> list[float]:
            walls = []
            for item in items:
                started = time.perf_counter()
                prediction, _ = await solver.solve(item, Path(tmp), blobs)
                walls.append(time.perf_counter() - started)
                if prediction.status != "ok":
                    raise RuntimeError(prediction.error)
            return walls

        walls = asyncio.run(solve_all())[1:]  # the first solve warms the pipeline up
        inner = timed.pipeline_s[1:]
        overheads = [w - p for w, p in zip(walls, inner, strict=True)]

        bare_pipe = diffusers.AutoPipelineForText2Image.from_pretrained(str(folder), local_files_only=True)
        bare_pipe.set_progress_bar_config(disable=True)
        bare = []
        for i in range(images + 1):
            generator = [torch.Generator(device="cpu").manual_seed(i)]
            arguments = {
                "prompt": items[i].meta["prompt"],
                "num_inference_steps": steps,
                "width": size,
                "height": size,
                "generator": generator,
                "output_type": "pil",
                "num_images_per_prompt": 1,
            }
            started = time.perf_counter()
            # in a worker thread, as the generator calls it (torch on the main thread runs differently)
            asyncio.run(asyncio.to_thread(lambda a=arguments: bare_pipe(**a)))
            bare.append(time.perf_counter() - started)
        bare = bare[1:]
    return {
        "solve_s": statistics.median(walls),
        "pipeline_s": statistics.median(inner),
        "overhead_ms": statistics.median(overheads) * 1000,
        "overhead_pct": statistics.median(o / p * 100 for o, p in zip(overheads, inner, strict=True)),
        "bare_pipeline_s": statistics.median(bare),
        "torch_threads": torch.get_num_threads(),
    }


def main() -> None:
    """Run the timings and print them; the last line holds the headline figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=200, help="procedural images per run")
    parser.add_argument("--runs", type=int, default=5, help="procedural runs (the median is reported)")
    parser.add_argument("--images", type=int, default=12, help="diffusers images timed (after one warm-up)")
    parser.add_argument("--steps", type=int, default=4, help="diffusers inference steps per image")
    parser.add_argument("--size", type=int, default=64, help="diffusers image side in pixels")
    args = parser.parse_args()

    with one_core() as note:
        rates = time_procedural(args.scenes, args.runs)
    procedural = statistics.median(rates)
    print(f"procedural: {args.scenes} scenes × {args.runs} runs at 512x512, {note}")
    print(
        f"  images/s per run: {', '.join(f'{r:.1f}' for r in rates)}; median {procedural:.1f} "
        f"({1000 / procedural:.2f} ms per image; goal ≥ 50 images/s)"
    )

    result = time_diffusers(args.images, args.steps, args.size)
    if result is None:
        print(
            "diffusers: skipped, the gen extra is not installed (pip install torch==2.13.0, then diffusers "
            "transformers)"
        )
        print(f"procedural_img_s={procedural:.1f} diffusers_overhead_ms=na diffusers_overhead_pct=na")
        return
    print(
        f"diffusers: tiny random pipeline, {args.size}x{args.size}, {args.steps} steps, {args.images} images, "
        f"CPU, {result['torch_threads']} torch threads"
    )
    print(
        f"  per image (medians): solve {result['solve_s']:.3f} s, pipeline call inside it "
        f"{result['pipeline_s']:.3f} s, mcot overhead {result['overhead_ms']:.2f} ms "
        f"({result['overhead_pct']:.2f} % of the pipeline; goal ≤ 5 %); bare pipeline call "
        f"{result['bare_pipeline_s']:.3f} s"
    )
    print(
        f"procedural_img_s={procedural:.1f} diffusers_overhead_ms={result['overhead_ms']:.2f} "
        f"diffusers_overhead_pct={result['overhead_pct']:.2f}"
    )


if __name__ == "__main__":
    main()
