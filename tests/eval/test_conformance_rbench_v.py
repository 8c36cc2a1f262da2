"""RBench-V conformance: every response of tests/data/conformance/rbench_v.jsonl scored under both protocols.

Each line states the official outcome (written from the published protocol) and the robust one: true / false,
"unjudged" (method none) or "judge_error". A line with a `judge` field is scored with a scripted judge that
answers extraction prompts from `judge.extract` and verdict prompts from `judge.verdict` (a list is replied in
order, its last reply repeated; "!error" makes the call fail); a line without one is scored with no judge.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcot.benchmarks.item import Item
from mcot.eval.judges import load_templates
from mcot.eval.protocols import Scorer
from mcot.eval.protocols.rbench_v import official as rbench_v_official
from mcot.eval.protocols.rbench_v import robust as rbench_v_robust
from mcot.eval.registry import OFFICIAL, ROBUST, scoring_spec

from mcot.rundir import Result, Score

TABLE = Path(__file__).resolve().parents[1] / "data" / "conformance" / "rbench_v.jsonl"
LINES = [json.loads(line) for line in TABLE.read_text(encoding="utf-8").splitlines() if line.strip()]
PROTOCOLS = {OFFICIAL: rbench_v_official, ROBUST: rbench_v_robust}
TEMPLATES = load_templates()
EXTRACT_HEAD = TEMPLATES["rbench_extract"].text.splitlines()[0]
VERDICT_HEAD = TEMPLATES["rbench_verdict"].text.splitlines()[0]
MATHVERSE_EXTRACT = "termed 'Model Response'"
MATHVERSE_SCORE = "[Standard Answer] is the standard answer"
"""The official protocol asks with MathVerse's prompts (eval/templates/mathverse_*.txt), robust with mcot's."""
READ_DIFFERENTLY = 33
"""Lines whose official and robust outcomes differ (the closing note of issue 11 quotes this count)."""


class ScriptedJudge:
    """A judge answering RBench-V's extraction and verdict prompts from a conformance line's script."""

    spec = "scripted:conformance"

    def __init__(self, script: dict[str, Any]) -> None:
        self.replies = {stage: _as_list(script.get(stage)) for stage in ("extract", "verdict")}
        self.calls = {"extract": 0, "verdict": 0}

    async def ask(self, prompt: str, images: Sequence[bytes] = ()) -> str:
        """Return the next scripted reply of the stage the prompt belongs to (raise for "!error")."""
        if prompt.startswith(EXTRACT_HEAD) or MATHVERSE_EXTRACT in prompt:
            stage = "extract"
        elif prompt.startswith(VERDICT_HEAD) or MATHVERSE_SCORE in prompt:
            stage = "verdict"
        else:
            raise AssertionError(f"not an RBench-V judge prompt: {prompt[:60]!r}")
        replies = self.replies[stage]
        assert replies, f"the line scripts no {stage} reply, but the protocol asked for one"
        reply = replies[min(self.calls[stage], len(replies) - 1)]
        self.calls[stage] += 1
        if reply == "!error":
            raise ConnectionError("scripted judge failure")
        return reply


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def score_line(line: dict[str, Any], protocol: str) -> tuple[Score, ScriptedJudge | None]:
    """Return the score of a conformance line under `protocol` and the scripted judge used (None without one)."""
    item = Item(id=line["id"], benchmark="rbench-v", **line["item"])
    judge = ScriptedJudge(line["judge"]) if "judge" in line else None
    scorer = Scorer(judge=judge, templates=TEMPLATES, protocol=protocol)
    result = {"id": item.id, "mode": "text", "status": "ok", "prediction": line["response"]}
    return asyncio.run(PROTOCOLS[protocol](scorer, item, line["response"], Result.from_line(result))), judge


def outcome(score: Score) -> bool | str:
    """Return a score as the table writes outcomes: true / false, "unjudged" or "judge_error"."""
    if score.method == "judge_error":
        return "judge_error"
    if score.method == "none":
        return "unjudged"
    assert score.correct is not None
    return score.correct


def test_the_table_is_large_and_well_formed() -> None:
    assert len(LINES) >= 60
    assert len({line["id"] for line in LINES}) == len(LINES)
    allowed = (True, False, "unjudged", "judge_error")
    assert all(line["official"] in allowed and line["robust"] in allowed and line["why"] for line in LINES)
    assert sum("judge" in line for line in LINES) >= 30


@pytest.mark.parametrize("protocol", [OFFICIAL, ROBUST])
@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_outcome(line: dict[str, Any], protocol: str) -> None:
    score, judge = score_line(line, protocol)
    assert outcome(score) == line[protocol], line["why"]
    if protocol in line.get("calls", {}):
        assert judge is not None and sum(judge.calls.values()) == line["calls"][protocol], line["why"]
    if protocol in line.get("extracted", {}):
        assert score.extracted == line["extracted"][protocol]
    if score.method in ("judge_error", "none"):
        assert score.correct is None and score.score is None


def test_count_of_lines_read_differently() -> None:
    differ = [line["id"] for line in LINES if line[OFFICIAL] != line[ROBUST]]
    assert len(differ) == READ_DIFFERENTLY, differ


def test_the_declared_protocols_are_these() -> None:
    spec = scoring_spec("rbench-v")
    assert spec.protocol_for(OFFICIAL) is rbench_v_official
    assert spec.protocol_for(ROBUST) is rbench_v_robust
