"""The generated games' scoring: letters like GePBench, numbers by numeric match, accuracy per task.

One protocol (no robust one). Drawn traces are verified: the verifier (mcot.eval.verify.verify_games_trace)
checks what the model drew against each item's exact solution geometry, for arms that offer tools.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcot.benchmarks.item import Item
from mcot.eval.headline import OVERALL
from mcot.eval.protocols import generic, gepbench
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.tables import Table, category_table
from mcot.eval.verify import verify_games_trace

from mcot.rundir import Result, Score

__all__ = ["headline", "official", "robust", "tables", "verifier"]


async def official(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """Generated games: letters like GePBench (its robust reading); numbers by numeric match."""
    if item.answer_type == "choice":
        return await gepbench.robust(scorer, item, text, result)
    return await generic.official(scorer, item, text, result)


robust = None
"""One protocol: `official` serves under both names."""


def tables(scores: Sequence[Score]) -> list[Table]:
    """Return the generated games' accuracy-per-task table."""
    return [category_table("Games (generated) — accuracy per task", scores)]


verifier = verify_games_trace

headline = (OVERALL,)
"""Accuracy over every generated item (the table's Overall column)."""
