"""The run directory's ledger, frozen items and pair outcomes (mcot.core.rundir)."""

import hashlib
import json
from pathlib import Path

import pytest

from mcot.core.item import Item, ItemError
from mcot.core.rundir import (
    FrozenItems,
    PairOutcomes,
    Result,
    ResultsLedger,
    RunDir,
    RunDirError,
    Unfinished,
    read_jsonl,
)


def test_last_line_per_item_and_mode_wins(handmade_run: Path) -> None:
    results = RunDir(handmade_run).results()
    assert results[("q1", "canvas")].status == "ok"
    assert len(results) == 2


def test_torn_last_line_is_dropped_and_appends_stay_parseable(tmp_path: Path) -> None:
    rd = RunDir(tmp_path)
    rd.results_path.write_text('{"id": "a", "mode": "text", "status": "ok"}\n{"id": "b", "mo')
    assert [r["id"] for r in read_jsonl(rd.results_path)] == ["a"]
    rd.open()
    rd.append_result(Result(id="b", mode="text", status="ok"))
    rd.close()
    assert [json.loads(line)["id"] for line in rd.results_path.read_text().splitlines()] == ["a", "b"]


def test_corrupt_middle_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"id": 1}\nnot json\n{"id": 2}\n')
    with pytest.raises(RunDirError, match=r"results\.jsonl:2"):
        read_jsonl(path)


def test_trace_paths_stay_inside_traces(tmp_path: Path) -> None:
    path = RunDir(tmp_path).trace_path("../../etc/passwd", "text")
    assert path.parent == tmp_path / "traces" and path.name.startswith("etc_passwd.")


def test_a_torn_line_longer_than_the_tail_read_is_cut_too(tmp_path: Path) -> None:
    ledger = ResultsLedger(tmp_path)
    ledger.path.write_text('{"id": "a", "mode": "text"}\n{"id": "b", "prediction": "' + "x" * 200_000)
    ledger.open()
    ledger.append(Result(id="c", mode="text"))
    ledger.close()
    assert [row.id for row in ledger.records()] == ["a", "c"]
    only_torn = tmp_path / "torn" / "results.jsonl"
    only_torn.parent.mkdir()
    only_torn.write_text('{"id": "a"')
    ResultsLedger(only_torn.parent).open()
    assert only_torn.read_bytes() == b""



def test_a_last_line_cut_just_before_its_newline_is_kept_as_it_was_read(tmp_path: Path) -> None:
    # a file-size limit can fall exactly between a line's `}` and its newline: the reader (and so a resume)
    # counts that pair as done, so the line must stay, or the pair is neither in the ledger nor run again
    ledger = ResultsLedger(tmp_path)
    ledger.path.write_text('{"id": "a", "mode": "text", "status": "ok"}\n{"id": "b", "mode": "text", "status": "ok"}')
    assert [row.id for row in ledger.records()] == ["a", "b"]
    ledger.open()
    ledger.append(Result(id="c", mode="text", status="ok"))
    ledger.close()
    assert [row.id for row in ledger.records()] == ["a", "b", "c"]
    assert ledger.path.read_text().count("\n") == 3
    only = tmp_path / "only" / "results.jsonl"
    only.parent.mkdir()
    only.write_text('{"id": "a", "mode": "text"}')
    ResultsLedger(only.parent).open()
    assert only.read_text() == '{"id": "a", "mode": "text"}\n'


def _item(n: int) -> Item:
    return Item(
        id=f"i{n}", benchmark="games", category="maze", question=f"Q {n}\u2028?", answer="A", answer_type="text"
    )


def test_frozen_items_keep_ids_and_offsets_and_read_each_item_back(tmp_path: Path) -> None:
    frozen = FrozenItems.freeze((_item(n) for n in range(5)), tmp_path / "not" / "yet")
    assert frozen.ids == [f"i{n}" for n in range(5)] and "i3" in frozen and len(frozen) == 5
    assert frozen.load("i3") == _item(3)  # from the unnamed staging file, before RUN exists
    assert list(tmp_path.iterdir()) == []
    run = tmp_path / "run"
    frozen.write_copy(run)
    text = (run / "items.jsonl").read_text(encoding="utf-8")
    assert len(text.splitlines()) == 5 and "\u2028" not in text
    assert hashlib.sha256(text.encode()).hexdigest() == frozen.sha256
    assert list(frozen) == [_item(n) for n in range(5)]
    again = FrozenItems.freeze(_item(n) for n in range(5))
    again.attach(run)
    assert again.load("i4") == _item(4)
    (run / "items.jsonl").write_text(text.replace("Q 4", "Q 9"), encoding="utf-8")
    with pytest.raises(RunDirError, match="was changed after the run started"):
        FrozenItems.freeze(_item(n) for n in range(5)).attach(run)
    with pytest.raises(ItemError, match="duplicate item id 'i1'"):
        FrozenItems.freeze([_item(1), _item(1)])


def test_pair_outcomes_keep_the_latest_status_of_each_pair_in_a_byte() -> None:
    outcomes = PairOutcomes({"a": 0, "b": 1, "c": 2}, ["text", "canvas"])
    outcomes.note(Result(id="a", mode="text", status="error", error="HTTP 500"))
    outcomes.note(Result(id="a", mode="text", status="ok"))  # the retry succeeded: the last line wins
    outcomes.note(Result(id="b", mode="canvas", status="budget", error="step budget"))
    outcomes.note(Result(id="zz", mode="text", status="ok"))  # not an item of the run: ignored
    outcomes.note(Result(id="c", mode="tools", status="ok"))  # not an arm of the run: ignored
    assert outcomes.status("a", "text") == "ok" and outcomes.status("b", "canvas") == "budget"
    assert outcomes.status("c", "text") is None and outcomes.count("ok") == 1 and outcomes.count("none") == 0
    assert list(outcomes.not_ok()) == [None, None, Unfinished("budget", "step budget"), None, None]
