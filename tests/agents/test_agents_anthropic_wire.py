"""The Anthropic backend against a local Messages server, driven by the real SDK."""

from __future__ import annotations

import asyncio
import base64

from mcot.agents import Budget, load_model, solve

from mcot.testing.fake_provider import Fail, FakeProvider, Reply


def test_tool_results_lead_the_next_user_turn_and_carry_images(item_dir, toolbox, keys, quick_retry, fake_sleep):
    item, root = item_dir
    script = [
        Reply("Zoom and mark.", [("zoom", {"region": [0, 0, 160, 120]}), ("mark_point", {"at": [80, 70]})]),
        Fail(529, headers={"retry-after-ms": "250"}),
        Reply("One rectangle.\n\\boxed{1}", usage=(1000, 100)),
    ]
    with FakeProvider(script) as server:
        model = load_model("anthropic:claude-haiku-4-5-20251001", base_url=server.anthropic_url, retry=quick_retry)
        prediction, trace = asyncio.run(
            solve(item, root, model, "custom", Budget(), tools=toolbox.names(), toolbox=toolbox)
        )
        requests = server.requests

    assert prediction.status == "ok", prediction.error
    assert prediction.text.endswith("\\boxed{1}")
    assert fake_sleep.waits == [0.25]
    assert abs(prediction.usage["cost_usd"] - (1100 * 1.0 + 120 * 5.0) / 1e6) < 1e-12
    assert all(r.path == "/v1/messages" for r in requests)

    first = requests[0].body
    # a custom arm gets the prompt generated from its own tools (system.generated.txt), each listed by name
    assert all(f"- {name}:" in first["system"] for name in toolbox.names())
    assert {t["name"] for t in first["tools"]} == {"draw_line", "mark_point", "zoom", "boom"}
    assert all(t["input_schema"]["type"] == "object" for t in first["tools"])
    image = next(b for b in first["messages"][0]["content"] if b["type"] == "image")
    assert base64.b64decode(image["source"]["data"])[:4] == b"\x89PNG"

    messages = requests[2].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    uses = [b for b in messages[1]["content"] if b["type"] == "tool_use"]
    reply = messages[2]["content"]
    assert [b["type"] for b in reply[:2]] == ["tool_result", "tool_result"]
    assert [b["tool_use_id"] for b in reply[:2]] == [u["id"] for u in uses]
    assert any(b["type"] == "image" for b in reply[0]["content"])  # the zoom picture travels in its result
    assert reply[-1]["type"] == "image"  # the updated canvas follows the results

    assert [s.kind for s in trace] == ["observation", "model", "tool", "tool", "observation", "model"]
    assert trace.steps[2].image is not None and trace.steps[2].image.startswith("blobs/")
    assert trace.steps[5].retries[0]["status"] == 529


def test_missing_key_is_a_clear_error(monkeypatch):
    import pytest
    from mcot.agents import ModelSpecError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelSpecError, match="ANTHROPIC_API_KEY"):
        load_model("anthropic:claude-haiku-4-5")


def test_an_empty_anthropic_reply_is_asked_once_more(item_dir, keys, quick_retry, fake_sleep):
    """A well-formed empty answer (`content: []`, a stop reason) is asked again once; the second answer counts."""
    item, root = item_dir
    with FakeProvider([Reply(""), Reply("\\boxed{3}")]) as server:
        model = load_model("anthropic:claude-test", base_url=server.anthropic_url, retry=quick_retry)
        prediction, trace = asyncio.run(solve(item, root, model, "text"))
        assert len(server.requests) == 2
    assert (prediction.status, prediction.text) == ("ok", "\\boxed{3}")
    assert trace.steps[0].retries[0]["error"] == "an empty answer (stop reason 'end_turn'); asked once more"
