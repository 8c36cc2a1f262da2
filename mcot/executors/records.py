"""The results.jsonl line of one finished (item, arm) pair: an answer, or a failure with its reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.rundir.results import Result, ResultUsage

if TYPE_CHECKING:
    from mcot.agents.solver import Prediction
    from mcot.benchmarks.item import Item


def pair_record(item: Item, arm: str, prediction: Prediction, trace_rel: str | None) -> Result:
    """Return the ledger line of a solved pair: id, mode, the prediction's fields, trace path, benchmark, category."""
    return Result.model_validate(
        {
            "id": item.id,
            "mode": arm,
            **prediction.to_record(),
            "trace": trace_rel,
            "benchmark": item.benchmark,
            "category": item.category,
        }
    )


def failure_record(item: Item, arm: str, reason: str, latency_s: float) -> Result:
    """Return the ledger line of a pair that failed outside the solver loop (status "error", the reason)."""
    return Result(
        id=item.id,
        mode=arm,
        status="error",
        prediction="",
        steps=0,
        usage=ResultUsage(input_tokens=0, output_tokens=0, cost_usd=None, cached_calls=0),
        latency_s=round(latency_s, 3),
        error=reason,
        trace=None,
        benchmark=item.benchmark,
        category=item.category,
    )
