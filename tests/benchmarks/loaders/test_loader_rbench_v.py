import base64
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from loader_files import make_image
from mcot.benchmarks.loaders import LoaderError, load
from PIL import Image

IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
MC_QUESTION = "Which ray leaves the prism last?\nA. the red one\nB. the green one\nC. the blue one\nD. none"


def _write_parquet(path: Path, rows: list[dict]) -> None:
    schema = pa.schema(
        [
            ("catagory", pa.string()),
            ("question", pa.string()),
            ("image", IMAGE_TYPE),
            ("answer", pa.string()),
            ("source", pa.string()),
        ]
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def _rows() -> list[dict]:
    return [
        {
            "catagory": "Physics",
            "question": MC_QUESTION,
            "image": {"bytes": make_image(mode="RGBA"), "path": "a.png"},
            "answer": "B",
            "source": "book",
        },
        {"catagory": "Math", "question": "What is 2 + 3?", "image": None, "answer": "5", "source": None},
        {
            "catagory": "Physics",
            "question": "How fast?",
            "image": {"bytes": make_image(fmt="JPEG"), "path": None},
            "answer": "12 m/s",
            "source": None,
        },
        {
            "catagory": "Counting",
            "question": "How many?",
            "image": {"bytes": b"not an image", "path": None},
            "answer": "3",
            "source": None,
        },
        {
            "catagory": "Game",
            "question": "Where?",
            "image": {"bytes": None, "path": "../../etc/passwd"},
            "answer": "left",
            "source": None,
        },
    ]


def test_parquet_rows_become_items_with_stable_ids(tmp_path: Path) -> None:
    _write_parquet(tmp_path / "data" / "test-00000-of-00001.parquet", _rows())
    result = load("rbench-v", tmp_path)
    by_id = {loaded.item.id: loaded for loaded in result.items}
    assert sorted(by_id) == ["math-0000", "physics-0000", "physics-0001"]
    mc = by_id["physics-0000"]
    assert mc.item.category == "physics"
    assert mc.item.choices == ["the red one", "the green one", "the blue one", "none"]
    assert (mc.item.answer, mc.item.answer_type) == ("B", "choice")
    assert mc.item.meta["source"] == "book"
    assert mc.images == {"images/rbench-v/physics-0000.png": make_image(mode="RGBA")}
    assert Image.open(io.BytesIO(mc.images[mc.item.images[0]])).mode == "RGBA"
    text_only = by_id["math-0000"].item
    assert (text_only.images, text_only.answer_type, text_only.choices) == ([], "number", None)
    assert by_id["physics-0001"].item.images == ["images/rbench-v/physics-0001.jpg"]
    kinds = {skip.locator: skip.kind for skip in result.skipped}
    assert kinds == {
        "test-00000-of-00001.parquet:row 3": "invalid image",
        "test-00000-of-00001.parquet:row 4": "path escapes dataset",
    }
    assert result.records == 5


def test_truncated_parquet_is_reported_and_the_other_file_still_loads(tmp_path: Path) -> None:
    _write_parquet(tmp_path / "a.parquet", _rows()[:2])
    _write_parquet(tmp_path / "b.parquet", _rows()[:2])
    data = (tmp_path / "b.parquet").read_bytes()
    (tmp_path / "b.parquet").write_bytes(data[: len(data) // 2])
    result = load("rbench-v", tmp_path)
    assert [loaded.item.id for loaded in result.items] == ["physics-0000", "math-0000"]
    assert [(skip.locator, skip.kind) for skip in result.skipped] == [("b.parquet", "unreadable file")]


def test_save_to_disk_arrow_stream_loads(tmp_path: Path) -> None:
    table = pa.Table.from_pylist(
        [{"catagory": "Game", "question": "Which exit? (A) left (B) right", "image": None, "answer": "A"}],
        schema=pa.schema(
            [("catagory", pa.string()), ("question", pa.string()), ("image", IMAGE_TYPE), ("answer", pa.string())]
        ),
    )
    (tmp_path / "test").mkdir()
    with (
        pa.OSFile(str(tmp_path / "test" / "data-00000-of-00001.arrow"), "wb") as sink,
        pa.ipc.new_stream(sink, table.schema) as writer,
    ):
        writer.write_table(table)
    (item,) = [loaded.item for loaded in load("rbench-v", tmp_path).items]
    assert (item.id, item.choices, item.answer) == ("game-0000", ["left", "right"], "A")


def _tsv(path: Path, rows: list[list[str]]) -> Path:
    lines = ["index\timage\tquestion\tanswer\tsubject"] + ["\t".join(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_vlmevalkit_tsv_decodes_base64_and_reports_bad_rows(tmp_path: Path) -> None:
    png = make_image(size=(5, 4))
    encoded = base64.b64encode(png).decode()
    path = _tsv(
        tmp_path / "RBench-V.tsv",
        [
            ["0", encoded, "Count the dots. (A) 3 (B) 4 (C) 5", "C", "counting"],
            ["1", "", "Is the sum even?", "Yes", "math"],
            ["2", "!!!not base64!!!", "Where does it land?", "7", "physics"],
            ["3", "0", "Same image as row 0: how many now?", "4", "counting"],
            ["4", encoded, "a row cut short"],
        ],
    )
    result = load("rbench-v", path)
    items = {loaded.item.id: loaded for loaded in result.items}
    assert sorted(items) == ["counting-0000", "counting-0001", "math-0000"]
    assert items["counting-0000"].images == {"images/rbench-v/counting-0000.png": png}
    assert items["counting-0000"].item.answer_type == "choice"
    assert items["counting-0001"].images == {"images/rbench-v/counting-0001.png": png}
    assert items["math-0000"].item.answer_type == "yesno"
    assert items["math-0000"].item.meta["index"] == "1"
    assert [(s.locator, s.kind) for s in result.skipped] == [
        ("RBench-V.tsv:row 2", "invalid base64"),
        ("RBench-V.tsv:row 4", "malformed record"),
    ]


def test_image_over_the_pixel_limit_is_skipped(tmp_path: Path) -> None:
    _write_parquet(tmp_path / "t.parquet", _rows()[:1])
    result = load("rbench-v", tmp_path, max_pixels=20)
    assert result.items == []
    assert result.skipped[0].kind == "image too large"
    assert "48 pixels" in result.skipped[0].reason


def test_tsv_without_question_column_is_a_loader_error(tmp_path: Path) -> None:
    (tmp_path / "x.tsv").write_text("index\timage\n0\t\n")
    with pytest.raises(LoaderError, match="question"):
        load("rbench-v", tmp_path / "x.tsv")


def test_wrong_field_types_are_skipped_with_the_row(tmp_path: Path) -> None:
    pq.write_table(
        pa.Table.from_pylist([{"catagory": "Math", "question": ["a", "list"], "answer": "1"}]), tmp_path / "a.parquet"
    )
    rows = [
        {"catagory": "Math", "question": "Fine?", "answer": "Yes", "extra": [1, 2]},
        {"catagory": None, "question": "No category", "answer": "1", "extra": None},
    ]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "b.parquet")
    result = load("rbench-v", tmp_path)
    (loaded,) = result.items
    assert (loaded.item.id, loaded.item.meta["extra"]) == ("math-0001", [1, 2])
    assert [(s.locator, s.kind) for s in result.skipped] == [
        ("a.parquet:row 0", "wrong field type"),
        ("b.parquet:row 1", "missing field"),
    ]


def test_full_split_and_per_category_files_load_each_item_once(tmp_path: Path) -> None:
    rows = [row for row in _rows() if row["catagory"] in ("Physics", "Math")]
    same_text_other_image = {**rows[2], "image": {"bytes": make_image(size=(9, 6), fmt="JPEG"), "path": None}}
    _write_parquet(tmp_path / "data" / "test-00000-of-00001.parquet", [*rows, same_text_other_image])
    _write_parquet(tmp_path / "physics" / "test-00000-of-00001.parquet", [rows[0], rows[2]])
    _write_parquet(tmp_path / "math" / "test-00000-of-00001.parquet", [rows[1]])
    result = load("rbench-v", tmp_path)
    assert sorted(loaded.item.id for loaded in result.items) == [
        "math-0000",
        "physics-0000",
        "physics-0001",
        "physics-0002",
    ]
    assert result.records == 7
    duplicates = [skip for skip in result.skipped if skip.kind == "duplicate item"]
    assert [skip.locator for skip in duplicates] == [
        "test-00000-of-00001.parquet:row 0",
        "test-00000-of-00001.parquet:row 0",
        "test-00000-of-00001.parquet:row 1",
    ]
    assert "physics-0000" in duplicates[1].reason or "physics-0000" in duplicates[2].reason
    assert "math-0000" in duplicates[0].reason
    assert result.reasons() == {"duplicate item": 3}


def test_a_tsv_row_repeated_in_another_file_is_one_item(tmp_path: Path) -> None:
    image = base64.b64encode(make_image()).decode()
    _tsv(tmp_path / "RBench-V.tsv", [["0", image, "How many dots?", "4", "counting"]])
    _tsv(tmp_path / "RBench-V-count.tsv", [["0", image, "How many dots?", " 4 ", "counting"]])
    result = load("rbench-v", tmp_path)
    assert [loaded.item.id for loaded in result.items] == ["counting-0000"]
    assert [skip.kind for skip in result.skipped] == ["duplicate item"]
