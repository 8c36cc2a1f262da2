import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mcot.core.rundir import RunDirError
from mcot.export import ExportError, export_run
from mcot.viewer import write_viewer


def test_jsonl_export_one_record_per_item_and_mode(handmade_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "export" / "traces"
    assert export_run(handmade_run, "jsonl", out).count == 2
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    canvas = next(r for r in records if r["mode"] == "canvas")
    assert canvas["answer"] == "B" and canvas["correct"] is True and canvas["status"] == "ok"
    blob = f"images/{canvas['canvas_images'][0].split('/')[-1]}"
    assert canvas["canvas_images"] == [blob, blob] and (out / blob).is_file()
    assert [(out / name).is_file() for name in canvas["item_images"]] == [True]
    assert not (out.parent / "blobs").exists()


def test_parquet_and_hf_exports_embed_images(handmade_run: Path, tmp_path: Path) -> None:
    assert export_run(handmade_run, "parquet", tmp_path / "t.parquet").count == 2
    table = pq.read_table(tmp_path / "t.parquet")
    rows = {(r["id"], r["mode"]): r for r in table.to_pylist()}
    canvas = rows[("q1", "canvas")]
    assert canvas["canvas_images"][0]["bytes"].startswith(b"\x89PNG")
    assert canvas["item_images"][0]["bytes"].startswith(b"\x89PNG")
    assert b"huggingface" in table.schema.metadata
    assert export_run(handmade_run, "hf", tmp_path / "hf").count == 2
    assert (tmp_path / "hf" / "dataset_dict.json").is_file()
    assert "configs:" in (tmp_path / "hf" / "README.md").read_text()


def test_unknown_format_is_refused(handmade_run: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="Known: jsonl, parquet, hf, vlmevalkit or gepbench"):
        export_run(handmade_run, "csv", tmp_path / "x")


def test_export_and_view_stop_when_the_frozen_items_were_edited(handmade_run: Path, tmp_path: Path) -> None:
    items = handmade_run / "items.jsonl"
    items.write_text(items.read_text().replace('"answer": "B"', '"answer": "A"'))
    with pytest.raises(RunDirError, match="does not match the manifest's dataset hash"):
        export_run(handmade_run, "jsonl", tmp_path / "export" / "traces")
    with pytest.raises(RunDirError, match="does not match the manifest's dataset hash"):
        write_viewer(handmade_run, tmp_path / "site" / "index.html")
    assert not (tmp_path / "export").exists() and not (tmp_path / "site").exists()
