"""Malformed judge replies (and malformed answers) against every protocol in mcot.eval.protocols: no protocol
crashes, every score stays a valid score line, and a judge that fails or replies unusably is counted the way the
protocol counts it (method "judge_error", correct None), never as a verdict.

The judge replies anything hypothesis draws: empty, prose, broken or nested JSON, NaN and infinities, numbers
out of range, huge numbers, very long text; a second judge raises on every call.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcot.benchmarks.item import Item
from mcot.eval import judges
from mcot.eval.protocols import Scorer, games, generic, gepbench, gobench, omniphys, rbench_v
from PIL import Image

from mcot.rundir import Result, Score

EXAMPLES = int(os.environ.get("PROTOCOL_FUZZ_EXAMPLES", "30"))
"""Replies tried per (protocol, item) case (CI size)."""

PROTOCOLS = {
    "generic": generic.official,
    "games": games.official,
    "gepbench official": gepbench.official,
    "gepbench robust": gepbench.robust,
    "gobench official": gobench.official,
    "gobench robust": gobench.robust,
    "omniphys": omniphys.official,
    "rbench-v official": rbench_v.official,
    "rbench-v robust": rbench_v.robust,
}
METHODS = {"rule", "judge", "judge_error", "none", "error"}


def _item(benchmark: str, answer_type: str = "text", answer: str = "50 cm", **meta: Any) -> Item:
    choices = ["red", "green", "blue", "none"] if answer_type == "choice" else None
    images = ["in.png"] if meta.pop("with_image", False) else []
    return Item(id="q1", benchmark=benchmark, category="physics", question="How far? (A) red (B) green",
                images=images, choices=choices, answer=answer, answer_type=answer_type, meta=meta)  # fmt: skip


HUMAN = {"human_scores": {"authenticity": 3.5, "aesthetics": 4.0, "fidelity": 2.0}}
CASES: dict[str, tuple[str, Item]] = {
    "generic text": ("generic", _item("x", "text")),
    "generic number": ("generic", _item("x", "number", "12.5")),
    "generic choice": ("generic", _item("x", "choice", "B")),
    "games": ("games", _item("games", "number", "7")),
    "gepbench official": ("gepbench official", _item("gepbench", "choice", "C", level="easy")),
    "gepbench robust": ("gepbench robust", _item("gepbench", "choice", "C", level="hard")),
    "gobench understanding official": ("gobench official", _item("gobench", "text", "", **HUMAN)),
    "gobench understanding robust": ("gobench robust", _item("gobench", "text", "", **HUMAN)),
    "gobench generation": (
        "gobench official",
        _item("gobench", "image", "", task="generation", questions_reality=["Is it lit right?", "Is it real?"]),
    ),
    "omniphys single": ("omniphys", _item("omniphys", "choice", "B", task_type="single_choice")),
    "omniphys multi": ("omniphys", _item("omniphys", "choice", "A,C", task_type="multi_select")),
    "omniphys tf": ("omniphys", _item("omniphys", "yesno", "对", task_type="true_false", solution="看图")),
    "omniphys fill": ("omniphys", _item("omniphys", "number", "3; 4", task_type="fill_in", solution="列方程")),
    "omniphys open": ("omniphys", _item("omniphys", "text", "2 m/s²", task_type="open_ended", solution="受力分析")),
    "omniphys diagram": (
        "omniphys",
        _item("omniphys", "image", "ref.png", task_type="diagram_editing", with_image=True, reference_image="ref.png"),
    ),
    "rbench-v official": ("rbench-v official", _item("rbench-v", "text")),
    "rbench-v robust": ("rbench-v robust", _item("rbench-v", "text")),
}

replies = st.one_of(
    st.text(max_size=200),
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "1",
            "0.5",
            "-1",
            "2",
            "NaN",
            "Infinity",
            "-Infinity",
            "1e999",
            "1e-999",
            "None",
            "NONE",
            '{"score": NaN}',
            '{"score": Infinity}',
            '{"score": 1e999}',
            '{"score": "1"}',
            '{"score": true}',
            '{"grade": 0.5}',
            '{"grade": 2}',
            '{"grade": null}',
            '{"verdict": 1}',
            '{"verdict": "yes"}',
            '{"steps_total": 0, "steps_present": 0}',
            '{"steps_total": 3, "steps_present": 5}',
            '{"steps_total": 1e400, "steps_present": 1}',
            '{"steps_total": true, "steps_present": false}',
            '```json\n{"score": 1}\n```',
            "{",
            "[[[[[[[[",
            "\\boxed{",
            "Final answer:",
            "1. Yes\n2. No",
            "Aesthetics Rating: 99\nInstruction Consistency Rating: -3",
            "Total Score: 4.5.\nAesthetics Rating: NaN",
            "Yes Yes Yes Yes Yes\nAesthetics: 6\nFidelity: 0",
            "Yes\nNo\nCannot be determined\nAesthetics 3\nConsistency 3",
            "\x00\x01\x02",
            "\ud7ff" * 10,
            "9" * 5000,
            "x" * 100_000,
        ]
    ),
    st.builds(
        lambda v: json.dumps(v, allow_nan=True),
        st.recursive(
            st.one_of(
                st.none(),
                st.booleans(),
                st.floats(allow_nan=True, allow_infinity=True),
                st.integers(),
                st.text(max_size=10),
            ),
            lambda inner: st.one_of(
                st.lists(inner, max_size=3),
                st.dictionaries(
                    st.sampled_from(["score", "grade", "verdict", "steps_total", "steps_present", "consistent"]),
                    inner,
                    max_size=3,
                ),
            ),
            max_leaves=6,
        ),
    ),
)
answers = st.one_of(
    st.text(max_size=80),
    st.sampled_from(
        [
            "\\boxed{B}",
            "\\boxed{0.5 m}",
            "\\boxed{}",
            "\\boxed{\\boxed{",
            "A,C",
            "对",
            "3; 4",
            "Total Score: 3",
            "",
            "\\frac{1}{0}",
            "1e999",
            "NaN",
            "x" * 20_000,
        ]
    ),
)


class Judge:
    """A judge that answers from a list of replies (the last one repeats), recording how often it was asked."""

    spec = "scripted:fuzz"

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies) or [""]
        self.asked = 0

    async def ask(self, prompt: str, images: Sequence[bytes] = (), temperature: float = 0.0) -> str:
        reply = self.replies[min(self.asked, len(self.replies) - 1)]
        self.asked += 1
        return reply


class FailingJudge(Judge):
    """A judge whose every call fails."""

    async def ask(self, prompt: str, images: Sequence[bytes] = (), temperature: float = 0.0) -> str:
        self.asked += 1
        raise ConnectionError("judge unreachable")


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    items, run = tmp_path_factory.mktemp("items"), tmp_path_factory.mktemp("run")
    (items / "in.png").write_bytes(_png())
    (items / "ref.png").write_bytes(_png())
    (run / "blobs").mkdir()
    (run / "blobs" / "out.png").write_bytes(_png())
    return items, run


def _score(case: str, answer: str, judge: Judge | None, roots: tuple[Path, Path]) -> Score:
    name, item = CASES[case]
    items, run = roots
    scorer = Scorer(judge=judge, items_root=items, run_root=run, cache=None)
    result = {"id": item.id, "mode": "canvas", "status": "ok", "prediction": answer}
    if item.answer_type == "image":
        result["image"] = "blobs/out.png"
    return asyncio.run(PROTOCOLS[name](scorer, item, answer, Result.from_line(result)))


def _check(score: Score, where: str) -> None:
    """A score line every report can read: known method, score in [0, 1] or None, a bool or None correct."""
    assert score.method in METHODS, where
    assert score.score is None or (math.isfinite(score.score) and 0.0 <= score.score <= 1.0), (where, score.score)
    assert score.correct in (True, False, None), where
    if score.method == "judge_error":
        assert score.correct is None and score.score is None and score.details.get("judge_error"), where
    json.loads(json.dumps(json.loads(score.to_json_line()), allow_nan=False))


@pytest.mark.parametrize("case", list(CASES))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)
@given(said=st.lists(replies, min_size=1, max_size=6), answer=answers)
def test_malformed_judge_replies_never_crash_a_protocol(
    case: str, said: list[str], answer: str, roots: tuple[Path, Path]
) -> None:
    judge = Judge(said)
    score = _score(case, answer, judge, roots)
    _check(score, f"{case}: answer {answer[:60]!r}, judge said {[s[:60] for s in said]}")
    if judge.asked and score.method == "judge":
        assert score.judge is not None and score.judge.get("raw") is not None  # the verdict's reply is recorded


@pytest.mark.parametrize("case", list(CASES))
def test_a_failing_judge_is_a_judge_error_never_a_verdict(case: str, roots: tuple[Path, Path]) -> None:
    for answer in ("\\boxed{it goes left}", "I do not know", ""):
        judge = FailingJudge([])
        score = _score(case, answer, judge, roots)
        _check(score, case)
        assert score.method != "judge", (case, answer, score)
        if judge.asked and score.method not in ("rule", "none"):
            assert score.method == "judge_error" and "judge unreachable" in json.dumps(score.details)


UNPARSABLE = {
    "parse_binary": ["", "yes", "2", "-1", '{"verdict": 2}', "NaN", "0.5"],
    "parse_verdict_exact": ["", " 0 1", "yes", "01", "1."],
    "parse_result_score": ["", "NaN", '{"score": NaN}', '{"score": Infinity}', "1e999", '{"score": 1.5}', "-0.1"],
    "parse_process_score": ["", '{"steps_total": 0, "steps_present": 0}', '{"steps_total": 2, "steps_present": 3}',
                            '{"steps_total": 2.0, "steps_present": 1}', '{"steps_total": true, "steps_present": 1}'],
    "parse_diagram_grade": ["", '{"grade": 0.7}', '{"grade": NaN}', "Infinity", '{"grade": "1"}'],
    "parse_gobench_rating": ["", "Yes", "Aesthetics: 3", "1. Yes\n2. No\n3. Yes\n4. No\n5. Yes"],
    "parse_extraction": ["", "   ", "Final answer:   "],
}  # fmt: skip


@pytest.mark.parametrize("parser", list(UNPARSABLE))
def test_each_parser_refuses_what_it_cannot_read(parser: str) -> None:
    parse = getattr(judges, parser)
    for raw in UNPARSABLE[parser]:
        with pytest.raises(judges.JudgeError):
            parse(raw)


@settings(max_examples=EXAMPLES * 10, deadline=None, derandomize=True, database=None)
@given(raw=replies)
def test_a_parser_returns_a_value_in_range_or_refuses(raw: str) -> None:
    for name in ("parse_binary", "parse_verdict_exact", "parse_result_score", "parse_diagram_grade"):
        try:
            value = getattr(judges, name)(raw)
        except judges.JudgeError:
            continue
        assert isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= 1, (name, raw, value)
    try:
        process = judges.parse_process_score(raw)
    except judges.JudgeError:
        process = None
    assert process is None or 0 <= process["score"] <= 1
    try:
        rating = judges.parse_gobench_rating(raw, count=2)
    except judges.JudgeError:
        rating = None
    if rating is not None:
        assert all(math.isfinite(rating[k]) for k in ("authenticity", "aesthetics", "fidelity")), (raw, rating)
