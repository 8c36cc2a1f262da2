"""GePBench's two scoring protocols: the paper's option-letter rule (official) and mcot's reading (robust).

Both compare one option letter with the item's answer (stored as a letter, or as the choice value as in the
native files) and record `score.extracted`, `details["match"]` and the item's `details["level"]` (the report's
easy/hard columns). Neither needs a judge; both are always `rule`. The rules, with an example each and the public
engine's deviations, are in docs/scoring.md ("GePBench").
"""

from __future__ import annotations

from typing import Any

from mcot.benchmarks.item import Item
from mcot.eval.extract import extract_choice_robust, last_standalone_letter, option_letters
from mcot.eval.match import normalize_text
from mcot.eval.protocols.scorer import Scorer

from mcot.rundir import Score


def answer_letter(item: Item) -> str | None:
    """Return the option letter of the item's answer: the letter as stored, or the letter of the choice it equals.

    None when the answer is neither an option letter nor (after normalisation) the text of a choice.
    """
    letters = option_letters(item.choices)
    answer = item.answer.strip()
    if len(answer) == 1 and answer.upper() in letters:
        return answer.upper()
    texts = [normalize_text(str(choice)) for choice in item.choices or []]
    value = normalize_text(answer)
    return letters[texts.index(value)] if value in texts else None


def _settle(scorer: Scorer, item: Item, score: Score, letter: str | None, match: str) -> None:
    """Record the letter read and the item's level, and settle the score against the answer's letter."""
    score.extracted = letter
    if "level" in item.meta:
        score.details["level"] = item.meta["level"]
    expected = answer_letter(item)
    scorer.settle(score, letter is not None and letter == expected, match=match)


async def gepbench_official(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """Score by the paper's rule: the last standalone upper-case option letter in the response; none → wrong."""
    letter = last_standalone_letter(text, option_letters(item.choices))
    _settle(scorer, item, score, letter, "letter" if letter else "no-letter")


async def gepbench_robust(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """Score by mcot's reading: boxed and explicit answers, negations, echoes, choice texts, lone lower-case letters."""
    letter, match = extract_choice_robust(text, item.choices)
    _settle(scorer, item, score, letter, match)
