"""`mcot select hardest`: OmniPhys's Test-Mini by H = 0.75 · failure rate + 0.25 · solution-length percentile, on
scored runs whose H is known by hand; ties by id; benchmarks without a reference solution by failure rate alone."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from mcot.eval.scoring import score_run
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.item import Item, read_items, write_items
from mcot.hardness import SELECTION_FILE, SelectionError, length_percentiles, select_hardest, selected_count

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
SOLUTIONS = {"p0": "x" * 10, "p1": "x" * 20, "p2": "y" * 20, "p3": "z" * 40, "p4": None}
"""Lengths 10, 20, 20, 40 and none (0): percentiles p4 1/5, p0 2/5, p1 = p2 (2 + 1.5)/5 = 0.7, p3 1."""


def _item(item_id: str, benchmark: str = "omniphys") -> Item:
    solution = SOLUTIONS.get(item_id)
    return Item(
        id=item_id,
        benchmark=benchmark,
        category="mechanics",
        question="Which way does the block slide?",
        choices=["left", "right"],
        answer="A",
        answer_type="choice",
        images=["images/p4.png"] if item_id == "p4" else [],
        meta={"task_type": "single_choice", **({"solution": solution} if solution else {})},
    )


def _scored_run(tmp_path: Path, name: str, items: list[Item], wrong: dict[str, set[str]]) -> Path:
    """Return a scored run of `items` whose arms answer wrong on the ids `wrong[arm]` names, right elsewhere."""
    source, root = tmp_path / f"{name}-items", tmp_path / name
    write_items(source, [(item, {image: PNG for image in item.images}) for item in items])
    root.mkdir()
    shutil.copyfile(source / "items.jsonl", root / "items.jsonl")
    manifest = {
        "model": {"spec": f"model-{name}"},
        "arms": [{"name": arm, "tools": []} for arm in wrong],
        "dataset": {"path": str(source), "sha256": hashlib.sha256((root / "items.jsonl").read_bytes()).hexdigest()},
    }
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    lines = [
        {
            "id": item.id,
            "mode": arm,
            "status": "ok",
            "prediction": "\\boxed{B}" if item.id in ids else "\\boxed{A}",
            "steps": 1,
            "usage": {},
            "error": None,
        }
        for arm, ids in wrong.items()
        for item in items
    ]
    (root / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    score_run(root, report=False)
    return root


@pytest.fixture()
def runs(tmp_path: Path) -> list[Path]:
    """Two scored runs (three pairs an item): p0 fails 3 of 3, p4 2 of 3, p1 and p2 1 of 3, p3 none."""
    items = [_item(f"p{k}") for k in range(5)]
    first = _scored_run(tmp_path, "model-a", items, {"text": {"p0", "p1", "p4"}, "canvas": {"p0", "p2", "p4"}})
    second = _scored_run(tmp_path, "model-b", items, {"text": {"p0"}})
    return [first, second]


# H by hand: p0 0.75·1 + 0.25·0.4 = 0.85; p4 0.75·2/3 + 0.25·0.2 = 0.55; p1 = p2 0.75·1/3 + 0.25·0.7 = 0.425;
# p3 0 + 0.25·1 = 0.25
EXPECTED_H = {"p0": 0.85, "p4": 0.55, "p1": 0.425, "p2": 0.425, "p3": 0.25}


def test_length_percentiles_average_equal_lengths() -> None:
    assert length_percentiles({"a": 0, "b": 10, "c": 20, "d": 20, "e": 40}) == {
        "a": 0.2,
        "b": 0.4,
        "c": 0.7,
        "d": 0.7,
        "e": 1.0,
    }


def test_selected_count_rounds_up_and_refuses_a_share_outside_0_1() -> None:
    assert selected_count(0.10, 25) == 3
    assert selected_count(0.10, 3) == 1
    assert selected_count(0.40, 5) == 2
    for share in (0.0, 1.5, -0.1):
        with pytest.raises(SelectionError, match="fraction"):
            selected_count(share, 10)


def test_hardest_items_by_known_h(runs: list[Path], tmp_path: Path) -> None:
    selection = select_hardest(runs, 0.5, tmp_path / "mini")
    assert [(entry.id, entry.h) for entry in selection.ranked] == [
        (item_id, pytest.approx(h)) for item_id, h in EXPECTED_H.items()
    ]
    # ⌈0.5 · 5⌉ = 3: p0, p4 and, of the tied p1 and p2, p1 by id
    assert [entry.id for entry in selection.chosen] == ["p0", "p4", "p1"]
    out = tmp_path / "mini"
    assert [item.id for item in read_items(out)] == ["p0", "p4", "p1"]
    assert (out / "images" / "p4.png").read_bytes() == PNG
    record = json.loads((out / SELECTION_FILE).read_text(encoding="utf-8"))
    assert record["formula"].startswith("H = 0.75 · failure rate + 0.25 · percentile")
    assert record["failure_only"] is None and record["ties"] == "by id"
    assert [run["path"] for run in record["runs"]] == [str(run) for run in runs]
    assert [run["arms"] for run in record["runs"]] == [["text", "canvas"], ["text"]]
    by_id = {entry["id"]: entry for entry in record["items"]}
    assert by_id["p4"]["pairs"] == 3 and by_id["p4"]["failures"] == 2 and by_id["p4"]["solution_chars"] == 0
    assert by_id["p1"]["length_percentile"] == pytest.approx(0.7)
    assert [entry["id"] for entry in record["items"] if entry["selected"]] == ["p0", "p4", "p1"]


def test_a_benchmark_without_reference_solutions_ranks_by_failure_rate(tmp_path: Path) -> None:
    items = [_item(f"p{k}", benchmark="toybench") for k in range(4)]
    run = _scored_run(tmp_path, "toy", items, {"text": {"p2", "p3"}, "canvas": {"p3"}})
    selection = select_hardest([run], 0.5, tmp_path / "mini")
    assert [(entry.id, entry.h) for entry in selection.ranked] == [("p3", 1.0), ("p2", 0.5), ("p0", 0.0), ("p1", 0.0)]
    assert selection.failure_only == ["toybench"]
    record = json.loads((tmp_path / "mini" / SELECTION_FILE).read_text(encoding="utf-8"))
    assert record["failure_only"]["benchmarks"] == ["toybench"]
    assert record["items"][0]["length_percentile"] is None


def test_the_command_takes_several_runs_after_one_flag(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "cli-mini"
    result = CliRunner().invoke(
        app, ["select", "hardest", "--runs", str(runs[0]), str(runs[1]), "--share", "0.4", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "chose 2 of 5 items (H ≥ 0.550, ties by id) from 2 run(s)" in result.output
    assert [item.id for item in read_items(out)] == ["p0", "p4"]


def test_the_command_refuses_in_one_line(runs: list[Path], tmp_path: Path) -> None:
    unscored = tmp_path / "unscored"
    shutil.copytree(runs[0], unscored)
    (unscored / "scores.jsonl").unlink()
    for args, message in [
        (["--runs", str(runs[0]), "--share", "0", "--out", str(tmp_path / "a")], "fraction in (0, 1]"),
        (["--runs", str(unscored), "--out", str(tmp_path / "b")], "mcot score"),
    ]:
        result = CliRunner().invoke(app, ["select", "hardest", *args])
        assert result.exit_code != 0
        assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
