"""GOBench conformance: each critic reply of the table read under the official and the robust protocol.

Every line of tests/data/conformance/gobench.jsonl states, per protocol, the three scores that enter the
Scaled Proximity means (null: that dimension's mean leaves the item out), written from the rules in
docs/scoring.md (not from running the code); the test holds both protocols to them.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.benchmarks.item import Item
from mcot.eval.protocols._gobench_understanding import (
    GOBENCH_DIMENSIONS,
    official_gobench_scores,
    robust_gobench_scores,
)
from mcot.eval.protocols._gobench_understanding import understanding_tables as gobench_understanding_tables
from mcot.eval.protocols.gobench import official as gobench_official
from mcot.eval.protocols.gobench import robust as gobench_robust
from mcot.eval.protocols.scorer import Scorer, failed_score
from mcot.eval.proximity import scaled_proximity_score
from mcot.eval.registry import ProtocolFn

from mcot.rundir import Result, Score

TABLE = Path(__file__).resolve().parents[1] / "data" / "conformance" / "gobench.jsonl"
LINES: list[dict[str, Any]] = [json.loads(line) for line in TABLE.read_text(encoding="utf-8").splitlines() if line]
DIFFERING = 35
"""Lines the two protocols read differently (official outcome ≠ robust outcome); quoted in the closing note."""


def _item(line: dict[str, Any]) -> Item:
    fields = line["item"]
    return Item(
        id=line["id"],
        benchmark="gobench",
        category=fields["category"],
        question="Rate the image.",
        answer="",
        answer_type="rating",
        meta=fields["meta"],
    )


def _score(protocol: ProtocolFn, line: dict[str, Any]) -> Score:
    item = _item(line)
    result = {"id": item.id, "mode": "text", "status": "ok", "prediction": line["response"]}
    return asyncio.run(protocol(Scorer(), item, line["response"], Result.from_line(result)))


def _outcome(score: Score) -> dict[str, float | None]:
    """The model's scores that enter each dimension's mean (None where the item leaves that mean)."""
    sps = score.details["sps"]
    return {dim: score.details["model_scores"][dim] if dim in sps else None for dim in GOBENCH_DIMENSIONS}


def test_table_is_large_and_well_formed() -> None:
    assert len(LINES) >= 60
    assert len({line["id"] for line in LINES}) == len(LINES)
    for line in LINES:
        assert set(line) == {"id", "item", "response", "official", "robust", "why"}, line["id"]
        for protocol in ("official", "robust"):
            assert set(line[protocol]) == set(GOBENCH_DIMENSIONS), line["id"]
        # official: an item is in all three means or in none
        assert len({value is None for value in line["official"].values()}) == 1, line["id"]


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_official_outcome(line: dict[str, Any]) -> None:
    score = _score(gobench_official, line)
    assert _outcome(score) == line["official"], (line["response"], score.details, line["why"])
    assert score.method == "rule" and score.details["protocol"] == "official"
    assert score.details.get("left_out", False) == (None in line["official"].values())


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_robust_outcome(line: dict[str, Any]) -> None:
    score = _score(gobench_robust, line)
    assert _outcome(score) == line["robust"], (line["response"], score.details, line["why"])
    assert score.method == "rule" and score.details["protocol"] == "robust"
    assert "left_out" not in score.details


def test_count_of_lines_read_differently() -> None:
    differing = [line["id"] for line in LINES if line["official"] != line["robust"]]
    assert len(differing) == DIFFERING, differing
    scored = [
        line["id"]
        for line in LINES
        if _outcome(_score(gobench_official, line)) != _outcome(_score(gobench_robust, line))
    ]
    assert scored == differing


def test_sps_of_a_read_item() -> None:
    line = next(line for line in LINES if line["id"] == "g03")  # official 4 / 4 / 4, robust 3 / 4 / 4
    human = line["item"]["meta"]["human_scores"]  # 4 / 3 / 4
    official, robust = _score(gobench_official, line), _score(gobench_robust, line)
    assert official.details["sps"] == {"authenticity": 1.0, "aesthetics": 0.0, "fidelity": 1.0}
    assert robust.details["sps"]["authenticity"] == scaled_proximity_score(3.0, human["authenticity"]) == 0.0
    assert official.score == pytest.approx(2 / 3) and robust.score == pytest.approx(1 / 3)


def _understanding(item_id: str, sps: dict[str, float], unparsable: list[str], protocol: str) -> Score:
    details = {
        "task": "understanding",
        "protocol": protocol,
        "model_scores": {dim: (None if dim in unparsable else 3.0) for dim in GOBENCH_DIMENSIONS},
        "human_scores": {dim: 3.0 for dim in GOBENCH_DIMENSIONS},
        "unparsable": unparsable,
        "sps": sps,
    }
    if protocol == "official" and unparsable:
        details["left_out"] = True
    return Score(
        id=item_id,
        mode="text",
        benchmark="gobench",
        category="reflect",
        score=None,
        correct=None,
        method="rule",
        details=details,
    )


def _row(table: Any) -> dict[str, str]:
    return dict(zip(table.columns, table.rows[0], strict=True))


def test_sps_table_follows_each_protocols_denominators() -> None:
    whole = {"authenticity": 1.0, "aesthetics": 0.5, "fidelity": 0.0}
    lost = failed_score(_item(LINES[0]), "text", "error", "TimeoutError")
    lost.details["task"] = "understanding"
    official = [
        _understanding("a", whole, [], "official"),
        _understanding("b", {}, ["aesthetics"], "official"),  # leaves all three means
        lost,  # a failed pair leaves all three means too
    ]
    row = _row(gobench_understanding_tables(official)[0])
    assert (row["Authenticity"], row["Aesthetics"], row["Fidelity"], row["Overall"]) == ("100.0", "50.0", "0.0", "50.0")
    assert (row["n"], row["errors"], row["unparsable"], row["averaged (auth. / aest. / fid.)"]) == (
        "3",
        "1",
        "1",
        "1 / 1 / 1",
    )
    robust = [
        _understanding("a", whole, [], "robust"),
        _understanding("b", {"authenticity": 0.0, "fidelity": 1.0}, ["aesthetics"], "robust"),
        lost,
    ]
    table = gobench_understanding_tables(robust)[0]
    row = _row(table)
    # authenticity (1 + 0) / 2, aesthetics 0.5 / 1, fidelity (0 + 1) / 2; Overall = mean of the three
    assert (row["Authenticity"], row["Aesthetics"], row["Fidelity"], row["Overall"]) == ("50.0", "50.0", "50.0", "50.0")
    assert (row["n"], row["errors"], row["unparsable"], row["averaged (auth. / aest. / fid.)"]) == (
        "3",
        "1",
        "1",
        "2 / 1 / 2",
    )
    assert any("leaves that dimension's mean only" in note for note in table.notes)


PIECES = [
    *'0123456789 .:*/()-\n,;{}[]"',
    *("Total Score", "Aesthetics Rating", "Instruction Consistency Rating", "out of 5", "1-5"),
    *("Yes", "No", "Cannot be determined", "是", "否", "无法确定"),
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_readings_never_raise(text: str) -> None:
    official, _ = official_gobench_scores(text)
    robust = robust_gobench_scores(text)
    assert set(official) == set(robust) == set(GOBENCH_DIMENSIONS)
    assert all(value is None or 0 <= value <= 5 for value in robust.values())
