"""The generic scoring, by answer type, for benchmarks without their own (the registry's fallback).

Letters, yes/no and numbers are settled by rules; text by the `generic_match` judge. One protocol (no robust
one), one accuracy-per-category table titled with the scores' benchmark name(s), no verifier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcot.benchmarks.item import Item
from mcot.eval import judges
from mcot.eval.extract import extract_choice, extract_final_answer, last_line
from mcot.eval.headline import OVERALL
from mcot.eval.match import match_answer, parse_quantity
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.tables import Table, category_table

from mcot.rundir import Result, Score

__all__ = ["headline", "official", "robust", "tables", "verifier"]


async def official(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """Any other benchmark, by answer type: letters, yes/no, numbers by rules; text by a judge."""
    score = scorer.score_for(item, result)
    if item.answer_type == "choice":
        letter = extract_choice(text, item.choices)
        score.extracted = letter
        verdict = match_answer(letter, item.answer, answer_type="choice", choices=item.choices)
        scorer.settle(score, bool(verdict.equal), match=verdict.rule if letter else "no-letter")
        return score
    extracted = extract_final_answer(text)
    if extracted is None:
        extracted = last_line(text) if item.answer_type in ("yesno", "text") else _last_number(text)
    score.extracted = extracted
    verdict = match_answer(extracted, item.answer, answer_type=item.answer_type, choices=item.choices)
    if verdict.equal is not None:
        scorer.settle(score, verdict.equal, match=verdict.rule, **verdict.details)
        return score
    if item.answer_type in ("number", "yesno") and extracted is None:
        scorer.settle(score, False, match="no-answer")
        return score
    if scorer.judge is None:
        scorer.unjudged(score, "rules cannot compare the answers: pass --judge")
        return score
    reply = await scorer.ask(
        "generic_match", judges.parse_binary, question=item.question, answer=item.answer, extracted=extracted or ""
    )
    score.judge = reply.record(scorer.judge.spec)
    if reply.error:
        scorer.judge_failed(score, reply)
        return score
    scorer.settle(score, bool(reply.value), "judge", match="judge-verdict")
    return score


robust = None
"""One protocol: `official` serves under both names."""


def tables(scores: Sequence[Score]) -> list[Table]:
    """Return one accuracy-per-category table titled with the scores' benchmark name(s)."""
    names = sorted({s.benchmark for s in scores}) or ["scores"]
    return [category_table(", ".join(names), scores)]


verifier = None
"""No trace verifier: answers only."""


def _last_number(text: str) -> str | None:
    """Return the last number (with its unit, if any) that parses as a quantity, or None."""
    numbers = re.findall(r"-?\d+(?:\.\d+)?(?:\s*(?:[a-zA-Z°%]+(?:/[a-zA-Z²]+)?))?", text)
    for candidate in reversed(numbers):
        if parse_quantity(candidate) is not None:
            return candidate.strip()
    return None


headline = (OVERALL,)
"""Accuracy over every item (the table's Overall column)."""
