"""`ProcessExecutor`: N local worker processes, one event loop each, solving pairs for one driver and ledger.

Each worker (`python -m mcot.executors.worker`) builds the run's solvers from a `SolveRecipe`, takes many pairs
at once, writes their traces and blobs straight into the run directory, and returns only the ledger record;
the driver alone appends the ledger. Observer events (every model call's outcome) are relayed to the driver
as they happen, batched per turn of the worker's loop. A worker that dies turns its in-flight pairs into
failure records ("worker process died (exit code X)") and is replaced, a few times at most.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.executors.base import WORKER_DIED, ExecutorError, add_counts, tell
from mcot.executors.inprocess import as_run_dir
from mcot.executors.records import failure_record
from mcot.executors.wire import Outbox, read_frame
from mcot.rundir.results import Result

if TYPE_CHECKING:
    from mcot.benchmarks.item import Item
    from mcot.executors.base import Observer
    from mcot.executors.recipe import SolveRecipe
    from mcot.rundir import RunDir

WORKER_MODULE = "mcot.executors.worker"


@dataclass
class _Pending:
    future: asyncio.Future[Result]
    item: Item
    arm: str
    started: float


@dataclass
class _Worker:
    index: int
    process: asyncio.subprocess.Process
    outbox: Outbox
    ready: asyncio.Future[int]
    pending: dict[int, _Pending] = field(default_factory=dict)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    alive: bool = True
    reader: asyncio.Task[None] | None = None

    @property
    def usable(self) -> bool:
        """Return whether the worker can take a pair now."""
        return self.alive and self.ready.done() and not self.ready.cancelled() and self.ready.exception() is None


class ProcessExecutor:
    """Solves pairs in `workers` local processes (see the module docstring); a PairExecutor."""

    start_timeout_s: float = 180.0
    """How long `start` waits for every worker to import the solver and build its backend."""
    grace_s: float = 5.0
    """How long `close` lets workers stop by themselves before killing them."""
    where = "a worker process"
    """Where a pair runs, for the runner's note on pairs that are slow to finish."""

    def __init__(
        self,
        run_dir: RunDir | Path,
        items_dir: Path,
        recipe: SolveRecipe,
        workers: int = 2,
        observer: Observer | None = None,
        *,
        max_restarts: int | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.run_dir = as_run_dir(run_dir)
        self.items_dir = Path(items_dir).resolve()
        self.recipe = recipe
        self.workers = workers
        self.observer = observer
        self.max_restarts = 2 * workers + 2 if max_restarts is None else max_restarts
        self.restarts = 0
        self._pool: list[_Worker] = []
        self._ids = itertools.count()
        self._closing = False
        self._retired: list[dict[str, dict[str, int]]] = []
        self._replacing: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Start the workers and wait until each has built its solvers; raise ExecutorError if one cannot."""
        if self._pool:
            return
        self._pool = list(await asyncio.gather(*(self._spawn(i) for i in range(self.workers))))
        try:
            async with asyncio.timeout(self.start_timeout_s):
                await asyncio.gather(*(worker.ready for worker in self._pool))
        except TimeoutError:
            await self.close()
            raise ExecutorError(f"the worker processes were not ready after {self.start_timeout_s:.0f} s") from None
        except BaseException:
            await self.close()
            raise

    async def _spawn(self, index: int) -> _Worker:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            WORKER_MODULE,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        stdin = process.stdin
        assert stdin is not None

        def write(data: bytes) -> None:
            if worker.alive and not stdin.is_closing():
                stdin.write(data)

        worker = _Worker(index, process, Outbox(write), asyncio.get_running_loop().create_future())
        share = self.recipe.share(self.workers)
        worker.outbox.put(
            ("init", share, str(self.run_dir.root.resolve()), str(self.items_dir), self.observer is not None)
        )
        worker.reader = asyncio.create_task(self._read(worker))
        return worker

    async def solve(self, item: Item, arm: str) -> Result:
        """Return the ledger record of (item, arm) solved by the least busy worker (see PairExecutor)."""
        worker = await self._pick()
        if worker is None:
            reason = f"no worker process left (all died; {self.restarts} were restarted)"
            return failure_record(item, arm, reason, 0.0)
        request = next(self._ids)
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        worker.pending[request] = _Pending(future, item, arm, time.perf_counter())
        worker.outbox.put(("solve", request, item.to_json_line(), arm))
        try:
            return await future
        except asyncio.CancelledError:
            if worker.pending.pop(request, None) is not None and worker.alive:
                worker.outbox.put(("cancel", request))
            raise

    async def _pick(self) -> _Worker | None:
        """Return the usable worker with the fewest pairs in flight, waiting for a replacement if need be."""
        while True:
            usable = [worker for worker in self._pool if worker.usable]
            if usable:
                return min(usable, key=lambda worker: len(worker.pending))
            starting = [worker.ready for worker in self._pool if worker.alive and not worker.ready.done()]
            waiting = starting + list(self._replacing)
            if not waiting or self._closing:
                return None
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)

    async def _read(self, worker: _Worker) -> None:
        """Dispatch the worker's messages until its output ends, then account for its exit."""
        stdout = worker.process.stdout
        assert stdout is not None
        try:
            while True:
                frame = await read_frame(stdout)
                if frame is None:
                    break
                for message in frame:
                    self._dispatch(worker, message)
        except Exception as exc:  # a garbled frame: the worker is treated as dead
            print(f"mcot: worker process {worker.index}: {type(exc).__name__}: {exc}", file=sys.stderr)
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()
        finally:
            worker.alive = False
        code = await worker.process.wait()
        self._lost(worker, code)

    def _dispatch(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "done":
            pending = worker.pending.pop(message[1], None)
            if pending is not None and not pending.future.done():
                pending.future.set_result(message[2])
        elif kind == "obs":
            tell(self.observer, message[1])
        elif kind == "fail":
            pending = worker.pending.pop(message[1], None)
            if pending is not None and not pending.future.done():
                elapsed = time.perf_counter() - pending.started
                pending.future.set_result(failure_record(pending.item, pending.arm, message[2], elapsed))
        elif kind == "counts":
            worker.counts = message[1]
        elif kind == "ready":
            if not worker.ready.done():
                worker.ready.set_result(message[1])
        elif kind == "failed" and not worker.ready.done():
            worker.ready.set_exception(ExecutorError(f"a worker process could not start: {message[1]}"))

    def _lost(self, worker: _Worker, code: int) -> None:
        """Settle the pairs of a worker that exited; replace it unless the executor is closing."""
        started = _was_ready(worker)
        if not worker.ready.done():
            worker.ready.set_exception(ExecutorError(f"a worker process exited with code {code} before it was ready"))
            worker.ready.exception()  # marked as seen: `start` (or `_replace`) reports it when it awaits
        for pending in worker.pending.values():
            if pending.future.done():
                continue
            if self._closing:
                pending.future.cancel()
            else:
                elapsed = time.perf_counter() - pending.started
                reason = WORKER_DIED.format(code=code)
                pending.future.set_result(failure_record(pending.item, pending.arm, reason, elapsed))
        worker.pending.clear()
        if self._closing or worker not in self._pool or not started:
            return
        self._retired.append(worker.counts)
        worker.counts = {}
        if self.restarts >= self.max_restarts:
            return
        self.restarts += 1
        print(
            f"mcot: worker process {worker.index} died (exit code {code}); starting another "
            f"({self.restarts} of at most {self.max_restarts} restarts)",
            file=sys.stderr,
        )
        task = asyncio.get_running_loop().create_task(self._replace(worker))
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    async def _replace(self, dead: _Worker) -> None:
        try:
            worker = await self._spawn(dead.index)
        except OSError as exc:
            print(f"mcot: could not start a worker process: {exc}", file=sys.stderr)
            return
        self._pool[self._pool.index(dead)] = worker
        with contextlib.suppress(Exception):
            await worker.ready

    async def close(self) -> None:
        """Stop every worker: ask, wait up to `grace_s`, then kill; pairs still in flight are cancelled."""
        self._closing = True
        for task in list(self._replacing):
            task.cancel()
        await asyncio.gather(*self._replacing, return_exceptions=True)
        for worker in self._pool:
            if worker.alive:
                worker.outbox.put(("stop",))
                worker.outbox.flush()
        processes = [worker.process for worker in self._pool]
        try:
            async with asyncio.timeout(self.grace_s):
                await asyncio.gather(*(process.wait() for process in processes))
        except TimeoutError:
            for process in processes:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
            await asyncio.gather(*(process.wait() for process in processes))
        readers = [worker.reader for worker in self._pool if worker.reader is not None]
        await asyncio.gather(*readers, return_exceptions=True)
        for worker in self._pool:
            if worker.process.stdin is not None:
                worker.process.stdin.close()
            for pending in worker.pending.values():
                pending.future.cancel()

    def pids(self) -> list[int]:
        """Return the process ids of the current workers (for diagnostics)."""
        return [worker.process.pid for worker in self._pool]

    def describe(self) -> dict[str, Any]:
        """Return the manifest's executor entry: worker processes, how many, how many were restarted."""
        return {"kind": "processes", "workers": self.workers, "restarts": self.restarts}

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        """Return the per-endpoint counts summed over the workers, those that died included."""
        return add_counts([*self._retired, *(worker.counts for worker in self._pool)])


def _was_ready(worker: _Worker) -> bool:
    """Return whether the worker had started (a worker that cannot start is not restarted)."""
    return worker.ready.done() and not worker.ready.cancelled() and worker.ready.exception() is None
