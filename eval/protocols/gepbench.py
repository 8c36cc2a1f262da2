"""GePBench's scoring: the public code's letter rule (`official`), mcot's reading (`robust`), its table.

Both compare one option letter with the item's answer (stored as a letter, or as the choice value as in the
native files) and record `score.extracted`, `details["match"]` and the item's `details["level"]` (the report's
easy/hard columns). Neither needs a judge; both are always `rule`. The rules, with an example each and the public
engine's deviations, are in docs/scoring.md ("GePBench"). The table: accuracy per aspect × level, Avg the mean
of the 12 cells (as in the paper). No trace verifier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mcot.benchmarks.item import Item
from mcot.eval.extract import extract_choice_robust, option_letters
from mcot.eval.headline import Metric
from mcot.eval.match import normalize_text
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.tables import COUNT_COLUMNS, Table, by_mode, counts_notes, pct, tally

from mcot.rundir import Result, Score

__all__ = ["headline", "official", "robust", "tables", "verifier"]

ASPECTS = ("existence", "counting", "size", "location", "reference", "relationship")
LEVELS = ("easy", "hard")


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


PUBLIC_LETTERS = "ABCD"
"""The letters the public `find_answer` accepts, whatever the number of choices."""
_WORD = re.compile(r"\b\w+\b")


def public_answer(text: str, choices: Sequence[Any] | None) -> tuple[str | None, str]:
    """Return (letter, rule) as geocap's `find_answer` reads `text`: the last one-character `\\b\\w+\\b` word in ABCD.

    Words are Unicode (`\\w` holds CJK characters, digits and `_`), so `答案是B`, `选C`, `B选项` and `A_` hold no
    letter. With no letter, the one choice text found in the response (a plain, case-sensitive substring) is the
    public prediction: a one-character choice text `c` stands for the letter `chr(ord(c))` as the public accuracy
    compares `ord(c) - ord("A")` ("choice-text-ord"); a longer one makes the public accuracy raise (TypeError), and
    mcot scores it wrong ("choice-text-crash"). None found, or several: no letter ("no-letter").
    """
    for word in reversed(_WORD.findall(text)):
        if len(word) == 1 and word in PUBLIC_LETTERS:
            return word, "letter"
    found = [str(choice) for choice in choices or [] if str(choice) in text]
    if len(found) != 1:
        return None, "no-letter"
    if len(found[0]) == 1:
        return found[0], "choice-text-ord"
    return None, "choice-text-crash"


async def official(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """Score as geocap eval/gepbench.py does: `find_answer`'s letter against the answer's index; none → wrong."""
    score = scorer.score_for(item, result)
    letter, rule = public_answer(text, item.choices)
    _settle(scorer, item, score, letter, rule)
    return score


async def robust(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """Score by mcot's reading: boxed and explicit answers, negations, echoes, choice texts, lone lower-case letters."""
    score = scorer.score_for(item, result)
    letter, match = extract_choice_robust(text, item.choices)
    _settle(scorer, item, score, letter, match)
    return score


def cell_accuracies(scores: Sequence[Score]) -> list[float | None]:
    """Return the accuracy of each aspect × level cell (level-major, as the table's columns), None when empty."""
    cells: list[float | None] = []
    for level in LEVELS:
        for aspect in ASPECTS:
            cell = [s for s in scores if s.category == aspect and str(s.details.get("level", "easy")) == level]
            cells.append(tally(cell).accuracy)
    return cells


def average(scores: Sequence[Score]) -> float | None:
    """Return GePBench's Avg: the mean of the non-empty aspect × level cells' accuracies (None when all are empty)."""
    present = [cell for cell in cell_accuracies(scores) if cell is not None]
    return sum(present) / len(present) if present else None


def tables(scores: Sequence[Score]) -> list[Table]:
    """Return GePBench accuracy per aspect × level per arm, Avg = the mean of the 12 cells, and the counts."""
    columns = ["Mode", "Avg"] + [f"{a.capitalize()} ({lvl})" for lvl in LEVELS for a in ASPECTS]
    table = Table("GePBench", [*columns, *COUNT_COLUMNS])
    notes: list[str] = []
    for mode, group in by_mode(scores).items():
        cells = cell_accuracies(group)
        present = [cell for cell in cells if cell is not None]
        avg = average(group)
        table.rows.append([mode, pct(avg)] + [pct(cell) for cell in cells] + tally(group).counts())
        if len(present) < len(cells):
            notes.append(f"{mode}: Avg over the {len(present)} non-empty cells of {len(cells)}")
    table.notes = ["Avg is the mean of the aspect × level cells (as in the paper)", *notes, *counts_notes(scores)]
    return [table]


verifier = None
"""No trace verifier: answers only."""

headline = (Metric("Avg", value=average),)
"""GePBench's headline: Avg, the mean of the aspect × level cells (the table's Avg column)."""
