"""mcot.rewards on the completions of finished runs: exactly the verdicts `mcot score` gave the rule-settled pairs,
through TRL's calling convention (`f(completions, **columns)` over a `trl` export) and verl's (`compute_score` over
a `verl` export, loaded by verl's own `load_extern_object` where verl is installed)."""

import json
from typing import Any

import pyarrow.parquet as pq
import pytest
from extras import needs
from trainer_runs import shared_runs

from mcot import rewards
from mcot.export import export_run


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Per scored, rule-settled, finished pair of the GePBench and maze runs: its trl and verl rows, the run's
    prediction and mcot score's verdict."""
    runs = shared_runs(tmp_path_factory)
    out = tmp_path_factory.mktemp("rewards")
    pairs = []
    for name in ("gep_run", "maze_run"):
        run = runs[name]
        export_run(run, "parquet", out / f"{name}-trl.parquet", view="trl")
        export_run(run, "parquet", out / f"{name}-verl.parquet", view="verl")
        trl = {(r["id"], r["mode"]): r for r in pq.read_table(out / f"{name}-trl.parquet").to_pylist()}
        verl = {(r["id"], r["mode"]): r for r in pq.read_table(out / f"{name}-verl.parquet").to_pylist()}
        results = {(r["id"], r["mode"]): r for r in map(json.loads, (run / "results.jsonl").read_text().splitlines())}
        for score in map(json.loads, (run / "scores.jsonl").read_text().splitlines()):
            key = (score["id"], score["mode"])
            if score["method"] == "rule" and results[key]["status"] == "ok":
                pairs.append(
                    {"trl": trl[key], "verl": verl[key], "prediction": results[key]["prediction"], "score": score}
                )
    assert {p["score"]["correct"] for p in pairs} == {True, False}  # both verdicts are there to compare
    return pairs


def test_trl_accuracy_equals_mcot_scores_verdicts(finished: list[dict[str, Any]]) -> None:
    columns = {"item": [p["trl"]["item"] for p in finished], "answer": [p["trl"]["answer"] for p in finished]}
    expected = [1.0 if p["score"]["correct"] else 0.0 for p in finished]
    assert rewards.accuracy([p["prediction"] for p in finished], **columns) == expected
    conversational = [p["trl"]["completion"] or [{"role": "assistant", "content": p["prediction"]}] for p in finished]
    assert rewards.accuracy(conversational, **columns) == expected  # the last assistant text of each completion


def test_answer_format_is_whether_the_protocol_read_an_answer(finished: list[dict[str, Any]]) -> None:
    columns = {"item": [p["trl"]["item"] for p in finished]}
    expected = [0.0 if p["score"].get("extracted") in (None, "") else 1.0 for p in finished]
    assert rewards.answer_format([p["prediction"] for p in finished], **columns) == expected
    assert rewards.answer_format(["I do not know"], item=[finished[0]["trl"]["item"]]) == [0.0]


def test_verl_compute_score_equals_mcot_scores_verdicts(finished: list[dict[str, Any]]) -> None:
    for pair in finished:
        row = pair["verl"]
        got = rewards.compute_score(
            row["data_source"], pair["prediction"], row["reward_model"]["ground_truth"], row["extra_info"]
        )
        assert got == (1.0 if pair["score"]["correct"] else 0.0), row["id"]


@needs("verl", extra="rl")
def test_verl_loads_compute_score_as_its_custom_reward_function(finished: list[dict[str, Any]]) -> None:
    from verl.utils.import_utils import load_extern_object

    compute_score = load_extern_object(module_path="pkg://mcot.rewards", object_name="compute_score")
    row = finished[0]["verl"]
    got = compute_score(
        row["data_source"], finished[0]["prediction"], row["reward_model"]["ground_truth"], row["extra_info"]
    )
    assert got == (1.0 if finished[0]["score"]["correct"] else 0.0)


def test_drawing_reads_each_rollouts_environment(finished: list[dict[str, Any]]) -> None:
    from mcot.canvas import Canvas

    from mcot import tools
    from mcot.env import CanvasEnv

    maze = next(p["trl"] for p in finished if p["trl"]["benchmark"] == "games")
    drew, idle = CanvasEnv(), CanvasEnv()
    for env in (drew, idle):
        env.reset(**maze)  # images as parquet holds them: {"bytes", "path"} structs
    meta = json.loads(maze["item"])["meta"]
    solved = tools.call(
        "solve_maze",
        {"grid": meta["grid"], "cell": meta["cell"], "origin": meta["origin"], "targets": [meta["target"]]},
        Canvas(size=tuple(meta["size"])),
    )
    drew.trace_path(points=solved.data["pixels"])
    assert rewards.drawing(["a", "b", "c"], environments=[drew, idle, None]) == [1.0, 0.0, 0.0]
    assert rewards.drawing(["a"]) == [0.0]


def test_the_item_column_is_required() -> None:
    with pytest.raises(ValueError, match="needs the dataset's `item` column"):
        rewards.accuracy(["\\boxed{1}"], answer=["1"])
