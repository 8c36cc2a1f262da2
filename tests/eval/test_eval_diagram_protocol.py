"""OmniPhys diagram grading (`_omniphys_diagram`): what the judge is shown, and what is graded without one."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import diagram_fixture as fixture
import pytest
from mcot.benchmarks.item import Item, read_items
from mcot.eval.judges import JudgeCache
from mcot.eval.protocols import Scorer
from mcot.eval.protocols.omniphys import produced_image_path
from mcot.eval.scoring import score_pair

from mcot.rundir import Result


class GradingJudge:
    """An in-process judge that replies `reply` and records the prompt and the images it was shown."""

    spec = "scripted:grading"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.seen: list[tuple[str, list[bytes]]] = []

    async def ask(self, prompt: str, images: Sequence[bytes] = (), temperature: float = 0.0) -> str:
        self.seen.append((prompt, list(images)))
        return self.reply


@pytest.fixture
def diagram(tmp_path: Path) -> tuple[Item, Path, Path]:
    """Return the mirror item, its items root, and a run root holding the correct output at blobs/out.png."""
    root = fixture.items_dir(tmp_path, ("reflect-1",))
    run = tmp_path / "run"
    (run / "blobs").mkdir(parents=True)
    (run / "blobs" / "out.png").write_bytes(fixture.reference_diagram("reflect-1"))
    return read_items(root)[0], root, run


def _score(item: Item, root: Path, run: Path, result: dict[str, Any], judge: GradingJudge | None = None) -> Any:
    scorer = Scorer(judge=judge, items_root=root, run_root=run, cache=JudgeCache(run / "cache") if judge else None)
    return asyncio.run(
        score_pair(scorer, item, Result.from_line({"id": item.id, "mode": "canvas", "status": "ok", **result}))
    )


def test_the_judge_sees_input_reference_and_output_in_that_order(diagram: tuple[Item, Path, Path]) -> None:
    item, root, run = diagram
    judge = GradingJudge('{"grade": 1}')
    score = _score(item, root, run, {"prediction": "I drew it.", "image": "blobs/out.png"}, judge)
    assert (score.method, score.score, score.correct) == ("judge", 1.0, True)
    assert score.details == {"status": "ok", "task": "diagram", "image": "blobs/out.png", "grade": 1.0}
    prompt, images = judge.seen[0]
    assert images == [
        (root / item.images[0]).read_bytes(),
        (root / item.meta["reference_image"]).read_bytes(),
        (run / "blobs" / "out.png").read_bytes(),
    ]
    assert item.question in prompt and "the input diagram" in prompt
    assert score.judge["spec"] == "scripted:grading" and score.judge["raw"] == '{"grade": 1}'


@pytest.mark.parametrize(("reply", "grade", "correct"), [('{"grade": 0.5}', 0.5, False), ('{"grade": 0}', 0.0, False)])
def test_partial_and_wrong_grades(diagram: tuple[Item, Path, Path], reply: str, grade: float, correct: bool) -> None:
    item, root, run = diagram
    score = _score(item, root, run, {"image": "blobs/out.png"}, GradingJudge(reply))
    assert (score.score, score.correct, score.details["grade"]) == (grade, correct, grade)


def test_an_unparsable_grade_is_a_judge_error(diagram: tuple[Item, Path, Path]) -> None:
    item, root, run = diagram
    score = _score(item, root, run, {"image": "blobs/out.png"}, GradingJudge("It looks fine to me."))
    assert (score.method, score.score, score.correct) == ("judge_error", None, None)


def test_an_answer_in_words_is_no_diagram_and_grades_0_without_a_judge(diagram: tuple[Item, Path, Path]) -> None:
    item, root, run = diagram
    judge = GradingJudge('{"grade": 1}')
    long_text = "The reflected ray leaves P upwards to the right. " * 20 + "figure.png"
    for text in ("The ray goes up to the right.", long_text, "a\nb.png", "../../etc/x.png"):
        score = _score(item, root, run, {"prediction": text}, judge)
        assert (score.method, score.score, score.correct, score.details["grade"]) == ("rule", 0.0, False, 0.0)
        assert "no edited diagram" in score.details["reason"]
    assert judge.seen == []


def test_unjudged_without_a_judge_a_readable_output_or_the_items_diagrams(diagram: tuple[Item, Path, Path]) -> None:
    item, root, run = diagram
    no_judge = _score(item, root, run, {"image": "blobs/out.png"})
    assert (no_judge.method, no_judge.correct) == ("none", None)
    assert "pass --judge" in no_judge.details["unjudged"]
    judge = GradingJudge('{"grade": 1}')
    gone = _score(item, root, run, {"image": "blobs/missing.png"}, judge)
    assert gone.method == "none" and "no edited diagram at 'blobs/missing.png'" in gone.details["unjudged"]
    (root / item.meta["reference_image"]).unlink()
    unreferenced = _score(item, root, run, {"image": "blobs/out.png"}, judge)
    assert unreferenced.method == "none"
    assert unreferenced.details["unjudged"].startswith("the item's reference diagram is missing")
    assert judge.seen == []


def test_a_failed_pair_keeps_its_task_facet(diagram: tuple[Item, Path, Path]) -> None:
    item, root, run = diagram
    scorer = Scorer(items_root=root, run_root=run)
    score = asyncio.run(
        score_pair(scorer, item, Result(id=item.id, mode="canvas", status="budget", error="step budget spent"))
    )
    assert (score.method, score.score, score.details["task"]) == ("error", 0.0, "diagram")


def test_produced_image_path() -> None:
    assert (
        produced_image_path(
            Result.from_line({"id": "q", "mode": "canvas", **{"image": "blobs/a.png", "prediction": "text"}})
        )
        == "blobs/a.png"
    )
    assert (
        produced_image_path(
            Result.from_line({"id": "q", "mode": "canvas", **{"images": ["blobs/b.png", "blobs/c.png"]}})
        )
        == "blobs/b.png"
    )
    assert (
        produced_image_path(Result.from_line({"id": "q", "mode": "canvas", **{"prediction": "out/diag-1.png"}}))
        == "out/diag-1.png"
    )  # an older record
    assert (
        produced_image_path(Result.from_line({"id": "q", "mode": "canvas", **{"prediction": "Answer: a ray"}})) is None
    )
    assert (
        produced_image_path(Result.from_line({"id": "q", "mode": "canvas", **{"prediction": "x" * 300 + ".png"}}))
        is None
    )
    assert produced_image_path(Result.from_line({"id": "q", "mode": "canvas", **{}})) is None
