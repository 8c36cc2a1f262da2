from pathlib import Path

import pytest
from loader_files import gobench_dataset, make_image
from mcot.benchmarks.loaders import LoaderError, load


def test_understanding_items_carry_the_image_and_seven_questions(tmp_path: Path) -> None:
    result = load("gobench", gobench_dataset(tmp_path))
    assert result.records == 4
    (loaded,) = result.items
    item = loaded.item
    assert (item.id, item.category, item.answer_type, item.answer) == (
        "reflect_light_images_1.1",
        "reflect_light_images",
        "rating",
        "",
    )
    assert loaded.images == {"images/gobench/reflect_light_images_1.1.png": make_image()}
    assert "A cat before a mirror." in item.question and "5. c" in item.question
    assert item.meta["questions_reality"] == ["Is the light source plausible?", "Is the shadow right?", "a", "b", "c"]
    assert item.meta["record"]["title"] == "Mirror"
    assert item.meta["scenario"] == "reflect_light_images_1"
    assert [(s.locator, s.kind) for s in result.skipped] == [
        ("reflect_light_images_1.2", "missing image"),
        ("reflect_light_images_2.1", "path escapes dataset"),
        ("reflect_light_images_2.2", "wrong field type"),
    ]


def test_generation_items_one_per_scenario(tmp_path: Path) -> None:
    result = load("gobench", gobench_dataset(tmp_path), generation=True)
    assert [loaded.item.id for loaded in result.items] == ["reflect_light_images_1", "reflect_light_images_2"]
    first = result.items[0].item
    assert (first.question, first.images, first.answer_type) == ("A cat before a mirror.", [], "image")
    assert first.meta["records"] == ["reflect_light_images_1.1", "reflect_light_images_1.2"]
    assert result.items[1].item.meta["records"] == ["reflect_light_images_2.1"]
    assert [s.kind for s in result.skipped] == ["wrong field type"]


def test_human_scores_attach_by_index(tmp_path: Path) -> None:
    root = gobench_dataset(tmp_path / "d")
    scores = tmp_path / "GOBench.tsv"
    scores.write_text(
        "index\tquestion\tanswer\n"
        'reflect_light_images_1.1\tq\t"Reality Assessment Score: 4.5\nAesthetics Rating: 3\nInstruction Consistency Rating: 4"\n'
        "reflect_light_images_9.9\tq\tReality Assessment Score: 1 Aesthetics Rating: 1 Instruction Consistency Rating: 1\n"
        "reflect_light_images_1.2\tq\tAesthetics Rating: 2\n"
    )
    result = load("gobench", root, scores=scores)
    item = result.items[0].item
    assert item.meta["human_scores"] == {"authenticity": 4.5, "aesthetics": 3.0, "fidelity": 4.0}
    assert item.answer.startswith("Reality Assessment Score: 4.5")
    kinds = [(s.locator, s.kind) for s in result.skipped if s.locator.startswith("GOBench")]
    assert kinds == [("GOBench.tsv:row 1", "score row unmatched"), ("GOBench.tsv:row 2", "bad score row")]
    generation = load("gobench", root, scores=scores, generation=True).items[0].item
    assert generation.meta["human_scores"] == {"reflect_light_images_1.1": item.meta["human_scores"]}


def test_truncated_scenario_file_is_a_loader_error(tmp_path: Path) -> None:
    (tmp_path / "data_total.json").write_text('[{"index": "a", "categ')
    with pytest.raises(LoaderError, match="not valid JSON"):
        load("gobench", tmp_path)


def test_shared_file_reads_999_records(shared_data: Path) -> None:
    understanding = load("gobench", shared_data / "gobench")
    assert understanding.records == 999
    assert sorted(loaded.item.id for loaded in understanding.items) == [
        "direct_light_images_2.1",
        "reflect_light_images_1.1",
        "refracted_light_images_5.1",
    ]
    assert len(understanding.skipped) == 996
    assert understanding.reasons() == {"missing image": 996}
    generation = load("gobench", shared_data / "gobench" / "data_total.json", generation=True)
    assert (generation.records, len(generation.items), generation.skipped) == (999, 333, [])
    assert all(len(loaded.item.meta["records"]) == 3 for loaded in generation.items)


def test_integer_score_index_joins_by_position_and_checks_the_prompt(tmp_path: Path) -> None:
    root = gobench_dataset(tmp_path / "d")
    scores = tmp_path / "GOBench.tsv"
    answer = "Reality Assessment Score: 3 Aesthetics Rating: 4 Instruction Consistency Rating: 5"
    scores.write_text(
        f"index\tquestion\tanswer\n0\tPrompt: A cat before a mirror.\t{answer}\n1\tPrompt: something else\t{answer}\n"
    )
    result = load("gobench", root, scores=scores)
    assert result.items[0].item.meta["human_scores"] == {"authenticity": 3.0, "aesthetics": 4.0, "fidelity": 5.0}
    assert [(s.locator, s.kind) for s in result.skipped][:1] == [("GOBench.tsv:row 1", "score row unmatched")]


def test_the_tsvs_question_is_the_items_question(tmp_path: Path) -> None:
    # VLMEvalKit's build_prompt sends SYS + '\n' + the TSV's question: where the TSV is given, that question is sent
    root = gobench_dataset(tmp_path / "d")
    scores = tmp_path / "GOBench.tsv"
    answer = "Reality Assessment Score: 3 Aesthetics Rating: 4 Instruction Consistency Rating: 5"
    scores.write_text(f"index\tquestion\tanswer\nreflect_light_images_1.1\tPrompt: A cat.\\n1. Is it lit?\t{answer}\n")
    item = load("gobench", root, scores=scores).items[0].item
    assert item.question == "Prompt: A cat.\\n1. Is it lit?"  # as the TSV holds it
    assert item.meta["question_source"] == "tsv"
    alone = load("gobench", gobench_dataset(tmp_path / "e")).items[0].item
    assert alone.meta["question_source"] == "mcot" and "A cat before a mirror." in alone.question
