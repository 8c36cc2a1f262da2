"""RBench-V's scoring: `official` (the published judge pipeline, in its own words), `robust` (mcot's rules), its table.

Official (the RBench-V VLMEvalKit fork's evaluate(), with VLMEvalKit's MathVerse helpers): the judge extracts the
answer with MathVerse's extraction prompt (`mathverse_extract`, quoted verbatim; the reply is kept as it is, up to
5 tries when the call fails, try k at temperature 0.5·k); an extraction equal to the item's raw answer once both
are trimmed is correct with no verdict call; otherwise the judge's reply to MathVerse's scoring prompt
(`mathverse_score`) must be exactly `0` or `1` (up to 5 tries), and 5 failed tries score 0 (method `judge_error`,
counted wrong). The judge the fork names is GPT-4o (`OFFICIAL_JUDGE`). No tolerance, units or boxed shortcut.
Without a judge only `exact_reading` can settle an item (correct); everything else is unjudged, so the table is a
lower bound (its title says so).

Robust: the last `\\boxed{}` (or, for choice items, the option letter) is matched by rules (`rbench_match`:
counts, angles, then `mcot.eval.match.match_answer`); what they cannot settle goes to the judge with mcot's own
`rbench_extract` / `rbench_verdict`, once per stage. docs/scoring.md lists every rule of both.

The table: accuracy per arm, Overall and w/o Math as micro means over items (as in the paper), each category.
No trace verifier.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcot.benchmarks.item import Item
from mcot.eval import judges
from mcot.eval.extract import extract_boxed, extract_boxed_all, extract_choice
from mcot.eval.headline import Metric
from mcot.eval.match import Match, match_angle, match_answer, parse_number, parse_quantity
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.tables import COUNT_COLUMNS, Table, by_mode, counts_notes, pct, tally

from mcot.rundir import Result, Score

__all__ = ["headline", "official", "robust", "tables", "verifier"]

OFFICIAL_TRIES = 5
"""Calls per judge stage in the official protocol before the stage counts as failed (score 0)."""
OFFICIAL_TEMPERATURE_STEP = 0.5
"""Try k of a stage is asked at temperature k × 0.5 (0, 0.5, 1.0, …) where the judge takes a temperature."""
OFFICIAL_JUDGE = "openai:gpt-4o"
"""The judge of the published evaluation (the fork builds GPT-4o); what a message asking for `--judge` names."""
judge = OFFICIAL_JUDGE
"""The judge the official protocol names (`ScoringSpec.judge`): what a lower-bound table tells the user to pass."""
NEEDS_JUDGE = (
    f"official protocol: only a judge extracts the answer (pass --judge {OFFICIAL_JUDGE}, the published judge)"
)
COUNTING = "counting"
CATEGORIES = ("math", "physics", "counting", "game")


def exact_reading(text: str, answer: str) -> str | None:
    """Return the rule by which `text` states exactly `answer` with no judge needed, or None.

    "exact-response": the whole trimmed response is the trimmed answer; "exact-boxed": the response holds one
    `\\boxed{}` and its trimmed content is the trimmed answer. Any judge's extraction of such a response is the
    answer itself, which the official exact-string rule scores 1 without a verdict call.
    """
    target = answer.strip()
    if not target:
        return None
    if text.strip() == target:
        return "exact-response"
    boxes = extract_boxed_all(text)
    if len(boxes) == 1 and boxes[0].strip() == target:
        return "exact-boxed"
    return None


def raw_answer(item: Item) -> str:
    """Return the answer as the dataset holds it (`5`, where the loader maps a choice item's answer to `B`)."""
    raw = item.meta.get("answer_raw") if isinstance(item.meta, dict) else None
    return str(raw) if raw is not None else item.answer


async def official(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """RBench-V official: MathVerse extraction, exact string against the raw answer, else the 0/1 verdict."""
    score = scorer.score_for(item, result)
    answer = raw_answer(item)
    if scorer.judge is None:
        rule = exact_reading(text, answer)
        if rule is not None:
            score.extracted = answer.strip()
            scorer.settle(score, True, "rule", match=rule)
        else:
            scorer.unjudged(score, NEEDS_JUDGE)
        return score
    template = scorer.templates
    extraction = await judges.ask_judge_retrying(
        scorer.judge,
        template["mathverse_extract"],
        judges.parse_extraction_verbatim,
        tries=OFFICIAL_TRIES,
        temperature_step=OFFICIAL_TEMPERATURE_STEP,
        cache=scorer.cache,
        response=text,
    )
    records = [extraction.record(scorer.judge.spec)]
    score.judge = records[0]
    if extraction.error:
        scorer.judge_failed(score, extraction)
        return score
    extracted = str(extraction.value)
    score.extracted = extracted
    if extracted.strip() == answer.strip():
        scorer.settle(score, True, "judge", match="exact-after-extraction")
        return score
    verdict = await judges.ask_judge_retrying(
        scorer.judge,
        template["mathverse_score"],
        judges.parse_verdict_exact,
        tries=OFFICIAL_TRIES,
        temperature_step=OFFICIAL_TEMPERATURE_STEP,
        cache=scorer.cache,
        question=item.question,
        answer=answer,
        extracted=extracted,
    )
    records.append(verdict.record(scorer.judge.spec))
    score.judge = {**records[-1], "stages": records}
    if verdict.error:
        scorer.judge_failed(score, verdict)
        return score
    scorer.settle(score, bool(verdict.value), "judge", match="judge-verdict")
    return score


def rbench_match(extracted: str, item: Item, rel_tol: float) -> Match:
    """Return the robust rules' verdict on an extracted answer: counts, then angles, then `match_answer`.

    A counting item whose answer is an integer is wrong for a response that is a non-integer number
    ("non-integer-count"); an angle in degrees or radians on one side and an angle or a multiple of π on the
    other are compared in radians ("angle").
    """
    if item.category.lower() == COUNTING:
        want = parse_number(item.answer)
        got = parse_quantity(extracted)
        if want is not None and float(want).is_integer() and got is not None and not float(got.value).is_integer():
            return Match(False, "non-integer-count", {"extracted_value": got.value, "answer_value": want})
    angle = match_angle(extracted, item.answer, rel_tol)
    if angle is not None:
        return angle
    return match_answer(extracted, item.answer, answer_type=item.answer_type, choices=item.choices, rel_tol=rel_tol)


async def robust(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """RBench-V robust: the last boxed answer (or option letter) by rules, else judge extraction, rules, 0/1 verdict."""
    score = scorer.score_for(item, result)
    extracted = extract_boxed(text)
    if extracted is None and item.answer_type == "choice":
        extracted = extract_choice(text, item.choices)
    score.extracted = extracted
    if extracted is not None:
        verdict = rbench_match(extracted, item, scorer.rel_tol)
        if verdict.equal is not None:
            scorer.settle(score, verdict.equal, match=verdict.rule, **verdict.details)
            return score
    if scorer.judge is None:
        reason = "no boxed answer" if extracted is None else "rules cannot compare the answers"
        scorer.unjudged(score, f"{reason}: pass --judge")
        return score
    records: list[dict[str, Any]] = []
    if extracted is None:
        reply = await scorer.ask("rbench_extract", judges.parse_extraction, question=item.question, response=text)
        records.append(reply.record(scorer.judge.spec))
        score.judge = records[-1]
        if reply.error:
            scorer.judge_failed(score, reply)
            return score
        extracted = reply.value
        score.extracted = extracted
        if extracted is None:
            scorer.settle(score, False, "judge", match="judge-found-no-answer")
            return score
        ruled = rbench_match(extracted, item, scorer.rel_tol)
        if ruled.equal is not None:
            scorer.settle(score, ruled.equal, "judge", match=ruled.rule, extracted_by="judge", **ruled.details)
            return score
    reply = await scorer.ask(
        "rbench_verdict", judges.parse_binary, question=item.question, answer=item.answer, extracted=extracted
    )
    records.append(reply.record(scorer.judge.spec))
    score.judge = records[-1] if len(records) == 1 else {**records[-1], "stages": records}
    if reply.error:
        scorer.judge_failed(score, reply)
        return score
    scorer.settle(score, bool(reply.value), "judge", match="judge-verdict")
    return score


def tables(scores: Sequence[Score]) -> list[Table]:
    """Return RBench-V accuracy per arm: Overall and w/o Math (micro means), each category, and the counts."""
    table = Table("RBench-V", ["Mode", "Overall", "w/o Math", "Math", "Physics", "Counting", "Game", *COUNT_COLUMNS])
    for mode, group in by_mode(scores).items():
        cats = {cat: tally(s for s in group if s.category.lower() == cat) for cat in CATEGORIES}
        overall = tally(group)
        without = tally(s for s in group if s.category.lower() != "math")
        table.rows.append(
            [mode, pct(overall.accuracy), pct(without.accuracy)]
            + [pct(cats[cat].accuracy) for cat in CATEGORIES]
            + overall.counts()
        )
    table.notes = ["Overall and w/o Math are micro means over items (as in the paper)", *counts_notes(scores)]
    return [table]


verifier = None
"""No trace verifier: answers only."""

headline = (Metric("Overall"), Metric("w/o Math", select=lambda score: score.category.lower() != "math"))
"""RBench-V's headline: Overall and w/o Math, micro means over items (the table's first two columns)."""
