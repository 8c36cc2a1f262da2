"""`openai-compatible:` against a local server: no strict schemas, tool calls written as text."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcot.agents import Budget, ModelSpecError, load_model, solve

from mcot.testing.fake_provider import FakeProvider, Reply


def test_text_tool_calls_are_run_and_answered_in_text(item_dir, toolbox, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    item, root = item_dir
    written = '<tool_call>{"name": "draw_line", "arguments": {"start": [0, 0], "end": [50, 50]}}</tool_call>'
    with FakeProvider([Reply(written), Reply("\\boxed{1}")]) as server:
        model = load_model("openai-compatible:qwen2.5-vl", base_url=server.openai_url)
        prediction, trace = asyncio.run(
            solve(item, root, model, "custom", Budget(), tools=toolbox.names(), toolbox=toolbox)
        )
        first, second = (r.body for r in server.requests)

    assert prediction.status == "ok" and prediction.text == "\\boxed{1}"
    assert prediction.usage["cost_usd"] is None  # unknown price, not zero
    assert all("strict" not in t["function"] for t in first["tools"])
    assert "max_tokens" in first and "max_completion_tokens" not in first
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert "tool_calls" not in second["messages"][2]
    feedback = second["messages"][3]["content"]
    assert feedback[0] == {"type": "text", "text": "Tool draw_line result: drew e1"}
    assert [s.kind for s in trace] == ["observation", "model", "tool", "observation", "model"]
    assert trace.steps[2].ops[0]["op"] == "draw_line"


def test_compatible_needs_a_base_url(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelSpecError, match="--base-url"):
        load_model("openai-compatible:llava")


def test_base_url_from_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = load_model("openai-compatible:llava")
    assert model.base_url == "http://127.0.0.1:9/v1"
    assert json.dumps(model.build_params.__doc__)  # the backend is built without a key


@pytest.mark.parametrize("spec", ["", "gemini:pro", "openai", "scripted:"])
def test_bad_specs(spec):
    with pytest.raises(ModelSpecError):
        load_model(spec)
