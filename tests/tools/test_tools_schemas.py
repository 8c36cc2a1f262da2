"""Schemas for OpenAI, Anthropic and OpenAI-compatible servers, checked with the real SDKs' request building."""

from __future__ import annotations

import json

import httpx
import httpx2
import pytest
from anthropic import Anthropic
from anthropic.types import ToolParam
from mcot.tools import anthropic_tools, compatible_tools, openai_tools, registry
from mcot.tools.schemas import COMPATIBLE_KEYWORDS
from openai import OpenAI
from openai.types.chat import ChatCompletionToolParam
from pydantic import TypeAdapter


def _walk(node, visit) -> None:
    if isinstance(node, dict):
        visit(node)
        for key, value in node.items():
            if key == "properties":
                for prop in value.values():
                    _walk(prop, visit)
            else:
                _walk(value, visit)
    elif isinstance(node, list):
        for value in node:
            _walk(value, visit)


def test_schemas_are_inlined_untitled_and_typed() -> None:
    for entry in openai_tools():
        params = entry["function"]["parameters"]
        text = json.dumps(params)
        assert "$ref" not in text and "$defs" not in text and '"title"' not in text and "strict" not in entry
        assert params["type"] == "object" and isinstance(params["required"], list)
        assert list(params["properties"])[: len(params["required"])] == params["required"]

        def typed(node: dict, name: str = entry["function"]["name"]) -> None:
            assert "type" in node or "anyOf" in node, (name, node)

        for prop in params["properties"].values():
            _walk(prop, lambda n: typed(n) if "description" in n or "items" in n else None)


def test_pinned_argument_shapes() -> None:
    by_name = {t["name"]: t["input_schema"] for t in anthropic_tools()}
    light = by_name["trace_light_ray"]
    assert {"origin", "direction"} <= set(light["required"])
    surface = light["properties"]["surfaces"]["items"]
    assert surface["properties"]["kind"]["enum"] == ["mirror", "interface", "block"]
    assert {"points", "polygon", "n1", "n2", "n"} <= set(surface["properties"])
    proj = by_name["simulate_projectile"]
    assert {"origin", "velocity", "gravity", "obstacles", "t_max", "draw"} <= set(proj["properties"])
    assert by_name["solve_maze"]["properties"]["draw"]["default"] is False
    assert by_name["draw_line"]["required"] == ["start", "end"]


def test_compatible_schemas_keep_only_plain_keywords() -> None:
    for entry in compatible_tools():
        assert "strict" not in entry["function"]

        def plain(node: dict) -> None:
            assert set(node) <= COMPATIBLE_KEYWORDS | {"anyOf"}, node

        params = entry["function"]["parameters"]
        plain({k: v for k, v in params.items() if k != "properties"})
        for prop in params["properties"].values():
            _walk(prop, plain)


def test_schemas_are_valid_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for entry in [*openai_tools(), *compatible_tools()]:
        jsonschema.Draft202012Validator.check_schema(entry["function"]["parameters"])


def test_sdk_types_accept_the_entries() -> None:
    TypeAdapter(list[ChatCompletionToolParam]).validate_python(openai_tools())
    TypeAdapter(list[ChatCompletionToolParam]).validate_python(compatible_tools())
    TypeAdapter(list[ToolParam]).validate_python(anthropic_tools())


def _capture(reply: dict, http=httpx) -> tuple[list, object]:
    """Return (requests seen, an HTTP client of the `http` module that answers every request with `reply`)."""
    seen: list = []

    def handler(request):
        seen.append(request)
        return http.Response(200, json=reply)

    return seen, http.Client(transport=http.MockTransport(handler))


def test_openai_sdk_builds_and_serialises_a_request_with_every_tool() -> None:
    reply = {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
    }
    for tools in (openai_tools(), compatible_tools()):
        seen, http = _capture(reply)
        client = OpenAI(api_key="test", base_url="http://127.0.0.1:9/v1", max_retries=0, http_client=http)
        out = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], tools=tools)
        assert out.choices[0].message.content == "ok"
        sent = json.loads(seen[0].content)
        assert [t["function"]["name"] for t in sent["tools"]] == list(registry())
        assert sent["tools"] == tools


def test_anthropic_sdk_builds_and_serialises_a_request_with_every_tool() -> None:
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    seen, http = _capture(reply, httpx2)  # this anthropic SDK runs on httpx2
    client = Anthropic(api_key="test", base_url="http://127.0.0.1:9", max_retries=0, http_client=http)
    tools = anthropic_tools()
    out = client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}], tools=tools)
    assert out.content[0].text == "ok"
    sent = json.loads(seen[0].content)
    assert sent["tools"] == tools


def test_selecting_tools_by_name() -> None:
    assert [t["name"] for t in anthropic_tools(["zoom", "solve_maze"])] == ["zoom", "solve_maze"]
    with pytest.raises(KeyError, match="unknown tool"):
        openai_tools(["nope"])
