"""The generic protocol (by answer type) for benchmarks without their own, and the generated games' protocol."""

from __future__ import annotations

import re
from typing import Any

from mcot.benchmarks.item import Item
from mcot.eval import judges
from mcot.eval.extract import (
    extract_choice,
    extract_final_answer,
)
from mcot.eval.match import match_answer, parse_quantity
from mcot.eval.protocols.gepbench import gepbench_robust
from mcot.eval.protocols.scorer import Scorer

from mcot.rundir import Score


async def generic_protocol(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """Any other benchmark, by answer type: letters, yes/no, numbers by rules; text by a judge."""
    if item.answer_type == "choice":
        letter = extract_choice(text, item.choices)
        score.extracted = letter
        verdict = match_answer(letter, item.answer, answer_type="choice", choices=item.choices)
        scorer.settle(score, bool(verdict.equal), match=verdict.rule if letter else "no-letter")
        return
    extracted = extract_final_answer(text)
    if extracted is None:
        extracted = last_line(text) if item.answer_type in ("yesno", "text") else last_number(text)
    score.extracted = extracted
    verdict = match_answer(extracted, item.answer, answer_type=item.answer_type, choices=item.choices)
    if verdict.equal is not None:
        scorer.settle(score, verdict.equal, match=verdict.rule, **verdict.details)
        return
    if item.answer_type in ("number", "yesno") and extracted is None:
        scorer.settle(score, False, match="no-answer")
        return
    if scorer.judge is None:
        scorer.unjudged(score, "rules cannot compare the answers")
        return
    reply = await scorer.ask(
        "generic_match", judges.parse_binary, question=item.question, answer=item.answer, extracted=extracted or ""
    )
    score.judge = reply.record(scorer.judge.spec)
    if reply.error:
        scorer.judge_failed(score, reply)
        return
    scorer.settle(score, bool(reply.value), "judge", match="judge-verdict")


async def games_protocol(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """Generated games: letters like GePBench; numbers by numeric match; the drawn trace is verified too."""
    if item.answer_type == "choice":
        await gepbench_robust(scorer, item, text, result, score)
    else:
        await generic_protocol(scorer, item, text, result, score)


def last_line(text: str) -> str | None:
    """Return the last non-empty line of a response, stripped, or None."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else None


def last_number(text: str) -> str | None:
    """Return the last number (with its unit, if any) that parses as a quantity, or None."""
    numbers = re.findall(r"-?\d+(?:\.\d+)?(?:\s*(?:[a-zA-Z°%]+(?:/[a-zA-Z²]+)?))?", text)
    for candidate in reversed(numbers):
        if parse_quantity(candidate) is not None:
            return candidate.strip()
    return None
