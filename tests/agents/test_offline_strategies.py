"""The offline policy's built-in strategies solve generated game items from pixels and question text alone.

Items come from the real generators (mcot.benchmarks.generators.games) in a temporary directory; each is solved in
the `tools` arm through mcot.agents.solve with the real tools, and the final answer is compared with item.answer
here, in the test. A poisoned copy of each item (junk answer and meta) must get exactly the same moves. In the
`canvas` arm (canvas operations only) the policy calls no domain tool: it says what it would need and guesses.
"""

from __future__ import annotations

import asyncio
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mcot.agents import load_model, solve
from mcot.agents.offline import linework, pixels
from mcot.agents.offline.games import STRATEGIES
from mcot.agents.offline.strategies import strategies
from mcot.benchmarks.generators.games import generate
from mcot.tools.canvas_ops import canvas_tools
from PIL import Image, ImageDraw, ImageFont

from mcot.core.item import Item, ItemsWriter, read_items

SEED = 31
PER_TASK = {"maze": 10, "ray": 10, "dart": 5, "bounce": 5, "dots": 5, "triangles": 5}
MIN_RATE = {"maze": 0.9, "ray": 0.9, "dart": 0.8, "bounce": 0.8, "dots": 0.8, "triangles": 0.8}


def boxed(text: str) -> str | None:
    """Return the last \\boxed{...} value of a final answer, or None."""
    found = re.findall(r"\\boxed\{([^{}]*)\}", text)
    return found[-1].strip() if found else None


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Item], Path]:
    root = tmp_path_factory.mktemp("offline") / "games"
    writer = ItemsWriter(root)
    for task, n in PER_TASK.items():
        for game in generate(task, n, SEED):
            writer.add_image(game.item.images[0], game.png)
            writer.add(game.item)
    writer.commit()
    return read_items(root), root


def run(item: Any, root: Path, arm: str = "tools", tools: tuple[str, ...] | None = None) -> tuple[str, list[dict]]:
    """Return the final text and the trace's steps (as dicts) of solving `item` offline in `arm`."""
    prediction, trace = asyncio.run(solve(item, root, load_model("offline"), arm, tools=tools))
    assert prediction.status == "ok", prediction.error
    return prediction.text, [step.to_dict() for step in trace]


def tool_steps(steps: list[dict[str, Any]]) -> list[str]:
    """Return the names of the tools a trace called, in order."""
    return [s["tool"] for s in steps if s["kind"] == "tool"]


@pytest.fixture(scope="module")
def solved(games) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    items, root = games
    return {item.id: run(item, root) for item in items}


@pytest.fixture(scope="module")
def canvas_arm(games) -> dict[str, tuple[Item, str, list[dict[str, Any]]]]:
    """Return one item of each task solved in the canvas arm, by task."""
    items, root = games
    firsts = {task: next(i for i in items if i.category == task) for task in PER_TASK}
    return {task: (item, *run(item, root, "canvas")) for task, item in firsts.items()}


def test_the_builtin_strategies_are_declared_once_each():
    names = list(strategies())
    assert names[: len(STRATEGIES)] == list(STRATEGIES)
    assert all(names.count(name) == 1 for name in STRATEGIES)


@pytest.mark.parametrize("task", list(PER_TASK))
def test_solve_rate_per_task(task: str, games, solved):
    items, _ = games
    mine = [item for item in items if item.category == task]
    right = [item.id for item in mine if boxed(solved[item.id][0]) == item.answer]
    rate = len(right) / len(mine)
    assert rate >= MIN_RATE[task], f"{task}: {len(right)}/{len(mine)} solved"


@pytest.mark.parametrize("task", list(PER_TASK))
def test_tools_arm_calls_only_the_tools_its_strategy_declares(task: str, games, solved):
    items, _ = games
    needs = set(STRATEGIES[f"games-{task}"].needs)
    for item in (i for i in items if i.category == task):
        used = set(tool_steps(solved[item.id][1]))
        assert used and used <= needs, f"{item.id} called {sorted(used - needs)}"


