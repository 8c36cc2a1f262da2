"""GOBench generation: generated images rated by a judge, and the tables of those ratings.

The judge answers the image's authenticity questions (a procedural image its own, a GOBench item its
`questions_reality`) and rates aesthetics and fidelity; an image whose answers are known by construction also
gets its calibration pairs (mcot.eval.calibration). Both protocol names score generation alike. The tables: per
generator (GOBench Table 1's form), per category, between dimensions (Table 2's form) and, when images carry
known answers, the judge calibration.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import Any

from mcot.benchmarks.item import Item
from mcot.eval import judges
from mcot.eval.calibration import answer_word, calibration_pairs, judge_calibration_table, known_answers
from mcot.eval.protocols._gobench_understanding import GOBENCH_DIMENSIONS, reading_text
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.tables import Table, by_mode, correlation_cell, mean, num, with_all_arms

from mcot.rundir import Result, Score

_QUESTION_NUMBER = re.compile(r"^\s*\d+\s*[.)、:]\s*")
"""The numbering of a line of GOBench's `Questions_reality` ("1. ", "2) ", "3、")."""


async def score_generation(scorer: Scorer, item: Item, result: Result, score: Score) -> None:
    """Rate one generated image by the judge: its authenticity questions (Yes 1, No 0, Cannot be determined 0.5,
    summed), aesthetics 1–5 and fidelity 1–5; where the image carries known answers, the calibration pairs."""
    meta = first_image_meta(result)
    score.details["generator"] = result.generator or scorer.generator
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


def first_image_meta(result: Result) -> dict[str, Any]:
    """Return the meta of a result's first generated image (`image_meta[0]`), {} when it has none."""
    return result.image_meta[0] if result.image_meta else {}


def generated_image_path(result: Result) -> str | None:
    """Return the run-relative path of a result's generated image: `image`, else `images[0]`, else `prediction`."""
    return result.first_image() or result.prediction or None


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


GOBENCH_CATEGORY_LABELS = {
    "direct_light_images": "direct light",
    "reflect_light_images": "reflection",
    "refracted_light_images": "refraction",
}
"""GOBench's three categories (the items' `category`) under the paper's names."""
GENERATION_COUNTS = ["unrated", "run errors", "unjudged", "judge errors"]
"""The count columns of the generation tables: images without judge scores, and why (they sum to unrated)."""
DIMENSION_PAIRS = (("aesthetics", "authenticity"), ("authenticity", "fidelity"), ("aesthetics", "fidelity"))
"""The pairs of GOBench's Table 2 (correlations between dimensions)."""


def gobench_category(category: str) -> str:
    """Return the label of a GOBench category (direct light, reflection, refraction), else the category as is."""
    return GOBENCH_CATEGORY_LABELS.get(category, category)


def generation_counts(scores: Sequence[Score]) -> list[str]:
    """Return the GENERATION_COUNTS cells: unrated images, then run errors, unjudged and judge errors among them."""
    errors = sum(1 for s in scores if s.method == "error")
    judge_errors = sum(1 for s in scores if s.method == "judge_error")
    unrated = sum(1 for s in scores if "judge_scores" not in s.details)
    return [str(unrated), str(errors), str(unrated - errors - judge_errors), str(judge_errors)]


def generation_means(scores: Sequence[Score]) -> list[float | None]:
    """Return the mean judge score per dimension (authenticity, aesthetics, fidelity) over the rated images."""
    rated = [s.details["judge_scores"] for s in scores if "judge_scores" in s.details]
    return [mean([float(ratings[dim]) for ratings in rated]) for dim in GOBENCH_DIMENSIONS]


def _generators(scores: Sequence[Score]) -> str:
    names = sorted({str(s.details["generator"]) for s in scores if s.details.get("generator")})
    return ", ".join(names) or "—"


def generation_generator_table(scores: Sequence[Score]) -> Table:
    """Return GOBench Table 1's form: per generator (arm), n images and the mean of each dimension, with the
    unrated images counted (run errors, unjudged, judge errors)."""
    table = Table(
        "GOBench generation — per generator",
        ["Arm", "Generator", "n", "Authenticity (0–5)", "Aesthetics (1–5)", "Fidelity (1–5)", *GENERATION_COUNTS],
    )
    for mode, group in by_mode(scores).items():
        means = generation_means(group)
        table.rows.append(
            [mode, _generators(group), str(len(group)), *(num(m) for m in means), *generation_counts(group)]
        )
    table.notes = [
        "means over the images the judge rated; n = every (item, arm) pair of the arm; unrated = run errors (no "
        "image) + unjudged (no judge, no image or no questions) + judge errors (failed or unparsable replies)",
        "authenticity = the sum of the answers to the image's five questions (Yes 1, No 0, Cannot be determined "
        "0.5); aesthetics and fidelity are the judge's 1–5 ratings (GOBench Table 1 reports human ratings)",
    ]
    return table


def generation_category_table(scores: Sequence[Score]) -> Table:
    """Return the mean of each dimension per generator (arm) and GOBench category (direct light, reflection,
    refraction; other categories by name), with n and the unrated count."""
    table = Table(
        "GOBench generation — per category",
        ["Arm", "Category", "n", "Authenticity (0–5)", "Aesthetics (1–5)", "Fidelity (1–5)", "unrated"],
    )
    order = list(GOBENCH_CATEGORY_LABELS.values())
    for mode, group in by_mode(scores).items():
        cells: dict[str, list[Score]] = defaultdict(list)
        for score in group:
            cells[gobench_category(score.category)].append(score)
        for label in sorted(cells, key=lambda name: (order.index(name) if name in order else len(order), name)):
            cell = cells[label]
            means = generation_means(cell)
            table.rows.append([mode, label, str(len(cell)), *(num(m) for m in means), generation_counts(cell)[0]])
    table.notes = ["means over the rated images of each cell; unrated as in the per-generator table"]
    return table


def generation_correlation_table(scores: Sequence[Score]) -> Table:
    """Return GOBench Table 2's form: PLCC / SRCC between the judge's dimensions per generator (arm), and over
    all arms when there are several; "—" with fewer than 3 rated images."""
    table = Table(
        "GOBench generation — between dimensions (PLCC / SRCC)",
        ["Arm", "n rated", *(f"{a}–{b}" for a, b in DIMENSION_PAIRS)],
    )
    for label, group in with_all_arms(scores):
        rated = [s.details["judge_scores"] for s in group if "judge_scores" in s.details]
        cells = [correlation_cell([(float(r[a]), float(r[b])) for r in rated]) for a, b in DIMENSION_PAIRS]
        table.rows.append([label, str(len(rated)), *cells])
    table.notes = ["over the rated images; — with fewer than 3 (or a constant dimension)"]
    return table


def generation_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the generation tables: per generator (Table 1's form), per category, between dimensions (Table 2's
    form) and, when images carry known answers, the judge calibration."""
    tables = [
        generation_generator_table(scores),
        generation_category_table(scores),
        generation_correlation_table(scores),
    ]
    calibration = judge_calibration_table(scores)
    if calibration is not None:
        tables.append(calibration)
    return tables
