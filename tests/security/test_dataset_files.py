"""Dataset files cannot reach outside their folder, and only real images within the pixel limit are opened.

An image path in a dataset (or an item, or a model's answer naming an image) that is absolute, climbs out with
`..`, or goes through a symlink pointing outside is refused by every loader, by the prompt view a model is
shown, by the judge's image reader and by exports. Images over the pixel limit and files named `.png` that are
not images are refused wherever an image is opened: the loaders, the canvas, and the text arm's image parts.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from mcot.agents.session import image_part
from mcot.benchmarks.loaders import DEFAULT_MAX_PIXELS, load
from mcot.canvas import MAX_PIXELS, Canvas, CanvasError
from mcot.eval.protocols import Scorer
from PIL import Image

from mcot.core.item import Item, ItemError, contained_path, prompt_view, write_items

SECRET = b"the contents of a file outside the dataset"


def _png(size: tuple[int, int] = (8, 6), mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, "white" if mode == "RGB" else 1).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A PNG outside the dataset folder (a valid image: only its place makes it forbidden)."""
    path = tmp_path / "elsewhere" / "secret.png"
    path.parent.mkdir()
    path.write_bytes(_png((5, 5)))
    return path


def _escapes(root: Path, outside: Path) -> dict[str, str]:
    """Return the ways out of `root` as relative image paths: `..`, absolute, and a symlink inside pointing out."""
    (root / "img").mkdir(parents=True, exist_ok=True)
    (root / "img" / "link.png").symlink_to(outside)
    (root / "img" / "dir").symlink_to(outside.parent, target_is_directory=True)
    depth = len(root.relative_to(outside.parent.parent).parts)
    return {
        "dotdot": "/".join([".."] * depth) + "/elsewhere/secret.png",
        "absolute": str(outside),
        "symlink": "img/link.png",
        "symlinked folder": "img/dir/secret.png",
    }


# ------------------------------------------------------------------------------------------- loaders


def _rbench_v(root: Path, image: str) -> Path:
    kind = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("catagory", pa.string()), ("question", pa.string()), ("image", kind), ("answer", pa.string())])
    row = {"catagory": "Physics", "question": "How fast?", "image": {"bytes": None, "path": image}, "answer": "1"}
    pq.write_table(pa.Table.from_pylist([row], schema=schema), root / "test.parquet")
    return root


def _gobench(root: Path, image: str) -> Path:
    record = {
        "index": "reflect_light_images_1.1",
        "category": "reflect_light_images",
        "image": image,
        "title": "Mirror",
        "prompt": "A cat before a mirror.",
        "Questions_reality": "1. a\n2. b\n3. c\n4. d\n5. e",
        "Question_aesthetics": "Rate the aesthetics 1-5.",
        "Question_Instruction_consistency": "Rate the consistency 1-5.",
    }
    (root / "data_total.json").write_text(json.dumps([record]))
    return root


def _omniphys(root: Path, image: str) -> Path:
    record = {"id": "q1", "question": "How many forces?", "answer": "B", "type": "single_choice",
              "choices": ["1", "2", "3", "4"], "images": image}  # fmt: skip
    (root / "omniphys.jsonl").write_text(json.dumps(record) + "\n")
    return root


def _items(root: Path, image: str) -> Path:
    line = {"id": "q1", "benchmark": "games", "category": "maze", "question": "?", "images": [image],
            "choices": None, "answer": "A", "answer_type": "text", "meta": {}}  # fmt: skip
    (root / "items.jsonl").write_text(json.dumps(line) + "\n")
    return root


def _gepbench(root: Path, image: str) -> Path:
    # GePBench finds figures by name in figures/: the way out is a figure that is a symlink (or a folder link)
    (root / "figures").mkdir()
    (root / "vqa-easy").mkdir()
    target = (root / image).resolve() if not Path(image).is_absolute() else Path(image)
    (root / "figures" / "easy_00000000.png").symlink_to(target)
    question = {"image_id": 0, "question_id": 0, "question": "How many?", "choices": [0, 1, 2, 3], "answer": 1}
    (root / "vqa-easy" / "counting.jsonl").write_text(json.dumps(question) + "\n")
    return root


LOADERS: dict[str, Callable[[Path, str], Path]] = {
    "rbench-v": _rbench_v,
    "gobench": _gobench,
    "omniphys": _omniphys,
    "items": _items,
    "gepbench": _gepbench,
}


@pytest.mark.parametrize("way", ["dotdot", "absolute", "symlink", "symlinked folder"])
@pytest.mark.parametrize("format", list(LOADERS))
def test_no_loader_reads_an_image_outside_the_dataset(tmp_path: Path, outside: Path, format: str, way: str) -> None:
    root = tmp_path / "dataset"
    image = _escapes(root, outside)[way]
    result = load(format, LOADERS[format](root, image))
    assert result.items == [], [loaded.images for loaded in result.items]
    kinds = {skip.kind for skip in result.skipped}
    assert kinds <= {"path escapes dataset", "missing image"} and kinds, result.skipped
    assert all(outside.read_bytes() not in data for loaded in result.items for data in loaded.images.values())


def test_a_symlink_that_stays_inside_the_dataset_is_fine(tmp_path: Path) -> None:
    root = tmp_path / "dataset"
    (root / "img").mkdir(parents=True)
    (root / "img" / "real.png").write_bytes(_png())
    (root / "img" / "alias.png").symlink_to(root / "img" / "real.png")
    result = load("items", _items(root, "img/alias.png"))
    assert [list(loaded.images) for loaded in result.items] == [["img/alias.png"]]


# ------------------------------------------------------------------------------------------- prompt view, judge, export


