"""The OpenAI backend against a local Chat Completions server, driven by the real SDK."""

from __future__ import annotations

import asyncio
import base64
import json

from mcot.agents import Budget, load_model, solve

from mcot.testing.fake_provider import Fail, FakeProvider, Raw, Reply


def _png_from_data_url(url: str) -> bytes:
    assert url.startswith("data:image/png;base64,")
    data = base64.b64decode(url.split(",", 1)[1])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return data


def test_canvas_loop_with_tool_calls_429_500_and_malformed_arguments(item_dir, toolbox, keys, quick_retry, fake_sleep):
    item, root = item_dir
    script = [
        Reply("I will draw.", [("draw_line", {"start": [40, 40], "end": [120, 100]}), ("mark_point", {"at": [5, 5]})]),
        Fail(429, headers={"Retry-After": "1"}),
        Fail(500),
        Reply("", [("draw_line", '{"start": [1, 2], "end": ')]),
        Reply("There is one rectangle.\n\\boxed{1}", usage=(300, 40)),
    ]
    with FakeProvider(script) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url, retry=quick_retry)
        prediction, trace = asyncio.run(
            solve(item, root, model, "custom", Budget(), tools=toolbox.names(), toolbox=toolbox)
        )
        requests = [r.body for r in server.requests]

    assert prediction.status == "ok", prediction.error
    assert prediction.text.endswith("\\boxed{1}")
    assert prediction.steps == 3
    assert prediction.usage["input_tokens"] == 100 + 100 + 300
    assert prediction.usage["output_tokens"] == 20 + 20 + 40
    assert abs(prediction.usage["cost_usd"] - (500 * 2.5 + 80 * 10.0) / 1e6) < 1e-12
    assert fake_sleep.waits[0] == 1.0  # Retry-After honoured
    assert len(fake_sleep.waits) == 2

    # 5 HTTP requests: turn 1, 429, 500, turn 2 (retried twice before), turn 3
    assert len(requests) == 5
    first = requests[0]
    assert first["model"] == "gpt-4o" and first["temperature"] == 0.0
    for tool in first["tools"]:
        assert tool["type"] == "function"
        assert tool["function"]["parameters"]["type"] == "object"
    assert {t["function"]["name"] for t in first["tools"]} == {"draw_line", "mark_point", "zoom", "boom"}
    assert first["messages"][0]["role"] == "system"
    opening = first["messages"][1]["content"]
    _png_from_data_url(next(p for p in opening if p["type"] == "image_url")["image_url"]["url"])

    second = requests[3]["messages"]
    assistant = second[2]
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert assistant["role"] == "assistant" and len(ids) == 2
    assert [m["role"] for m in second[3:5]] == ["tool", "tool"]
    assert [m["tool_call_id"] for m in second[3:5]] == ids
    assert second[3]["content"] == "drew e1" and second[4]["content"] == "drew e2"
    after = second[5]
    assert after["role"] == "user"
    assert any(p["type"] == "image_url" for p in after["content"])

    third = requests[4]["messages"]
    bad_call = third[6]["tool_calls"][0]
    assert bad_call["function"]["arguments"] == '{"start": [1, 2], "end": '
    tool_reply = third[7]
    assert tool_reply["tool_call_id"] == bad_call["id"]
    assert "not a JSON object" in tool_reply["content"]

    kinds = [s.kind for s in trace]
    assert kinds == ["observation", "model", "tool", "tool", "observation", "model", "tool", "model"]
    assert trace.steps[5].retries and [r["status"] for r in trace.steps[5].retries] == [429, 500]
    assert trace.steps[5].retries[0]["wait_s"] == 1.0
    assert trace.steps[6].error and "not a JSON object" in trace.steps[6].error
    assert trace.steps[2].ops and trace.steps[2].ops[0]["op"] == "draw_line"
    assert all("SECRETKEY" not in line for line in trace.to_lines())


