"""Run orchestration: solve every (item, arm) of a dataset concurrently into a resumable run directory."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.item import ITEMS_FILE, Item, ItemError, read_items
from eval.rundir import ITEMS_COPY, RunDir, file_sha256, now_iso, write_text_atomic
from mcot.arms import Arm, parse_arms
from mcot.errors import UsageError
from mcot.failures import FailureSummary, summarize_failures
from mcot.manifest import DatasetInfo, build_manifest, new_session, resume_conflicts

if TYPE_CHECKING:
    from agents.solver import Solver

CONVERTED = "data"
DONE_STATUSES = ("ok", "budget")
"""Statuses a resume does not redo: an answer, or a budget stop (the same settings would stop again)."""


@dataclass(frozen=True)
class RunConfig:
    """Everything `mcot run` was asked to do."""

    data: Path
    model: str
    out: Path
    arms: tuple[Arm, ...] = field(default_factory=lambda: parse_arms("text,canvas"))
    format: str | None = None
    base_url: str | None = None
    concurrency: int = 4
    limit: int | None = None
    max_steps: int = 12
    temperature: float = 0.0
    seed: int | None = None
    max_canvas_images: int = 3
    max_output_tokens: int | None = None
    item_timeout_s: float | None = 600.0
    max_tries: int = 6

    def result_settings(self) -> dict[str, Any]:
        """Return the manifest's `config`: the settings of the solver loop (those that change results first)."""
        return {
            "max_steps": self.max_steps,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_canvas_images": self.max_canvas_images,
            "max_output_tokens": self.max_output_tokens,
            "item_timeout_s": self.item_timeout_s,
            "limit": self.limit,
        }


@dataclass
class RunSummary:
    """What a run did: counts by status this time, what it skipped as done, and the run's failures overall."""

    run_dir: Path
    total: int = 0
    skipped_done: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    failures: FailureSummary = field(default_factory=FailureSummary)
    succeeded: int = 0


def prepare_dataset(data: Path, fmt: str | None, run_root: Path, **convert_options: Any) -> Path:
    """Return an items directory for `data`: itself, or a conversion of native files into RUN/data.

    `convert_options` go to the loader of the detected format when it takes them (GOBench's `generation`).
    """
    data = Path(data)
    if not data.exists():
        raise UsageError(f"--data {data} does not exist")
    if fmt in (None, "items") and (data / ITEMS_FILE).is_file():
        return data.resolve()
    converted = run_root / CONVERTED
    if (converted / ITEMS_FILE).is_file():
        return converted.resolve()
    from benchmarks.loaders import LoaderError, convert, detect_format, options_of

    fmt = fmt or detect_format(data)
    if fmt is None:
        raise UsageError(f"cannot tell the format of {data}; pass --format rbench-v|gepbench|gobench|omniphys")
    options = {key: value for key, value in convert_options.items() if key in options_of(fmt)}
    try:
        summary = convert(fmt, data, converted, **options)
    except LoaderError as exc:
        raise UsageError(str(exc)) from exc
    print(f"converted {data} ({fmt}): {summary.written} items, {summary.skipped} skipped", file=sys.stderr)
    return converted.resolve()


def read_source_items(items_dir: Path) -> list[Item]:
    """Return the items of an items directory; a malformed one is a UsageError."""
    try:
        return read_items(items_dir)
    except ItemError as exc:
        raise UsageError(str(exc)) from exc


def freeze(items: list[Item], items_dir: Path, limit: int | None) -> tuple[str, DatasetInfo]:
    """Return the text of the run's frozen RUN/items.jsonl (one line an item) and the manifest's dataset info."""
    frozen = "".join(item.to_json_line() + "\n" for item in items)
    info = DatasetInfo(
        path=items_dir,
        sha256=hashlib.sha256(frozen.encode("utf-8")).hexdigest(),
        source_sha256=file_sha256(items_dir / ITEMS_FILE),
        n_items=len(items),
        limit=limit,
    )
    return frozen, info


def select_items(items_dir: Path, limit: int | None) -> tuple[list[Item], str, DatasetInfo]:
    """Return the run's items (the first `limit`), the text of their frozen copy, and the manifest's dataset info."""
    items = read_source_items(items_dir)
    if limit is not None:
        items = items[:limit]
    frozen, info = freeze(items, items_dir, limit)
    return items, frozen, info


def _record(item: Item, arm: str, prediction: Any, trace_rel: str | None) -> dict[str, Any]:
    return {
        "id": item.id,
        "mode": arm,
        **prediction.to_record(),
        "trace": trace_rel,
        "benchmark": item.benchmark,
        "category": item.category,
    }


