"""Each benchmark's scoring protocol: from an item and a model's result to a `Score` (rules first, then a judge).

A protocol is a module-level coroutine `(scorer, item, text, result, score) -> None` that fills `score`; the
benchmark's declaration registers it (eval.registry). A result that failed (status "error" or "budget") never
reaches a protocol: it is scored `method: "error"`, wrong, with the status and reason in its details.
A protocol never guesses what it could not decide: without a judge, what rules cannot settle gets method
"none" (unjudged); a judge that fails or replies unparsably gives method "judge_error". Both have `correct`
None; the report counts them wrong in its accuracies and shows them in their own columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.item import Item
from eval import judges
from eval.extract import (
    extract_boxed,
    extract_boxed_all,
    extract_choice,
    extract_final_answer,
    extract_rating,
    extract_yes_no_answers,
    strip_latex_text,
    yes_no_value,
)
from eval.judges import JudgeCache, JudgeModel, JudgeReply, Template
from eval.match import DEFAULT_REL_TOL, match_answer, normalize_text, parse_quantity
from eval.registry import scoring_spec
from eval.rundir import Score

GOBENCH_DIMENSIONS = ("authenticity", "aesthetics", "fidelity")
FAILED_STATUSES = ("error", "budget")
FACET_KEYS = ("level", "task")
"""Details that say which kind of item a score is (the cell a table puts it in), kept on failed pairs too."""


def failed_score(item: Item, mode: str, status: str, reason: str) -> Score:
    """Return the score of an (item, arm) the run did not finish: wrong, method "error", status and reason kept."""
    return Score(
        id=item.id,
        mode=mode,
        benchmark=item.benchmark,
        category=item.category,
        score=0.0,
        correct=False,
        method="error",
        details={"status": status, "reason": reason},
    )


@dataclass
class Scorer:
    """What a protocol needs besides the item: an optional judge, the templates, the cache, file roots."""

    judge: JudgeModel | None = None
    templates: dict[str, Template] = field(default_factory=judges.load_templates)
    cache: JudgeCache | None = None
    items_root: Path = Path(".")
    run_root: Path = Path(".")
    rel_tol: float = DEFAULT_REL_TOL
    generator: str | None = None

    async def score(self, item: Item, result: dict[str, Any]) -> Score:
        """Return the score of one (item, result) pair under the protocol registered for the item's benchmark."""
        base = Score(
            id=item.id,
            mode=str(result.get("mode")),
            benchmark=item.benchmark,
            category=item.category,
            score=None,
            correct=None,
            method="none",
        )
        status = str(result.get("status", "ok"))
        if status in FAILED_STATUSES:
            reason = str(result.get("error") or f"the run ended this item with status {status!r}")
            return await self.failed(item, base.mode, status, reason)
        base.details["status"] = status
        text = str(result.get("prediction") or "")
        await scoring_spec(item.benchmark).protocol(self, item, text, result, base)
        return base

    async def failed(self, item: Item, mode: str, status: str, reason: str) -> Score:
        """Return the score of a pair the run did not finish: wrong, method "error", with the item's facets.

        The facets (FACET_KEYS, e.g. GePBench's level, OmniPhys's task kind) are what the item's protocol
        records for an empty answer without a judge, so that report tables put the failure in its cell.
        """
        score = failed_score(item, mode, status, reason)
        probe = Score(item.id, mode, item.benchmark, item.category, None, None, "none")
        judgeless = Scorer(templates=self.templates, items_root=self.items_root, run_root=self.run_root)
        try:
            await scoring_spec(item.benchmark).protocol(judgeless, item, "", {"mode": mode, "status": status}, probe)
        except Exception:  # a protocol that cannot read an empty answer leaves the failure without facets
            return score
        score.details.update({key: probe.details[key] for key in FACET_KEYS if key in probe.details})
        return score

    # ---------------------------------------------------------------------------------------- helpers

    def settle(self, score: Score, correct: bool, method: str = "rule", **details: Any) -> None:
        """Mark `score` decided (1.0 or 0.0) by `method`, with `details` added; returns nothing."""
        score.correct = correct
        score.score = 1.0 if correct else 0.0
        score.method = method  # type: ignore[assignment]
        score.details.update(details)

    def unjudged(self, score: Score, reason: str) -> None:
        """Mark `score` unjudged (method "none": rules could not decide, no judge) with the reason; returns nothing."""
        score.method = "none"
        score.details["unjudged"] = reason

    def judge_failed(self, score: Score, reply: JudgeReply) -> None:
        """Mark `score` a judge error (method "judge_error") with the judge's error; returns nothing."""
        score.method = "judge_error"
        score.correct = None
        score.score = None
        score.details["judge_error"] = reply.error

    async def ask(self, name: str, parse: Any, images: tuple[bytes, ...] = (), **values: object) -> JudgeReply:
        """Return the judge's parsed reply to template `name` filled with `values` (cached); needs a judge."""
        assert self.judge is not None
        return await judges.ask_judge(
            self.judge, self.templates[name], parse, cache=self.cache, images=images, **values
        )

    def image(self, relative: str, *, run: bool = False) -> bytes | None:
        """Return the bytes of an image under the items root (or the run root), or None when absent."""
        path = (self.run_root if run else self.items_root) / relative
        return path.read_bytes() if path.is_file() else None


