"""GOBench's scoring protocols: understanding by Scaled Proximity Score, generated images rated by a judge.

Understanding: a critic model rates an image on three dimensions; each dimension's Scaled Proximity Score is
max(0, 1 - |s_model - s_human| / 0.5) against the human experts' score. The two protocols differ in how the
critic's reply is read and in what an unreadable reply leaves out:

- `gobench_official` reads the reply as VLMEvalKit's GOBench evaluation does (vlmeval/dataset/gobench.py,
  without a judge, its default): authenticity is the number on the reply's own `Total Score:` line, the two
  ratings are the first number after the labels `Aesthetics Rating` and `Instruction Consistency Rating`; if
  any of the three cannot be read, the item leaves all three means.
- `gobench_robust` reads it as the paper words it: authenticity is the sum of the five answers (Yes 1, No 0,
  Cannot be determined 0.5), the ratings are read by tolerant labels (mcot.eval.extract.read_labelled_rating), and a
  dimension that cannot be read leaves that dimension's mean only.

Generation items (images rated by a judge) are scored the same way under both names: the judge answers the
image's authenticity questions (a procedural image its own, a GOBench item its `questions_reality`) and rates
aesthetics and fidelity; an image whose answers are known by construction also gets its calibration pairs
(mcot.eval.calibration).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from mcot.benchmarks.item import Item
from mcot.eval import judges
from mcot.eval.calibration import answer_word, calibration_pairs, known_answers
from mcot.eval.extract import read_answer_list, read_labelled_rating
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.registry import OFFICIAL, ROBUST

from mcot.rundir import Score

GOBENCH_DIMENSIONS = ("authenticity", "aesthetics", "fidelity")

OFFICIAL_FAILURE_MARK = "Failed to obtain answer"
"""VLMEvalKit's mark of a failed model call: a reply containing it is unreadable (the item leaves the means)."""

_NUMBER_RUN = "([0-9.]+)"
_OFFICIAL_LABELS = {
    # the total's own line: the label (optionally "for Reality Assessment"), a colon, spaces or asterisks, a number
    "authenticity": re.compile("Total Score(?: for Reality Assessment)?:[ \t\n\r\f\v*]*" + _NUMBER_RUN, re.I),
    # a rating: the first run of digits and dots anywhere after the first occurrence of its label
    "aesthetics": re.compile("Aesthetics Rating[^0-9]*" + _NUMBER_RUN, re.I),
    "fidelity": re.compile("Instruction Consistency Rating[^0-9]*" + _NUMBER_RUN, re.I),
}
"""The official reading (VLMEvalKit's rule): the first match of each label; the run after it must be a number."""

AESTHETICS_LABELS = r"aesthetics?(?:\s+(?:rating|score|quality))?|美学|美观|审美"
FIDELITY_LABELS = (
    r"instruction[\s-]+(?:consistency|fidelity)(?:\s+(?:rating|score))?|(?<!in)consistency(?:\s+(?:rating|score))?|"
    r"fidelity(?:\s+(?:rating|score))?|指令一致性?|一致性"
)
OTHER_PARTS = r"total\s+score|reality|authenticity|总分|真实性"
"""Labels that end a rating's passage in the robust reading."""

_QUESTION_NUMBER = re.compile(r"^\s*\d+\s*[.)、:]\s*")
"""The numbering of a line of GOBench's `Questions_reality` ("1. ", "2) ", "3、")."""


