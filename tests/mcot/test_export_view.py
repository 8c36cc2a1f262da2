import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from eval.rundir import RunDirError
from mcot.exporter import ExportError, export_run
from mcot.viewer import write_viewer


def test_viewer_embeds_every_result_and_links_blobs(handmade_run: Path) -> None:
    page = write_viewer(handmade_run).read_text()
    payload = page.split('id="data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(payload.replace("<\\/", "</"))
    runs = {(r["id"], r["mode"]): r for r in data["runs"]}
    assert set(runs) == {("q1", "text"), ("q1", "canvas")}
    canvas = runs[("q1", "canvas")]
    assert canvas["correct"] is True and canvas["extracted"] == "B"
    assert [s["image"] for s in canvas["trace"] if s["image"]] == ["blobs/abc.png", "blobs/abc.png"]


def test_viewer_elsewhere_links_back_to_the_run(handmade_run: Path, tmp_path: Path) -> None:
    page = write_viewer(handmade_run, tmp_path / "site" / "view.html").read_text()
    assert '"../run/blobs/abc.png"' in page


def test_jsonl_export_one_record_per_item_and_mode(handmade_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "export" / "traces.jsonl"
    assert export_run(handmade_run, "jsonl", out) == 2
    records = [json.loads(line) for line in out.read_text().splitlines()]
    canvas = next(r for r in records if r["mode"] == "canvas")
    assert canvas["answer"] == "B" and canvas["correct"] is True
    assert canvas["canvas_images"] == ["blobs/abc.png", "blobs/abc.png"]
    assert (out.parent / "blobs" / "abc.png").is_file()


def test_parquet_and_hf_exports_embed_images(handmade_run: Path, tmp_path: Path) -> None:
    assert export_run(handmade_run, "parquet", tmp_path / "t.parquet") == 2
    table = pq.read_table(tmp_path / "t.parquet")
    rows = {(r["id"], r["mode"]): r for r in table.to_pylist()}
    canvas = rows[("q1", "canvas")]
    assert canvas["canvas_images"][0]["bytes"].startswith(b"\x89PNG")
    assert canvas["item_image"]["bytes"].startswith(b"\x89PNG")
    assert b"huggingface" in table.schema.metadata
    assert export_run(handmade_run, "hf", tmp_path / "hf") == 2
    assert (tmp_path / "hf" / "data" / "train-00000-of-00001.parquet").is_file()
    assert "configs:" in (tmp_path / "hf" / "README.md").read_text()


def test_unknown_format_is_refused(handmade_run: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="jsonl, parquet, hf"):
        export_run(handmade_run, "csv", tmp_path / "x")


def test_export_and_view_stop_when_the_frozen_items_were_edited(handmade_run: Path, tmp_path: Path) -> None:
    items = handmade_run / "items.jsonl"
    items.write_text(items.read_text().replace('"answer": "B"', '"answer": "A"'))
    with pytest.raises(RunDirError, match="does not match the manifest's dataset hash"):
        export_run(handmade_run, "jsonl", tmp_path / "export" / "traces.jsonl")
    with pytest.raises(RunDirError, match="does not match the manifest's dataset hash"):
        write_viewer(handmade_run, tmp_path / "site" / "index.html")
    assert not (tmp_path / "export").exists() and not (tmp_path / "site").exists()


def test_viewer_marks_steps_a_tool_drew(handmade_run: Path) -> None:
    trace = handmade_run / "traces" / "q1.canvas.jsonl"
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    steps[2]["drawn_by"] = "tool"
    trace.write_text("".join(json.dumps(step) + "\n" for step in steps))
    page = write_viewer(handmade_run).read_text()
    data = json.loads(page.split('id="data">', 1)[1].split("</script>", 1)[0].replace("<\\/", "</"))
    canvas = next(r for r in data["runs"] if r["mode"] == "canvas")
    assert [s["drawn_by"] for s in canvas["trace"]] == [None, None, "tool", None, None]
    assert "drawn by a tool" in page
