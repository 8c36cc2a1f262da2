"""Executors: where the runner's (item, arm) pairs are solved — here, in worker processes, or on a Ray cluster.

Public surface: `PairExecutor` (the protocol the runner drives), `SolveRecipe` (what a worker builds its solvers
from), `PairOutcome`, `InProcessExecutor`, `ProcessExecutor`, `RayExecutor`, `ExecutorError`, and the ledger
records `pair_record` / `failure_record`. `block_mapper` spreads a generator's blocks over workers for
`mcot gen`. Names are imported on first use, so importing this package loads neither the solver nor Ray.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.core.lazy import lazy_exports

_EXPORTS = {
    "ExecutorError": "mcot.executors.base",
    "Observer": "mcot.executors.base",
    "PairExecutor": "mcot.executors.base",
    "PairOutcome": "mcot.executors.base",
    "InProcessExecutor": "mcot.executors.inprocess",
    "ProcessExecutor": "mcot.executors.processes",
    "RayExecutor": "mcot.executors.ray_executor",
    "SolveRecipe": "mcot.executors.recipe",
    "failure_record": "mcot.executors.records",
    "pair_record": "mcot.executors.records",
    "block_mapper": "mcot.executors.blocks",
}

if TYPE_CHECKING:
    from mcot.executors.base import ExecutorError, Observer, PairExecutor, PairOutcome
    from mcot.executors.blocks import block_mapper
    from mcot.executors.inprocess import InProcessExecutor
    from mcot.executors.processes import ProcessExecutor
    from mcot.executors.ray_executor import RayExecutor
    from mcot.executors.recipe import SolveRecipe
    from mcot.executors.records import failure_record, pair_record


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "ExecutorError",
    "InProcessExecutor",
    "Observer",
    "PairExecutor",
    "PairOutcome",
    "ProcessExecutor",
    "RayExecutor",
    "SolveRecipe",
    "block_mapper",
    "failure_record",
    "pair_record",
]
