import json
import string
from pathlib import Path

from loader_files import gepbench_native
from mcot.benchmarks.loaders import load


def test_native_directory_gives_letter_answers_and_reports_bad_lines(tmp_path: Path) -> None:
    result = load("gepbench", gepbench_native(tmp_path / "dataset").parent)
    items = {loaded.item.id: loaded for loaded in result.items}
    assert sorted(items) == ["easy-counting-00000000-0", "hard-relation-00000001-0"]
    counting = items["easy-counting-00000000-0"].item
    assert (counting.category, counting.choices, counting.answer) == ("counting", ["0", "1", "2", "3"], "C")
    assert counting.meta == {
        "level": "easy",
        "aspect": "counting",
        "image_id": 0,
        "question_id": 0,
        "choice_values": [0, 1, 2, 3],
        "answer_value": 2,
    }
    relation = items["hard-relation-00000001-0"]
    assert (relation.item.category, relation.item.answer, relation.item.meta["level"]) == ("relationship", "D", "hard")
    assert relation.item.meta["source_rule"] == 17
    assert relation.images == {
        "images/gepbench/hard_00000001.jpg": (tmp_path / "dataset/figures/hard_00000001.jpg").read_bytes()
    }
    assert [(s.locator, s.kind) for s in result.skipped] == [
        ("vqa-easy/counting.jsonl:2", "answer not in choices"),
        ("vqa-easy/counting.jsonl:3", "missing image"),
        ("vqa-easy/counting.jsonl:4", "wrong field type"),
        ("vqa-easy/counting.jsonl:5", "malformed record"),
    ]


def test_shared_sample_loads_every_question_with_the_right_letter(shared_data: Path) -> None:
    root = shared_data / "gepbench-sample" / "dataset"
    expected = {}
    for path in sorted(root.glob("vqa-*/*.jsonl")):
        level = path.parent.name.removeprefix("vqa-")
        for line in path.read_text().splitlines():
            record = json.loads(line)
            key = f"{level}-{path.stem}-{record['image_id']:08d}-{record['question_id']}"
            expected[key] = string.ascii_uppercase[record["choices"].index(record["answer"])]
    result = load("gepbench", shared_data / "gepbench-sample")
    assert result.skipped == []
    assert result.records == len(expected) == 507
    assert {loaded.item.id: loaded.item.answer for loaded in result.items} == expected
    assert {loaded.item.category for loaded in result.items} == {
        "existence",
        "counting",
        "size",
        "location",
        "reference",
        "relationship",
    }
