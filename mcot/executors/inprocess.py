"""`InProcessExecutor`: solves pairs on this process's event loop, as `mcot run` always has."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.core.rundir import BlobStore, RunDir
from mcot.core.rundir.results import Result
from mcot.executors.base import backend_endpoint_counts
from mcot.executors.records import failure_record, pair_record

if TYPE_CHECKING:
    from mcot.agents.solver import Solver
    from mcot.core.item import Item
    from mcot.core.rundir import RunDir


class InProcessExecutor:
    """Solves each pair with its arm's Solver here, writing the trace to RUN/traces and images to RUN/blobs.

    Any Solver works (a chat model in an arm, an image generator); the solvers are built by the caller, with
    their retry observer if it wants one.
    """

    where = ""
    """Where a pair runs (here: nothing to say), for the runner's note on pairs that are slow to finish."""

    def __init__(self, run_dir: RunDir | Path, items_dir: Path, solvers: Mapping[str, Solver]) -> None:
        self.run_dir = as_run_dir(run_dir)
        self.items_dir = Path(items_dir)
        self.solvers = solvers
        self.blobs = BlobStore(self.run_dir.blobs_dir)

    async def start(self) -> None:
        """Nothing to start: the solvers are ready."""

    async def solve(self, item: Item, arm: str) -> Result:
        """Return the ledger record of (item, arm), its trace written; a failure is a failure record."""
        started = time.perf_counter()
        try:
            prediction, trace = await self.solvers[arm].solve(item, self.items_dir, self.blobs)
            # on the event loop, as the ledger line is: a trip to a thread for it cost more CPU than the file's
            # creation and rename (GIL hand-overs, 59 futex calls a pair at 256 in flight), 0.4 ms a pair in all
            trace_rel = self.run_dir.traces.write(item.id, arm, trace)
            return pair_record(item, arm, prediction, trace_rel)
        except Exception as exc:  # a failed item is recorded with its reason; the run goes on
            return failure_record(item, arm, f"{type(exc).__name__}: {exc}", time.perf_counter() - started)

    async def close(self) -> None:
        """Nothing to stop."""

    def describe(self) -> dict[str, Any]:
        """Return the manifest's executor entry: this process alone."""
        return {"kind": "local", "workers": 1}

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        """Return the per-endpoint counts of the solvers' backends."""
        return backend_endpoint_counts(self.solvers)


def as_run_dir(run_dir: RunDir | Path) -> RunDir:
    """Return `run_dir` as a RunDir (a path is wrapped)."""

    return run_dir if isinstance(run_dir, RunDir) else RunDir(Path(run_dir))
