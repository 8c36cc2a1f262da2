import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from loader_files import OMNIPHYS_MAPPING, gepbench_native, gobench_dataset, make_image, omniphys_records, write_jsonl
from mcot.benchmarks.loaders import SKIPPED_FILE, LoaderError, convert, detect_format, load
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.item import read_items


def _rbench(root: Path) -> Path:
    root.mkdir(parents=True)
    rows = [
        {
            "catagory": "Game",
            "question": "Which exit?\n(A) left\n(B) right",
            "answer": "B",
            "image": {"bytes": make_image(mode="RGBA"), "path": None},
        },
        {"catagory": "Math", "question": "2 + 2 = ?", "answer": "4", "image": None},
        {
            "catagory": "Math",
            "question": "Broken image",
            "answer": "1",
            "image": {"bytes": b"\x89PNG\r\n", "path": None},
        },
    ]
    pq.write_table(pa.Table.from_pylist(rows), root / "test.parquet")
    return root


def _source(tmp: Path, format: str) -> tuple[Path, dict]:
    if format == "rbench-v":
        return _rbench(tmp / "rbench"), {}
    if format == "gepbench":
        return gepbench_native(tmp / "gepbench" / "dataset").parent, {}
    if format == "gobench":
        return gobench_dataset(tmp / "gobench"), {}
    omni = tmp / "omniphys"
    return write_jsonl(omni / "data.jsonl", omniphys_records(omni)), {"mapping": OMNIPHYS_MAPPING}


@pytest.mark.parametrize("format", ["rbench-v", "gepbench", "gobench", "omniphys"])
def test_convert_then_read_back_gives_identical_items(tmp_path: Path, format: str) -> None:
    src, options = _source(tmp_path / "src", format)
    assert detect_format(src) == format
    loaded = load(format, src, **options)
    summary = convert(format, src, tmp_path / "out", **options)
    assert (summary.written, summary.skipped, summary.records) == (
        len(loaded.items),
        len(loaded.skipped),
        loaded.records,
    )
    assert read_items(tmp_path / "out") == [entry.item for entry in loaded.items]
    for entry in loaded.items:
        for rel, data in entry.images.items():
            assert (tmp_path / "out" / rel).read_bytes() == data
    lines = (tmp_path / "out" / SKIPPED_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == [skip.locator for skip in loaded.skipped]
    assert detect_format(tmp_path / "out") == "items"
    again = convert("items", tmp_path / "out", tmp_path / "copy")
    assert read_items(tmp_path / "copy") == read_items(tmp_path / "out") and again.skipped == 0


def test_nothing_readable_fails_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "data_total.json").write_text(json.dumps([{"index": "a_1.1", "image": "x.png"}]))
    with pytest.raises(LoaderError, match=r"nothing could be read.*missing field: 1"):
        convert("gobench", tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["data_total.json"]


def test_existing_output_is_refused(tmp_path: Path) -> None:
    src = gobench_dataset(tmp_path / "src")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(LoaderError, match="not empty"):
        convert("gobench", src, tmp_path / "out")
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


def test_cli_prints_counts_and_exits_2_on_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    src = gobench_dataset(tmp_path / "src")
    ok = runner.invoke(app, ["convert", "gobench", str(src), "--out", str(tmp_path / "out")])
    assert ok.exit_code == 0, ok.output
    assert "read 4 records, wrote 1 items" in ok.output
    assert "skipped 1: missing image" in ok.output
    generation = runner.invoke(app, ["convert", "gobench", str(src), "--out", str(tmp_path / "gen"), "--generation"])
    assert generation.exit_code == 0 and "wrote 2 items" in generation.output
    wrong = runner.invoke(app, ["convert", "gepbench", str(src), "--out", str(tmp_path / "x"), "--generation"])
    assert wrong.exit_code == 2
    unknown = runner.invoke(app, ["convert", "mmlu", str(src), "--out", str(tmp_path / "y")])
    assert unknown.exit_code == 2
    (tmp_path / "empty.jsonl").write_text('{"question": "cut')
    empty = runner.invoke(app, ["convert", "omniphys", str(tmp_path / "empty.jsonl"), "--out", str(tmp_path / "z")])
    assert empty.exit_code == 2
    assert not (tmp_path / "z").exists()


def test_detect_format_names_nothing_for_unknown_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "other.tsv").write_text("a\tb\n1\t2\n")
    assert detect_format(tmp_path / "notes.txt") is None
    assert detect_format(tmp_path / "other.tsv") is None
    assert detect_format(tmp_path) is None
    assert detect_format(tmp_path / "absent") is None


def test_shared_files_convert_with_the_expected_counts(tmp_path: Path, shared_data: Path) -> None:
    summary = convert("gobench", shared_data / "gobench", tmp_path / "gob")
    assert (summary.records, summary.written, summary.skipped, summary.reasons) == (999, 3, 996, {"missing image": 996})
    assert len((tmp_path / "gob" / SKIPPED_FILE).read_text().splitlines()) == 996
    generation = convert("gobench", shared_data / "gobench", tmp_path / "gen", generation=True)
    assert (generation.records, generation.written, generation.skipped) == (999, 333, 0)
    gepbench = convert(
        detect_format(shared_data / "gepbench-sample") or "", shared_data / "gepbench-sample", tmp_path / "gep"
    )
    assert (gepbench.written, gepbench.skipped) == (507, 0)
    assert len(list((tmp_path / "gep" / "images" / "gepbench").iterdir())) == 40