@pytest.mark.parametrize("task", list(PER_TASK))
def test_canvas_arm_calls_no_domain_tool_and_says_so(task: str, canvas_arm):
    item, text, steps = canvas_arm[task]
    assert not [name for name in tool_steps(steps) if name not in canvas_tools()]
    assert "cannot solve it with the tools offered here" in text
    strategy = STRATEGIES[f"games-{task}"]
    missing = [name for name in strategy.needs if name not in canvas_tools()]
    assert missing and all(name in text for name in missing)
    assert not any(name in text for name in strategy.needs if name in canvas_tools()), "offered tools are not 'needed'"
    guess = "\\boxed{A}" if item.answer_type == "choice" else "\\boxed{0}"
    assert text.splitlines()[-1] == guess


def test_maze_trace_draws_the_route_found_by_the_tools(games, solved):
    items, _ = games
    item = next(i for i in items if i.category == "maze")
    _, steps = solved[item.id]
    tools_used = tool_steps(steps)
    assert tools_used == ["maze_from_image", "solve_maze"]
    route = next(s for s in steps if s["tool"] == "solve_maze")
    assert route["arguments"]["draw"] is True
    assert [op["op"] for op in route["ops"]] == ["trace_path"]
    assert steps[-1]["kind"] == "model" and not steps[-1]["tool_calls"]


def test_ray_trace_perceives_then_draws_the_light_path(games, solved):
    items, _ = games
    item = next(i for i in items if i.category == "ray")
    _, steps = solved[item.id]
    tools_used = tool_steps(steps)
    assert tools_used[:3] == ["detect_shapes"] * 3
    assert set(tools_used[3:-1]) == {"find_color"} and tools_used[-1] == "trace_light_ray"
    traced = next(s for s in steps if s["tool"] == "trace_light_ray")
    assert traced["ops"], "the light path is drawn on the canvas"
    # the perceived arrow is the drawn one to the pixel (the generators draw whole-pixel ends)
    assert traced["arguments"]["origin"] == item.meta["origin"]
    assert traced["arguments"]["direction"] == item.meta["direction"]


def _moves(steps: list[dict[str, Any]]) -> list[Any]:
    """Return what the policy decided: each model step's tool calls (name, arguments) and text."""
    return [
        (s["text"], [(c["name"], c["arguments"]) for c in s["tool_calls"] or []]) for s in steps if s["kind"] == "model"
    ]


@pytest.mark.parametrize("task", list(PER_TASK))
def test_poisoned_answer_and_meta_change_nothing(task: str, games, solved):
    items, root = games
    item = next(i for i in items if i.category == task)
    junk = item.model_copy(update={"answer": "POISON", "meta": {"path": [[0, 0], [1, 1]], "answer": "POISON"}})
    text, steps = run(junk, root)
    assert text == solved[item.id][0]
    assert _moves(steps) == _moves(solved[item.id][1])
    assert "POISON" not in text


class Untouchable:
    """Looks like an Item, but reading `answer` or `meta` fails the test."""

    def __init__(self, item: Item) -> None:
        self._item = item

    def __getattr__(self, name: str) -> Any:
        if name in ("answer", "meta"):
            raise AssertionError(f"the offline policy read item.{name}")
        return getattr(self._item, name)


@pytest.mark.parametrize("task", ["maze", "ray"])
def test_solving_never_touches_answer_or_meta(task: str, games, solved):
    items, root = games
    item = next(i for i in items if i.category == task)
    text, _ = run(Untouchable(item), root)
    assert text == solved[item.id][0]


def test_unrecognised_items_fall_through_to_the_fixed_guess(games):
    items, root = games
    item = next(i for i in items if i.category == "maze")
    other = item.model_copy(update={"category": "puzzle", "question": "What colour is the sky?"})
    text, steps = run(other, root)
    assert text == "\\boxed{0}"
    assert [s["kind"] for s in steps] == ["observation", "model"]


def test_items_are_recognised_by_their_question_not_their_category(games, solved):
    items, root = games
    item = next(i for i in items if i.category == "maze")
    renamed = item.model_copy(update={"category": "puzzle", "benchmark": "rbench-v"})
    text, steps = run(renamed, root)
    assert text == solved[item.id][0]
    assert tool_steps(steps) == ["maze_from_image", "solve_maze"]


