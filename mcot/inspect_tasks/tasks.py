"""One inspect task per benchmark: items read with mcot's loaders, the arm's tools on a canvas per sample, and the
benchmark's official protocol as the scorer.

`-T data=PATH` is an items folder or a benchmark's native files (converted as `mcot run` converts them, into a
temporary folder); `-T arm=NAME` one of mcot's arms (`text`: one answer in words, the images in the prompt;
`canvas`, `tools`, `look`, …: the arm's system prompt, the canvas note and image, the task, and the arm's tools);
`-T limit=N` the first N items; `-T max_steps=N` the model turns of an arm with tools (as `mcot run --max-steps`).
A sample's prompt is what mcot's solver sends in that arm; its metadata holds the item (never shown to the model).
"""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, Content, ContentImage, ContentText
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from mcot.agents.prompts import render_task
from mcot.agents.session import arm_system_prompt
from mcot.arms import arm_names
from mcot.benchmarks.generators.games import TASKS as GAMES
from mcot.core.clusters import benchmark_cluster
from mcot.core.errors import UsageError
from mcot.core.item import read_items
from mcot.core.registry import TOOLSETS
from mcot.env.canvas_session import CanvasSession
from mcot.inspect_tasks.scorers import official
from mcot.inspect_tasks.tools import session_tools
from mcot.runner import prepare_dataset
from mcot.tools import openai_tools

DEFAULT_MAX_STEPS = 12
"""The model turns of an arm with tools, as `mcot run`'s default `--max-steps`."""


def items_of(
    data: str, benchmark: str | None, limit: int | None = None, category: str | None = None
) -> tuple[list[Any], Path]:
    """Return the items of `data` of `benchmark` (every item when None) and of `category` (a game's name; every
    category when None), in order, and the folder their images are relative to; ValueError in one line when
    there are none."""

    try:
        folder = prepare_dataset(Path(data), None, Path(tempfile.mkdtemp(prefix="mcot-inspect-")))
        items = read_items(folder)
    except (UsageError, ValueError) as exc:
        raise ValueError(f"-T data={data}: {exc}") from None
    chosen = [
        item
        for item in items
        if (benchmark is None or item.benchmark == benchmark) and (category is None or item.category == category)
    ]
    if not chosen:
        found = sorted({item.benchmark if category is None else item.category for item in items}) or ["no items"]
        raise ValueError(f"-T data={data} holds no {category or benchmark} items (it holds {', '.join(found)})")
    return chosen[:limit] if limit else chosen, folder


def sample(item: Any, folder: Path, arm: str) -> Sample:
    """Return an item as an inspect sample: the text arm's prompt (images, then the task), the answer as target."""

    choices = tuple(item.choices) if item.choices else None
    task_text = render_task(item.benchmark, item.question, choices, item.answer_type)
    images = [ContentImage(image=_data_url((folder / path).read_bytes())) for path in item.images]
    return Sample(
        id=item.id,
        input=[ChatMessageUser(content=[*images, ContentText(text=task_text)])],
        target=item.answer,
        metadata={
            "item": item.model_dump(mode="json"),
            "images_root": str(folder),
            "arm": arm,
            "task": task_text,
            "cluster": benchmark_cluster(item),  # the scorer's clustered stderr groups by it (the id by default)
        },
    )


def _data_url(data: bytes) -> str:
    kind = "jpeg" if data[:3] == b"\xff\xd8\xff" else "png"
    return f"data:image/{kind};base64," + base64.b64encode(data).decode("ascii")


