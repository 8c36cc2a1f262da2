"""Run orchestration: solve every (item, arm) of a dataset concurrently into a resumable run directory."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.agents import Budget, ModelSpecError, prompt_hashes
from mcot.agents.endpoints import public_url
from mcot.agents.limits import RateLimits
from mcot.benchmarks.loaders import LoaderError, convert, detect_format, options_of
from mcot.breaker import CircuitBreaker, check_endpoints, guarded, record_not_started
from mcot.core.errors import UsageError
from mcot.core.inputs import NotRegularFile, check_source
from mcot.core.item import ITEMS_FILE, Item, ItemError, iter_items, read_items
from mcot.core.registry import BENCHMARKS
from mcot.core.rundir import (
    FrozenItems,
    Manifest,
    PairOutcomes,
    Result,
    RunDir,
    RunDirError,
    build_manifest,
    now_iso,
    read_jsonl,
    resume_conflicts,
    shuffled_pairs,
    write_schedule,
)
from mcot.core.rundir.layout import RESULTS
from mcot.core.rundir.schedule import schedule_file
from mcot.executors import ExecutorError, InProcessExecutor, ProcessExecutor, RayExecutor, SolveRecipe
from mcot.executors.ray_executor import reachable
from mcot.failures import FailureSummary, summarize_failures
from mcot.inflight import InFlight
from mcot.interrupts import Interrupts
from mcot.mcp.servers import active_entries
from mcot.pacing import AdaptiveConcurrency
from mcot.progress import CURRENT_PAIR, RunMonitor, on_terminal, report
from mcot.runconfig import RunConfig
from mcot.sampling import sample_positions, stratum
from mcot.spending import CostBudget, check_priced
from mcot.tools.code.manifest import code_manifest
from mcot.tools.code.pool import shared_pool
from mcot.tools.code.sandbox import sandbox_problem

if TYPE_CHECKING:
    from mcot.agents.solver import Solver
    from mcot.executors.base import PairExecutor

CONVERTED = "data"
DONE_STATUSES = ("ok", "budget")
"""Statuses a resume does not redo: an answer, or a budget stop (the same settings would stop again)."""


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
    stopped: str | None = None
    """Why the session ended before every pending pair started: "interrupt" (a signal), "budget" (--max-cost) or
    "breaker" (the endpoint stopped accepting connections; the pairs not started are recorded as failed)."""
    not_started: int = 0
    cancelled: int = 0
    spent_usd: float = 0.0
    max_cost_usd: float | None = None
    samples: list[RunSummary] = field(default_factory=list)
    """With --samples K: each sample's own summary (sample 1 first); empty for a run of one sample."""

    @property
    def done(self) -> int:
        """Return the pairs of the run that ended with an answer or a budget stop, this session or earlier."""
        return self.skipped_done + sum(n for status, n in self.by_status.items() if status in DONE_STATUSES)


def refuse_reading_from(data: Path, out: Path) -> None:
    """Raise UsageError when `data` is the folder `out` a command writes, is inside it, or holds it (its items file,
    traces and conversions would overwrite what it reads: `--limit 1` would leave one item); returns nothing."""
    source, target = Path(data).resolve(), Path(out).resolve()
    if source == target or source.is_relative_to(target) or target.is_relative_to(source):
        raise UsageError(f"--data {data} is inside --out {out} (or holds it): the command writes there and would "
                         "overwrite what it reads; give another --out")  # fmt: skip


def prepare_dataset(data: Path, fmt: str | None, run_root: Path, **convert_options: Any) -> Path:
    """Return an items directory for `data`: itself, or a conversion of native files into RUN/data.

    `convert_options` go to the loader of the detected format when it takes them (GOBench's `generation`).
    """
    data = Path(data)
    if not data.exists():
        raise UsageError(f"--data {data} does not exist")
    refuse_reading_from(data, Path(run_root))
    try:
        check_source(data, what="--data")
    except NotRegularFile as exc:
        raise UsageError(str(exc)) from None
    if fmt in (None, "items") and (data / ITEMS_FILE).is_file():
        return data.resolve()
    converted = run_root / CONVERTED
    if (converted / ITEMS_FILE).is_file():
        return converted.resolve()

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


