"""The loop with tools runs its nodes directly: the same predictions and traces as LangGraph's engine gives."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from mcot.agents import Budget, solve
from mcot.agents import solver as agents_solver
from mcot.agents.graph import BRANCHES, EDGES, END, NODES, StepLimitError, initial_state, run_loop, solver_graph

DRAW = {"name": "draw_line", "arguments": {"start": [0, 0], "end": [9, 9]}}
MARK = {"name": "mark_point", "arguments": {"at": [4, 4], "label": "A"}}
GRAPH_RUNS: list[int] = []


async def through_the_graph(session: Any, step_limit: int) -> Any:
    GRAPH_RUNS.append(step_limit)
    return await solver_graph().ainvoke(initial_state(), config={"recursion_limit": step_limit}, context=session)


def _comparable(prediction: Any, trace: Any) -> tuple[Any, ...]:
    steps = [{k: v for k, v in step.to_dict().items() if k not in ("t", "latency_s")} for step in trace]
    record = {k: v for k, v in prediction.to_record().items() if k != "latency_s"}
    return record, steps


@pytest.mark.parametrize(
    ("turns", "budget"),
    [
        ([{"text": "look", "tool_calls": [DRAW]}, {"text": "", "tool_calls": [MARK]}, {"text": "\\boxed{3}"}], None),
        ([{"text": "\\boxed{1}"}], None),
        ([{"text": "", "tool_calls": [{"name": "no_such_tool", "arguments": {}}]}, {"text": "\\boxed{2}"}], None),
        ([{"text": "a", "tool_calls": [DRAW]}, {"text": "b", "tool_calls": [MARK]}], Budget(max_steps=2)),
        ([{"text": "zoom", "tool_calls": [{"name": "show_grid", "arguments": {"step": 50}}]}, {"text": "4"}], None),
    ],
)
def test_the_direct_loop_matches_the_graph(item_dir, scripted, monkeypatch, turns, budget) -> None:
    item, root = item_dir
    spec = scripted(turns)
    direct = asyncio.run(solve(item, root, spec, "canvas", budget))
    monkeypatch.setattr(agents_solver, "run_loop", through_the_graph)
    GRAPH_RUNS.clear()
    graph = asyncio.run(solve(item, root, spec, "canvas", budget))
    assert GRAPH_RUNS == [(budget or Budget()).recursion_limit()]
    assert _comparable(*direct) == _comparable(*graph)


def test_the_tables_are_the_graph() -> None:
    compiled = solver_graph().get_graph()
    edges = {(e.source, e.target) for e in compiled.edges}
    assert edges == {
        ("__start__", "prepare"),
        *EDGES.items(),
        *((name, target) for name, (_, targets) in BRANCHES.items() for target in targets),
    }
    assert set(compiled.nodes) == {"__start__", "__end__", *NODES}
    assert END == "__end__"


def test_a_loop_past_its_step_limit_stops_as_a_budget(item_dir, scripted) -> None:
    item, root = item_dir
    spec = scripted([{"text": "", "tool_calls": [DRAW]}] * 5 + [{"text": "\\boxed{1}"}])
    prediction, trace = asyncio.run(solve(item, root, spec, "canvas", Budget(max_steps=100)))
    assert prediction.status == "ok" and prediction.steps == 6

    async def limited(session: Any, step_limit: int) -> Any:
        return await run_loop(session, 7)  # prepare, then model–tools–observe twice: the third model turn is over

    agents_solver.run_loop, original = limited, agents_solver.run_loop  # type: ignore[assignment]
    try:
        prediction, trace = asyncio.run(solve(item, root, spec, "canvas", Budget(max_steps=100)))
    finally:
        agents_solver.run_loop = original
    assert (prediction.status, prediction.error) == ("budget", "graph step limit reached (304)")
    assert prediction.steps == 2 and [s.kind for s in trace].count("model") == 2
    assert issubclass(StepLimitError, RecursionError)


def test_a_canvas_solve_loads_no_langgraph(item_dir, scripted) -> None:
    _, root = item_dir
    spec = scripted([{"text": "", "tool_calls": [DRAW]}, {"text": "\\boxed{1}"}])
    code = (
        "import asyncio, sys\n"
        "from mcot.agents import solve\n"
        "from mcot.benchmarks.item import read_items\n"
        f"item = read_items({str(root)!r})[0]\n"
        f"prediction, _ = asyncio.run(solve(item, {str(root)!r}, {spec!r}, 'canvas'))\n"
        "assert prediction.status == 'ok', prediction\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('langgraph', 'langchain', 'shapely')))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