def _failure_record(item: Item, arm: str, reason: str, latency_s: float) -> dict[str, Any]:
    return {
        "id": item.id,
        "mode": arm,
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


def open_or_refuse(run_dir: RunDir, manifest: dict[str, Any], frozen: str, concurrency: int) -> dict[str, Any]:
    """Return the manifest this session works under: the new one, or the existing one with a session appended.

    A resume whose result-changing settings differ is refused (UsageError naming them) and changes no file.
    """
    if not run_dir.exists():
        run_dir.root.mkdir(parents=True, exist_ok=True)
        write_text_atomic(run_dir.root / ITEMS_COPY, frozen)
        run_dir.write_manifest(manifest)
        return manifest
    existing = run_dir.read_manifest()
    conflicts = resume_conflicts(existing, manifest)
    if conflicts:
        raise UsageError(
            f"{run_dir.root} was made with other settings, so resuming it would mix two experiments: "
            + "; ".join(conflicts)
            + ". A new configuration takes a new --out."
        )
    copy = run_dir.root / ITEMS_COPY
    if not copy.is_file() or file_sha256(copy) != existing["dataset"]["sha256"]:
        raise UsageError(f"{copy} is missing or was changed after the run started; this run cannot be resumed")
    existing.setdefault("sessions", []).append(new_session(concurrency))
    run_dir.write_manifest(existing)
    return existing


async def run_items_async(config: RunConfig, *, progress: Callable[[int, int], None] | None = None) -> RunSummary:
    """Solve all pending (item, arm) pairs of a chat run; return counts. Finished pairs are never redone."""
    from agents import Budget, ChatSolver, load_model, prompt_hashes
    from agents.retry import RetryPolicy

    started = time.perf_counter()
    retry = RetryPolicy(max_tries=config.max_tries)
    # a bad spec or a missing key fails here, before anything is written
    backend = load_model(config.model, base_url=config.base_url, retry=retry)
    run_dir = RunDir(Path(config.out))
    items_dir = prepare_dataset(config.data, config.format, run_dir.root)
    items, frozen, dataset = select_items(items_dir, config.limit)
    budget = Budget(
        max_steps=config.max_steps,
        max_output_tokens=config.max_output_tokens,
        item_timeout_s=config.item_timeout_s,
        max_canvas_images=config.max_canvas_images,
        temperature=config.temperature,
        seed=config.seed,
    )
    solvers = {arm.name: ChatSolver(backend, arm.name, arm.tools, budget) for arm in config.arms}
    first = next(iter(solvers.values()))
    solver_info = {key: value for key, value in first.describe().items() if key not in ("arm", "tools")}
    manifest = build_manifest(
        model={"spec": config.model, "base_url": config.base_url},
        arms=[arm.manifest_entry() for arm in config.arms],
        solver=solver_info,
        config=config.result_settings(),
        prompts=prompt_hashes(),
        dataset=dataset,
        concurrency=config.concurrency,
    )
    manifest = open_or_refuse(run_dir, manifest, frozen, config.concurrency)
    summary = await execute(run_dir, manifest, items, items_dir, solvers, config.concurrency, progress=progress)
    summary.wall_s = time.perf_counter() - started
    return summary


async def execute(
    run_dir: RunDir,
    manifest: dict[str, Any],
    items: list[Item],
    items_dir: Path,
    solvers: dict[str, Solver],
    concurrency: int,
    *,
    record_extra: dict[str, dict[str, Any]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Run every pending (item, arm) pair through its arm's Solver into the run's ledger; return the counts.

    Any Solver (a chat model in an arm, an image generator) is run the same way: concurrently up to
    `concurrency`, each finished pair appended to results.jsonl at once, a failure recorded with its reason.
    `record_extra[arm]` is added to every result line of that arm (e.g. the arm's generator spec).
    """
    from canvas import BlobStore

    done = {key for key, record in run_dir.results().items() if record.get("status") in DONE_STATUSES}
    pending = [(item, arm) for item in items for arm in solvers if (item.id, arm) not in done]
    summary = RunSummary(run_dir=run_dir.root, total=len(items) * len(solvers))
    summary.skipped_done = summary.total - len(pending)
    blobs = BlobStore(run_dir.blobs_dir)
    semaphore = asyncio.Semaphore(max(1, concurrency))
    finished = 0
    run_dir.open()

    async def one(item: Item, arm: str) -> None:
        nonlocal finished
        async with semaphore:
            t0 = time.perf_counter()
            try:
                prediction, trace = await solvers[arm].solve(item, items_dir, blobs)
                trace_path = run_dir.trace_path(item.id, arm)
                trace.write_jsonl(trace_path)
                record = _record(item, arm, prediction, trace_path.relative_to(run_dir.root).as_posix())
            except Exception as exc:  # a failed item is recorded with its reason; the run goes on
                record = _failure_record(item, arm, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
            record.update((record_extra or {}).get(arm, {}))
            run_dir.append_result(record)
            summary.by_status[record["status"]] = summary.by_status.get(record["status"], 0) + 1
            finished += 1
            if progress is not None:
                progress(finished, len(pending))

    try:
        await asyncio.gather(*(one(item, arm) for item, arm in pending))
    finally:
        run_dir.close()
        manifest["sessions"][-1]["finished"] = now_iso()
        run_dir.write_manifest(manifest)
    latest = run_dir.results()
    keys = [(item.id, arm) for item in items for arm in solvers]
    summary.succeeded = sum(1 for key in keys if (latest.get(key) or {}).get("status") == "ok")
    summary.failures = summarize_failures([latest.get(key) for key in keys])
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
