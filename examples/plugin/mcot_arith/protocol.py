"""How arith is scored: its official protocol (the last \\boxed{} holds the exact integer) and its report table.

A protocol module holds `official`, `tables` and optionally `robust` and `verifier`; arith has one protocol.
A protocol takes the Scorer, the item, the answer's text and the pair's result line, and returns its Score.
"""

import re
from collections.abc import Sequence

from mcot.benchmarks.item import Item
from mcot.eval.tables import Table, pct

from mcot import Result, Score, Scorer

_BOXED = re.compile(r"\\boxed\{\s*(-?\d+)\s*\}")


async def official(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """Right when the last \\boxed{} of the answer holds exactly the sum."""
    score = scorer.score_for(item, result)
    found = _BOXED.findall(text)
    score.extracted = found[-1] if found else None
    right = score.extracted is not None and int(score.extracted) == int(item.answer)
    return scorer.settle(score, right, match="boxed")


def tables(scores: Sequence[Score]) -> list[Table]:
    """One row per arm: accuracy (every pair in n, failures counted wrong) and errors."""
    table = Table("arith — exact sums", ["Arm", "Accuracy", "n", "errors"])
    for arm in sorted({s.mode for s in scores}):
        group = [s for s in scores if s.mode == arm]
        right = sum(1 for s in group if s.correct)
        errors = sum(1 for s in group if s.method == "error")
        table.rows.append([arm, pct(right / len(group)), str(len(group)), str(errors)])
    return [table]
