"""Unit tests of the agents' small parts: messages, wire conversion, retries, prices, prompts, scripted files."""

from __future__ import annotations

import asyncio
import email.utils

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.agents import ModelError, ModelSpecError, ask_text, load_model, prompt_hashes
from mcot.agents.backends._textcalls import parse_text_tool_calls
from mcot.agents.backends.anthropic_messages import to_anthropic_messages
from mcot.agents.backends.openai_chat import to_chat_messages
from mcot.agents.messages import ImagePart, Message, TextPart, ToolCall, ToolResultPart, limit_canvas_images, user
from mcot.agents.pricing import cost_usd
from mcot.agents.prompts import format_final_answer, load_prompt, render_task
from mcot.agents.retry import Failure, RetryPolicy, call_with_retries, retry_after_seconds

from mcot.testing.fake_provider import FakeProvider, Reply

PNG = b"\x89PNG\r\n\x1a\n" + b"0" * 16


def test_limit_canvas_images_keeps_item_images_and_the_latest_k():
    item_image = ImagePart(PNG + b"item")
    canvases = [ImagePart(PNG + bytes([i]), canvas=True) for i in range(5)]
    messages = [user(item_image, canvases[0], "task")] + [user(c) for c in canvases[1:]]
    trimmed = limit_canvas_images(messages, 2)
    kept = [p for m in trimmed for p in m.parts if isinstance(p, ImagePart)]
    assert kept == [item_image, canvases[3], canvases[4]]
    assert trimmed[4] is messages[4]  # untouched messages are shared, not copied
    assert len(messages[0].parts) == 3 and messages[0].parts[1] is canvases[0]  # the original is unchanged


def test_image_base64_is_computed_once():
    image = ImagePart(PNG)
    assert image.b64 is image.b64
    assert image.data_url().startswith("data:image/png;base64,iVBORw0KGgo")


def test_chat_wire_order_tool_messages_then_image():
    call = ToolCall("c1", "zoom", '{"region": [0, 0, 5, 5]}')
    zoomed = ImagePart(PNG, canvas=True)
    messages = [
        Message("system", [TextPart("sys")]),
        user("task"),
        Message("assistant", [], (call,)),
        Message("user", [ToolResultPart("c1", "zoom", "zoomed", images=(zoomed,)), TextPart("canvas:")]),
    ]
    wire = to_chat_messages(messages)
    assert [m["role"] for m in wire] == ["system", "user", "assistant", "tool", "user"]
    assert wire[1]["content"] == "task"
    assert wire[3] == {"role": "tool", "tool_call_id": "c1", "content": "zoomed"}
    assert [p["type"] for p in wire[4]["content"]] == ["image_url", "text"]


def test_anthropic_wire_tool_results_first():
    call = ToolCall("t1", "boom", "{}")
    messages = [
        Message("system", [TextPart("sys")]),
        user("task"),
        Message("assistant", [TextPart("trying")], (call,)),
        Message("user", [ToolResultPart("t1", "boom", "failed", is_error=True), ImagePart(PNG, canvas=True)]),
    ]
    system, wire = to_anthropic_messages(messages)
    assert system == "sys"
    assert wire[1]["content"][1] == {"type": "tool_use", "id": "t1", "name": "boom", "input": {}}
    assert wire[2]["content"][0]["type"] == "tool_result" and wire[2]["content"][0]["is_error"] is True
    assert wire[2]["content"][1]["type"] == "image"


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "draw_line", "arguments": {"start": [0, 0], "end": [1, 1]}}</tool_call>',
        '```json\n{"name": "draw_line", "parameters": {"start": [0, 0], "end": [1, 1]}}\n```',
        '{"name": "draw_line", "arguments": "{\\"start\\": [0, 0], \\"end\\": [1, 1]}"}',
    ],
)
def test_text_tool_calls(text):
    (call,) = parse_text_tool_calls(text, {"draw_line"})
    assert call.name == "draw_line" and call.parsed_arguments() == {"start": [0, 0], "end": [1, 1]}


def test_text_that_is_not_a_call_stays_text():
    assert parse_text_tool_calls('The answer is {"name": "x"}', {"draw_line"}) == ()
    assert parse_text_tool_calls('{"name": "rm_rf", "arguments": {}}', {"draw_line"}) == ()


