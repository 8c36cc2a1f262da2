"""The offline policy: fixed guesses, the strategy registry, and proof that it never reads answer or meta."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agents import solve
from agents.offline import Move, OfflineView, fixed_guess, register_strategy, strategies, unregister_strategy


class PoisonedItem:
    """Looks like an Item, but touching `answer` or `meta` fails the test."""

    def __init__(self, item: Any) -> None:
        self._item = item

    def __getattr__(self, name: str) -> Any:
        if name in ("answer", "meta"):
            raise AssertionError(f"the offline policy read item.{name}")
        return getattr(self._item, name)


def view(**overrides: Any) -> OfflineView:
    base = dict(
        question="q",
        choices=None,
        benchmark="rbench-v",
        category="math",
        answer_type="number",
        mode="text",
        turn=0,
        tools=(),
        canvas=None,
        images=(),
        tool_results=(),
    )
    base.update(overrides)
    return OfflineView(**base)


@pytest.mark.parametrize(
    ("bench", "answer_type", "choices", "expected"),
    [
        ("rbench-v", "number", None, "\\boxed{0}"),
        ("rbench-v", "choice", ("x", "y"), "\\boxed{A}"),
        ("gepbench", "choice", ("1", "2", "3", "4"), "A"),
        ("omniphys", "yesno", None, "Answer: Yes"),
        ("gobench", "rating", None, "3"),
        ("games", "text", None, "\\boxed{unknown}"),
    ],
)
def test_fixed_guess_follows_the_protocol(bench, answer_type, choices, expected):
    assert fixed_guess(view(benchmark=bench, answer_type=answer_type, choices=choices)) == expected


@pytest.fixture
def rectangle_strategy():
    """A toy strategy: mark the canvas centre, then answer from the tool's reply."""

    def strategy(v: OfflineView) -> Move | None:
        if "rectangles" not in v.question or v.canvas is None:
            return None
        if not v.tool_results:
            return Move(tool_calls=(("mark_point", {"at": [160, 120]}),))
        return Move(text=f"I marked {v.tool_results[-1].data.get('id')}.\n\\boxed{{1}}")

    register_strategy("toy-rectangles", strategy)
    yield strategy
    unregister_strategy("toy-rectangles")


def test_strategy_registry_drives_canvas_mode(item_dir, toolbox, rectangle_strategy):
    item, root = item_dir
    assert "toy-rectangles" in strategies()
    prediction, trace = asyncio.run(solve(item, root, "offline", "canvas", toolbox=toolbox))
    assert prediction.status == "ok"
    assert prediction.text == "I marked e1.\n\\boxed{1}"
    assert [s.kind for s in trace] == ["observation", "model", "tool", "observation", "model"]
    text_prediction, _ = asyncio.run(solve(item, root, "offline", "text"))
    assert text_prediction.text == "\\boxed{0}"


def test_offline_never_reads_answer_or_meta(tmp_path: Path, make_items, toolbox, rectangle_strategy):
    first = make_items(tmp_path / "a", answer="1", meta={"solution": [1, 2, 3]})
    second = make_items(tmp_path / "b", answer="POISON", meta={"solution": "POISON"})
    lines = []
    for item, root in ((first, tmp_path / "a"), (second, tmp_path / "b")):
        for mode in ("text", "canvas"):
            prediction, trace = asyncio.run(solve(PoisonedItem(item), root, "offline", mode, toolbox=toolbox))
            assert prediction.status == "ok", prediction.error
            assert "POISON" not in prediction.text
            lines.append([line.split('"t":')[0] for line in trace.to_lines()])
    assert lines[0] == lines[2] and lines[1] == lines[3]
