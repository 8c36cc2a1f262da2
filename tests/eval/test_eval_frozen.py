"""A run reads only its frozen RUN/items.jsonl: source edits change no score; edits of the copy stop every reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from handmade import MakeRun, ok
from mcot.eval.scoring import score_run

from mcot.commands.compare import run_compare
from mcot.commands.export import run_export
from mcot.commands.score import run_score
from mcot.commands.view import run_view
from mcot.core.errors import UsageError
from mcot.core.item import Item
from mcot.core.rundir import RunDirError, open_run, read_jsonl

ITEMS = [
    Item(id="q0", benchmark="games", category="count", question="How many?", answer="3", answer_type="number"),
    Item(id="q1", benchmark="games", category="count", question="How many?", answer="5", answer_type="number"),
]
RESULTS = [
    ok("q0", "text", "Answer: 3"),
    ok("q1", "text", "Answer: 4"),
    ok("q0", "canvas", "Answer: 3"),
    ok("q1", "canvas", "Answer: 5"),
]


def _scored(run: Path) -> list[tuple[str, str, bool, float]]:
    return [(s["id"], s["mode"], s["correct"], s["score"]) for s in read_jsonl(run / "scores.jsonl")]


def _rewrite_answers(items_file: Path, answer: str) -> None:
    rows = [json.loads(line) for line in items_file.read_text().splitlines()]
    items_file.write_text("".join(json.dumps({**row, "answer": answer}) + "\n" for row in rows))


def test_editing_the_source_changes_no_score_and_score_names_the_mismatch(
    make_run: MakeRun, capsys: pytest.CaptureFixture
) -> None:
    run = make_run("run", ITEMS, ["text", "canvas"], RESULTS)
    assert run_score(run) == 0
    first = _scored(run)
    assert first == [
        ("q0", "text", True, 1.0),
        ("q0", "canvas", True, 1.0),
        ("q1", "text", False, 0.0),
        ("q1", "canvas", True, 1.0),
    ]
    assert "changed since the run" not in capsys.readouterr().out

    source = Path(json.loads((run / "manifest.json").read_text())["dataset"]["path"])
    _rewrite_answers(source / "items.jsonl", "99")  # every answer key now says 99
    assert run_score(run) == 0
    out = capsys.readouterr().out
    assert _scored(run) == first
    notes = [line for line in out.splitlines() if "changed since the run" in line]
    assert len(notes) == 1
    assert str(source / "items.jsonl") in notes[0] and "scored from the run's frozen copy RUN/items.jsonl" in notes[0]
    assert "changed since the run" in (run / "report.md").read_text()


def test_an_older_manifest_without_a_source_hash_gives_no_warning(make_run: MakeRun) -> None:
    run = make_run("run", ITEMS, ["text"], RESULTS[:2])
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["dataset"]["source_sha256"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    _rewrite_answers(Path(manifest["dataset"]["path"]) / "items.jsonl", "99")
    assert open_run(run).source_changed is None
    assert score_run(run, figures=False).source_changed is None


def test_editing_the_frozen_copy_stops_score_compare_export_and_view(make_run: MakeRun, tmp_path: Path) -> None:
    run = make_run("run", ITEMS, ["text", "canvas"], RESULTS)
    score_run(run, figures=False)
    _rewrite_answers(run / "items.jsonl", "4")  # would turn q1/text right
    message = "items.jsonl does not match the manifest's dataset hash: the run's frozen items were changed"
    with pytest.raises(RunDirError, match=message):
        open_run(run)
    with pytest.raises(UsageError, match=message):
        run_score(run)
    with pytest.raises(UsageError, match=message):
        run_compare(run, None, None, False, a="text", b="canvas")
    with pytest.raises(UsageError, match=message):
        run_export(run, "jsonl", tmp_path / "out" / "traces")
    with pytest.raises(UsageError, match=message):
        run_view(run, tmp_path / "site" / "index.html")
    assert not (tmp_path / "out").exists() and not (tmp_path / "site").exists()


def test_a_missing_frozen_copy_is_an_error(make_run: MakeRun) -> None:
    run = make_run("run", ITEMS, ["text"], RESULTS[:2])
    (run / "items.jsonl").unlink()
    with pytest.raises(RunDirError, match="frozen copy"):
        open_run(run)


def test_item_images_are_read_from_the_dataset_path(make_run: MakeRun) -> None:
    run = make_run("run", ITEMS, ["text"], RESULTS[:2])
    opened = open_run(run)
    assert opened.items_root == Path(opened.manifest.dataset.path or "")
    assert list(opened.items) == ["q0", "q1"]
