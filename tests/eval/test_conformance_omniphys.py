"""OmniPhys conformance: S1 of each objective response of the table under both protocol names, and strict
mastery (P_obj, P_open) on a fixture where judge calls fail.

OmniPhys has one protocol (the paper gives the credit rules, no finer extraction rule), registered as official
with robust None, so both names score alike; every line of tests/data/conformance/omniphys.jsonl states S1
under each, written from the rules in docs/scoring.md (not from running the code).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcot.benchmarks.item import Item
from mcot.eval.protocols.omniphys import official as omniphys_official
from mcot.eval.protocols.omniphys import omniphys_table
from mcot.eval.protocols.omniphys import tables as omniphys_tables
from mcot.eval.protocols.scorer import Scorer, failed_score
from mcot.eval.registry import OFFICIAL, ROBUST, ScoringSpec

from mcot.rundir import Result, Score

TABLE = Path(__file__).resolve().parents[1] / "data" / "conformance" / "omniphys.jsonl"
LINES: list[dict[str, Any]] = [json.loads(line) for line in TABLE.read_text(encoding="utf-8").splitlines() if line]
SPEC = ScoringSpec(omniphys_official, omniphys_tables, robust=None)
DIFFERING = 0
"""Lines the two protocols score differently: none, OmniPhys has one protocol; quoted in the closing note."""


def _item(item_id: str, fields: dict[str, Any]) -> Item:
    return Item(
        id=item_id,
        benchmark="omniphys",
        category=fields["category"],
        question=fields.get("question", "见图，回答问题。"),
        choices=fields.get("choices"),
        answer=fields["answer"],
        answer_type=fields["answer_type"],
        meta={"task_type": fields["task_type"], **fields.get("meta", {})},
    )


def _score(item: Item, text: str, protocol: str, scorer: Scorer | None = None) -> Score:
    result = {"id": item.id, "mode": "text", "status": "ok", "prediction": text}
    return asyncio.run(SPEC.protocol_for(protocol)(scorer or Scorer(), item, text, Result.from_line(result)))


def test_table_is_large_and_well_formed() -> None:
    assert len(LINES) >= 60
    assert len({line["id"] for line in LINES}) == len(LINES)
    for line in LINES:
        assert set(line) == {"id", "item", "response", "official", "robust", "why"}, line["id"]
        for protocol in (OFFICIAL, ROBUST):
            assert line[protocol] is None or 0 <= line[protocol] <= 1, line["id"]
    kinds = {line["item"]["task_type"] for line in LINES}
    assert {"single_choice", "true_false", "multi_select", "fill_in"} <= kinds


@pytest.mark.parametrize("protocol", [OFFICIAL, ROBUST])
@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_result_score(line: dict[str, Any], protocol: str) -> None:
    score = _score(_item(line["id"], line["item"]), line["response"], protocol)
    expected = line[protocol]
    assert score.details["s1"] == pytest.approx(expected), (line["response"], score.extracted, line["why"])
    assert score.method == ("none" if expected is None else "rule")
    assert score.details["task"] in ("single", "tf", "multi", "fill")


def test_count_of_lines_read_differently() -> None:
    assert sum(1 for line in LINES if line[OFFICIAL] != line[ROBUST]) == DIFFERING


class ProcessJudge:
    """A fake judge: the process score by a marker in the question; "garbled" questions get an unparsable reply."""

    spec = "scripted:process-judge"

    async def ask(self, prompt: str, images: Sequence[bytes] = ()) -> str:
        for marker, reply in PROCESS_REPLIES.items():
            if marker in prompt:
                return reply
        return '{"score": 1}'  # the result judge (not reached: every S1 here is settled by rules)


PROCESS_REPLIES = {
    "[all-steps]": '{"steps_total": 4, "steps_present": 4}',
    "[three-of-four]": '{"steps_total": 4, "steps_present": 3}',
    "[half]": '{"steps_total": 2, "steps_present": 1}',
    "[garbled]": "The student's reasoning looks mostly fine to me.",
}


def _fixture_item(item_id: str, marker: str, fields: dict[str, Any]) -> Item:
    return _item(item_id, {**fields, "question": f"{marker} 求解。", "meta": {"solution": "F = ma; v = at; E = mv²/2"}})


def test_strict_mastery_counts_failed_judges_and_failed_pairs_as_not_mastered() -> None:
    single = {"category": "optics", "task_type": "single_choice", "answer": "B", "answer_type": "choice"}
    tf = {"category": "optics", "task_type": "true_false", "answer": "错误", "answer_type": "yesno"}
    multi = {"category": "optics", "task_type": "multi_select", "answer": "ACD", "answer_type": "choice"}
    fill = {"category": "mechanics", "task_type": "fill_in", "answer": "2 m/s; 4 J", "answer_type": "text"}
    open_ended = {"category": "mechanics", "task_type": "open_ended", "answer": "", "answer_type": "text"}
    judged = [
        (_fixture_item("o1", "[all-steps]", single), "Answer: B"),  # S1 = S2 = 1: mastered
        (_fixture_item("o2", "[garbled]", single), "Answer: B"),  # S1 = 1, process judge failed: not mastered
        (_fixture_item("o3", "[three-of-four]", tf), "Answer: 错误"),  # S2 = 3/4: not mastered
        (_fixture_item("o4", "[all-steps]", multi), "Answer: AC"),  # S1 = 2/3: not mastered
        (_fixture_item("o6", "[all-steps]", fill), "Answer: 2 m/s; 4 J"),  # mastered
        (_fixture_item("p1", "[all-steps]", open_ended), "F = ma, v = at, E = mv²/2 = 4 J"),  # S3 = 1: mastered
        (_fixture_item("p2", "[garbled]", open_ended), "E = 4 J"),  # process judge failed: not mastered
        (_fixture_item("p3", "[half]", open_ended), "v = at"),  # S3 = 1/2: not mastered
    ]
    scorer = Scorer(judge=ProcessJudge())
    scores = [_score(item, text, OFFICIAL, scorer) for item, text in judged]
    by_id = {s.id: s for s in scores}
    assert by_id["o2"].details["s1"] == 1.0 and "s2_error" in by_id["o2"].details
    assert by_id["p2"].method == "judge_error"
    lost = failed_score(_fixture_item("o5", "[all-steps]", fill), "text", "error", "TimeoutError: 120 s")
    lost.details["task"] = "fill"  # the facet the scorer copies onto a failed pair
    table = omniphys_table([*scores, lost])
    row = dict(zip(table.columns, table.rows[0], strict=True))
    # P_obj = {o1, o6} / {o1, o2, o3, o4, o5, o6} = 2/6; P_open = {p1} / {p1, p2, p3} = 1/3
    assert (row["P_obj"], row["P_obj judge errors"]) == ("33.3", "1")
    assert (row["P_open"], row["P_open judge errors"]) == ("33.3", "1")
    assert (row["n"], row["errors"], row["judge errors"]) == ("9", "1", "1")
    # S1 over the objective items, the failed pair 0: (1 + 1 + 1 + 2/3 + 0 + 1) / 6
    assert row["S1"] == f"{100 * (4 + 2 / 3) / 6:.1f}"


def test_strict_mastery_without_a_judge_says_why_nothing_is_mastered() -> None:
    single = {"category": "optics", "task_type": "single_choice", "answer": "B", "answer_type": "choice"}
    scores = [_score(_fixture_item(f"o{i}", "[all-steps]", single), "Answer: B", OFFICIAL) for i in range(3)]
    table = omniphys_table(scores)
    row = dict(zip(table.columns, table.rows[0], strict=True))
    assert (row["S1"], row["P_obj"], row["P_obj judge errors"], row["P_open"]) == ("100.0", "0.0", "0", "—")
    assert any("3 objective item(s) have no process score" in note for note in table.notes)
