"""The worked example of docs/extending.md, "An offline strategy": examples/strategy/centre.py, declared and played."""

import asyncio
import runpy
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcot.agents.solver import solve
from mcot.benchmarks.item import Item
from PIL import Image

from mcot.registry import STRATEGIES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "strategy" / "centre.py"


@pytest.fixture
def centre_strategy() -> Iterator[None]:
    runpy.run_path(str(EXAMPLE))
    yield
    STRATEGIES.unregister("centre")


def _item(root: Path) -> Item:
    (root / "images").mkdir(parents=True)
    Image.new("RGB", (240, 120), "white").save(root / "images" / "p.png")
    return Item(
        id="c1",
        benchmark="games",
        category="centre",
        question="Where is the centre of the picture?",
        images=["images/p.png"],
        answer="(120, 60)",
        answer_type="text",
    )


def test_the_example_strategy_marks_the_centre_and_answers_it(centre_strategy: None, tmp_path: Path) -> None:
    assert STRATEGIES.get("centre").needs == ("mark_point",)
    prediction, trace = asyncio.run(solve(_item(tmp_path), tmp_path, "offline", mode="canvas"))
    assert prediction.status == "ok"
    assert prediction.text.endswith("\\boxed{(120, 60)}")
    [tool] = trace.of_kind("tool")
    assert (tool.tool, tool.arguments, tool.drawn_by) == (
        "mark_point",
        {"at": [120.0, 60.0], "label": "centre"},
        "model",
    )


def test_without_the_tool_it_needs_the_policy_says_so_and_guesses(centre_strategy: None, tmp_path: Path) -> None:
    prediction, trace = asyncio.run(solve(_item(tmp_path), tmp_path, "offline", mode="look"))
    assert "it needs mark_point, not among the offered tools" in prediction.text
    assert trace.of_kind("tool") == []


def test_the_docs_show_the_example_as_it_is() -> None:
    docs = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    body = EXAMPLE.read_text(encoding="utf-8").split('\n"""\n', 1)[1].strip()  # all but the module docstring
    assert body in docs