def test_unparsable_body_is_retried(item_dir, keys, quick_retry):
    item, root = item_dir
    with FakeProvider([Raw(b"<html>bad gateway</html>", content_type="text/html"), Reply("\\boxed{1}")]) as server:
        model = load_model("openai:gpt-4o-mini", base_url=server.openai_url, retry=quick_retry)
        prediction, trace = asyncio.run(solve(item, root, model, "text"))
    assert prediction.status == "ok"
    assert trace.steps[0].retries[0]["error"].startswith("unparsable response")


def test_non_retryable_status_fails_at_once_without_leaking_the_key(item_dir, keys, quick_retry, fake_sleep):
    item, root = item_dir
    leak = f"Incorrect API key provided: {keys['OPENAI_API_KEY']}"
    with FakeProvider([Fail(401, message=leak)]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url, retry=quick_retry)
        prediction, trace = asyncio.run(solve(item, root, model, "text"))
        assert len(server.requests) == 1
    assert prediction.status == "error"
    assert "401" in prediction.error
    assert "SECRETKEY" not in prediction.error
    assert all("SECRETKEY" not in line for line in trace.to_lines())
    assert fake_sleep.waits == []


def test_retries_are_bounded(item_dir, keys, quick_retry, fake_sleep):
    item, root = item_dir
    with FakeProvider([], default=Fail(503)) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url, retry=quick_retry)
        prediction, trace = asyncio.run(solve(item, root, model, "text"))
        assert len(server.requests) == quick_retry.max_tries
    assert prediction.status == "error"
    assert "after 4 tries" in prediction.error
    assert len(trace.steps[0].retries) == 3
    assert all(0.0 < w <= 2.0 for w in fake_sleep.waits)


def test_text_mode_sends_image_then_protocol_text_and_no_tools(item_dir, keys):
    item, root = item_dir
    with FakeProvider([Reply("Reasoning...\n\\boxed{1}")]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url)
        prediction, trace = asyncio.run(solve(item, root, model, "text"))
        body = server.requests[0].body
    assert prediction.status == "ok" and prediction.steps == 1
    assert "tools" not in body
    content = body["messages"][0]["content"]
    assert [p["type"] for p in content] == ["image_url", "text"]
    assert (root / "images" / "q1.png").read_bytes() == _png_from_data_url(content[0]["image_url"]["url"])
    assert "\\boxed{}" in content[1]["text"]
    assert [s.kind for s in trace] == ["model"]
    assert json.loads(trace.to_lines()[0])["usage"] == {"input_tokens": 100, "output_tokens": 20}


def test_registry_tools_travel_with_valid_schemas(item_dir, keys):
    from mcot import tools

    item, root = item_dir
    script = [Reply("", [("draw_line", {"start": [40, 40], "end": [120, 100]})]), Reply("\\boxed{1}")]
    with FakeProvider(script) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url)
        prediction, trace = asyncio.run(solve(item, root, model, "tools"))
        sent = server.requests[0].body["tools"]
    assert prediction.status == "ok"
    names = [t["function"]["name"] for t in sent]  # every declared tool but the code arms' python
    assert set(names) == set(tools.registry()) - {"python"} and len(names) == len(set(names))
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in sent)
    assert trace.steps[2].tool == "draw_line" and trace.steps[2].error is None
    assert trace.steps[2].ops[0]["op"] == "draw_line" and trace.steps[2].changed == ["e1"]


def test_an_empty_reply_is_asked_once_more(item_dir, keys, quick_retry, fake_sleep):
    """A well-formed empty answer (no text, no tool calls, `finish_reason: stop`) is asked again once."""
    item, root = item_dir
    with FakeProvider([Reply(""), Reply("\\boxed{3}")]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url, retry=quick_retry)
        prediction, trace = asyncio.run(solve(item, root, model, "text"))
        assert len(server.requests) == 2
    assert (prediction.status, prediction.text) == ("ok", "\\boxed{3}")
    assert trace.steps[0].retries[0]["error"] == "an empty answer (stop reason 'stop'); asked once more"