def freeze(items: Iterable[Item], items_dir: Path, staging: Path | None = None) -> FrozenItems:
    """Return the run's frozen items, read once as they come (RUN/items.jsonl is written when the run opens).

    A malformed item or a duplicate id is a UsageError naming the file (and line).
    """
    try:
        frozen = FrozenItems.freeze(items, staging, source=items_dir / ITEMS_FILE)
    except ItemError as exc:
        raise UsageError(str(exc)) from exc
    if not len(frozen):
        raise UsageError(f"{items_dir / ITEMS_FILE} holds no items: there is nothing to run, score or view")
    return frozen


def select_items(
    items_dir: Path, limit: int | None, staging: Path | None = None, *, sample: int | None = None, seed: int = 0
) -> FrozenItems:
    """Return the run's items, frozen as they are read: the first `limit` of the items directory, or of those a
    `sample` stratified by benchmark and category drawn with `seed` (two passes over the file: the strata, then
    the chosen items)."""
    if sample is None:
        return freeze(islice(iter_items(items_dir), limit), items_dir, staging)

    chosen = sample_positions((stratum(item) for item in islice(iter_items(items_dir), limit)), sample, seed)
    picked = (item for index, item in enumerate(islice(iter_items(items_dir), limit)) if index in chosen)
    return freeze(picked, items_dir, staging)


def inference_notes(benchmarks: list[str]) -> dict[str, dict[str, Any]]:
    """Return the manifest's `inference`: per benchmark its text arm's token cap and how the arms with tools differ."""

    notes = {}
    for name in benchmarks:
        declared = BENCHMARKS.find(name)
        if declared is not None:
            notes[name] = {"max_new_tokens": declared.max_new_tokens, "inference": declared.inference}
    return notes


def _has_an_answer(root: Path) -> bool:
    """Return whether any pair of the run at `root` ended with an answer (a ledger line of status "ok")."""

    path = root / RESULTS
    return path.is_file() and any(row.get("status") == "ok" for row in read_jsonl(path))


def open_or_refuse(run_dir: RunDir, manifest: Manifest, frozen: FrozenItems, concurrency: int) -> Manifest:
    """Return the manifest this session works under: the new one, or the existing one with a session appended.

    A resume whose result-changing settings differ is refused (UsageError naming them) and changes no file.
    """
    if not run_dir.exists():
        run_dir.root.mkdir(parents=True, exist_ok=True)
        frozen.write_copy(run_dir.root)
        run_dir.write_manifest(manifest)
        return manifest
    existing = run_dir.read_manifest()
    conflicts = resume_conflicts(existing, manifest)
    if conflicts and not _has_an_answer(run_dir.root):
        print(f"mcot: {run_dir.root} has no answer yet, so it takes the new settings ({'; '.join(conflicts)})",
              file=sys.stderr)  # fmt: skip
        frozen.write_copy(run_dir.root)
        run_dir.write_manifest(manifest)
        return manifest
    if conflicts:
        raise UsageError(
            f"{run_dir.root} was made with other settings, so resuming it would mix two experiments: "
            + "; ".join(conflicts)
            + ". A new configuration takes a new --out."
        )
    try:
        frozen.attach(run_dir.root)
    except RunDirError as exc:
        raise UsageError(str(exc)) from exc
    existing.start_session(concurrency)
    run_dir.write_manifest(existing)
    return existing


@dataclass
class Pacing:
    """How one session paces its pairs: the concurrency ceiling, the money budget, progress and signals."""

    concurrency: int
    max_cost_usd: float | None = None
    log_every_s: float = 30.0
    bar: bool = False
    handle_signals: bool = True


def solve_recipe(config: RunConfig) -> Any:
    """Return the picklable recipe every worker builds the run's solvers from."""

    budget = Budget(
        max_steps=config.max_steps,
        max_output_tokens=config.max_output_tokens,
        item_timeout_s=config.item_timeout,
        max_canvas_images=config.max_canvas_images,
        temperature=config.temperature,
        seed=config.backend_seed(),
        unsafe_local_code=config.unsafe_local_code,
    )
    limits = None
    if config.max_rpm is not None or config.max_tpm is not None:
        limits = RateLimits(max_rpm=config.max_rpm, max_tpm=config.max_tpm)
    return SolveRecipe(
        model=config.model,
        base_urls=config.base_urls(),
        arms=config.arms,
        budget=budget,
        max_tries=config.max_tries,
        timeout_s=config.request_timeout,
        limits=limits,
        cache_dir=config.cache,
    )


