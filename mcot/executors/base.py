"""What every executor offers the runner (`PairExecutor`), what a remote pair returns (`PairOutcome`), and the
pieces the executors share: solving one pair to an outcome, and adding up per-endpoint counts."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mcot.executors.records import failure_record, pair_record
from mcot.rundir.results import Result

if TYPE_CHECKING:
    from mcot.agents.retry import Failure
    from mcot.agents.solver import Solver
    from mcot.benchmarks.item import Item

Observer = Callable[["Failure | None"], None]
"""What hears every model call's outcome (None: it succeeded; a Failure: it failed): the runner's AIMD."""

WORKER_DIED = "worker process died (exit code {code})"


class ExecutorError(RuntimeError):
    """An executor could not start its workers; the message says why in one line."""


@dataclass
class PairOutcome:
    """A pair solved away from the run directory: its ledger line (`trace` None), trace text and image blobs.

    `blobs` maps a blob's file name (`<sha256><suffix>`) to its bytes; the driver writes them under RUN/blobs.
    """

    record: Result
    trace_text: str | None = None
    blobs: dict[str, bytes] = field(default_factory=dict)


@runtime_checkable
class PairExecutor(Protocol):
    """Solves (item, arm) pairs for the runner: in this process, in worker processes, or on a Ray cluster.

    `start` before anything is written (it connects and starts workers, raising UsageError or ExecutorError);
    `solve` returns the results.jsonl record with the trace written to RUN/traces and blobs to RUN/blobs (a
    failure comes back as a failure record, never raised; only asyncio.CancelledError propagates); `close`
    stops the workers (within a few seconds); `describe` is the manifest's executor entry; `endpoint_counts`
    the requests per endpoint URL over every worker; `where` says where a pair runs ("a worker process").
    """

    where: str

    async def start(self) -> None:
        """Get ready to solve; raise UsageError (bad address, missing extra) or ExecutorError."""
        ...

    async def solve(self, item: Item, arm: str) -> Result:
        """Return the ledger record of one pair, its trace and blobs written into the run directory."""
        ...

    async def close(self) -> None:
        """Stop every worker; pairs still in flight are cancelled."""
        ...

    def describe(self) -> dict[str, Any]:
        """Return {"kind", "workers", …} for the manifest."""
        ...

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        """Return {"URL": {"requests", "ok", "failed", "rested"}} summed over the workers (empty with one URL)."""
        ...


async def solve_outcome(solver: Solver, item: Item, arm: str, view_root: Path) -> PairOutcome:
    """Return the outcome of one pair solved with blobs kept in memory (for a driver on another machine)."""
    from mcot.rundir.blobs import MemoryBlobs

    started = time.perf_counter()
    blobs = MemoryBlobs()
    try:
        prediction, trace = await solver.solve(item, view_root, blobs)
        text = trace.to_text((item.id, arm))
        return PairOutcome(pair_record(item, arm, prediction, None), text, blobs.data)
    except Exception as exc:  # a failed item is recorded with its reason; the run goes on
        reason = f"{type(exc).__name__}: {exc}"
        return PairOutcome(failure_record(item, arm, reason, time.perf_counter() - started))


def tell(observer: Observer | None, events: Iterable[Failure | None]) -> None:
    """Pass relayed events to the observer, in order; an observer that raises loses that event, not the worker."""
    if observer is None:
        return
    for event in events:
        try:
            observer(event)
        except Exception as exc:
            print(f"mcot: the retry observer failed: {type(exc).__name__}: {exc}", file=sys.stderr)


def backend_endpoint_counts(solvers: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """Return the per-endpoint counts of the solvers' model backends (each counted once; {} with one URL)."""
    seen: dict[int, Any] = {}
    for solver in solvers.values():
        backend = getattr(solver, "backend", None)
        if backend is not None:
            seen.setdefault(id(backend), backend)
    return add_counts(_counts_of(backend) for backend in seen.values())


def _counts_of(backend: Any) -> dict[str, dict[str, int]]:
    counts = getattr(backend, "endpoint_counts", None)
    return dict(counts()) if callable(counts) else {}


def add_counts(parts: Iterable[Mapping[str, Mapping[str, int]]]) -> dict[str, dict[str, int]]:
    """Return per-endpoint counts summed key by key over several workers' counts."""
    total: dict[str, dict[str, int]] = {}
    for part in parts:
        for url, counts in part.items():
            into = total.setdefault(url, {})
            for key, value in counts.items():
                into[key] = into.get(key, 0) + int(value)
    return total
