"""Exports hold what the model was sent: the trace records the system prompt, task and tool schemas of each pair
(`sent` on its first model step), every export view reads them; an arm whose toolset names no system prompt gets
one generated from its own tools."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from local_models import FakeProvider, Reply
from mcot.agents.prompts import load_prompt
from PIL import Image

from mcot.commands.export import run_export
from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.runconfig import RunConfig
from mcot.runner import run_items


@pytest.fixture
def items(tmp_path: Path) -> Path:
    folder = tmp_path / "items"
    png = io.BytesIO()
    Image.new("RGB", (80, 60), "white").save(png, format="PNG")
    item = Item(id="q", benchmark="gepbench", category="counting", question="How many circles?", images=["images/q.png"],
                choices=["1", "2", "3", "4"], answer="C", answer_type="choice", meta={"level": "easy"})  # fmt: skip
    write_items(folder, [(item, {"images/q.png": png.getvalue()})])
    return folder


def _run(items: Path, out: Path, mode: str, tools: str | None = None) -> list[dict[str, Any]]:
    with FakeProvider(default=Reply("C")) as server:
        config = RunConfig(data=items, model="openai-compatible:m", out=out, mode=mode, tools=tools,
                           base_url=server.openai_url)  # fmt: skip
        run_items(config, quiet=True)
        return [r.body for r in server.requests]


def _trace_sent(run: Path) -> dict[str, Any]:
    (trace,) = sorted((run / "traces").glob("*.jsonl"))
    steps = read_jsonl(trace)
    first_model = next(step for step in steps if step["kind"] == "model")
    assert [step for step in steps if step.get("sent")] == [first_model]  # recorded once per pair
    return first_model["sent"]


def _text(content: str | list[dict[str, Any]]) -> str:
    return content if isinstance(content, str) else "".join(part["text"] for part in content if part["type"] == "text")


def _exported(run: Path, out: Path, view: str) -> dict[str, Any]:
    assert run_export(run, "jsonl", out, view=view) == 0
    (row,) = read_jsonl(out / "records.jsonl")
    return row


def test_a_look_runs_export_holds_the_look_system_prompt(items: Path, tmp_path: Path) -> None:
    sent_bodies = _run(items, tmp_path / "run", "look")
    wire_system = sent_bodies[0]["messages"][0]["content"]
    sent = _trace_sent(tmp_path / "run")
    assert sent["system"] == wire_system
    assert sent["system"].startswith(load_prompt("system.look.txt").text.split("\n")[0])
    assert [t["function"]["name"] for t in sent["tools"]] == ["zoom", "show_grid"]
    row = _exported(tmp_path / "run", tmp_path / "messages", "messages")
    system = row["messages"][0]
    assert system["role"] == "system" and _text(system["content"]) == wire_system  # not the canvas prompt
    assert [t["function"]["name"] for t in row["tools"]] == ["zoom", "show_grid"]
    sharegpt = _exported(tmp_path / "run", tmp_path / "sharegpt", "sharegpt")
    assert sharegpt["system"] == wire_system
    assert [t["name"] for t in json.loads(sharegpt["tools"])] == ["zoom", "show_grid"]


def test_a_custom_arms_system_prompt_names_only_its_tools(items: Path, tmp_path: Path) -> None:
    bodies = _run(items, tmp_path / "run", "custom", tools="zoom,measure_distance")
    system = bodies[0]["messages"][0]["content"]
    assert "- zoom:" in system and "- measure_distance:" in system
    for other in ("draw_line", "draw_circle", "undo", "show_grid", "erase"):
        assert other not in system, other
    assert "only tools on offer" in system
    row = _exported(tmp_path / "run", tmp_path / "messages", "messages")
    assert _text(row["messages"][0]["content"]) == system


def test_the_text_arm_records_its_task_and_no_system_prompt(items: Path, tmp_path: Path) -> None:
    bodies = _run(items, tmp_path / "run", "text")
    sent = _trace_sent(tmp_path / "run")
    assert sent["system"] is None and sent["tools"] == []
    wire_text = [p["text"] for p in bodies[0]["messages"][0]["content"] if p["type"] == "text"]
    assert wire_text == [sent["task"]]


def test_the_viewer_shows_what_was_sent(items: Path, tmp_path: Path) -> None:
    from mcot.core.rundir import open_run
    from mcot.viewer import viewer_data

    _run(items, tmp_path / "run", "look")
    _, shards = viewer_data(open_run(tmp_path / "run"), tmp_path / "page")
    text = "".join(shards)  # the page's trace shards: each pair's detail, its `sent` included
    assert '"sent"' in text and "you cannot draw on it" in text and '"show_grid"' in text


@pytest.mark.parametrize("view", ["records", "messages", "llava", "sharegpt", "verl", "verl-sft", "trl"])
def test_every_view_of_a_look_run_holds_the_look_system_prompt(items: Path, tmp_path: Path, view: str) -> None:
    wire = _run(items, tmp_path / "run", "look")[0]["messages"][0]["content"]
    assert "zoom" in wire and "draw_line" not in wire  # the look prompt, not the canvas one
    assert run_export(tmp_path / "run", "jsonl", tmp_path / view, view=view) == 0
    (row,) = read_jsonl(tmp_path / view / "records.jsonl")
    assert json.dumps(wire)[1:-1] in json.dumps(row)  # the whole prompt, as sent (JSON-escaped on both sides)


def test_a_plugin_toolset_without_a_system_prompt_gets_one_naming_only_its_tools(items: Path, tmp_path: Path) -> None:
    from mcot.core.declare import declare_toolset
    from mcot.core.registry import TOOLSETS

    declare_toolset("measure-only", tools=["measure_distance"], description="a plugin's arm: one domain tool")
    try:
        bodies = _run(items, tmp_path / "run", "measure-only")
    finally:
        TOOLSETS.unregister("measure-only")
    system = bodies[0]["messages"][0]["content"]
    assert system.startswith(load_prompt("system.generated.txt").text.split("\n")[0])
    assert "- measure_distance:" in system
    for other in ("zoom", "draw_line", "undo", "show_grid", "python"):
        assert other not in system, other
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == ["measure_distance"]
    assert _trace_sent(tmp_path / "run")["system"] == system
