import json
from pathlib import Path

import pytest

from mcot.rundir import RunDir, RunDirError, read_jsonl


def test_last_line_per_item_and_mode_wins(handmade_run: Path) -> None:
    results = RunDir(handmade_run).results()
    assert results[("q1", "canvas")]["status"] == "ok"
    assert len(results) == 2


def test_torn_last_line_is_dropped_and_appends_stay_parseable(tmp_path: Path) -> None:
    rd = RunDir(tmp_path)
    rd.results_path.write_text('{"id": "a", "mode": "text", "status": "ok"}\n{"id": "b", "mo')
    assert [r["id"] for r in read_jsonl(rd.results_path)] == ["a"]
    rd.open()
    rd.append_result({"id": "b", "mode": "text", "status": "ok"})
    rd.close()
    assert [json.loads(line)["id"] for line in rd.results_path.read_text().splitlines()] == ["a", "b"]


def test_corrupt_middle_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"id": 1}\nnot json\n{"id": 2}\n')
    with pytest.raises(RunDirError, match=r"results\.jsonl:2"):
        read_jsonl(path)


def test_trace_paths_stay_inside_traces(tmp_path: Path) -> None:
    path = RunDir(tmp_path).trace_path("../../etc/passwd", "text")
    assert path.parent == tmp_path / "traces"
