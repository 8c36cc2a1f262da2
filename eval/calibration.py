"""Judge calibration: how a judge's authenticity answers agree with answers known by construction.

A procedural image (agents/generators/procedural) carries, for each of its authenticity questions, the answer
that is right by construction (`image_meta[0].known_answers`: "Yes" or "No"); its broken twin carries the
answers of the broken scene. The generation protocol records each question's pair (the judge's answer, the
known answer) in `details.calibration`; this module counts them:

- agreement = questions the judge answered as known / all questions with a known answer;
- false-Yes rate = questions the judge answered Yes where the known answer is No / questions known No
  (a judge that passes a shadow cast towards the light);
- false-No rate = questions the judge answered No where the known answer is Yes / questions known Yes
  (a judge that fails a correct shadow);
- Cannot-be-determined share = questions the judge answered "Cannot be determined" / all questions.

Only images the judge rated (method "judge") enter; images with known answers left unrated (judge errors, no
judge) are counted apart (`Calibration.unrated`). A pair the run failed on has no image and so no known answers.
`judge_calibration_table` shows the figures per arm and over all arms (one of GOBench's generation tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mcot.eval.tables import Table, pct, with_all_arms

from mcot.core.rundir import Score

YES = "Yes"
NO = "No"
CANNOT = "Cannot be determined"
_WORDS = {1.0: YES, 0.0: NO, 0.5: CANNOT}


def answer_word(value: float) -> str:
    """Return the answer word of a parsed authenticity answer: 1 → Yes, 0 → No, 0.5 → Cannot be determined."""
    try:
        return _WORDS[float(value)]
    except KeyError:
        raise ValueError(f"an authenticity answer is 1, 0 or 0.5, not {value!r}") from None


def known_answer(value: object) -> str | None:
    """Return "Yes" or "No" for a known answer ("yes", "No", True, 1, …), None when it is neither."""
    if isinstance(value, bool):
        return YES if value else NO
    if isinstance(value, int | float) and value in (0, 1):
        return YES if value == 1 else NO
    if isinstance(value, str):
        word = value.strip().strip(".").lower()
        if word in ("yes", "y", "true"):
            return YES
        if word in ("no", "n", "false"):
            return NO
    return None


def known_answers(meta: dict[str, Any] | None, count: int) -> list[str | None] | None:
    """Return the known answers of an image's meta (one per question, None where unusable), or None.

    None when the meta has no `known_answers` list, when its length is not `count` (the questions asked), or
    when none of its values is a Yes or a No.
    """
    listed = (meta or {}).get("known_answers")
    if not isinstance(listed, list) or len(listed) != count:
        return None
    answers = [known_answer(value) for value in listed]
    return answers if any(answer is not None for answer in answers) else None


def calibration_pairs(judged: Sequence[str], known: Sequence[str | None]) -> list[dict[str, str]]:
    """Return one {"judge", "known"} pair per question whose answer is known (questions without one left out)."""
    return [{"judge": answer, "known": truth} for answer, truth in zip(judged, known, strict=True) if truth is not None]


@dataclass(frozen=True)
class Calibration:
    """Counts of a judge's answers against known ones: images, questions, agreements and the kinds of miss."""

    images: int = 0
    questions: int = 0
    agree: int = 0
    false_yes: int = 0
    false_no: int = 0
    cannot: int = 0
    known_yes: int = 0
    known_no: int = 0
    unrated: int = 0
    """Images with known answers that the judge did not rate (judge errors, no judge)."""

    @property
    def agreement(self) -> float | None:
        """Return agree / questions (None without questions)."""
        return _share(self.agree, self.questions)

    @property
    def false_yes_rate(self) -> float | None:
        """Return judge-Yes-where-known-No / questions known No (None when no question is known No)."""
        return _share(self.false_yes, self.known_no)

    @property
    def false_no_rate(self) -> float | None:
        """Return judge-No-where-known-Yes / questions known Yes (None when no question is known Yes)."""
        return _share(self.false_no, self.known_yes)

    @property
    def cannot_rate(self) -> float | None:
        """Return "Cannot be determined" answers / questions (None without questions)."""
        return _share(self.cannot, self.questions)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def has_known_answers(score: Score) -> bool:
    """Return True when the score's image carries known answers (rated or not)."""
    return bool(score.details.get("known_answers")) or bool(score.details.get("calibration"))


def calibrate(scores: Iterable[Score]) -> Calibration:
    """Return the calibration counts of the scores' rated images with known answers."""
    images = questions = agree = false_yes = false_no = cannot = known_yes = known_no = unrated = 0
    for score in scores:
        pairs = score.details.get("calibration")
        if score.method != "judge" or not pairs:
            unrated += int(has_known_answers(score))
            continue
        images += 1
        for pair in pairs:
            judged, truth = pair["judge"], pair["known"]
            questions += 1
            agree += int(judged == truth)
            cannot += int(judged == CANNOT)
            known_yes += int(truth == YES)
            known_no += int(truth == NO)
            false_yes += int(judged == YES and truth == NO)
            false_no += int(judged == NO and truth == YES)
    return Calibration(images, questions, agree, false_yes, false_no, cannot, known_yes, known_no, unrated)


def judge_calibration_table(scores: Sequence[Score]) -> Table | None:
    """Return the judge's agreement with known answers per arm (and over all arms), or None when no image of
    the scores carries known answers."""
    known = [s for s in scores if has_known_answers(s)]
    if not known:
        return None
    table = Table(
        "Judge calibration",
        [
            "Arm",
            "n images",
            "n questions",
            "agreement",
            "false-Yes",
            "false-No",
            "Cannot be determined",
            "known Yes",
            "known No",
            "unrated",
        ],
    )
    for label, group in with_all_arms(known):
        c = calibrate(group)
        table.rows.append(
            [
                label,
                str(c.images),
                str(c.questions),
                pct(c.agreement),
                pct(c.false_yes_rate),
                pct(c.false_no_rate),
                pct(c.cannot_rate),
                str(c.known_yes),
                str(c.known_no),
                str(c.unrated),
            ]
        )
    table.notes = [
        "over the rated images whose answers are known by construction (procedural scenes and their broken "
        "twins), one per question: agreement = questions answered as known / n questions; false-Yes = judge Yes "
        "where the known answer is No / known No; false-No = judge No where the known answer is Yes / known Yes; "
        "Cannot be determined = those answers / n questions (never an agreement, never a false Yes or No)",
        "unrated: images with known answers the judge did not rate (judge errors, no judge); not in the figures",
    ]
    return table
