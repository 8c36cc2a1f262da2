"""The offline policy: fixed guesses, the strategy registry, the tools a request offers, and proof that it
never reads answer or meta."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcot.agents import solve
from mcot.agents.offline import (
    Move,
    OfflineView,
    Strategy,
    cannot_solve,
    fixed_guess,
    next_move,
    strategies,
)

from mcot import declare_strategy
from mcot.core.registry import STRATEGIES


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
        answer_type="number",
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
        ("not-declared", "number", None, "\\boxed{0}"),
    ],
)
def test_fixed_guess_follows_the_protocol(bench, answer_type, choices, expected):
    assert fixed_guess(view(benchmark=bench, answer_type=answer_type, choices=choices)) == expected


def _toy_play(v: OfflineView) -> Move:
    if not v.tool_results:
        return Move(tool_calls=(("mark_point", {"at": [160, 120]}),))
    return Move(text=f"I marked {v.tool_results[-1].data.get('id')}.\n\\boxed{{1}}")


TOY = Strategy(
    kind="a count-the-rectangles figure",
    recognises=lambda v: "rectangles" in v.question,
    play=_toy_play,
    needs=("mark_point",),
)


@pytest.fixture
def rectangle_strategy():
    """A toy strategy: mark the canvas centre, then answer from the tool's reply."""
    declare_strategy("toy-rectangles", TOY)
    yield TOY
    STRATEGIES.unregister("toy-rectangles")


def test_strategy_registry_drives_the_canvas_loop(item_dir, toolbox, rectangle_strategy):
    item, root = item_dir
    assert strategies()["toy-rectangles"] is TOY
    prediction, trace = asyncio.run(solve(item, root, "offline", "canvas", tools=("mark_point",), toolbox=toolbox))
    assert prediction.status == "ok"
    assert prediction.text == "I marked e1.\n\\boxed{1}"
    assert [s.kind for s in trace] == ["observation", "model", "tool", "observation", "model"]
    text_prediction, _ = asyncio.run(solve(item, root, "offline", "text"))
    assert text_prediction.text == "\\boxed{0}"


def test_without_its_tools_a_strategy_names_them_and_guesses(item_dir, toolbox, rectangle_strategy):
    item, root = item_dir
    prediction, trace = asyncio.run(solve(item, root, "offline", "custom", tools=("draw_line",), toolbox=toolbox))
    assert prediction.status == "ok"
    assert prediction.text == cannot_solve(view(), TOY.kind, ("mark_point",))
    assert "needs mark_point" in prediction.text and prediction.text.endswith("\n\\boxed{0}")
    assert [s.kind for s in trace] == ["observation", "model"]


def test_next_move_plays_only_with_its_tools_and_a_canvas(rectangle_strategy):
    seen = dict(question="How many rectangles?", canvas=b"png")
    assert next_move(view(**seen, tools=("zoom", "mark_point"))).tool_calls == (("mark_point", {"at": [160, 120]}),)
    assert "needs mark_point" in next_move(view(**seen, tools=("zoom",))).text
    assert next_move(view(**seen, tools=())) == Move(text="\\boxed{0}")
    assert next_move(view(question="How many rectangles?", tools=("mark_point",))) == Move(text="\\boxed{0}")


def test_a_move_with_an_undeclared_tool_is_never_sent():
    sneaky = Strategy(
        kind="a sneaky item",
        recognises=lambda v: "sneaky" in v.question,
        play=lambda v: Move(tool_calls=(("mark_point", {"at": [1, 1]}), ("solve_maze", {"grid": []}))),
        needs=("mark_point",),
    )
    declare_strategy("toy-sneaky", sneaky)
    try:
        move = next_move(view(question="a sneaky one", canvas=b"png", tools=("mark_point", "zoom")))
    finally:
        STRATEGIES.unregister("toy-sneaky")
    assert move.tool_calls == ()
    assert "needs solve_maze" in move.text and move.text.endswith("\\boxed{0}")


def test_cannot_solve_lists_what_it_needs():
    one = cannot_solve(view(), "a maze", ("solve_maze",))
    three = cannot_solve(view(benchmark="omniphys"), "a ray", ("a", "b", "c"))
    assert "it needs solve_maze, not among the offered tools" in one and one.endswith("\n\\boxed{0}")
    assert "it needs a, b and c," in three and three.endswith("\nAnswer: 0")


def test_offline_never_reads_answer_or_meta(tmp_path: Path, make_items, toolbox, rectangle_strategy):
    first = make_items(tmp_path / "a", answer="1", meta={"solution": [1, 2, 3]})
    second = make_items(tmp_path / "b", answer="POISON", meta={"solution": "POISON"})
    lines = []
    for item, root in ((first, tmp_path / "a"), (second, tmp_path / "b")):
        for mode, tools in (("text", ()), ("canvas", ("mark_point",))):
            prediction, trace = asyncio.run(
                solve(PoisonedItem(item), root, "offline", mode, tools=tools, toolbox=toolbox)
            )
            assert prediction.status == "ok", prediction.error
            assert "POISON" not in prediction.text
            lines.append([line.split('"t":')[0] for line in trace.to_lines()])
    assert lines[0] == lines[2] and lines[1] == lines[3]
