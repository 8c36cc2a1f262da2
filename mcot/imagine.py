"""`mcot imagine`: image generators as Solvers, one image per (prompt, sample) into an ordinary run directory.

A generation run is a run like any other (manifest, resumable ledger, images in blobs, traces): each arm is a
generator, each item a prompt (GOBench: one per scenario) or an input diagram with an instruction (an edit).
With `n_per_prompt` K > 1 the run's items are K copies of each prompt, ids `<id>~<k>`, `meta.sample = k`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mcot.agents.endpoints import public_url
from mcot.agents.generators import load_generator
from mcot.agents.generators.solver import ImageOptions, ImageSolver
from mcot.agents.retry import RetryPolicy
from mcot.breaker import check_endpoints_now, guarded
from mcot.core.errors import UsageError
from mcot.core.item import Item
from mcot.core.rundir import RunDir, build_manifest
from mcot.executors import InProcessExecutor
from mcot.pacing import AdaptiveConcurrency
from mcot.runconfig import ImagineConfig
from mcot.runner import CallObserver, Pacing, RunJob, RunSummary, freeze, prepare_dataset, read_source_items

if TYPE_CHECKING:
    from mcot.agents.solver import Solver

SAMPLE_SEPARATOR = "~"
PROCEDURAL = "procedural"
BROKEN = "procedural:broken"


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


def imagine_job(config: ImagineConfig, *, bar: bool = False) -> RunJob:
    """Return the session `mcot imagine` asks for: one arm per generator, in this process, items in order.

    A bad spec, a missing extra or a missing key fails here, before anything is written. The generators' retries
    tell the run's circuit breaker (as `mcot run`'s model calls do): an endpoint that stops answering mid-run stops
    the command after `BREAKER_THRESHOLD` attempts in a row that could not connect, not after every prompt's tries.
    """

    aimd = AdaptiveConcurrency(config.concurrency)
    observer = CallObserver(aimd)
    retry = RetryPolicy(max_tries=config.max_tries, observer=observer)
    generators = {
        arm: load_generator(spec, base_url=config.base_url, retry=retry)
        for arm, spec in arm_specs(config.generator).items()
    }
    for generator in generators.values():  # a dead endpoint refuses the command before anything is written
        check_endpoints_now(generator)
    observer.breaker.subject = " and ".join(guarded("generator", gen.spec, gen) for gen in generators.values())
    run_dir = RunDir(Path(config.out))
    items_dir = prepare_dataset(config.data, config.format, run_dir.root, generation=True)
    items = prompt_items(read_source_items(items_dir))
    if config.limit is not None:
        items = items[: config.limit]
    items = expand_samples(items, config.n_per_prompt)
    frozen = freeze(items, items_dir, run_dir.root)
    dataset = frozen.dataset_entry(items_dir, config.limit)
    options = ImageOptions(seed=config.seed, steps=config.steps, guidance=config.guidance, size=config.size_pixels())
    solvers: dict[str, Solver] = {arm: ImageSolver(generator, arm, options) for arm, generator in generators.items()}
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
    return RunJob(
        run_dir=run_dir,
        items=frozen,
        manifest=manifest,
        executor=InProcessExecutor(run_dir, items_dir, solvers),
        pacing=Pacing(config.concurrency, None, 30.0, bar),
        aimd=aimd,
        observer=observer,
        record_extra={arm: {"generator": generator.spec} for arm, generator in generators.items()},
    )


async def imagine_async(config: ImagineConfig, *, bar: bool = False) -> RunSummary:
    """Generate the images of every pending (item, arm) pair; return counts. Finished pairs are never redone."""
    return await imagine_job(config, bar=bar).execute()
