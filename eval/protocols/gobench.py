"""GOBench's scoring: understanding by Scaled Proximity Score, generated images rated by a judge, their tables.

Understanding (mcot.eval.protocols._gobench_understanding): a critic model rates an image on three dimensions,
compared with the human experts' scores. `official` reads the critic's reply as VLMEvalKit does (an item with
any dimension unreadable leaves all three means); `robust` reads it as the paper words it (an unreadable
dimension leaves that dimension's mean only).

Generation (mcot.eval.protocols._gobench_generation, items with `meta.task` "generation" or answer type
`image`): the judge rates each generated image; both protocol names score it alike. No trace verifier.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcot.benchmarks.item import Item
from mcot.eval.headline import Metric
from mcot.eval.protocol_names import OFFICIAL, ROBUST
from mcot.eval.protocols._gobench_generation import generation_tables, score_generation
from mcot.eval.protocols._gobench_understanding import score_understanding, sps_overall, understanding_tables
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.tables import Table

from mcot.rundir import Result, Score

__all__ = ["headline", "official", "robust", "tables", "verifier"]


async def official(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """GOBench, official (VLMEvalKit): SPS from the `Total Score:` line and the two labelled ratings; an item
    with any of the three unreadable leaves all three means. Generation items are rated by a judge."""
    score = scorer.score_for(item, result)
    await _gobench(scorer, item, text, result, score, OFFICIAL)
    return score


async def robust(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """GOBench, robust (the paper's wording): SPS from the sum of the five answers and tolerant ratings; an
    unreadable dimension leaves that dimension's mean only. Generation items are rated by a judge."""
    score = scorer.score_for(item, result)
    await _gobench(scorer, item, text, result, score, ROBUST)
    return score


async def _gobench(scorer: Scorer, item: Item, text: str, result: Result, score: Score, protocol: str) -> None:
    if item.meta.get("task") == "generation" or item.answer_type == "image":
        score.details["task"] = "generation"
        await score_generation(scorer, item, result, score)
        return
    score_understanding(scorer, item, text, score, protocol)


def is_understanding(score: Score) -> bool:
    """Return whether a score is of an understanding item (as `tables` splits them): a run error or a reading."""
    task = score.details.get("task") or ("generation" if "judge_scores" in score.details else "understanding")
    return task != "generation" and (score.method == "error" or "model_scores" in score.details)


def tables(scores: Sequence[Score]) -> list[Table]:
    """Return the GOBench understanding tables and/or generation tables, by which kinds of items were scored."""
    understanding: list[Score] = []
    generation: list[Score] = []
    for score in scores:
        task = score.details.get("task") or ("generation" if "judge_scores" in score.details else "understanding")
        (generation if task == "generation" else understanding).append(score)
    found: list[Table] = []
    if understanding:
        found += understanding_tables(understanding)
    if generation:
        found += generation_tables(generation)
    return found


verifier = None
"""No trace verifier: answers only."""


headline = (Metric("SPS Overall", select=is_understanding, value=sps_overall),)
"""GOBench's headline: the understanding task's Scaled Proximity Score, Overall (the SPS table's first column)."""