@dataclass
class RunJob:
    """One session of a run: its directory, frozen items, new manifest, how its pairs are paced and ordered,
    and the executor whose solvers solve them.

    `mcot run` (chat solvers in arms, `chat_job`) and `mcot imagine` (image generators, `mcot.imagine.imagine_job`)
    each build one and `execute` it: they differ only in their solvers and in what their manifests name.
    `schedule_seed` None keeps the items' order (no RUN/schedule.jsonl); `record_extra[arm]` is added to every
    result line of that arm.
    """

    run_dir: RunDir
    items: FrozenItems
    manifest: Manifest
    executor: PairExecutor
    pacing: Pacing
    aimd: Any
    observer: CallObserver | None = None
    schedule_seed: int | None = None
    record_extra: dict[str, dict[str, Any]] | None = None

    async def execute(self) -> RunSummary:
        """Open the run (new, or resumed with the same settings), solve every pending pair; return the counts."""

        started = time.perf_counter()
        manifest = open_or_refuse(self.run_dir, self.manifest, self.items, self.pacing.concurrency)
        arms = manifest.arm_names()
        if self.schedule_seed is None:
            order = [(item_id, arm) for item_id in self.items.ids for arm in arms]
        else:
            order = _ensure_schedule(self.run_dir, manifest, self.items.ids, arms, self.schedule_seed)
        try:
            try:
                await self.executor.start()
            except ExecutorError as exc:
                raise UsageError(str(exc)) from exc
            summary = await drive(
                self.run_dir,
                manifest,
                self.items,
                order,
                self.executor,
                self.pacing,
                aimd=self.aimd,
                observer=self.observer,
                record_extra=self.record_extra,
            )
        finally:
            await self.executor.close()
        summary.wall_s = time.perf_counter() - started
        return summary


async def chat_job(config: RunConfig, *, bar: bool = False, handle_signals: bool = True) -> RunJob:
    """Return the session `mcot run` asks for; a bad spec, key, executor or dataset fails here, before any write."""

    aimd = AdaptiveConcurrency(config.concurrency)
    observer = CallObserver(aimd)
    recipe = solve_recipe(config)
    solvers = recipe.build_solvers(observer)  # in this process these solvers do the work
    first = next(iter(solvers.values()))
    backend = first.backend
    observer.breaker.subject = guarded("model", config.model, backend)
    check_priced(config.max_cost, backend.provider, backend.model, config.model)
    run_dir = RunDir(Path(config.out))
    preflight(config)  # a missing extra or a Ray address nothing listens on fails here, before anything is written
    await check_endpoints(backend)  # so does a --base-url nothing listens on
    items_dir = prepare_dataset(config.data, config.format, run_dir.root)
    items = select_items(items_dir, config.limit, run_dir.root, sample=config.sample, seed=config.schedule_seed())
    dataset = items.dataset_entry(items_dir, config.limit)
    benchmarks = sorted({item.benchmark for item in items})
    check_dataset = getattr(backend, "check_dataset", None)
    if check_dataset is not None:  # replay:RUN refuses other items before any work

        try:
            check_dataset(dataset.sha256)
        except ModelSpecError as exc:
            raise UsageError(str(exc)) from exc
    manifest = build_manifest(
        model={"spec": config.model, "base_url": _public_urls(config.base_urls())},
        arms=[arm.manifest_entry() for arm in config.arms],
        solver={key: value for key, value in first.describe().items() if key not in ("arm", "tools")},
        config=config.result_settings(),
        prompts=prompt_hashes(benchmarks),
        dataset=dataset,
        concurrency=config.concurrency,
    )
    manifest.inference = inference_notes(benchmarks)
    if config.mcp:

        manifest.mcp = active_entries()
    if config.runs_code():

        manifest.code = code_manifest(unsafe_local_code=config.unsafe_local_code)
        if config.workers == 1 and config.executor == "local":  # the sessions start while the run sets up

            shared_pool(isolated=not config.unsafe_local_code).fill()
    return RunJob(
        run_dir=run_dir,
        items=items,
        manifest=manifest,
        executor=make_executor(config, run_dir, items_dir, recipe, solvers, observer),
        pacing=Pacing(config.concurrency, config.max_cost, config.log_every, bar, handle_signals),
        aimd=aimd,
        observer=observer,
        schedule_seed=config.order_seed(),
    )


async def run_items_async(config: RunConfig, *, bar: bool = False, handle_signals: bool = True) -> RunSummary:
    """Solve all pending (item, arm) pairs of a chat run; return counts. Finished pairs are never redone."""
    job = await chat_job(config, bar=bar, handle_signals=handle_signals)
    return await job.execute()