def test_a_strategy_without_its_tools_names_them_and_guesses(games):
    items, root = games
    item = next(i for i in items if i.category == "maze")
    text, steps = run(item, root, "custom", ("maze_from_image", "mark_point"))  # no solve_maze on offer
    assert text.splitlines()[-1] == "\\boxed{0}"
    assert "needs solve_maze," in text and "maze_from_image" not in text
    assert [s["kind"] for s in steps] == ["observation", "model"]


# --- pixel readers -----------------------------------------------------------------------------------------


def _arrow_picture(origin: tuple[int, int], tip: tuple[int, int]) -> np.ndarray:
    image = Image.new("RGB", (200, 200), "white")
    draw = ImageDraw.Draw(image)
    draw.ellipse([origin[0] - 7, origin[1] - 7, origin[0] + 7, origin[1] + 7], fill=(220, 0, 0))
    ux, uy = tip[0] - origin[0], tip[1] - origin[1]
    n = math.hypot(ux, uy)
    ux, uy = ux / n, uy / n
    bx, by = tip[0] - 14 * ux, tip[1] - 14 * uy
    draw.line([origin, (bx, by)], fill=(220, 0, 0), width=3)
    draw.polygon([tip, (bx - uy * 6.3, by + ux * 6.3), (bx + uy * 6.3, by - ux * 6.3)], fill=(220, 0, 0))
    return np.asarray(image, dtype=np.int16)


@pytest.mark.parametrize(("origin", "tip"), [((60, 100), (104, 93)), ((100, 100), (71, 66)), ((50, 50), (50, 95))])
def test_disc_centre_and_arrow_tip_are_read_to_the_pixel(origin, tip):
    blob = pixels.points(pixels.color_mask(_arrow_picture(origin, tip), (220, 0, 0)))
    center = pixels.snap(pixels.refine_center(blob, pixels.disc_center(blob, 7.0), 7.5))
    assert center == [float(origin[0]), float(origin[1])]
    assert pixels.snap(pixels.arrow_tip(blob, (center[0], center[1]), 10.0)) == [float(tip[0]), float(tip[1])]


def test_stroke_segment_recovers_a_thick_line():
    image = Image.new("RGB", (200, 200), "white")
    ImageDraw.Draw(image).line([(30, 40), (150, 120)], fill=(64, 64, 64), width=4)
    mask = pixels.color_mask(np.asarray(image, dtype=np.int16), (64, 64, 64))
    a, b = sorted(pixels.stroke_segment(pixels.points(mask)))
    assert math.dist(a, (30, 40)) < 1.5 and math.dist(b, (150, 120)) < 1.5


def test_read_figure_finds_every_segment_of_a_line_drawing():
    a, b, c = (300, 80), (60, 520), (560, 520)
    inner = [(a, (310, 520)), ((180, 300), (430, 300)), ((120, 410), (508, 432))]
    image = Image.new("RGB", (640, 640), "white")
    draw = ImageDraw.Draw(image)
    for p, q in [(a, b), (b, c), (c, a), *inner]:
        draw.line([p, q], fill=(0, 0, 0), width=3)
    ink = pixels.color_mask(np.asarray(image, dtype=np.int16), (0, 0, 0), 60)
    found = linework.read_figure(ink)
    assert len(found) == 6
    for p, q in [(a, b), (b, c), (c, a), *inner]:
        assert any(
            (math.dist(p, s) <= 2 and math.dist(q, t) <= 2) or (math.dist(p, t) <= 2 and math.dist(q, s) <= 2)
            for s, t in found
        ), f"segment {p}-{q} not read"


@pytest.mark.parametrize("number", [1, 4, 7, 9, 12])
def test_read_number_reads_the_default_font(number: int):
    image = Image.new("L", (60, 40), 255)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    draw.text((30.4, 19.6), str(number), fill=0, font=ImageFont.load_default(size=18), anchor="mm")
    mask = np.asarray(image) < 128
    ys, xs = np.nonzero(mask)
    label, mismatch = pixels.read_number(mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])
    assert (label, mismatch) == (str(number), 0.0)
