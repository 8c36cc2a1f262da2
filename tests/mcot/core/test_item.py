import os
from pathlib import Path

import pytest

from mcot.core.item import Item, ItemError, ItemsWriter, prompt_view, read_items, write_items


def _item(item_id: str = "a1", images: list[str] | None = None) -> Item:
    return Item(
        id=item_id,
        benchmark="games",
        category="maze",
        question="Which exit?",
        images=images or [],
        choices=["A", "B"],
        answer="A",
        answer_type="choice",
        meta={"path": [[0, 0], [0, 1]]},
    )


def test_round_trip_keeps_items_and_images(tmp_path: Path) -> None:
    out = tmp_path / "items"
    count = write_items(out, [(_item(images=["images/a1.png"]), {"images/a1.png": b"\x89PNG"})])
    assert count == 1
    assert read_items(out) == [_item(images=["images/a1.png"])]
    assert (out / "images" / "a1.png").read_bytes() == b"\x89PNG"


def test_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    out = tmp_path / "items"
    with pytest.raises(ItemError, match="duplicate"), ItemsWriter(out) as writer:
        writer.add(_item())
        writer.add(_item())
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_image_path_may_not_escape(tmp_path: Path) -> None:
    writer = ItemsWriter(tmp_path / "items")
    with pytest.raises(ItemError, match="inside"):
        writer.add_image("../../etc/passwd", b"x")
    writer.abort()


def test_prompt_view_hides_answer_and_meta(tmp_path: Path) -> None:
    view = prompt_view(_item(), tmp_path)
    dumped = view.model_dump()
    assert "answer" not in dumped and "meta" not in dumped


def test_bad_line_is_named(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").write_text('{"id": "x"}\n')
    with pytest.raises(ItemError, match=r"items\.jsonl:1"):
        read_items(tmp_path)


def test_a_line_that_is_not_utf8_is_named_with_its_file_line_and_column(tmp_path: Path) -> None:
    good = _item().to_json_line().encode()
    (tmp_path / "items.jsonl").write_bytes(good + b"\n" + good.replace(b"Which", b"Wh\xe9ch") + b"\n")
    with pytest.raises(ItemError) as raised:
        read_items(tmp_path)
    column = good.index(b"Which") + 3
    assert str(raised.value) == (
        f"{tmp_path / 'items.jsonl'}:2: not UTF-8 text (byte 0xe9 at column {column}); items files are UTF-8"
    )


def test_an_items_file_without_items_is_refused(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").write_text("\n  \n")
    with pytest.raises(ItemError, match="holds no items: there is nothing to run, score or view"):
        read_items(tmp_path)


def test_an_items_file_that_is_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "items.jsonl")
    with pytest.raises(ItemError, match=r"items file .* is a named pipe \(FIFO\), not a regular file"):
        read_items(tmp_path)
