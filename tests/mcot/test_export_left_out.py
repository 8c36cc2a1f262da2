"""An export that leaves out an image, a turn or a record says how many and why, one line each, and exits 3
unless `--allow-partial` (issue 29 part 7): nothing is left out without a word."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hostile_servers import items_dir
from typer.testing import CliRunner

from mcot.cli import app


def _mcot(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.output


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    code, output = _mcot("run", "--data", items_dir(tmp_path), "--model", "offline", "--mode", "canvas", "--out", run)
    assert code == 0, output
    return run


def test_an_item_image_that_leaves_the_items_folder_is_counted_and_exits_3(tmp_path: Path) -> None:
    items = items_dir(tmp_path)
    (tmp_path / "secret.png").write_bytes((items / "images" / "q.png").read_bytes())
    rows = [json.loads(line) for line in (items / "items.jsonl").read_text().splitlines()]
    rows[0]["images"] = ["../secret.png"]
    (items / "items.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    code, output = _mcot("export", items, "--format", "jsonl", "--as", "verl", "--out", tmp_path / "out")
    assert code == 3, output
    assert "mcot: left out 1 image(s) whose path leaves the items folder: q0: ../secret.png" in output
    assert "add --allow-partial to accept it" in output
    code, output = _mcot("export", items, "--format", "jsonl", "--as", "verl", "--out", tmp_path / "again",
                         "--allow-partial")  # fmt: skip
    assert code == 0, output
    assert "mcot: left out 1 image(s) whose path leaves the items folder" in output
    assert not any(path.name == "secret.png" for path in (tmp_path / "again").rglob("*"))


def test_a_run_whose_traces_are_gone_says_the_turns_it_left_out(tmp_path: Path) -> None:
    run = _run(tmp_path)
    shutil.rmtree(run / "traces")
    code, output = _mcot("export", run, "--format", "jsonl", "--as", "messages", "--out", tmp_path / "out")
    assert code == 3, output
    assert "mcot: left out the model's turns of 3 pair(s) whose trace is gone" in output
    assert "q0 (canvas), q1 (canvas), q2 (canvas)" in output


def test_a_missing_blob_is_counted(tmp_path: Path) -> None:
    run = _run(tmp_path)
    blobs = [path for path in (run / "blobs").rglob("*") if path.is_file()]
    assert blobs
    for path in blobs:
        path.unlink()
    code, output = _mcot("export", run, "--format", "jsonl", "--out", tmp_path / "out")
    assert code == 3, output
    assert f"mcot: left out {len(blobs)} image(s) not found: " in output


def test_a_result_for_an_item_not_in_the_run_is_a_record_left_out(tmp_path: Path) -> None:
    run = _run(tmp_path)
    lines = (run / "results.jsonl").read_text().splitlines()
    stray = json.loads(lines[0]) | {"id": "gone"}
    (run / "results.jsonl").write_text("\n".join([*lines, json.dumps(stray)]) + "\n")
    code, output = _mcot("export", run, "--format", "jsonl", "--out", tmp_path / "out", "--allow-partial")
    assert code == 0, output
    assert "mcot: left out 1 record(s) whose result names an item not in RUN/items.jsonl: gone" in output


def test_a_whole_export_exits_0_and_says_nothing_was_left_out(tmp_path: Path) -> None:
    run = _run(tmp_path)
    code, output = _mcot("export", run, "--format", "jsonl", "--as", "messages", "--out", tmp_path / "out")
    assert code == 0, output
    assert "left out" not in output
