"""Run orchestration: solve every (item, mode) of a dataset concurrently into a resumable run directory."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.item import ITEMS_FILE, Item, ItemError, read_items
from eval.rundir import ITEMS_COPY, RunDir, RunDirError, check_resumable, file_sha256, now_iso
from mcot import __version__
from mcot.errors import UsageError

MODES = ("text", "canvas")
CONVERTED = "data"


@dataclass(frozen=True)
class RunConfig:
    """Everything `mcot run` was asked to do."""

    data: Path
    model: str
    out: Path
    modes: tuple[str, ...] = MODES
    format: str | None = None
    base_url: str | None = None
    concurrency: int = 4
    limit: int | None = None
    max_steps: int = 12
    seed: int = 0
    max_canvas_images: int = 3
    max_output_tokens: int | None = None
    item_timeout_s: float | None = 600.0


@dataclass
class RunSummary:
    """What a run did: counts by status, and what it skipped because it was already done."""

    run_dir: Path
    total: int = 0
    skipped_done: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0


def parse_modes(text: str) -> tuple[str, ...]:
    """Return the modes of a comma-separated list; raise UsageError on an unknown one."""
    modes = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    unknown = [m for m in modes if m not in MODES]
    if not modes or unknown:
        raise UsageError(f"--mode takes a comma-separated list of {', '.join(MODES)} (got {text!r})")
    return modes


def prepare_dataset(data: Path, fmt: str | None, run_dir: RunDir) -> Path:
    """Return an items directory for `data`: itself, or a conversion of native files into RUN/data."""
    data = Path(data)
    if not data.exists():
        raise UsageError(f"--data {data} does not exist")
    if fmt in (None, "items") and (data / ITEMS_FILE).is_file():
        return data.resolve()
    converted = run_dir.root / CONVERTED
    if (converted / ITEMS_FILE).is_file():
        return converted.resolve()
    from benchmarks.loaders import LoaderError, convert, detect_format

    fmt = fmt or detect_format(data)
    if fmt is None:
        raise UsageError(f"cannot tell the format of {data}; pass --format rbench-v|gepbench|gobench|omniphys")
    try:
        summary = convert(fmt, data, converted)
    except LoaderError as exc:
        raise UsageError(str(exc)) from exc
    print(f"converted {data} ({fmt}): {summary.written} items, {summary.skipped} skipped", file=sys.stderr)
    return converted.resolve()


def build_manifest(config: RunConfig, items_dir: Path, n_items: int, prompts: dict[str, str]) -> dict[str, Any]:
    """Return the manifest of DESIGN.md for this run (never an API key)."""
    return {
        "mcot_version": __version__,
        "created": now_iso(),
        "finished": None,
        "command": "mcot run",
        "model": {"spec": config.model, "base_url": config.base_url},
        "modes": list(config.modes),
        "config": {
            "max_steps": config.max_steps,
            "concurrency": config.concurrency,
            "limit": config.limit,
            "seed": config.seed,
            "max_canvas_images": config.max_canvas_images,
            "max_output_tokens": config.max_output_tokens,
            "item_timeout_s": config.item_timeout_s,
        },
        "prompts": prompts,
        "dataset": {
            "path": str(items_dir),
            "sha256": file_sha256(items_dir / ITEMS_FILE),
            "format": "items",
            "n_items": n_items,
        },
        "judge": None,
    }


def _result_record(item: Item, mode: str, prediction: Any, trace_rel: str) -> dict[str, Any]:
    usage = dict(prediction.usage) if isinstance(prediction.usage, dict) else prediction.usage.model_dump()
    return {
        "id": item.id,
        "mode": mode,
        "status": prediction.status,
        "prediction": prediction.text,
        "steps": prediction.steps,
        "usage": usage,
        "latency_s": round(float(prediction.latency_s), 3),
        "error": prediction.error,
        "trace": trace_rel,
        "benchmark": item.benchmark,
        "category": item.category,
    }


def _failure_record(item: Item, mode: str, reason: str, latency_s: float) -> dict[str, Any]:
    return {
        "id": item.id,
        "mode": mode,
        "status": "error",
        "prediction": "",
        "steps": 0,
        "usage": {"input_tokens": 0, "output_tokens": 0, "cost_usd": None},
        "latency_s": round(latency_s, 3),
        "error": reason,
        "trace": None,
        "benchmark": item.benchmark,
        "category": item.category,
    }


async def run_items_async(config: RunConfig, *, progress: Callable[[int, int], None] | None = None) -> RunSummary:
    """Solve all pending (item, mode) pairs of the run; return counts. Finished pairs are never redone."""
    from agents import Budget, load_model, prompt_hashes, solve
    from canvas import BlobStore

    started = time.perf_counter()
    model = load_model(config.model, base_url=config.base_url)  # a bad spec or missing key fails before any write
    run_dir = RunDir(Path(config.out))
    run_dir.root.mkdir(parents=True, exist_ok=True)
    items_dir = prepare_dataset(config.data, config.format, run_dir)
    try:
        items = read_items(items_dir)
    except ItemError as exc:
        raise UsageError(str(exc)) from exc
    if config.limit is not None:
        items = items[: config.limit]

    manifest = build_manifest(config, items_dir, len(items), prompt_hashes())
    if run_dir.exists():
        existing = run_dir.read_manifest()
        try:
            check_resumable(existing, manifest)
        except RunDirError as exc:
            raise UsageError(str(exc)) from exc
        manifest["created"] = existing.get("created", manifest["created"])
        manifest["modes"] = sorted(set(existing.get("modes", [])) | set(config.modes), key=MODES.index)
    run_dir.write_manifest(manifest)
    shutil.copyfile(items_dir / ITEMS_FILE, run_dir.root / ITEMS_COPY)

    done = {key for key, record in run_dir.results().items() if record.get("status") in ("ok", "budget")}
    pending = [(item, mode) for item in items for mode in config.modes if (item.id, mode) not in done]
    summary = RunSummary(run_dir=run_dir.root, total=len(items) * len(config.modes))
    summary.skipped_done = summary.total - len(pending)

    blobs = BlobStore(run_dir.blobs_dir)
    budget = Budget(
        max_steps=config.max_steps,
        max_output_tokens=config.max_output_tokens,
        item_timeout_s=config.item_timeout_s,
        max_canvas_images=config.max_canvas_images,
    )
    semaphore = asyncio.Semaphore(max(1, config.concurrency))
    finished = 0
    run_dir.open()

    async def one(item: Item, mode: str) -> None:
        nonlocal finished
        async with semaphore:
            t0 = time.perf_counter()
            try:
                prediction, trace = await solve(item, items_dir, model, mode, budget=budget, blobs=blobs)
                trace_path = run_dir.trace_path(item.id, mode)
                trace.write_jsonl(trace_path)
                record = _result_record(item, mode, prediction, trace_path.relative_to(run_dir.root).as_posix())
            except Exception as exc:  # a failed item is recorded with its reason; the run goes on
                record = _failure_record(item, mode, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
            run_dir.append_result(record)
            summary.by_status[record["status"]] = summary.by_status.get(record["status"], 0) + 1
            finished += 1
            if progress is not None:
                progress(finished, len(pending))

    try:
        await asyncio.gather(*(one(item, mode) for item, mode in pending))
    finally:
        run_dir.close()
        manifest["finished"] = now_iso()
        run_dir.write_manifest(manifest)
    summary.wall_s = time.perf_counter() - started
    return summary


def run_items(config: RunConfig, *, quiet: bool = False) -> RunSummary:
    """Run `run_items_async` with a progress line on stderr; return its summary."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    if quiet or not sys.stderr.isatty() or os.environ.get("CI"):
        return asyncio.run(run_items_async(config))
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("solving", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return asyncio.run(run_items_async(config, progress=update))
