"""mcot's official protocols as inspect scorers: a sample is scored exactly as `mcot score` scores the item."""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from mcot.env.episode import item_from_row
from mcot.rewards import score_answer


@scorer(metrics=[accuracy(), stderr(cluster="cluster")])
def official() -> Scorer:
    """Return the scorer of each benchmark's official protocol (no judge: what rules cannot settle is incorrect).

    Its standard error is clustered by the item's cluster (a sample's `cluster` metadata: GePBench's figure; the
    item id by default, where it is the plain standard error), as `mcot score` clusters its intervals.
    """

    async def score(state: TaskState, target: Target) -> Score:
        item = item_from_row(state.metadata["item"])
        text = state.output.completion if state.output is not None else ""
        result: Any = await asyncio.to_thread(score_answer, item, text)
        return Score(
            value=CORRECT if result.correct is True else INCORRECT,
            answer=result.extracted,
            explanation=f"{item.benchmark} official protocol ({result.method})",
            metadata={"method": result.method, "category": item.category},
        )

    return score