def _public_urls(urls: tuple[str, ...]) -> str | list[str] | None:
    """Return the manifest's `base_url`: None, one URL, or the list — without any userinfo (a key may hide there)."""

    shown = [public_url(url) for url in urls]
    if not shown:
        return None
    return shown[0] if len(shown) == 1 else shown


def preflight(config: RunConfig) -> None:
    """Check, before anything is written, that the code sandbox starts (for the code arms) and that the executor
    asked for can be reached (UsageError in one line)."""
    if config.runs_code() and not config.unsafe_local_code:

        problem = sandbox_problem()
        if problem is not None:
            raise UsageError(f"the code arms cannot run: {problem}")
    if config.executor != "ray":
        return

    reachable(config.ray_address)


def make_executor(
    config: RunConfig,
    run_dir: RunDir,
    items_dir: Path,
    recipe: Any,
    solvers: dict[str, Solver],
    observer: CallObserver,
) -> PairExecutor:
    """Return the executor `--workers`/`--executor` ask for: in this process (with `solvers`), local worker
    processes or Ray actors (each building its own from `recipe`)."""

    if config.executor == "ray":  # --workers left at 1: one actor per CPU of the cluster
        workers = config.workers if config.workers > 1 else None
        return RayExecutor(run_dir, items_dir, recipe, address=config.ray_address, workers=workers, observer=observer)
    if config.workers > 1:
        return ProcessExecutor(run_dir, items_dir, recipe, workers=config.workers, observer=observer)
    return InProcessExecutor(run_dir, items_dir, solvers)


@dataclass
class CallObserver:
    """Hears every model call's outcome (the backends' retry loop calls it): feeds the adaptive concurrency and,
    once a session is under way, the progress monitor's per-pair activity."""

    aimd: Any
    monitor: Any = None
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)

    def __call__(self, failure: Any) -> None:
        self.aimd.on_call(failure)
        self.breaker.record(failure)
        if self.monitor is not None:
            self.monitor.call_event(failure)

    def halt_reason(self) -> str | None:
        """Return why the retry loops should stop retrying (the circuit breaker is open), or None."""
        return self.breaker.halt_reason()


def _ensure_schedule(
    run_dir: RunDir, manifest: Manifest, item_ids: Sequence[str], arms: list[str], seed: int
) -> list[tuple[str, str]]:
    """Return the run's order of pairs, writing RUN/schedule.jsonl and the manifest's `schedule` the first time."""
    order = shuffled_pairs(item_ids, arms, seed)
    path = schedule_file(run_dir.root)
    if manifest.schedule is None or not path.is_file():
        write_schedule(path, order)
        manifest.record_schedule(seed, len(order))
        run_dir.write_manifest(manifest)
    return order