# ------------------------------------------------------------------------------------ protocols


async def rbench_v_protocol(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """RBench-V: the last boxed answer (rules), else judge extraction; rules, else a 0/1 judge verdict."""
    extracted = extract_boxed(text)
    if extracted is None and item.answer_type == "choice":
        extracted = extract_choice(text, item.choices)
    score.extracted = extracted
    if extracted is not None:
        verdict = match_answer(extracted, item.answer, answer_type=item.answer_type, choices=item.choices)
        if verdict.equal is not None:
            scorer.settle(score, verdict.equal, match=verdict.rule, **verdict.details)
            return
    if scorer.judge is None:
        scorer.unjudged(score, "no boxed answer" if extracted is None else "rules cannot compare the answers")
        return
    records: list[dict[str, Any]] = []
    if extracted is None:
        reply = await scorer.ask("rbench_extract", judges.parse_extraction, question=item.question, response=text)
        records.append(reply.record(scorer.judge.spec))
        score.judge = records[-1]
        if reply.error:
            scorer.judge_failed(score, reply)
            return
        extracted = reply.value
        score.extracted = extracted
        if extracted is None:
            scorer.settle(score, False, "judge", match="judge-found-no-answer")
            return
        if extracted.strip() == item.answer.strip():
            scorer.settle(score, True, "judge", match="exact-after-extraction")
            return
    reply = await scorer.ask(
        "rbench_verdict", judges.parse_binary, question=item.question, answer=item.answer, extracted=extracted
    )
    records.append(reply.record(scorer.judge.spec))
    score.judge = records[-1] if len(records) == 1 else {**records[-1], "stages": records}
    if reply.error:
        scorer.judge_failed(score, reply)
        return
    scorer.settle(score, bool(reply.value), "judge", match="judge-verdict")


async def gepbench_protocol(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """GePBench: the last standalone letter, else the single choice text present, else wrong."""
    letter = extract_choice(text, item.choices)
    score.extracted = letter
    answer = item.answer.strip().upper()
    texts = [normalize_text(str(choice)) for choice in item.choices or []]
    if len(answer) != 1 and normalize_text(item.answer) in texts:
        answer = "ABCDEFGH"[texts.index(normalize_text(item.answer))]
    if "level" in item.meta:
        score.details["level"] = item.meta["level"]
    scorer.settle(score, letter == answer, match="letter" if letter else "no-letter")


async def games_protocol(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """Generated games: letters like GePBench; numbers by numeric match; the drawn trace is verified too."""
    if item.answer_type == "choice":
        await gepbench_protocol(scorer, item, text, result, score)
    else:
        await generic_protocol(scorer, item, text, result, score)


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
        extracted = _last_line(text) if item.answer_type in ("yesno", "text") else _last_number(text)
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


async def gobench_protocol(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """GOBench: understanding items by Scaled Proximity Score; generated images rated by a judge."""
    if item.meta.get("task") == "generation" or item.answer_type == "image":
        score.details["task"] = "generation"
        await _gobench_generation(scorer, item, result, score)
        return
    score.details["task"] = "understanding"
    model = model_gobench_scores(text)
    human = human_gobench_scores(item)
    score.extracted = None
    score.details["model_scores"] = model
    score.details["human_scores"] = human
    score.details["unparsable"] = [dim for dim in GOBENCH_DIMENSIONS if model.get(dim) is None]
    if not human:
        scorer.unjudged(score, "the item has no human scores to compare with (convert with --scores)")
        return
    from eval.metrics import scaled_proximity_score

    sps = {
        dim: scaled_proximity_score(model[dim], human[dim])
        for dim in GOBENCH_DIMENSIONS
        if model.get(dim) is not None and human.get(dim) is not None
    }
    score.details["sps"] = sps
    score.method = "rule"
    score.score = sum(sps.values()) / len(sps) if sps else None


async def _gobench_generation(scorer: Scorer, item: Item, result: dict[str, Any], score: Score) -> None:
    score.details["generator"] = result.get("generator") or scorer.generator
    image_path = result.get("image") or result.get("prediction")
    image = scorer.image(str(image_path), run=True) if image_path else None
    if image is None:
        score.details["unjudged"] = f"no generated image at {image_path!r}"
        score.method = "none"
        return
    if scorer.judge is None:
        scorer.unjudged(score, "generated images are rated by a judge: pass --judge")
        return
    reply = await scorer.ask(
        "gobench_rate",
        judges.parse_gobench_rating,
        images=(image,),
        prompt=item.meta.get("prompt", item.question),
        questions=item.meta.get("Questions_reality", item.question),
    )
    score.judge = reply.record(scorer.judge.spec)
    if reply.error:
        scorer.judge_failed(score, reply)
        return
    score.method = "judge"
    score.details["judge_scores"] = {dim: reply.value[dim] for dim in GOBENCH_DIMENSIONS}
    score.details["answers"] = reply.value["answers"]


async def omniphys_protocol(scorer: Scorer, item: Item, text: str, result: dict[str, Any], score: Score) -> None:
    """OmniPhys: S1 (rules, else judge) and S2 for objective items, S3 for open ones, diagram grades."""
    kind = omniphys_kind(item)
    score.details["task"] = kind
    if kind == "diagram":
        await _omniphys_diagram(scorer, item, result, score)
        return
    if kind == "open":
        s3 = await _process(scorer, item, text, score)
        if s3 is not None:
            score.score = s3
            score.correct = s3 == 1
            score.details["s3"] = s3
        return
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
            return
        score.method = "judge"
        s1_value: float | None = reply.value
    else:
        s1_value = s1[0]
        score.method = "rule" if s1_value is not None else "none"
        if s1_value is None:
            score.details["unjudged"] = "rules cannot grade this result: pass --judge"
    score.details["s1"] = s1_value
    if s1_value is None:
        return
    score.score = s1_value
    score.correct = s1_value == 1
    score.details["s2"] = await _process(scorer, item, text, score, keep_method=True)


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


async def _omniphys_diagram(scorer: Scorer, item: Item, result: dict[str, Any], score: Score) -> None:
    image_path = result.get("image") or result.get("prediction")
    produced = scorer.image(str(image_path), run=True) if image_path else None
    if produced is None:
        scorer.unjudged(score, f"no edited diagram at {image_path!r}")
        return
    if scorer.judge is None:
        scorer.unjudged(score, "diagrams are graded by a judge: pass --judge")
        return
    paths = [*item.images[:1], str(item.meta.get("reference_image") or item.answer)]
    given = [data for data in (scorer.image(path) for path in paths) if data is not None]
    reply = await scorer.ask(
        "omniphys_diagram", judges.parse_diagram_grade, images=(*given, produced), question=item.question
    )
    score.judge = reply.record(scorer.judge.spec)
    if reply.error:
        scorer.judge_failed(score, reply)
        return
    score.method = "judge"
    score.score = reply.value
    score.correct = reply.value == 1
    score.details["grade"] = reply.value


# ----------------------------------------------------------------------------- GOBench score readers


def model_gobench_scores(text: str) -> dict[str, float | None]:
    """Return a critic's authenticity (sum of the five answers), aesthetics and fidelity from its response."""
    answers = extract_yes_no_answers(text, 5)
    authenticity = sum(value for value in answers if value is not None) if None not in answers else None
    aesthetics = extract_rating(text, "aesthetic")
    fidelity = extract_rating(text, "consistency")
    if fidelity is None:
        fidelity = extract_rating(text, "fidelity")
    return {"authenticity": authenticity, "aesthetics": aesthetics, "fidelity": fidelity}


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


# ---------------------------------------------------------------------------------- OmniPhys readers


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
    final = extract_final_answer(text) or _last_line(text)
    if kind == "single":
        letter = extract_choice(text, item.choices)
        return (1.0 if letter == item.answer.strip().upper() else 0.0), letter
    if kind == "tf":
        truth = yes_no_value(_tf_words(item.answer))
        said = yes_no_value(_tf_words(final or ""))
        if truth is None or said is None:
            return None, final
        return (1.0 if truth == said else 0.0), final
    if kind == "multi":
        boxed = extract_boxed(text)
        source = boxed if boxed is not None else (final or "")
        chosen = set(re.findall(r"(?<![A-Za-z])([A-H])(?![A-Za-z])", source.upper().replace(",", " ")))
        if not chosen:
            chosen = _letters(source) if re.fullmatch(r"[A-Ha-h\s,、和and]+", source) else set()
        truth = _letters(item.answer)
        if not chosen:
            return 0.0, source
        if chosen - truth:
            return 0.0, "".join(sorted(chosen))
        return len(chosen & truth) / len(truth), "".join(sorted(chosen))
    if kind == "fill":
        given_slots = item.meta.get("slots")
        slots = (
            [str(slot).strip() for slot in given_slots]
            if isinstance(given_slots, list) and given_slots
            else [part.strip() for part in re.split(r"[;；]", item.answer) if part.strip()]
        )
        boxes = extract_boxed_all(text)
        given = boxes if len(boxes) >= len(slots) else [p.strip() for p in re.split(r"[;；]", final or "") if p.strip()]
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


def _tf_words(text: str) -> str:
    text = text.replace("正确", "yes").replace("错误", "no").replace("对", "yes").replace("错", "no")
    text = text.replace("√", "yes").replace("×", "no").replace("✓", "yes").replace("✗", "no")
    return text


def _last_line(text: str) -> str | None:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else None


def _last_number(text: str) -> str | None:
    numbers = re.findall(r"-?\d+(?:\.\d+)?(?:\s*(?:[a-zA-Z°%]+(?:/[a-zA-Z²]+)?))?", text)
    for candidate in reversed(numbers):
        if parse_quantity(candidate) is not None:
            return candidate.strip()
    return None
