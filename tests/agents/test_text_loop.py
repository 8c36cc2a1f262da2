"""The text arm's loop runs its two steps without the graph engine: same trace, same outcome as the graph's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcot.agents import solve
from mcot.agents import solver as agents_solver
from mcot.agents.graph import initial_state, run_text_loop, solver_graph

GRAPH_RUNS: list[int] = []


async def through_the_graph(session: Any) -> Any:
    GRAPH_RUNS.append(1)
    return await solver_graph().ainvoke(initial_state(), config={"recursion_limit": 10}, context=session)


def _comparable(prediction: Any, trace: Any) -> tuple[Any, ...]:
    steps = [{k: v for k, v in step.to_dict().items() if k not in ("t", "latency_s")} for step in trace]
    record = {k: v for k, v in prediction.to_record().items() if k != "latency_s"}
    return record, steps


@pytest.mark.parametrize(
    "turns",
    [
        [{"text": "One.\n\\boxed{1}"}],
        [{"text": "draw?", "tool_calls": [{"name": "draw_line", "arguments": {"start": [0, 0], "end": [9, 9]}}]}],
        [{"text": ""}],
    ],
)
def test_the_direct_text_loop_matches_the_graph(item_dir, scripted, monkeypatch, turns) -> None:
    item, root = item_dir
    spec = scripted(turns)
    direct = asyncio.run(solve(item, root, spec, "text"))
    monkeypatch.setattr(agents_solver, "run_text_loop", through_the_graph)
    GRAPH_RUNS.clear()
    graph = asyncio.run(solve(item, root, spec, "text"))
    assert GRAPH_RUNS == [1]
    assert _comparable(*direct) == _comparable(*graph)
    assert direct[0].steps == 1 and [s.kind for s in direct[1]] == ["model"]


def test_the_direct_loop_returns_the_graph_state_and_raises_what_a_node_raises(item_dir, scripted) -> None:
    from mcot.agents import Budget
    from mcot.agents.backends import load_model
    from mcot.agents.session import Session
    from mcot.agents.toolbox import RegistryToolbox

    from mcot.core.item import prompt_view
    from mcot.core.rundir import MemoryBlobs

    item, root = item_dir
    session = Session(
        view=prompt_view(item, root),
        mode="text",
        backend=load_model(scripted([{"text": "\\boxed{2}"}])),
        budget=Budget(),
        blobs=MemoryBlobs(),
        toolbox=RegistryToolbox(),
    )
    state = asyncio.run(run_text_loop(session))
    assert state == {**initial_state(), "turns": 1, "status": "ok", "answer": "\\boxed{2}"}

    class Broken:
        spec = provider = model = "broken"

        async def generate(self, request: Any) -> Any:
            raise RuntimeError("not a model error")

    session.backend = Broken()
    with pytest.raises(RuntimeError, match="not a model error"):
        asyncio.run(run_text_loop(session))