async def gobench_official(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """GOBench, official (VLMEvalKit): SPS from the `Total Score:` line and the two labelled ratings; an item
    with any of the three unreadable leaves all three means. Generation items are rated by a judge."""
    await _gobench(scorer, item, text, result, score, OFFICIAL)


async def gobench_robust(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """GOBench, robust (the paper's wording): SPS from the sum of the five answers and tolerant ratings; an
    unreadable dimension leaves that dimension's mean only. Generation items are rated by a judge."""
    await _gobench(scorer, item, text, result, score, ROBUST)


async def _gobench(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score, protocol: str) -> None:
    if item.meta.get("task") == "generation" or item.answer_type == "image":
        score.details["task"] = "generation"
        await _gobench_generation(scorer, item, result, score)
        return
    score.details["task"] = "understanding"
    score.details["protocol"] = protocol
    if protocol == OFFICIAL:
        model, problem = official_gobench_scores(text)
        if problem:
            score.details["unreadable"] = problem
    else:
        model = robust_gobench_scores(text)
    human = human_gobench_scores(item)
    unparsable = [dim for dim in GOBENCH_DIMENSIONS if model.get(dim) is None]
    left_out = protocol == OFFICIAL and bool(unparsable)  # VLMEvalKit: an unreadable reply leaves all three means
    score.extracted = reading_text(model) + (" (leaves all three means)" if left_out else "")
    score.details["model_scores"] = model
    score.details["human_scores"] = human
    score.details["unparsable"] = unparsable
    if not human:
        scorer.unjudged(score, "the item has no human scores to compare with (convert with --scores)")
        return
    from mcot.eval.metrics import scaled_proximity_score

    if left_out:
        score.details["left_out"] = True
    sps = {
        dim: scaled_proximity_score(value, human[dim])
        for dim in GOBENCH_DIMENSIONS
        if (value := model.get(dim)) is not None and dim in human and not left_out
    }
    score.details["sps"] = sps
    score.method = "rule"
    score.score = sum(sps.values()) / len(sps) if sps else None


def official_gobench_scores(text: str) -> tuple[dict[str, float | None], str | None]:
    """Return the official reading of a critic's reply (VLMEvalKit's) and why it failed, or None when it did not.

    Authenticity: the first `Total Score:` (or `Total Score for Reality Assessment:`) line, then spaces or
    asterisks, then a run of digits and dots. Aesthetics / fidelity: the first `Aesthetics Rating` /
    `Instruction Consistency Rating` (any case), then anything but a digit, then a run of digits and dots (so
    "Aesthetics Rating (1-5): 4" reads 1, as VLMEvalKit does). A run that is not a number ("4.5.") makes the
    whole reply unreadable, and so does VLMEvalKit's failed-call mark or an empty reply.
    """
    empty: dict[str, float | None] = dict.fromkeys(GOBENCH_DIMENSIONS)
    if not text.strip():
        return empty, "empty reply"
    if OFFICIAL_FAILURE_MARK in text:
        return empty, f"the reply holds VLMEvalKit's failed-call mark {OFFICIAL_FAILURE_MARK!r}"
    found: dict[str, float | None] = {}
    for dim, pattern in _OFFICIAL_LABELS.items():
        match = pattern.search(text)
        if match is None:
            found[dim] = None
            continue
        try:
            found[dim] = float(match.group(1))
        except ValueError:
            return empty, f"{dim}: {match.group(1)!r} is not a number"
    missing = [dim for dim, value in found.items() if value is None]
    return found, (f"no {', '.join(missing)} found" if missing else None)


def robust_gobench_scores(text: str) -> dict[str, float | None]:
    """Return the robust reading of a critic's reply: authenticity = the sum of the five answers (None unless all
    five are read), the aesthetics and instruction-fidelity ratings by their labels (None when absent)."""
    answers = read_answer_list(text, 5)
    authenticity = sum(value for value in answers if value is not None) if None not in answers else None
    return {
        "authenticity": authenticity,
        "aesthetics": read_labelled_rating(text, AESTHETICS_LABELS, f"{FIDELITY_LABELS}|{OTHER_PARTS}"),
        "fidelity": read_labelled_rating(text, FIDELITY_LABELS, f"{AESTHETICS_LABELS}|{OTHER_PARTS}"),
    }


def reading_text(model: dict[str, float | None]) -> str:
    """Return a reading as one short line ("authenticity 3.5; aesthetics 4; fidelity —") for reports."""
    parts = []
    for dim in GOBENCH_DIMENSIONS:
        value = model.get(dim)
        parts.append(f"{dim} {'—' if value is None else f'{value:g}'}")
    return "; ".join(parts)


async def _gobench_generation(scorer: Scorer, item: Item, result: dict[str, Any], score: Score) -> None:
    """Rate one generated image by the judge: its authenticity questions (Yes 1, No 0, Cannot be determined 0.5,
    summed), aesthetics 1–5 and fidelity 1–5; where the image carries known answers, the calibration pairs."""
    meta = first_image_meta(result)
    score.details["generator"] = result.get("generator") or scorer.generator
    questions = generation_questions(item, meta)
    known = known_answers(meta, len(questions)) if questions else None
    if known is not None:
        score.details["known_answers"] = known
    image_path = generated_image_path(result)
    image = scorer.image(image_path, run=True) if image_path else None
    if image is None:
        scorer.unjudged(score, f"no generated image at {image_path!r}")
        return
    if not questions:
        scorer.unjudged(score, "no authenticity questions: the item has no meta.questions_reality, the image none")
        return
    score.details["questions"] = questions
    if scorer.judge is None:
        scorer.unjudged(score, "generated images are rated by a judge: pass --judge")
        return
    reply = await scorer.ask(
        "gobench_rate",
        partial(judges.parse_gobench_rating, count=len(questions)),
        images=(image,),
        prompt=item.meta.get("prompt") or item.question,
        questions=numbered(questions),
    )
    score.judge = reply.record(scorer.judge.spec)
    if reply.error:
        scorer.judge_failed(score, reply)
        return
    ratings = {dim: float(reply.value[dim]) for dim in GOBENCH_DIMENSIONS}
    answers = [answer_word(value) for value in reply.value["answers"]]
    score.method = "judge"
    score.extracted = reading_text(ratings)
    score.details["judge_scores"] = ratings
    score.details["answers"] = answers
    if known is not None:
        score.details["calibration"] = calibration_pairs(answers, known)


def first_image_meta(result: dict[str, Any]) -> dict[str, Any]:
    """Return the meta of a result's first generated image (`image_meta[0]`), {} when it has none."""
    metas = result.get("image_meta")
    if isinstance(metas, list) and metas and isinstance(metas[0], dict):
        return metas[0]
    return {}


def generated_image_path(result: dict[str, Any]) -> str | None:
    """Return the run-relative path of a result's generated image: `image`, else `images[0]`, else `prediction`."""
    images = result.get("images")
    first = images[0] if isinstance(images, list) and images else None
    path = result.get("image") or first or result.get("prediction")
    return str(path) if path else None


def generation_questions(item: Item, meta: dict[str, Any] | None = None) -> list[str]:
    """Return the authenticity questions to ask of a generated image, [] when there are none.

    A procedural image is asked its own questions (`image_meta[0].questions`); otherwise the item's
    `meta.questions_reality` (a list), else its `meta.Questions_reality` (GOBench's numbered text, one per line).
    """
    for listed in ((meta or {}).get("questions"), item.meta.get("questions_reality")):
        if isinstance(listed, list) and listed:
            return [str(question).strip() for question in listed]
    text = item.meta.get("Questions_reality")
    if isinstance(text, str):
        return [_QUESTION_NUMBER.sub("", line).strip() for line in text.splitlines() if line.strip()]
    return []


def numbered(questions: list[str]) -> str:
    """Return the questions as numbered lines ("1. …"), as the `gobench_rate` template shows them."""
    return "\n".join(f"{index}. {question}" for index, question in enumerate(questions, start=1))


_HUMAN_KEYS = {
    "authenticity": ("authentic", "reality", "real"),
    "aesthetics": ("aesthetic",),
    "fidelity": ("fidelity", "consisten", "instruction"),
}


def human_gobench_scores(item: Item) -> dict[str, float]:
    """Return the human expert scores attached to a GOBench item (meta dict or the TSV answer text), or {}."""
    for key in ("human_scores", "human", "scores", "gt_scores"):
        found = item.meta.get(key)
        if isinstance(found, dict):
            scores: dict[str, float] = {}
            for dim, needles in _HUMAN_KEYS.items():
                for name, value in found.items():
                    if any(needle in str(name).lower() for needle in needles) and isinstance(value, int | float):
                        scores.setdefault(dim, float(value))
            if len(scores) == 3:
                return scores
    patterns = {
        "authenticity": r"Reality\s+Assessment\s+Score\s*:\s*([\d.]+)",
        "aesthetics": r"Aesthetics\s+Rating\s*:\s*([\d.]+)",
        "fidelity": r"Instruction\s+Consistency\s+Rating\s*:\s*([\d.]+)",
    }
    scores = {}
    for dim, pattern in patterns.items():
        match = re.search(pattern, item.answer, re.IGNORECASE)
        if match:
            scores[dim] = float(match.group(1).rstrip("."))
    return scores if len(scores) == 3 else {}
