"""GePBench conformance: each response of the table scored under the official and the robust protocol.

Every line of tests/data/conformance/gepbench.jsonl states both outcomes, written from the rules in
docs/scoring.md (not from running the code); the test holds both protocols to them.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcot.benchmarks.item import Item
from mcot.eval.protocols.gepbench import answer_letter
from mcot.eval.protocols.gepbench import official as gepbench_official
from mcot.eval.protocols.gepbench import robust as gepbench_robust
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.registry import ProtocolFn

from mcot.rundir import Result, Score

TABLE = Path(__file__).resolve().parents[1] / "data" / "conformance" / "gepbench.jsonl"
LINES: list[dict[str, Any]] = [json.loads(line) for line in TABLE.read_text(encoding="utf-8").splitlines() if line]
DIFFERING = 35
"""Lines the two protocols score differently (official outcome ≠ robust outcome); quoted in the closing note."""
DIFFERING_LETTERS = 40
"""Lines on which the two protocols read a different letter (or one reads none): the 35 above and 5 both wrong (a one-character choice text the public code keeps, or D on a 3-choice item)."""


def _item(line: dict[str, Any]) -> Item:
    fields = line["item"]
    return Item(
        id=line["id"],
        benchmark="gepbench",
        category=fields["category"],
        question="Which option is right?",
        choices=fields["choices"],
        answer=fields["answer"],
        answer_type="choice",
        meta=fields.get("meta", {}),
    )


def _score(protocol: ProtocolFn, line: dict[str, Any]) -> Score:
    item = _item(line)
    result = {"id": item.id, "mode": "text", "status": "ok", "prediction": line["response"]}
    return asyncio.run(protocol(Scorer(), item, line["response"], Result.from_line(result)))


def test_table_is_large_and_well_formed() -> None:
    assert len(LINES) >= 60
    assert len({line["id"] for line in LINES}) == len(LINES)
    for line in LINES:
        assert set(line) == {"id", "item", "response", "official", "robust", "why"}, line["id"]
        assert isinstance(line["official"], bool) and isinstance(line["robust"], bool), line["id"]
        assert answer_letter(_item(line)) in "ABCD", line["id"]


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_official_outcome(line: dict[str, Any]) -> None:
    score = _score(gepbench_official, line)
    assert score.correct is line["official"], (line["response"], score.extracted, line["why"])
    assert score.method == "rule"
    assert score.details["level"] == line["item"]["meta"]["level"]


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_robust_outcome(line: dict[str, Any]) -> None:
    score = _score(gepbench_robust, line)
    assert score.correct is line["robust"], (line["response"], score.extracted, line["why"])
    assert score.method == "rule"
    assert score.details["level"] == line["item"]["meta"]["level"]


def test_count_of_lines_read_differently() -> None:
    differing = [line["id"] for line in LINES if line["official"] != line["robust"]]
    assert len(differing) == DIFFERING, differing
    scored = [
        line["id"] for line in LINES if _score(gepbench_official, line).correct != _score(gepbench_robust, line).correct
    ]
    assert scored == differing
    letters = [
        line["id"]
        for line in LINES
        if _score(gepbench_official, line).extracted != _score(gepbench_robust, line).extracted
    ]
    assert len(letters) == DIFFERING_LETTERS, letters
    assert set(differing) <= set(letters)
