"""`mcot imagine`: image generators as Solvers, one image per (prompt, sample) into an ordinary run directory.

A generation run is a run like any other (manifest, resumable ledger, images in blobs, traces): each arm is a
generator, each item a prompt (GOBench: one per scenario) or an input diagram with an instruction (an edit).
With `n_per_prompt` K > 1 the run's items are K copies of each prompt, ids `<id>~<k>`, `meta.sample = k`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot.benchmarks.item import Item
from mcot.errors import UsageError
from mcot.rundir import RunDir, build_manifest
from mcot.runner import RunSummary, execute, freeze, open_or_refuse, prepare_dataset, read_source_items

SAMPLE_SEPARATOR = "~"
PROCEDURAL = "procedural"
BROKEN = "procedural:broken"


@dataclass(frozen=True)
class ImagineConfig:
    """Everything `mcot imagine` was asked to do."""

    data: Path
    generator: str
    out: Path
    n_per_prompt: int = 1
    seed: int | None = None
    steps: int | None = None
    guidance: float | None = None
    size: tuple[int, int] | None = None
    base_url: str | None = None
    limit: int | None = None
    concurrency: int = 2
    format: str | None = None
    max_tries: int = 6

    def options(self) -> dict[str, Any]:
        """Return the generation options every arm uses (recorded in the manifest, checked on resume)."""
        size = list(self.size) if self.size else None
        return {"seed": self.seed, "steps": self.steps, "guidance": self.guidance, "size": size}

    def result_settings(self) -> dict[str, Any]:
        """Return the manifest's `config`."""
        return {**self.options(), "n_per_prompt": self.n_per_prompt, "limit": self.limit}


def arm_specs(spec: str) -> dict[str, str]:
    """Return {arm name: generator spec}: `procedural` runs its broken twins too (the judge calibration set)."""
    provider = spec.partition(":")[0].strip().lower()
    if spec == PROCEDURAL:
        return {"procedural": PROCEDURAL, "procedural-broken": BROKEN}
    if spec == BROKEN:
        return {"procedural-broken": BROKEN}
    return {provider: spec}


def prompt_items(items: list[Item]) -> list[Item]:
    """Return the items a generator can work on: image answers (GOBench generation, diagram edits) or prompts."""
    chosen = [item for item in items if item.answer_type == "image" or "prompt" in item.meta]
    if not chosen:
        raise UsageError(
            "no item to generate for: an imagine run takes items whose answer_type is image (GOBench scenarios, "
            "OmniPhys diagram edits) or that carry meta.prompt"
        )
    return chosen


def expand_samples(items: list[Item], n_per_prompt: int) -> list[Item]:
    """Return the items as they are (K = 1), or K copies of each with ids `<id>~<k>` and `meta.sample = k`."""
    if n_per_prompt == 1:
        return items
    return [
        item.model_copy(update={"id": f"{item.id}{SAMPLE_SEPARATOR}{k}", "meta": {**item.meta, "sample": k}})
        for item in items
        for k in range(n_per_prompt)
    ]


async def imagine_async(config: ImagineConfig, *, bar: bool = False) -> RunSummary:
    """Generate the images of every pending (item, arm) pair; return counts. Finished pairs are never redone."""
    from mcot.agents.endpoints import public_url
    from mcot.agents.generators import load_generator
    from mcot.agents.generators.solver import ImageOptions, ImageSolver
    from mcot.agents.retry import RetryPolicy

    started = time.perf_counter()
    retry = RetryPolicy(max_tries=config.max_tries)
    # a bad spec, a missing extra or a missing key fails here, before anything is written
    generators = {
        arm: load_generator(spec, base_url=config.base_url, retry=retry)
        for arm, spec in arm_specs(config.generator).items()
    }
    run_dir = RunDir(Path(config.out))
    items_dir = prepare_dataset(config.data, config.format, run_dir.root, generation=True)
    items = prompt_items(read_source_items(items_dir))
    if config.limit is not None:
        items = items[: config.limit]
    items = expand_samples(items, config.n_per_prompt)
    frozen = freeze(items, items_dir, run_dir.root)
    dataset = frozen.dataset_entry(items_dir, config.limit)
    options = ImageOptions(seed=config.seed, steps=config.steps, guidance=config.guidance, size=config.size)
    solvers = {arm: ImageSolver(generator, arm, options) for arm, generator in generators.items()}
    first = next(iter(solvers.values()))
    manifest = build_manifest(
        model=None,
        generator={"spec": config.generator, "base_url": public_url(config.base_url) if config.base_url else None},
        arms=[{"name": arm, "generator": gen.spec, "options": config.options()} for arm, gen in generators.items()],
        solver={key: value for key, value in first.describe().items() if key != "arm"},
        config=config.result_settings(),
        prompts={},
        dataset=dataset,
        concurrency=config.concurrency,
        command="mcot imagine",
    )
    manifest = open_or_refuse(run_dir, manifest, frozen, config.concurrency)
    summary = await execute(
        run_dir,
        manifest,
        frozen,
        items_dir,
        solvers,
        config.concurrency,
        record_extra={arm: {"generator": generator.spec} for arm, generator in generators.items()},
        bar=bar,
    )
    summary.wall_s = time.perf_counter() - started
    return summary
