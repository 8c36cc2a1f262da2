"""mcot's verl tools loaded by verl's own `initialize_tools_from_config` from the YAML `mcot env verl-config` writes,
driven through `create / execute / calc_reward / release`, and through verl's tool agent loop's own call path
(`ToolAgentLoop._call_tool`) with an `AgentData` made from a row that verl's RLHFDataset read."""

import asyncio
import json
import types
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from extras import needs
from mcot.canvas import Canvas
from PIL import Image
from trainer_runs import mcot, shared_runs

from mcot import tools
from mcot.export import export_run

pytestmark = needs("verl", extra="rl")


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The maze items' verl rows (parquet) and the canvas toolset's verl tools, loaded by verl."""
    from verl.tools.tool_registry import initialize_tools_from_config

    runs = shared_runs(tmp_path_factory)
    root = tmp_path_factory.mktemp("verl")
    export_run(runs["maze"], "parquet", root / "maze.parquet", view="verl")
    done = mcot("env", "verl-config", "--toolset", "canvas", "--out", root / "tools.yaml")
    assert "13 tools" in done.stdout
    loaded = initialize_tools_from_config(str(root / "tools.yaml"))
    return {
        "root": root,
        "rows": pq.read_table(root / "maze.parquet").to_pylist(),
        "tools": {t.name: t for t in loaded},
    }


def route(row: dict[str, Any]) -> list[list[float]]:
    """Return the maze's shortest route in canvas pixels."""
    meta = json.loads(row["extra_info"]["item"])["meta"]
    arguments = {"grid": meta["grid"], "cell": meta["cell"], "origin": meta["origin"], "targets": [meta["target"]]}
    return tools.call("solve_maze", arguments, Canvas(size=(635, 495))).data["pixels"]


def test_the_config_loads_one_canvas_tool_per_tool(setup: dict[str, Any]) -> None:
    from mcot.env.verl import CanvasTool

    loaded = setup["tools"]
    assert sorted(loaded) == sorted(tools.canvas_tools()) and all(isinstance(t, CanvasTool) for t in loaded.values())
    schema = loaded["draw_line"].tool_schema.model_dump(exclude_unset=True, exclude_none=True)
    assert schema["function"]["parameters"]["required"] == ["start", "end"]
    assert "array of number" in schema["function"]["parameters"]["properties"]["start"]["description"]


def test_create_execute_calc_reward_release(setup: dict[str, Any]) -> None:
    row = setup["rows"][0]
    loaded = setup["tools"]
    first = row["extra_info"]["tool_selection"][0]
    created = row["extra_info"]["tools_kwargs"][first]["create_kwargs"]

    async def episode() -> None:
        instance, response = await loaded[first].create("trajectory-1", create_kwargs=created, image=row["images"][0])
        assert instance == "trajectory-1" and response.is_empty()
        answer, step_reward, metrics = await loaded["trace_path"].execute(instance, {"points": route(row)})
        assert answer.text.startswith("trace_path: created e1") and step_reward == 0.0 and metrics == {"ok": True}
        assert isinstance(answer.image[0], Image.Image) and answer.image[0].size == (635, 495)
        assert await loaded["draw_line"].calc_reward(instance) == 1.0  # every tool sees the same canvas
        bad, _, metrics = await loaded["draw_line"].execute(instance, {"start": [1]})
        assert bad.text.startswith("Error: draw_line: invalid arguments") and not bad.image and metrics == {"ok": False}
        await loaded["undo"].execute(instance, {})
        assert await loaded["draw_line"].calc_reward(instance) == 0.0
        await loaded["draw_line"].release(instance)
        gone, _, _ = await loaded["draw_line"].execute(instance, {"start": [1, 1], "end": [2, 2]})
        assert gone.text.startswith("Error: no instance")

    asyncio.run(episode())


def test_verls_agent_loop_call_path_shares_one_canvas_per_trajectory(setup: dict[str, Any], tmp_path: Path) -> None:
    from training_code import tiny_tokenizer, verl_rl_dataset
    from verl.experimental.agent_loop.tool_agent_loop import AgentData, ToolAgentLoop
    from verl.experimental.agent_loop.tool_parser import FunctionCall

    dataset = verl_rl_dataset(setup["root"] / "maze.parquet", tiny_tokenizer(), tmp_path)
    row = dataset[0]
    agent = AgentData(row["raw_prompt"], [], None, None, None, {}, "request-1", row["tools_kwargs"])
    # the loop's configuration, as ToolAgentLoop.__init__ reads it from the rollout config
    loop = types.SimpleNamespace(
        tools=setup["tools"], max_tool_response_length=4096, tool_response_truncate_side="middle"
    )
    path = route(setup["rows"][0])

    def call(name: str, arguments: str) -> Any:
        function = FunctionCall(name=name, arguments=arguments)
        return asyncio.run(ToolAgentLoop._call_tool(loop, function, row["tools_kwargs"], agent))

    first, _, _ = call("trace_path", json.dumps({"points": path[:6]}))
    second, _, _ = call("trace_path", json.dumps({"points": path[5:]}))
    assert "created e1" in first.text and "created e2" in second.text  # one canvas across calls and instances
    assert second.image[0].size == (635, 495)
    unknown, _, _ = call("paint", "{}")
    assert unknown.text.startswith("Unknown function 'paint'")
    broken, _, _ = call("draw_line", "{not json")
    assert broken.text.startswith("Invalid JSON in arguments")