@solver
def canvas_arm(arm: str = "canvas", max_steps: int = DEFAULT_MAX_STEPS) -> Solver:
    """Return the solver of an arm with tools: the sample's canvas, the arm's prompt and tools, then the tool loop."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        session = CanvasSession(arm, Path(state.metadata["images_root"]))
        opened = session.start(item=state.metadata["item"])
        if not opened.ok:
            raise ValueError(opened.text)
        declared = TOOLSETS.find(arm)
        if declared is None:
            raise ValueError(f"-T arm={arm} is no declared toolset")
        canvas = session.episode.canvas
        names = tuple(session.tools)
        prompt = arm_system_prompt(
            declared.system_prompt,
            names,
            openai_tools(names),
            width=canvas.width,
            height=canvas.height,
            max_steps=max_steps,
            sees_canvas=declared.sees_canvas,
        )
        item = state.metadata["item"]
        root = Path(state.metadata["images_root"])
        extra = [ContentImage(image=_data_url((root / path).read_bytes())) for path in item["images"][1:]]
        opening: list[Content] = [
            ContentText(text=opened.text),
            ContentImage(image=_data_url(opened.canvas or b"")),
            *extra,
        ]
        state.messages = [
            ChatMessageSystem(content=prompt),
            ChatMessageUser(content=[*opening, ContentText(text=state.metadata["task"])]),
        ]
        state.tools = session_tools(session)
        state.message_limit = 2 * max_steps + 2
        try:
            return await generate(state, tool_calls="loop")
        finally:  # a code arm's Python session ends with its sample
            session.close()

    return solve


def benchmark_task(
    benchmark: str | None, data: str, arm: str, limit: int | None, max_steps: int, category: str | None = None
) -> Task:
    """Return the task of `benchmark`'s items (of `category` alone, when given) in `data` under `arm`, scored by
    its official protocol."""

    names = [name for name in arm_names() if name != "custom"]
    if arm not in names:
        raise ValueError(f"-T arm={arm} is no arm; choose {', '.join(names)}")
    items, folder = items_of(data, benchmark, limit, category)
    dataset = MemoryDataset([sample(item, folder, arm) for item in items], name=category or benchmark or "mcot")
    chosen = generate() if arm == "text" else canvas_arm(arm, max_steps)
    return Task(dataset=dataset, solver=chosen, scorer=official(), metadata={"arm": arm, "data": str(data)})


@task
def rbench_v(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return RBench-V's items in `data` as a task in `arm`, scored by its official protocol."""
    return benchmark_task("rbench-v", data, arm, limit, max_steps)


@task
def gepbench(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return GePBench's items in `data` as a task in `arm`, scored by its official protocol."""
    return benchmark_task("gepbench", data, arm, limit, max_steps)


@task
def gobench(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return GOBench's (understanding) items in `data` as a task in `arm`, scored by its official protocol."""
    return benchmark_task("gobench", data, arm, limit, max_steps)


@task
def omniphys(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return OmniPhys's items in `data` as a task in `arm`, scored by its official protocol."""
    return benchmark_task("omniphys", data, arm, limit, max_steps)


@task
def games(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return the game and optics items of `mcot gen games` in `data` as a task in `arm`, scored officially."""
    return benchmark_task("games", data, arm, limit, max_steps)


def game_task(game: str, data: str, arm: str, limit: int | None, max_steps: int) -> Task:
    """Return the task of one game's items of `mcot gen games` in `data` (the `games` items of category `game`)."""
    if game not in GAMES:
        raise ValueError(f"{game} is no game of mcot gen games; choose {', '.join(GAMES)}")
    return benchmark_task("games", data, arm, limit, max_steps, category=game)


@task
def maze(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return the maze items of `mcot gen games` in `data` as a task in `arm`, scored officially."""
    return game_task("maze", data, arm, limit, max_steps)


@task
def bounce(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return the bounce items of `mcot gen games` in `data` as a task in `arm`, scored officially."""
    return game_task("bounce", data, arm, limit, max_steps)


@task
def dart(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return the dart items of `mcot gen games` in `data` as a task in `arm`, scored officially."""
    return game_task("dart", data, arm, limit, max_steps)


@task
def ray(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return the ray (optics) items of `mcot gen games` in `data` as a task in `arm`, scored officially."""
    return game_task("ray", data, arm, limit, max_steps)


@task
def dots(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return the dots items of `mcot gen games` in `data` as a task in `arm`, scored officially."""
    return game_task("dots", data, arm, limit, max_steps)


@task
def triangles(data: str, arm: str = "canvas", limit: int | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> Task:
    """Return the triangles items of `mcot gen games` in `data` as a task in `arm`, scored officially."""
    return game_task("triangles", data, arm, limit, max_steps)
