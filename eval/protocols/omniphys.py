"""OmniPhys's scoring: S1 result score, S2/S3 process scores by a judge, diagram grades; its table; its verifier.

One protocol serves as both `official` and `robust`: the paper states the credit rules (single choice and
true/false 1 or 0; multi-select and multi-slot fill-in partial credit only when no wrong option or slot is
given; S2/S3 = n/m key steps) but no extraction rule finer than mcot's, so there is nothing to split. Strict
mastery (P_obj, P_open) is counted in the table (`omniphys_table`) over every objective / open item. The
verifier (mcot.eval.verify.verify_diagram_trace) checks a diagram-editing item's drawn solution path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mcot.benchmarks.item import Item
from mcot.eval import judges
from mcot.eval.extract import (
    extract_boxed,
    extract_boxed_all,
    extract_choice_robust,
    extract_final_answer,
    last_line,
    strip_latex_text,
    yes_no_value,
)
from mcot.eval.headline import Metric
from mcot.eval.match import match_answer
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.tables import COUNT_COLUMNS, Table, by_mode, counts_notes, mean, num, pct, tally
from mcot.eval.verify import verify_diagram_trace

from mcot.rundir import Result, Score

__all__ = ["headline", "official", "robust", "tables", "verifier"]


async def official(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """OmniPhys: S1 (rules, else judge) and S2 for objective items, S3 for open ones, diagram grades."""
    score = scorer.score_for(item, result)
    kind = omniphys_kind(item)
    score.details["task"] = kind
    if kind == "diagram":
        await _omniphys_diagram(scorer, item, result, score)
        return score
    if kind == "open":
        s3 = await _process(scorer, item, text, score)
        if s3 is not None:
            score.score = s3
            score.correct = s3 == 1
            score.details["s3"] = s3
        return score
    s1 = omniphys_result_rule(kind, text, item)
    score.extracted = s1[1]
    if s1[0] is None and scorer.judge is not None:
        reply = await scorer.ask(
            "omniphys_result",
            judges.parse_result_score,
            question=item.question,
            task_type=kind,
            answer=item.answer,
            response=text,
        )
        score.judge = reply.record(scorer.judge.spec)
        if reply.error:
            scorer.judge_failed(score, reply)
            return score
        score.method = "judge"
        s1_value: float | None = reply.value
    else:
        s1_value = s1[0]
        score.method = "rule" if s1_value is not None else "none"
        if s1_value is None:
            score.details["unjudged"] = "rules cannot grade this result: pass --judge"
    score.details["s1"] = s1_value
    if s1_value is None:
        return score
    score.score = s1_value
    score.correct = s1_value == 1
    score.details["s2"] = await _process(scorer, item, text, score, keep_method=True)
    return score


robust = None
"""One protocol: `official` serves under both names."""


async def _process(scorer: Scorer, item: Item, text: str, score: Score, *, keep_method: bool = False) -> float | None:
    """Return n/m from the process judge (None without a judge, a solution, or on a judge error)."""
    solution = omniphys_solution(item)
    if scorer.judge is None or not solution:
        if not keep_method:
            scorer.unjudged(score, "the process score needs a judge and a reference solution")
        return None
    reply = await scorer.ask(
        "omniphys_process", judges.parse_process_score, question=item.question, solution=solution, response=text
    )
    record = reply.record(scorer.judge.spec)
    score.judge = {**(score.judge or {}), "process": record} if keep_method else record
    if reply.error:
        if keep_method:
            score.details["s2_error"] = reply.error
        else:
            scorer.judge_failed(score, reply)
        return None
    if not keep_method:
        score.method = "judge"
    score.details["process"] = {"n": reply.value["n"], "m": reply.value["m"]}
    return float(reply.value["score"])


async def _omniphys_diagram(scorer: Scorer, item: Item, result: Result, score: Score) -> None:
    """Grade an edited diagram with the judge (1 / 0.5 / 0); it sees the input, the reference and the output.

    The output is the result's `image` (a generator's image, or the canvas arm's final canvas). A finished
    answer without any image (a text arm) is no edited diagram: grade 0 by rule. An image that cannot be read,
    or an item whose input or reference diagram is missing, is left unjudged with the reason.
    """
    image_path = produced_image_path(result)
    if image_path is None:
        if result.ok:
            scorer.settle(score, False, grade=0.0, reason="the answer holds no edited diagram (no image)")
        else:
            scorer.unjudged(score, "the answer holds no edited diagram (no image)")
        return
    score.details["image"] = image_path
    produced = scorer.image(image_path, run=True)
    if produced is None:
        scorer.unjudged(score, f"no edited diagram at {image_path!r}")
        return
    if scorer.judge is None:
        scorer.unjudged(score, "diagrams are graded by a judge: pass --judge")
        return
    paths = [item.images[0] if item.images else "", str(item.meta.get("reference_image") or item.answer)]
    given = [scorer.image(path) if path else None for path in paths]
    missing = [name for name, data in zip(("input", "reference"), given, strict=True) if data is None]
    if missing:
        scorer.unjudged(score, f"the item's {' and '.join(missing)} diagram is missing, so the judge cannot compare")
        return
    reply = await scorer.ask(
        "omniphys_diagram",
        judges.parse_diagram_grade,
        images=(*(data for data in given if data is not None), produced),
        question=item.question,
    )
    score.judge = reply.record(scorer.judge.spec)
    if reply.error:
        scorer.judge_failed(score, reply)
        return
    score.method = "judge"
    score.score = reply.value
    score.correct = reply.value == 1
    score.details["grade"] = reply.value


_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")


def produced_image_path(result: Result) -> str | None:
    """Return the run-relative path of the image a result produced, or None when it produced none.

    The result's `image` (else the first of `images`); for older records, a prediction that is itself one
    image path (one line, no `..`, an image suffix).
    """
    image = result.first_image()
    if image and image.strip():
        return image.strip()
    text = result.text.strip()
    plain = text and "\n" not in text and "\x00" not in text and len(text) <= 255 and ".." not in text.split("/")
    return text if plain and text.lower().endswith(_IMAGE_SUFFIXES) else None


def omniphys_kind(item: Item) -> str:
    """Return the OmniPhys task kind: single, multi, tf, fill, open or diagram."""
    raw = str(item.meta.get("task_type") or item.meta.get("type") or item.meta.get("question_type") or "").lower()
    table = [
        ("diagram", ("diagram", "edit", "图")),
        ("multi", ("multi", "多选")),
        ("tf", ("true", "false", "tf", "judge", "判断")),
        ("fill", ("fill", "blank", "填空")),
        ("open", ("open", "calc", "experiment", "design", "计算", "实验", "解答")),
        ("single", ("single", "choice", "单选", "选择")),
    ]
    for kind, needles in table:
        if raw and any(needle in raw for needle in needles):
            return kind
    if item.answer_type == "image":
        return "diagram"
    if item.answer_type == "yesno":
        return "tf"
    if item.answer_type == "choice":
        return "multi" if len(_letters(item.answer)) > 1 else "single"
    if item.answer_type == "number":
        return "fill"
    return "open"


def reference_solution(item: Item) -> str | None:
    """Return the item's reference solution, whose length ranks Test-Mini's hardness (mcot.hardness), or None.

    An optional fixed name of a protocol module (not in `__all__`, which lists the scoring's four).
    """
    return omniphys_solution(item)


def omniphys_solution(item: Item) -> str | None:
    """Return the reference solution of an OmniPhys item (for the process score), or None."""
    for key in ("solution", "reference_solution", "explanation", "analysis", "解析"):
        value = item.meta.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _letters(text: str) -> set[str]:
    return set(re.findall(r"[A-H]", strip_latex_text(text).upper()))


def omniphys_result_rule(kind: str, text: str, item: Item) -> tuple[float | None, str | None]:
    """Return (S1 by rules or None when rules cannot decide, the extracted answer)."""
    final = extract_final_answer(text) or last_line(text)
    if kind == "single":
        letter, _ = extract_choice_robust(text, item.choices)
        if letter is None and item.choices:
            letter = _chinese_choice_text(text, item.choices)
        return (1.0 if letter == item.answer.strip().upper() else 0.0), letter
    if kind == "tf":
        truth = true_false_value(item.answer)
        said = true_false_value(final or "")
        if truth is None or said is None:
            return None, final
        return (1.0 if truth == said else 0.0), final
    if kind == "multi":
        boxed = extract_boxed(text)
        source = strip_latex_text(boxed if boxed is not None else (final or ""))
        chosen = {letter for run in re.findall(r"(?<![A-Za-z])([A-H]+)(?![A-Za-z])", source) for letter in run}
        if not chosen:
            chosen = _letters(source) if re.fullmatch(r"[A-Ha-h\s,、和and]+", source) else set()
        correct = _letters(item.answer)
        if not chosen:
            return 0.0, source
        if chosen - correct:
            return 0.0, "".join(sorted(chosen))
        return len(chosen & correct) / len(correct), "".join(sorted(chosen))
    if kind == "fill":
        given_slots = item.meta.get("slots")
        slots = (
            [str(slot).strip() for slot in given_slots]
            if isinstance(given_slots, list) and given_slots
            else [part.strip() for part in re.split(r"[;；]", item.answer) if part.strip()]
        )
        boxes = extract_boxed_all(text)
        given = boxes if len(boxes) >= len(slots) else _slots(final or "", len(slots))
        if len(given) < len(slots):
            return None, final
        verdicts = [
            match_answer(g, s, answer_type="number").equal for g, s in zip(given[-len(slots) :], slots, strict=True)
        ]
        if any(verdict is False for verdict in verdicts):
            return 0.0, "; ".join(given)
        if any(verdict is None for verdict in verdicts):
            return None, "; ".join(given)
        return 1.0, "; ".join(given)
    return None, final


def _chinese_choice_text(text: str, choices: list[str]) -> str | None:
    """Return the letter of the one Chinese choice text found in `text` ("这是光的色散现象" → 光的色散), or None.

    Chinese has no spaces between words, so a choice text holding CJK characters is found as a plain substring;
    a choice contained in another that is also found does not count separately.
    """
    found = [
        (index, choice.strip())
        for index, choice in enumerate(choices)
        if re.search(r"[\u4e00-\u9fff]", choice) and choice.strip() in text
    ]
    distinct = [hit for hit in found if not any(hit[1] != other[1] and hit[1] in other[1] for other in found)]
    return "ABCDEFGH"[distinct[0][0]] if len(distinct) == 1 else None


def _slots(final: str, count: int) -> list[str]:
    """Return the answers of a final-answer line split into slots: by `;` (or `；`), else by commas when that
    gives exactly `count` parts ("2 m/s, 4 J"; a comma inside a number such as "2,000" does not split)."""
    parts = [part.strip() for part in re.split(r"[;；]", final) if part.strip()]
    if len(parts) < count:
        commas = [part.strip() for part in re.split(r",\s+|，", final) if part.strip()]
        if len(commas) == count:
            return commas
    return parts


_TRUE_FALSE = re.compile(
    r"(?P<no>不是正确|不是对|并不正确|不正确|不对|错误|错|×|✗|\bnot\s+(?:true|correct)\b|\bincorrect\b|\bfalse\b|"
    r"\bwrong\b|^\s*F\s*$)|(?P<yes>正确(?!的?答案)|对(?!于)|√|✓|\btrue\b|\bcorrect\b(?!\s+(?:answer|option|choice))|^\s*T\s*$)",
    re.IGNORECASE,
)


def true_false_value(text: str) -> float | None:
    """Return 1.0 (true) or 0.0 (false) for the first true/false word of `text` (正确/错误, 对/错, √/×, true/false,
    correct/incorrect, a lone T/F; negated forms such as 不正确 and "not true" are false), else its yes/no value."""
    match = _TRUE_FALSE.search(text)
    if match is not None:
        return 0.0 if match.group("no") else 1.0
    return yes_no_value(text)


# ------------------------------------------------------------------------------------------ the table

OMNIPHYS_OBJECTIVE = ("single", "multi", "tf", "fill")


def omniphys_table(scores: Sequence[Score]) -> Table:
    """Return OmniPhys S1, S2, S3, P_obj and P_open (percent) with the judge failures beside each P, the diagram
    mean, and the counts per arm.

    P_obj = objective items with S1 = S2 = 1 over all objective items; P_open = open items with S3 = 1 over all
    open items. An item whose judge failed, that has no process score (no judge, no reference solution) or that
    the run failed on is in the denominator and not mastered. A pair the run failed on scores 0 in every mean of
    its task kind (S1 and S2 for objective items, S3 for open ones, the grade for diagrams).
    """
    columns = ["Mode", "S1", "S2", "S3", "P_obj", "P_obj judge errors", "P_open", "P_open judge errors", "Diagram"]
    table = Table("OmniPhys", [*columns, *COUNT_COLUMNS])
    notes: list[str] = []
    for mode, group in by_mode(scores).items():

        def values(key: str, kinds: tuple[str, ...], group: list[Score] = group) -> list[float]:
            kept = [s for s in group if s.details.get("task") in kinds]
            return [
                0.0 if s.method == "error" else s.details[key]
                for s in kept
                if s.method == "error" or s.details.get(key) is not None
            ]

        objective = omniphys_mastery(group, OMNIPHYS_OBJECTIVE)
        open_ended = omniphys_mastery(group, ("open",))
        table.rows.append(
            [
                mode,
                pct(mean(values("s1", OMNIPHYS_OBJECTIVE))),
                pct(mean(values("s2", OMNIPHYS_OBJECTIVE))),
                pct(mean(values("s3", ("open",)))),
                pct(objective.share),
                str(objective.judge_errors),
                pct(open_ended.share),
                str(open_ended.judge_errors),
                num(mean(values("grade", ("diagram",)))),
                *tally(group).counts(),
            ]
        )
        for name, mastery in (("objective", objective), ("open", open_ended)):
            if mastery.unscored:
                notes.append(
                    f"{mode}: {mastery.unscored} {name} item(s) have no process score (no judge or no reference "
                    "solution) and count as not mastered"
                )
    table.notes = [
        "S1 result score (objective), S2 process score n/m (objective), S3 process score (open); "
        "P_obj = objective items with S1 = S2 = 1 / all objective items, P_open = open items with S3 = 1 / all "
        "open items: an item whose judge failed (judge errors, beside each P) or that the run failed on counts as "
        "not mastered; Diagram = mean grade (1 / 0.5 / 0); a pair the run failed on scores 0 in the means of its "
        "task kind",
        *notes,
        *counts_notes(scores),
    ]
    return table


@dataclass(frozen=True)
class Mastery:
    """Strict mastery of one task group: items, mastered ones, judge failures, items without a process score."""

    n: int
    mastered: int
    judge_errors: int
    unscored: int

    @property
    def share(self) -> float | None:
        """Return mastered / n (every item of the group in the denominator), None when the group is empty."""
        return self.mastered / self.n if self.n else None


def omniphys_mastery(scores: Sequence[Score], kinds: tuple[str, ...]) -> Mastery:
    """Return the strict mastery of the OmniPhys scores of task `kinds` (objective: S1 = S2 = 1; open: S3 = 1).

    Judge errors: items whose result or process judge failed (method "judge_error", or `s2_error` recorded).
    Unscored: items, neither failed in the run nor by a judge, that have no process score.
    """
    group = [s for s in scores if s.details.get("task") in kinds]
    key = "s3" if kinds == ("open",) else "s2"
    mastered = judge_errors = unscored = 0
    for s in group:
        if s.method == "error":
            continue
        if s.method == "judge_error" or "s2_error" in s.details:
            judge_errors += 1
        elif s.details.get(key) is None:
            unscored += 1
        elif is_mastered(s):
            mastered += 1
    return Mastery(len(group), mastered, judge_errors, unscored)


def is_mastered(score: Score) -> bool:
    """Return whether an OmniPhys item is mastered: objective S1 = S2 = 1, open S3 = 1, no run or judge failure."""
    if score.method in ("error", "judge_error") or "s2_error" in score.details:
        return False
    if score.details.get("task") == "open":
        return score.details.get("s3") == 1
    return score.details.get("s2") == 1 and score.details.get("s1") == 1


def tables(scores: Sequence[Score]) -> list[Table]:
    """Return the OmniPhys table of OmniPhys scores."""
    return [omniphys_table(scores)]


verifier = verify_diagram_trace

headline = (
    Metric("P_obj", select=lambda score: score.details.get("task") in OMNIPHYS_OBJECTIVE, right=is_mastered),
    Metric("P_open", select=lambda score: score.details.get("task") == "open", right=is_mastered),
)
"""OmniPhys's headline: strict mastery of the objective and of the open items (the table's P_obj and P_open)."""