@pytest.mark.parametrize("way", ["dotdot", "absolute", "symlink", "symlinked folder"])
def test_the_prompt_view_refuses_an_image_outside_the_items(tmp_path: Path, outside: Path, way: str) -> None:
    root = tmp_path / "items"
    image = _escapes(root, outside)[way]
    item = Item(id="q1", benchmark="games", category="maze", question="?", images=[image], answer="A",
                answer_type="text")  # fmt: skip
    with pytest.raises(ItemError, match="q1"):
        prompt_view(item, root)


def test_the_prompt_view_keeps_paths_that_stay_inside(tmp_path: Path) -> None:
    item = Item(id="q1", benchmark="games", category="maze", question="?", images=["images/a/../b.png"],
                answer="A", answer_type="text")  # fmt: skip
    assert prompt_view(item, tmp_path).images == (tmp_path / "images/a/../b.png",)
    for bad in ("", "a\x00b.png"):
        with pytest.raises(ItemError):
            contained_path(tmp_path, bad)


def test_solving_an_item_with_an_escaping_image_fails_without_reading_it(tmp_path: Path, outside: Path) -> None:
    from mcot.agents import solve

    root = tmp_path / "items"
    image = _escapes(root, outside)["dotdot"]
    item = Item(id="q1", benchmark="games", category="maze", question="?", images=[image], answer="A",
                answer_type="text")  # fmt: skip
    with pytest.raises(ItemError, match="leaves the items directory"):
        asyncio.run(solve(item, root, "offline", "canvas"))


@pytest.mark.parametrize("way", ["dotdot", "absolute", "symlink"])
def test_the_judge_is_never_shown_a_file_outside_its_root(tmp_path: Path, outside: Path, way: str) -> None:
    run = tmp_path / "run"
    image = _escapes(run, outside)[way]
    scorer = Scorer(items_root=run, run_root=run)
    assert scorer.image(image, run=True) is None and scorer.image(image) is None
    (run / "blobs").mkdir()
    (run / "blobs" / "ok.png").write_bytes(_png())
    assert scorer.image("blobs/ok.png", run=True) == _png()


def test_an_export_leaves_out_item_images_outside_the_items(tmp_path: Path, outside: Path) -> None:
    from mcot.export.records import _contained

    root = tmp_path / "items"
    escapes = _escapes(root, outside)
    assert not any(_contained(root, path) for path in escapes.values())
    assert _contained(root, "images/q.png")


# ------------------------------------------------------------------------------------------- images


def _bomb() -> bytes:
    """A small PNG file that decodes to more pixels than allowed (1-bit, 8000 x 6000 = 48 million)."""
    buffer = io.BytesIO()
    Image.new("1", (8000, 6000), 1).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


NOT_IMAGES = {
    "text": b"this is not an image",
    "html": b"<html><img src=x></html>",
    "png header only": b"\x89PNG\r\n\x1a\n" + b"\x00" * 20,
    "truncated png": _png((40, 30))[:60],
    "empty": b"",
}


@pytest.mark.parametrize("name", list(NOT_IMAGES))
def test_a_file_named_png_that_is_no_image_is_refused_everywhere(tmp_path: Path, name: str) -> None:
    path = tmp_path / "items" / "images" / "fake.png"
    path.parent.mkdir(parents=True)
    path.write_bytes(NOT_IMAGES[name])
    result = load("items", _items(tmp_path / "items", "images/fake.png"))
    assert result.items == [] and [skip.kind for skip in result.skipped] == ["invalid image"]
    with pytest.raises(CanvasError):
        Canvas.from_path(path)
    with pytest.raises((OSError, CanvasError, SyntaxError, ValueError)):
        image_part(path)


def test_a_jpeg_is_sent_as_it_is_and_a_truncated_one_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    Image.radial_gradient("L").resize((640, 480)).save(buffer, format="JPEG", quality=90)
    whole = buffer.getvalue()
    path = tmp_path / "figure.jpg"
    path.write_bytes(whole)
    part = image_part(path)
    assert (part.data, part.media_type) == (whole, "image/jpeg")
    path.write_bytes(whole[: len(whole) * 2 // 3])
    with pytest.raises(OSError, match="truncated"):
        image_part(path)


def test_an_image_over_the_pixel_limit_is_refused_before_decoding(tmp_path: Path) -> None:
    bomb = _bomb()
    assert len(bomb) < 200_000 and 8000 * 6000 > MAX_PIXELS == DEFAULT_MAX_PIXELS
    path = tmp_path / "items" / "images" / "bomb.png"
    path.parent.mkdir(parents=True)
    path.write_bytes(bomb)
    result = load("items", _items(tmp_path / "items", "images/bomb.png"))
    assert result.items == [] and [skip.kind for skip in result.skipped] == ["image too large"]
    with pytest.raises(CanvasError, match="pixels"):
        Canvas.from_path(path)
    with pytest.raises(CanvasError, match="pixels"):
        image_part(path)


def test_writing_items_refuses_paths_that_leave_the_directory(tmp_path: Path) -> None:
    item = Item(id="q1", benchmark="games", category="maze", question="?", images=["../x.png"], answer="A",
                answer_type="text")  # fmt: skip
    with pytest.raises(ItemError):
        write_items(tmp_path / "out", [(item, {"../x.png": _png()})])


def test_an_image_edit_input_outside_the_items_is_refused(tmp_path: Path, outside: Path) -> None:
    from mcot.agents.generators import ImageSolver, load_generator

    root = tmp_path / "items"
    image = _escapes(root, outside)["symlink"]
    item = Item(id="d1", benchmark="omniphys", category="optics", question="Draw the ray.", images=[image],
                answer="ref.png", answer_type="image")  # fmt: skip
    solver = ImageSolver(load_generator("procedural"), "image")
    with pytest.raises(ItemError, match="d1"):
        solver.request(item, root)