async def drive(
    run_dir: RunDir,
    manifest: Manifest,
    items: FrozenItems,
    order: list[tuple[str, str]],
    executor: PairExecutor,
    pacing: Pacing,
    *,
    aimd: Any,
    observer: CallObserver | None = None,
    record_extra: dict[str, dict[str, Any]] | None = None,
) -> RunSummary:
    """Start the pending pairs of `order` as the pacing allows, append each result to the ledger; return counts.

    New pairs start while fewer than the adaptive limit are in flight, until all have started, the money
    budget is reached, or a signal asks to stop (then those in flight get a grace period and the rest are
    cancelled: a cancelled pair writes nothing and is solved by the next run).
    """

    arms = sorted({arm for _, arm in order})
    # per pair a run keeps its id and line offset (items), its place in `order` and a byte of `outcomes`: no items
    outcomes = PairOutcomes(items.index, arms)
    budget = CostBudget(pacing.max_cost_usd)
    monitor = RunMonitor(len(items) * len(arms), 0, 0, aimd, budget)
    monitor.add_earlier(_noted(run_dir.result_lines(), outcomes, budget))
    pending = [pair for pair in order if outcomes.status(*pair) not in DONE_STATUSES]
    summary = RunSummary(run_dir=run_dir.root, total=len(items) * len(arms), max_cost_usd=pacing.max_cost_usd)
    summary.skipped_done = monitor.done_before = summary.total - len(pending)
    monitor.pending = len(pending)
    interrupts = Interrupts()
    session = manifest.sessions[-1]
    session.executor = executor.describe()
    if observer is not None:
        observer.monitor = monitor
    run_dir.open()
    if pacing.handle_signals:
        interrupts.install()
    reporter = asyncio.create_task(report(monitor, log_every_s=pacing.log_every_s, bar=pacing.bar))
    tasks = InFlight()

    async def one(item_id: str, arm: str) -> None:
        key = (item_id, arm)
        CURRENT_PAIR.set(key)
        monitor.start(key, getattr(executor, "where", ""))
        record: Result | None = None
        try:
            record = await executor.solve(items.load(item_id), arm)
            record = record.with_fields((record_extra or {}).get(arm, {}))
            run_dir.append_result(record)
            outcomes.note(record)
            summary.by_status[record.status] = summary.by_status.get(record.status, 0) + 1
        finally:
            monitor.finish(key, record)

    stop = asyncio.create_task(interrupts.stopping.wait())
    stop.add_done_callback(lambda _: tasks.wake())
    started = 0
    try:
        for item_id, arm in pending:
            while len(tasks) >= aimd.limit and not interrupts.interrupted:
                await tasks.changed()
            if interrupts.interrupted:
                summary.stopped = "interrupt"
                break
            if budget.reached:
                summary.stopped = "budget"
                break
            if observer is not None and observer.breaker.opened:
                summary.stopped = "breaker"
                break
            tasks.start(one(item_id, arm))
            started += 1
        while len(tasks) and not interrupts.interrupted:
            await tasks.changed()
        tasks.check()
        if interrupts.interrupted:
            summary.stopped = "interrupt"
            summary.cancelled = await _wind_down(tasks, interrupts)
        elif summary.stopped == "breaker" and observer is not None:

            def append(record: Result) -> None:
                run_dir.append_result(record)
                outcomes.note(record)

            not_started = ((items.load(item_id), arm) for item_id, arm in pending[started:])
            failed = record_not_started(append, not_started, observer.breaker.cause())
            summary.by_status["error"] = summary.by_status.get("error", 0) + failed
    finally:
        stop.cancel()
        reporter.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(reporter, stop, *tasks, return_exceptions=True)
        if pacing.handle_signals:
            interrupts.uninstall()
        if observer is not None:
            observer.monitor = None
        run_dir.close()
        session.finished = now_iso()
        session.record(_session_figures(summary, aimd, budget, executor, started, len(pending)))
        run_dir.write_manifest(manifest)
    summary.not_started = len(pending) - started
    summary.spent_usd = budget.spent_usd
    summary.succeeded = outcomes.count("ok")
    summary.failures = summarize_failures(outcomes.not_ok())
    return summary


def _noted(records: Iterable[Result], outcomes: PairOutcomes, budget: Any) -> Iterator[Result]:
    """Yield the ledger's lines as they are read, each noted as its pair's latest and counted by the budget."""
    for record in records:
        outcomes.note(record)
        budget.add(record)
        yield record


async def _wind_down(tasks: InFlight, interrupts: Any) -> int:
    """Give the pairs in flight the grace period (cut short by a second signal); return how many were cancelled."""
    if len(tasks):
        forced = asyncio.create_task(interrupts.forced.wait())
        forced.add_done_callback(lambda _: tasks.wake())
        deadline = time.monotonic() + interrupts.grace_s
        while len(tasks) and not interrupts.forced.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            waiter = asyncio.ensure_future(tasks.changed())
            done, _ = await asyncio.wait({waiter}, timeout=left)
            if not done:
                waiter.cancel()
                break
            waiter.result()  # a pair's task that raised: raised here, as in the run's own waits
        forced.cancel()
    left_in_flight = list(tasks)
    for task in left_in_flight:
        task.cancel()
    await asyncio.gather(*left_in_flight, return_exceptions=True)
    return len(left_in_flight)


def _session_figures(
    summary: RunSummary, aimd: Any, budget: Any, executor: Any, started: int, pending: int
) -> dict[str, Any]:
    """Return what a session entry of the manifest records about how the session went."""
    figures: dict[str, Any] = {
        "pairs_started": started,
        "pairs_pending": pending,
        "stopped": summary.stopped,
        "cancelled": summary.cancelled,
        "concurrency_final": aimd.limit,
        "overload_answers": aimd.overloads,
        "cost_usd": round(budget.spent_usd, 6),
        "max_cost_usd": budget.max_usd,
    }
    counts = executor.endpoint_counts()
    if counts:
        figures["endpoints"] = counts
    return figures


def run_items(config: RunConfig, *, quiet: bool = False) -> RunSummary:
    """Run `run_items_async`, with a progress bar on a terminal (a line every `--log-every` s elsewhere)."""

    return asyncio.run(run_items_async(config, bar=not quiet and on_terminal(sys.stderr)))
