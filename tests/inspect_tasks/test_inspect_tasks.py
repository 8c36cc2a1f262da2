"""mcot's inspect_ai extension run by inspect_ai itself with its own mock model: the tasks are found through the
entry point (`mcot/games`, and one game's own task `mcot/maze`), a canvas arm's tools draw on the sample's canvas and answer with image content, and
the scores of inspect's run equal `mcot run` + `mcot score`'s on the same items with the same scripted turns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from extras import needs
from mcot.eval.stats import clustered_stderr
from trainer_runs import mcot

from mcot.core.clusters import benchmark_cluster
from mcot.core.item import read_items
from mcot.core.rundir import read_jsonl

pytestmark = [needs("inspect_ai"), pytest.mark.long_running]

EVAL = Path(__file__).with_name("mock_eval.py")
DRAW = {"start": [10, 10], "end": [200, 150], "color": "red"}


@pytest.fixture(scope="module")
def maze_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("inspect")
    mcot("gen", "games", "--task", "maze", "--n", "3", "--seed", "4", "--out", root / "items")
    return root / "items"


def _answer(items: Path) -> str:
    """Return the first item's answer: the scripted model gives it for every item (right at least once)."""
    return str(json.loads((items / "items.jsonl").read_text().splitlines()[0])["answer"])


def _inspect(items: Path, arm: str, answer: str, where: Path, task: str = "mcot/games") -> dict[str, Any]:
    """Return what `inspect eval TASK` with the mock model gave (run outside the checkout: mock_eval.py)."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, str(EVAL), str(items), arm, answer, str(where / "logs"), task],
                          capture_output=True, text=True, cwd=where, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def mcot_scores(maze_items: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bool]:
    """Return `mcot run` + `mcot score`'s verdict per item, the scripted model drawing a line, then answering."""
    answer = _answer(maze_items)
    root = tmp_path_factory.mktemp("mcot-run")
    script = root / "script.json"
    turns = [
        {"text": "drawing", "tool_calls": [{"name": "draw_line", "arguments": DRAW}]},
        {"text": f"The route is {answer}.\n\\boxed{{{answer}}}"},
    ]
    script.write_text(json.dumps(turns))
    run = root / "run"
    mcot("run", "--data", maze_items, "--model", f"scripted:{script}", "--mode", "canvas", "--out", run)
    mcot("score", run)
    return {line["id"]: line["correct"] for line in read_jsonl(run / "scores.jsonl")}


def test_inspect_scores_equal_mcot_scores_with_the_same_scripted_model(
    maze_items: Path, mcot_scores: dict[str, bool], tmp_path: Path
) -> None:
    answer = _answer(maze_items)
    by_mcot = mcot_scores
    found = _inspect(maze_items, "canvas", answer, tmp_path / "inspect")
    assert found["status"] == "success" and found["task"] == "mcot/games"
    by_inspect = {sample["id"]: sample["correct"] for sample in found["samples"]}
    assert by_inspect == by_mcot and len(by_inspect) == 3 and True in by_inspect.values()
    assert found["accuracy"] == pytest.approx(sum(by_mcot.values()) / 3)
    # inspect's stderr is clustered by the items' own clusters (each maze its own scene): mcot's clustered error
    items = read_items(maze_items)
    values = [float(by_inspect[item.id]) for item in items]
    assert found["stderr"] == pytest.approx(clustered_stderr(values, [benchmark_cluster(item) for item in items]))
    sample = found["samples"][0]
    assert sample["roles"][:4] == ["system", "user", "assistant", "tool"]
    assert "canvas" in sample["system"] and sample["first"] == ["text", "image", "text"]
    assert "draw_line: created e1" in sample["tool_text"] and "image" in sample["tool_content"]


def test_a_game_s_own_task_scores_as_mcot_score(maze_items: Path, mcot_scores: dict[str, bool], tmp_path: Path) -> None:
    found = _inspect(maze_items, "canvas", _answer(maze_items), tmp_path, task="mcot/maze")
    assert found["status"] == "success" and found["task"] == "mcot/maze"
    by_inspect = {sample["id"]: sample["correct"] for sample in found["samples"]}
    assert by_inspect == mcot_scores and len(by_inspect) == 3
    assert "draw_line: created e1" in found["samples"][0]["tool_text"]


def test_there_is_one_task_per_game_and_it_takes_that_game_alone(maze_items: Path) -> None:
    from mcot.benchmarks.generators.games import TASKS

    from mcot.inspect_tasks import _registry, tasks

    assert all(callable(getattr(_registry, game)) for game in TASKS)
    assert tasks.maze(data=str(maze_items)).dataset.name == "maze"
    with pytest.raises(ValueError, match="holds no bounce items \\(it holds maze\\)"):
        tasks.bounce(data=str(maze_items))


def test_the_text_arm_shows_the_image_and_offers_no_tool(maze_items: Path, tmp_path: Path) -> None:
    found = _inspect(maze_items, "text", _answer(maze_items), tmp_path)
    first = found["samples"][0]
    assert first["roles"] == ["user", "assistant"] and first["first"] == ["image", "text"]
    assert first["correct"] is True


def test_a_bad_arm_or_folder_is_one_line(maze_items: Path, tmp_path: Path) -> None:
    from mcot.inspect_tasks.tasks import games, gepbench

    with pytest.raises(ValueError, match="-T arm=paint is no arm"):
        games(data=str(maze_items), arm="paint")
    with pytest.raises(ValueError, match="holds no gepbench items"):
        gepbench(data=str(maze_items))
    with pytest.raises(ValueError, match="does not exist"):
        games(data=str(tmp_path / "nowhere"))
