"""`mcot export RUN --format vlmevalkit|gepbench`: the prediction files the benchmarks' own evaluators read, checked
against the columns and forms those evaluators read (VLMEvalKit's RBench-V fork `RBench_V.evaluate` and
`GOBenchDataset.evaluate`; geocap `eval/gepbench.py`)."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from mcot.eval.scoring import score_run
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.export.output import ExportError
from mcot.export.pipeline import export_run
from mcot.runconfig import RunConfig
from mcot.runner import run_items

GOBENCH_ANSWER = "Reality Assessment Score: 3.5; Aesthetics Rating: 4; Instruction Consistency Rating: 3"


def _png(path: Path) -> bytes:
    Image.new("RGB", (64, 48), "white").save(path)
    return path.read_bytes()


def _items(tmp: Path) -> list[tuple[Item, dict[str, bytes]]]:
    png = _png(tmp / "blank.png")
    items = [
        Item(id="math-0001", benchmark="rbench-v", category="Math", question="What is 2 + 3?", images=["a.png"],
             answer="5", answer_type="number", meta={"index": 7}),
        Item(id="physics-0001", benchmark="rbench-v", category="physics", question="Which way?\nA. up\nB. down",
             images=["a.png"], choices=["up", "down"], answer="B", answer_type="choice"),
        Item(id="go-1", benchmark="gobench", category="reflection", question="Rate this image.", images=["a.png"],
             answer=GOBENCH_ANSWER, answer_type="rating",
             meta={"task": "understanding", "record": {"index": "17", "question": "native question"}}),
        Item(id="easy-counting-00000003-1", benchmark="gepbench", category="counting", question="How many circles?",
             images=["a.png"], choices=["1", "2", "3", "4"], answer="C", answer_type="choice",
             meta={"level": "easy", "aspect": "counting", "image_id": 3, "question_id": 1,
                   "choice_values": [1, 2, 3, 4], "answer_value": 3}),
        Item(id="maze-0", benchmark="games", category="maze", question="Which exit?", images=["a.png"],
             choices=["1", "2"], answer="A", answer_type="choice"),
    ]  # fmt: skip
    for item in items:
        item.images = [f"images/{item.id}.png"]
    return [(item, {item.images[0]: png}) for item in items]


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("predictions")
    data = tmp / "items"
    write_items(data, _items(tmp))
    run = tmp / "run"
    run_items(RunConfig(data=data, model="offline", out=run, mode="text,canvas"), quiet=True)
    ledger = run / "results.jsonl"
    lines = ledger.read_text().splitlines()
    kept = [line for line in lines if not ('"physics-0001"' in line and '"canvas"' in line)]
    assert len(kept) == len(lines) - 1  # that pair is now missing: its prediction is a failed call
    ledger.write_text("".join(line + "\n" for line in kept))
    score_run(run)
    return run


def test_vlmevalkit_files_have_the_columns_rbench_v_and_gobench_evaluate_read(scored_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "vlmeval"
    summary = export_run(scored_run, "vlmevalkit", out)
    index = json.loads((out / "predictions.json").read_text())
    assert sorted(f["path"] for f in index["files"]) == [
        "canvas/mcot-canvas_GOBench.tsv",
        "canvas/mcot-canvas_RBench-V.tsv",
        "text/mcot-text_GOBench.tsv",
        "text/mcot-text_RBench-V.tsv",
    ]
    assert summary.count == 6  # 2 RBench-V + 1 GOBench per arm; GePBench and games are not VLMEvalKit's
    rbench = pd.read_csv(out / "text" / "mcot-text_RBench-V.tsv", sep="\t")  # how vlmeval.smp.load reads a .tsv
    # RBench_V.evaluate: line['prediction'] (extraction), line['question'], line['answer'], line['extract']
    # (verdict), 'index' as keys, then accuracy per results['subject'] in physics, math, game, counting
    assert {"index", "question", "answer", "prediction", "subject"} <= set(rbench.columns)
    assert rbench["index"].is_unique and list(rbench["subject"]) == ["math", "physics"]
    assert rbench.loc[0, "index"] == 7 and rbench.loc[0, "question"] == "What is 2 + 3?"
    assert str(rbench.loc[0, "answer"]) == "5" and rbench.loc[1, "question"] == "Which way?\nA. up\nB. down"
    results = {json.loads(line)["id"]: json.loads(line) for line in (scored_run / "results.jsonl").read_text().splitlines()
               if json.loads(line)["mode"] == "text"}  # fmt: skip
    assert rbench.loc[1, "prediction"] == results["physics-0001"]["prediction"]
    blind = pd.read_csv(out / "canvas" / "mcot-canvas_RBench-V.tsv", sep="\t")
    assert blind.loc[1, "prediction"] == "Failed to obtain answer via API."  # the missing pair
    gobench = pd.read_csv(out / "text" / "mcot-text_GOBench.tsv", sep="\t")
    # GOBenchDataset.evaluate: row['prediction'] (FAIL_MSG check, then the regex reading) and row['answer']
    # (parse_ground_truth: the three labelled human scores)
    assert {"index", "answer", "prediction", "category"} <= set(gobench.columns)
    assert str(gobench.loc[0, "index"]) == "17" and gobench.loc[0, "question"] == "native question"
    labels = ("Reality Assessment Score", "Aesthetics Rating", "Instruction Consistency Rating")
    assert [float(re.search(rf"{label}:\s*([\d.]+)", gobench.loc[0, "answer"]).group(1)) for label in labels] == [
        3.5,
        4.0,
        3.0,
    ]


def test_gepbench_files_are_the_scripts_per_perspective_jsonl(scored_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "gep"
    assert export_run(scored_run, "gepbench", out).count == 2
    for arm in ("text", "canvas"):
        (line,) = [json.loads(row) for row in (out / arm / "easy" / "counting.jsonl").read_text().splitlines()]
        # eval/gepbench.py writes item | {"response", "pred"}; truths = choices.index(answer); correct when
        # ord(pred) - ord("A") == truth
        assert {"image_id", "question_id", "question", "choices", "answer", "response", "pred"} <= set(line)
        assert line["image_id"] == 3 and line["question_id"] == 1 and line["choices"] == [1, 2, 3, 4]
        assert line["answer"] == 3 and "level" not in line and "choice_values" not in line
        assert line["pred"] in ("A", "B", "C", "D", "-")
        scores = [json.loads(row) for row in (scored_run / "scores.jsonl").read_text().splitlines()]
        official = next(s for s in scores if s["id"] == "easy-counting-00000003-1" and s["mode"] == arm)
        correct = line["pred"] != "-" and ord(line["pred"]) - ord("A") == line["choices"].index(line["answer"])
        assert correct == official["correct"]


def test_a_run_without_the_evaluators_benchmarks_writes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "items"
    write_items(data, [pair for pair in _items(tmp_path) if pair[0].benchmark == "games"])
    run = tmp_path / "run"
    run_items(RunConfig(data=data, model="offline", out=run, mode="text"), quiet=True)
    with pytest.raises(ExportError, match="no RBench-V or GOBench"):
        export_run(run, "vlmevalkit", tmp_path / "out")
    with pytest.raises(ExportError, match="no GePBench items"):
        export_run(run, "gepbench", tmp_path / "out")
    assert not (tmp_path / "out").exists()
