"""Arms, sampling and who drew what: the tools a request offers, the seed it sends, `drawn_by` on tool steps.

The requests are asserted on the local HTTP server's log, so they are what the real SDKs put on the wire.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from mcot.agents import Budget, load_model, solve
from mcot.tools.canvas_ops import canvas_tools
from mcot.tools.toolsets import toolset

from mcot import tools
from mcot.testing.fake_provider import Fail, FakeProvider, Reply

DRAW_LINE = ("draw_line", {"start": [40, 40], "end": [120, 100]})
MAZE = {"grid": ["S.#", ".#E", "..."], "cell": 20, "origin": [10, 10], "draw": True}


@pytest.mark.parametrize(
    ("arm", "expected"),
    [("canvas", canvas_tools()), ("tools", None), ("text", ())],
)
def test_each_arm_offers_exactly_its_tools(item_dir, keys, arm, expected):
    item, root = item_dir
    if expected is None:  # every declared tool but the code arms' python: canvas ops first, then by group and name
        expected = toolset("tools")
        assert set(expected) == set(tools.registry()) - {"python"} and expected[:13] == canvas_tools()
    with FakeProvider([Reply("\\boxed{1}")]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url)
        prediction, _ = asyncio.run(solve(item, root, model, arm))
        body = server.requests[0].body
    assert prediction.status == "ok", prediction.error
    if expected:
        assert tuple(t["function"]["name"] for t in body["tools"]) == expected
        system = body["messages"][0]["content"]
        # the canvas arm's prompt names no tool it does not offer; the tools arm's says what the others do
        assert ("physics" in system) == (arm == "tools")
    else:
        assert "tools" not in body
        assert [m["role"] for m in body["messages"]] == ["user"]  # no system prompt about a canvas


def test_canvas_arm_offers_the_13_canvas_operations_and_nothing_that_computes():
    assert len(canvas_tools()) == 13
    assert {"solve_maze", "count_triangles", "trace_light_ray", "maze_from_image"}.isdisjoint(canvas_tools())


def test_a_custom_arm_offers_the_tools_it_names(item_dir, keys):
    item, root = item_dir
    with FakeProvider([Reply("\\boxed{1}")]) as server:
        model = load_model("anthropic:claude-haiku-4-5", base_url=server.anthropic_url)
        asyncio.run(solve(item, root, model, "custom", tools=("solve_maze", "draw_line")))
        body = server.requests[0].body
    assert [t["name"] for t in body["tools"]] == ["solve_maze", "draw_line"]


def test_no_tools_is_the_text_loop_whatever_the_arm_is_called(item_dir, keys):
    item, root = item_dir
    with FakeProvider([Reply("\\boxed{1}")]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url)
        _, trace = asyncio.run(solve(item, root, model, "canvas", tools=()))
        body = server.requests[0].body
    assert "tools" not in body
    assert [s.kind for s in trace] == ["model"]


def test_a_tool_not_offered_in_the_arm_is_refused_and_the_model_reads_why(item_dir, keys):
    item, root = item_dir
    script = [Reply("", [("solve_maze", MAZE), DRAW_LINE]), Reply("\\boxed{1}")]
    with FakeProvider(script) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url)
        prediction, trace = asyncio.run(solve(item, root, model, "canvas"))
        second = server.requests[1].body["messages"]
    assert prediction.status == "ok", prediction.error
    refused, drawn = trace.of_kind("tool")
    assert refused.tool == "solve_maze" and refused.ops == [] and refused.changed == []
    assert "is not offered in this arm (canvas)" in refused.error and "draw_line" in refused.error
    assert drawn.error is None and drawn.ops[0]["op"] == "draw_line"
    replies = [m for m in second if m["role"] == "tool"]
    assert "not offered in this arm" in replies[0]["content"]


def test_tool_steps_say_who_drew(item_dir, scripted):
    item, root = item_dir
    turns = [
        {"text": "", "tool_calls": [{"name": "solve_maze", "arguments": MAZE}]},
        {"text": "", "tool_calls": [{"name": "mark_point", "arguments": {"at": [10, 10]}}]},
        {"text": "\\boxed{1}"},
    ]
    prediction, trace = asyncio.run(solve(item, root, scripted(turns), "tools"))
    assert prediction.status == "ok", prediction.error
    maze, mark = trace.of_kind("tool")
    assert maze.tool == "solve_maze" and maze.error is None and maze.ops  # the domain tool drew its path
    assert (maze.drawn_by, mark.drawn_by) == ("tool", "model")
    lines = [json.loads(line) for line in trace.to_lines()]
    assert [line["drawn_by"] for line in lines if line["kind"] == "tool"] == ["tool", "model"]
    assert all("drawn_by" not in line for line in lines if line["kind"] != "tool")


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "openai-compatible:qwen2.5-vl"])
def test_seed_and_temperature_reach_the_openai_wire_and_the_trace(item_dir, keys, spec):
    item, root = item_dir
    with FakeProvider([Reply("", [DRAW_LINE]), Reply("\\boxed{1}")]) as server:
        model = load_model(spec, base_url=server.openai_url)
        budget = Budget(seed=7, temperature=0.5)
        prediction, trace = asyncio.run(solve(item, root, model, "canvas", budget))
        bodies = [r.body for r in server.requests]
    assert prediction.status == "ok", prediction.error
    assert all(b["seed"] == 7 and b["temperature"] == 0.5 for b in bodies)
    assert [s.sampling for s in trace.of_kind("model")] == [{"temperature": 0.5, "seed": 7}] * 2


def test_no_seed_is_sent_unless_one_is_set(item_dir, keys):
    item, root = item_dir
    with FakeProvider([Reply("\\boxed{1}")]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url)
        _, trace = asyncio.run(solve(item, root, model, "text"))
        body = server.requests[0].body
    assert "seed" not in body and body["temperature"] == 0.0
    assert trace.steps[0].sampling == {"temperature": 0.0}


def test_reasoning_models_get_the_seed_but_no_temperature(item_dir, keys):
    item, root = item_dir
    with FakeProvider([Reply("\\boxed{1}")]) as server:
        model = load_model("openai:o3-mini", base_url=server.openai_url)
        _, trace = asyncio.run(solve(item, root, model, "text", Budget(seed=7)))
        body = server.requests[0].body
    assert body["seed"] == 7 and "temperature" not in body
    assert trace.steps[0].sampling == {"seed": 7}
    assert model.sampling_support()["temperature"].startswith("not sent")


def test_anthropic_never_sends_a_seed_and_sends_temperature_where_the_api_has_it(item_dir, keys):
    from mcot.agents.backends.anthropic_messages import _accepts_temperature

    item, root = item_dir
    with FakeProvider([Reply("", [DRAW_LINE]), Reply("\\boxed{1}")]) as server:
        model = load_model("anthropic:claude-haiku-4-5", base_url=server.anthropic_url)
        prediction, trace = asyncio.run(solve(item, root, model, "canvas", Budget(seed=7, temperature=0.25)))
        bodies = [r.body for r in server.requests]
    assert prediction.status == "ok", prediction.error
    sent = {"temperature": 0.25} if _accepts_temperature() else {}  # newer Messages API versions take none
    assert all("seed" not in b and {k: b[k] for k in ("temperature",) if k in b} == sent for b in bodies)
    assert [s.sampling for s in trace.of_kind("model")] == [sent] * 2
    support = model.sampling_support()
    assert support["seed"] == "not supported by the Anthropic Messages API"
    assert support["temperature"] == "sent" if _accepts_temperature() else support["temperature"].startswith("not sent")


def test_anthropic_params_carry_temperature_when_the_sdk_takes_it(keys, monkeypatch):
    from mcot.agents.backends import anthropic_messages
    from mcot.agents.backends.base import ModelRequest
    from mcot.agents.messages import user

    monkeypatch.setattr(anthropic_messages, "_accepts_temperature", lambda: True)
    model = load_model("anthropic:claude-haiku-4-5")
    params = model.build_params(ModelRequest([user("hi")], temperature=0.25, seed=7))
    assert params["temperature"] == 0.25 and "seed" not in params
    assert model.sampling_support()["temperature"] == "sent"


def test_a_failed_call_records_what_it_sent(item_dir, keys, quick_retry):
    item, root = item_dir
    with FakeProvider([Fail(400)]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url, retry=quick_retry)
        prediction, trace = asyncio.run(solve(item, root, model, "text", Budget(seed=3)))
    assert prediction.status == "error"
    assert trace.steps[0].error and trace.steps[0].sampling == {"temperature": 0.0, "seed": 3}


def test_sampling_support_of_each_backend(keys, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    script = tmp_path / "s.json"
    script.write_text("[]")
    openai = load_model("openai:gpt-4o").sampling_support()
    compatible = load_model("openai-compatible:llava").sampling_support()
    anthropic = load_model("anthropic:claude-haiku-4-5").sampling_support()
    scripted = load_model(f"scripted:{script}").sampling_support()
    assert openai["temperature"] == compatible["temperature"] == "sent"
    assert anthropic["temperature"] == "sent" or anthropic["temperature"].startswith("not sent: the installed SDK")
    assert openai["seed"].startswith("sent when set") and compatible["seed"].startswith("sent when set")
    assert anthropic["seed"].startswith("not supported")
    assert scripted == {"temperature": "ignored: deterministic", "seed": "ignored: deterministic"}


def test_old_trace_lines_load_without_the_new_fields():
    from mcot.agents import Step

    tool = Step.from_dict({"step": 1, "kind": "tool", "t": 0.1, "tool": "draw_line", "ops": []})
    model = Step.from_dict({"step": 0, "kind": "model", "t": 0.0, "text": "hi"})
    assert tool.drawn_by is None and tool.to_dict()["drawn_by"] is None
    assert model.sampling is None and "sampling" in model.to_dict()


def test_a_scripted_file_scripts_each_arm(item_dir, tmp_path):
    item, root = item_dir
    path = tmp_path / "arms.json"
    by_arm = {
        "text": [{"text": "\\boxed{2}"}],
        "tools": [{"text": "", "tool_calls": [{"name": "solve_maze", "arguments": MAZE}]}, {"text": "\\boxed{3}"}],
    }
    path.write_text(json.dumps(by_arm))
    spec = f"scripted:{path}"
    played = {arm: asyncio.run(solve(item, root, spec, arm))[0] for arm in ("text", "tools", "canvas")}
    assert (played["text"].text, played["tools"].text) == ("\\boxed{2}", "\\boxed{3}")
    assert played["tools"].steps == 2
    assert played["canvas"].text == "\\boxed{2}"  # an arm without its own list plays another's