def test_retry_after_forms():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    later = email.utils.formatdate(1_700_000_030, usegmt=True)
    assert retry_after_seconds({"retry-after": later}, now=lambda: 1_700_000_000.0) == 30.0
    assert retry_after_seconds({"retry-after": later}, now=lambda: 1_700_000_040.0) == 0.0  # a date past: no wait
    assert retry_after_seconds({}) is None


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=20))
def test_backoff_is_jittered_exponential_and_capped(attempt):
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=30.0, jitter=0.5)
    full = min(2 ** (attempt - 1), 30.0)
    assert full * 0.5 <= policy.delay(attempt, None) <= full
    assert policy.delay(attempt, 100.0) == 30.0


def test_call_with_retries_notes_each_retry():
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    attempts = iter([ConnectionError("reset"), TimeoutError(), "done"])

    async def attempt() -> str:
        value = next(attempts)
        if isinstance(value, BaseException):
            raise value
        return value

    def classify(exc: BaseException) -> Failure | None:
        return Failure(True, type(exc).__name__, retry_after_s=0.1)

    notes: list[dict] = []
    result = asyncio.run(call_with_retries(attempt, classify, RetryPolicy(sleep=sleep), notes))
    assert result == "done" and waits == [0.1, 0.1]
    assert [n["error"] for n in notes] == ["ConnectionError", "TimeoutError"]


def test_unclassified_exceptions_propagate():
    async def attempt() -> None:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        asyncio.run(call_with_retries(attempt, lambda e: None, RetryPolicy(), []))


def test_prices():
    assert cost_usd("openai", "gpt-4o", 1_000_000, 0) == 2.5
    assert cost_usd("openai", "gpt-4o-2024-08-06", 0, 1_000_000) == 10.0
    assert cost_usd("openai", "gpt-4o-mini-2024-07-18", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert cost_usd("anthropic", "claude-haiku-4-5-20251001", 2_000_000, 0) == 2.0
    assert cost_usd("openai", "gpt-5.4", 10, 10) is None
    assert cost_usd("openai-compatible", "llava", 10, 10) is None
    assert cost_usd("offline", "offline", 10, 10) == 0.0


def test_prompts_render_each_protocol():
    gep = render_task("gepbench", "Which shape is largest?", ("circle", "square"), "choice")
    assert gep.splitlines()[:3] == ["Which shape is largest?", "A. circle", "B. square"]
    assert gep.endswith("\nB. square\nPlease directly answer A, B, C or D and nothing else.")  # geocap's eval_inst
    rbench = render_task("rbench-v", "x?", None, "number")
    assert rbench.startswith("Solve the following question according to the given picture step by step.")
    assert rbench.endswith("\\boxed{} nowhere else.\n\nQuestion: x?\nAnswer:")
    assert "Answer:" in render_task("omniphys", "x?", None, "text")
    # the critic's instructions are the whole task (VLMEvalKit's SYS + question): no one-line answer appended
    assert render_task("gobench", "Rate it.\nTotal Score: <n>", None, "rating") == "Rate it.\nTotal Score: <n>"
    assert format_final_answer("omniphys", "5 N") == "Answer: 5 N"
    hashes = prompt_hashes()
    assert hashes["system.canvas.txt"] == load_prompt("system.canvas.txt").sha256
    assert {"task.rbench-v.txt", "task.gepbench.txt", "task.gobench.txt", "task.omniphys.txt"} <= set(hashes)


def test_scripted_file_errors(tmp_path):
    with pytest.raises(ModelSpecError, match="cannot be read"):
        load_model(f"scripted:{tmp_path / 'missing.json'}")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"text": 3}]')
    with pytest.raises(ModelSpecError, match="turn 0"):
        load_model(f"scripted:{bad}")
    short = tmp_path / "short.json"
    short.write_text("[]")
    backend = load_model(f"scripted:{short}")
    from mcot.agents.backends.base import ModelRequest

    with pytest.raises(ModelError, match="has 0 turns"):
        asyncio.run(backend.generate(ModelRequest([user("hi")])))


def test_ask_text_sends_one_user_message_with_images(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000000")
    with FakeProvider([Reply("1")]) as server:
        model = load_model("openai:gpt-4o", base_url=server.openai_url)
        reply = asyncio.run(ask_text(model, "Consistent? Reply 0 or 1.", [PNG]))
        body = server.requests[0].body
    assert reply == "1"
    assert [p["type"] for p in body["messages"][0]["content"]] == ["image_url", "text"]
    assert "tools" not in body


def test_public_names_resolve_to_functions_in_any_import_order():
    import subprocess
    import sys

    code = (
        "import mcot.agents.trace, sys; assert 'langgraph' not in sys.modules; "
        "from agents import Prediction, solve, load_model; import mcot.agents.solver; "
        "from agents import solve as again; assert callable(solve) and again is solve and callable(load_model)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
