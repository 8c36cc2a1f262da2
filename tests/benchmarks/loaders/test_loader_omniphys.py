import json
from pathlib import Path

import pytest
from loader_files import OMNIPHYS_MAPPING, make_image, omniphys_records, write_jsonl
from mcot.benchmarks.loaders import LoaderError, load, parse_mapping


def test_chinese_keys_and_every_task_type(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "omniphys.jsonl", omniphys_records(tmp_path))
    result = load("omniphys", source, mapping=OMNIPHYS_MAPPING)
    items = {loaded.item.id: loaded for loaded in result.items}
    assert sorted(items) == ["q1", "q10", "q2", "q3", "q4", "q5", "q6"]
    q1 = items["q1"].item
    assert (q1.answer, q1.answer_type, q1.choices, q1.category) == (
        "B",
        "choice",
        ["一个", "两个", "三个", "四个"],
        "mechanics",
    )
    assert q1.meta["stage"] == "高中" and q1.meta["solution"] == ["受力分析", "列方程", "求解"]
    assert q1.meta["task_type"] == "single_choice"
    assert items["q1"].images == {"images/omniphys/q1-0.png": make_image()}
    assert (items["q2"].item.answer, items["q2"].item.choices) == ("AC", ["甲", "乙", "丙"])
    assert (items["q3"].item.answer, items["q3"].item.answer_type, items["q3"].item.meta["难度"]) == ("yes", "yesno", 2)
    assert (items["q4"].item.answer, items["q4"].item.meta["slots"]) == ("3; 4", ["3", "4"])
    assert (items["q5"].item.answer, items["q5"].item.answer_type) == ("2 m/s²", "number")
    q6 = items["q6"]
    assert (q6.item.answer_type, q6.item.images) == ("image", ["images/omniphys/q6-0.png"])
    assert q6.item.answer == q6.item.meta["reference_image"] == "images/omniphys/q6-reference.png"
    assert q6.images["images/omniphys/q6-reference.png"] == make_image(size=(9, 6))
    assert items["q10"].images == {"images/omniphys/q10-0.png": make_image()}
    assert [(s.locator, s.kind) for s in result.skipped] == [
        ("q7", "unknown task type"),
        ("q8", "wrong field type"),
        ("q9", "path escapes dataset"),
        ("omniphys.jsonl:11", "malformed record"),
    ]


def test_mapping_file_in_yaml_with_type_values(tmp_path: Path) -> None:
    (tmp_path / "map.yaml").write_text(
        "fields:\n  question: 题干\n  answer: 标准答案\n  type: 类型\ntypes:\n  连线题: single_choice\n",
        encoding="utf-8",
    )
    source = write_jsonl(tmp_path / "d.jsonl", [{"题干": "选哪个？(A) 甲 (B) 乙", "标准答案": "乙", "类型": "连线题"}])
    (loaded,) = load("omniphys", source, mapping=tmp_path / "map.yaml").items
    assert (loaded.item.id, loaded.item.answer, loaded.item.category) == ("line-1", "B", "single_choice")


def test_bad_mappings_are_loader_errors(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="unknown field"):
        parse_mapping("questoin=题目")
    with pytest.raises(LoaderError, match="not k=v"):
        parse_mapping("question=题目,answer")
    with pytest.raises(LoaderError, match="not found"):
        parse_mapping(tmp_path / "missing.json")
    with pytest.raises(LoaderError, match="unknown task type"):
        parse_mapping({"types": {"连线题": "matching"}})
    (tmp_path / "map.json").write_text(json.dumps({"question": "题目"}, ensure_ascii=False), encoding="utf-8")
    mapping = parse_mapping(tmp_path / "map.json")
    assert (mapping.key("question"), mapping.key("answer")) == ("题目", "answer")


def test_duplicate_ids_and_unknown_options(tmp_path: Path) -> None:
    record = {"id": "same", "question": "Is light a wave?", "answer": "true", "type": "true_false"}
    source = write_jsonl(tmp_path / "d.jsonl", [record, record])
    result = load("omniphys", source)
    assert [loaded.item.answer for loaded in result.items] == ["yes"]
    assert [(s.locator, s.kind) for s in result.skipped] == [("same", "duplicate id")]
    with pytest.raises(LoaderError, match="generation do not apply to omniphys"):
        load("omniphys", source, generation=True)
