"""LLaVA training data from the GePBench engine: captions from the description, instructions from the questions."""

import json
from collections import Counter
from pathlib import Path

import pytest
from mcot.benchmarks.generators.gepbench import shapes as sh
from mcot.benchmarks.generators.gepbench.engine import SUMMARY_FILE, generate
from mcot.benchmarks.generators.gepbench.llava import (
    CAPTIONS_FILE,
    CHOICE_INSTRUCTION,
    INSTRUCTIONS_FILE,
    ORDINALS,
    caption,
    place_words,
    shape_names,
)
from mcot.benchmarks.generators.gepbench.placement import Figure

from mcot.core.item import read_items

RELATION_WORDS = {"shared edge": "shares an edge", "symmetric": "mirror images"}
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _generate(out: Path, seed: int) -> Path:
    generate(out, 6, seed, "both", llava=True)
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("llava") / "items", 11)


def _records(out: Path, name: str) -> list[dict]:
    records = json.loads((out / name).read_text(encoding="utf-8"))
    assert isinstance(records, list)  # LLaVA's trainer json.load()s a list
    return records


def test_same_seed_same_bytes_other_seed_other_bytes(generated: Path, tmp_path: Path) -> None:
    again = _generate(tmp_path / "again", 11)
    other = _generate(tmp_path / "other", 12)
    for name in (CAPTIONS_FILE, INSTRUCTIONS_FILE):
        assert (again / name).read_bytes() == (generated / name).read_bytes(), name
        assert (other / name).read_bytes() != (generated / name).read_bytes(), name


def test_every_record_is_llava_format_with_one_image_token(generated: Path) -> None:
    for name in (CAPTIONS_FILE, INSTRUCTIONS_FILE):
        for record in _records(generated, name):
            assert set(record) == {"id", "image", "conversations"}
            assert not Path(record["image"]).is_absolute() and record["image"].startswith("images/")
            assert (generated / record["image"]).is_file()
            turns = record["conversations"]
            assert [t["from"] for t in turns] == ["human", "gpt"]
            assert turns[0]["value"].startswith("<image>\n")
            assert sum(t["value"].count("<image>") for t in turns) == 1


def test_one_caption_per_figure_mentioning_every_shape(generated: Path) -> None:
    captions = _records(generated, CAPTIONS_FILE)
    assert [c["id"] for c in captions] == [
        *(f"gepbench-easy-{i:06d}-caption" for i in range(3)),
        *(f"gepbench-hard-{i:06d}-caption" for i in range(3)),
    ]
    descriptions = {item.images[0]: item.meta["description"] for item in read_items(generated)}
    assert set(descriptions) == {c["image"] for c in captions}
    for record in captions:
        text = record["conversations"][1]["value"]
        kinds = Counter(shape["type"] for shape in descriptions[record["image"]]["shapes"])
        total = sum(kinds.values())
        assert text.startswith(f"The image shows {NUMBERS[total]} shapes"), text
        for kind, count in kinds.items():
            names = [kind] if count == 1 else [f"{ORDINALS[k]} {kind}" for k in range(count)]
            for name in names:
                assert f"The {name} is " in text, (name, text)
        for _i, _j, word in descriptions[record["image"]]["relations"]:
            assert RELATION_WORDS.get(word, word) in text, (word, text)
        hard = record["id"].startswith("gepbench-hard")
        assert ("drawn by hand" in text) == hard


def test_instructions_are_the_items_questions_with_their_answers(generated: Path) -> None:
    items = {item.id: item for item in read_items(generated)}
    instructions = _records(generated, INSTRUCTIONS_FILE)
    assert [r["id"] for r in instructions] == list(items)
    for record in instructions:
        item = items[record["id"]]
        human, gpt = (t["value"] for t in record["conversations"])
        assert gpt == item.answer
        assert record["image"] == item.images[0]
        options = "\n".join(f"{letter}. {choice}" for letter, choice in zip("ABCD", item.choices, strict=True))
        assert human == f"<image>\n{item.question}\n{options}\n{CHOICE_INSTRUCTION}"
    summary = json.loads((generated / SUMMARY_FILE).read_text())
    assert summary["llava"] == {"captions": 6, "instructions": len(items)}


def test_without_llava_nothing_changes(tmp_path: Path) -> None:
    generate(tmp_path / "plain", 4, 2, "both")
    generate(tmp_path / "llava", 4, 2, "both", llava=True)
    plain = {p.relative_to(tmp_path / "plain") for p in (tmp_path / "plain").rglob("*") if p.is_file()}
    for rel in plain - {Path(SUMMARY_FILE)}:
        assert (tmp_path / "plain" / rel).read_bytes() == (tmp_path / "llava" / rel).read_bytes(), rel
    assert not (tmp_path / "plain" / CAPTIONS_FILE).exists()
    summary = json.loads((tmp_path / "plain" / SUMMARY_FILE).read_text())
    assert "llava" not in summary


def test_caption_of_a_known_figure_in_words() -> None:
    circle = sh.ellipse((0.5, 0.5), 0.2, 0.2, 0.0)
    diameter = sh.segment((0.3, 0.5), (0.7, 0.5))
    square = sh.polygon("square", [(0.05, 0.05), (0.25, 0.05), (0.25, 0.25), (0.05, 0.25)])
    other_square = sh.polygon("square", [(0.7, 0.8), (0.9, 0.8), (0.9, 0.95), (0.7, 0.95)])
    figure = Figure(
        "easy",
        shapes=[circle, diameter, square, other_square],
        relations=[(1, 0, "diameter")],
        contacts={(0, 1): "touch"},
    )
    text = caption(figure)
    assert text.startswith("The image shows four shapes: a circle, a line and two squares.")
    assert "The circle is in the centre, its centroid at (0.50, 0.50); its radius is 0.20." in text
    assert "The line is in the centre, its centroid at (0.50, 0.50); it is 0.40 long." in text
    assert "The first square is in the lower left, its centroid at (0.15, 0.15)" in text
    assert "with sides of 0.20, enclosing an area of 0.040." in text
    assert "The second square is in the upper right" in text
    assert "The line is a diameter of the circle." in text
    assert text.endswith("No other shapes touch or cross.")
    assert shape_names(figure.shapes) == ["circle", "line", "first square", "second square"]


@pytest.mark.parametrize(
    ("point", "words"),
    [
        ((0.1, 0.9), "in the upper left"),
        ((0.5, 0.9), "at the top"),
        ((0.5, 0.5), "in the centre"),
        ((0.9, 0.5), "on the right"),
        ((0.8, 0.1), "in the lower right"),
        ((0.5, 0.2), "at the bottom"),
    ],
)
def test_place_words(point: tuple[float, float], words: str) -> None:
    assert place_words(point) == words
