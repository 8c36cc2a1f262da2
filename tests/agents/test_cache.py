"""Request keys and the response cache: what a key covers, hits without a call, atomic shared writes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcot.agents import solve
from mcot.agents.backends import load_model
from mcot.agents.backends.base import ModelBackend, ModelRequest, ModelResponse, ToolSet, Usage
from mcot.agents.cache import CachedBackend, differing_parts, request_key, request_parts
from mcot.agents.errors import ModelError
from mcot.agents.messages import ImagePart, Message, TextPart, ToolCall, ToolResultPart, system, user

from mcot.testing.fake_provider import Fail, FakeProvider, Reply

SECRET = "sk-test-CACHEMUSTNOTHOLDTHIS0123456789"
PNG = bytes(range(256)) * 4
_SCHEMAS = {
    "draw_line": {"type": "object", "properties": {"start": {"type": "array"}}, "required": ["start"]},
    "zoom": {"type": "object", "properties": {"region": {"type": "array"}}},
}


def _schemas(table: dict[str, Any]) -> Any:
    def build(flavor: str, names: tuple[str, ...]) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": n, "parameters": table[n]}} for n in names]

    return build


def _request(
    *,
    question: str = "How many lines?",
    image: bytes = PNG,
    table: dict[str, Any] = _SCHEMAS,
    arguments: str = '{"start": [1, 2]}',
    hints: dict[str, Any] | None = None,
    **sampling: Any,
) -> ModelRequest:
    messages = [
        system("You draw on a canvas."),
        user(ImagePart(image), question),
        Message("assistant", [TextPart("drawing")], (ToolCall("call_1", "draw_line", arguments),)),
        Message("user", [ToolResultPart("call_1", "draw_line", "drew e1"), TextPart("The canvas changed.")]),
    ]
    tools = ToolSet(tuple(table), _schemas(table))
    return ModelRequest(messages, tools, hints=hints or {"id": "q1", "mode": "canvas"}, **sampling)


def test_the_key_changes_with_every_part_of_the_request_and_not_with_hints() -> None:
    base = request_key("openai:gpt-4o", _request())
    assert len(base) == 64 and base == request_key("openai:gpt-4o", _request())
    changed_image = bytearray(PNG)
    changed_image[100] ^= 1
    schema = {**_SCHEMAS, "zoom": {"type": "object", "properties": {"region": {"type": "string"}}}}
    variants = {
        "model": request_key("openai:gpt-4o-mini", _request()),
        "message text": request_key("openai:gpt-4o", _request(question="How many circles?")),
        "an image byte": request_key("openai:gpt-4o", _request(image=bytes(changed_image))),
        "a tool's schema": request_key("openai:gpt-4o", _request(table=schema)),
        "temperature": request_key("openai:gpt-4o", _request(temperature=0.5)),
        "seed": request_key("openai:gpt-4o", _request(seed=7)),
        "max_tokens": request_key("openai:gpt-4o", _request(max_tokens=100)),
        "tool arguments": request_key("openai:gpt-4o", _request(arguments='{"start": [1, 3]}')),
    }
    assert all(key != base for key in variants.values()), variants
    assert len(set(variants.values())) == len(variants)
    # hints (item id, arm, prompt-view facts) are no part of the key; nor is the spelling of the same arguments
    assert request_key("openai:gpt-4o", _request(hints={"id": "q9", "mode": "tools", "question": "?"})) == base
    assert request_key("openai:gpt-4o", _request(arguments='{"start":[1,2]}')) == base
    # an int temperature is the same setting as the float
    assert request_key("openai:gpt-4o", _request(temperature=0)) == base


def test_request_parts_tell_what_differs() -> None:
    recorded = request_parts("openai:gpt-4o", _request())
    assert recorded["model"] == "openai:gpt-4o" and recorded["temperature"] == "0.0" and recorded["seed"] == "None"
    assert [name for name in recorded if name.startswith("message ")] == [f"message {i}" for i in range(4)]
    assert recorded["message 1"].startswith("user:") and len(recorded["message 1"]) == len("user:") + 12
    schema = {**_SCHEMAS, "zoom": {"type": "object"}}
    assert differing_parts(recorded, request_parts("openai:gpt-4o", _request(table=schema))) == [
        "tools differ (names or schemas)"
    ]
    assert differing_parts(recorded, request_parts("openai:gpt-4o", _request(question="Other?"))) == [
        "message 1 (user) differs"
    ]
    assert differing_parts(recorded, request_parts("openai:gpt-4o", _request(temperature=0.7))) == [
        "temperature differs: 0.0 recorded, 0.7 now"
    ]
    shorter = request_parts("openai:gpt-4o", ModelRequest(_request().messages[:2], _request().tools))
    assert differing_parts(recorded, shorter) == ["message 2 (assistant) is missing", "message 3 (user) is missing"]


def test_the_key_of_a_request_is_computed_once_per_spec() -> None:
    request = _request()
    first = request_key("openai:gpt-4o", request)
    assert set(request._digests) == {"openai:gpt-4o"}
    assert request_key("openai:gpt-4o", request) == first
    assert request_key("anthropic:claude-haiku-4-5", request) != first


class _Counting:
    """A backend that answers from a list and counts its calls."""

    spec = "openai:gpt-4o"
    provider = "openai"
    model = "gpt-4o"
    _key = SECRET

    def __init__(self, *answers: ModelResponse | Exception) -> None:
        self.answers = list(answers)
        self.calls = 0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def sampling_support(self) -> dict[str, str]:
        return {"temperature": "sent", "seed": "sent when set"}

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        return {"http://a": {"requests": 1}}


def test_cached_backend_forwards_what_it_does_not_define(tmp_path: Path) -> None:
    inner = _Counting()
    cached = CachedBackend(inner, tmp_path / "cache")
    assert isinstance(cached, ModelBackend)
    assert (cached.spec, cached.provider, cached.model, cached._key) == ("openai:gpt-4o", "openai", "gpt-4o", SECRET)
    assert cached.sampling_support() == {"temperature": "sent", "seed": "sent when set"}
    assert cached.endpoint_counts() == {"http://a": {"requests": 1}}
    with pytest.raises(AttributeError):
        cached.check_dataset  # noqa: B018 - the inner backend has none, so neither has the wrapper


def test_a_hit_is_served_without_a_call_and_a_failure_is_never_stored(tmp_path: Path) -> None:
    answer = ModelResponse(
        "drawing",
        (ToolCall("call_7", "draw_line", '{"start": [1, 2]}'),),
        Usage(120, 30),
        stop_reason="tool_calls",
        sampling={"temperature": 0.0},
    )
    inner = _Counting(ModelError("HTTP 400: bad request", status=400), answer)
    cached = CachedBackend(inner, tmp_path / "cache")
    request = _request()
    with pytest.raises(ModelError):
        asyncio.run(cached.generate(request))
    assert not list((tmp_path / "cache").rglob("*.json"))
    first = asyncio.run(cached.generate(request))
    second = asyncio.run(cached.generate(_request()))  # rebuilt, as the Session rebuilds it every turn
    assert inner.calls == 2 and (cached.hits, cached.misses) == (1, 2)
    key = request_key("openai:gpt-4o", request)
    assert first.cached is False and first.request_key == key
    assert second == replace(answer, request_key=key, cached=True)
    [stored] = (tmp_path / "cache").rglob("*.json")
    assert stored == tmp_path / "cache" / key[:2] / f"{key}.json"
    assert json.loads(stored.read_text()) == {
        "model": "openai:gpt-4o",
        "text": "drawing",
        "tool_calls": [{"id": "call_7", "name": "draw_line", "arguments": '{"start": [1, 2]}'}],
        "usage": {"input_tokens": 120, "output_tokens": 30},
        "stop_reason": "tool_calls",
        "sampling": {"temperature": 0.0},
        "tool_calls_in_text": False,
    }


def test_an_unreadable_cache_file_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    inner = _Counting(ModelResponse("\\boxed{3}", usage=Usage(10, 2)))
    cached = CachedBackend(inner, tmp_path / "cache")
    request = _request()
    path = cached.path(request_key("openai:gpt-4o", request))
    path.parent.mkdir(parents=True)
    path.write_text('{"text": "half a fi')
    assert asyncio.run(cached.generate(request)).text == "\\boxed{3}" and inner.calls == 1
    assert json.loads(path.read_text())["text"] == "\\boxed{3}"


_WRITER = """
import sys
from pathlib import Path
from mcot.agents.backends.base import ModelResponse, Usage
from mcot.agents.cache import CachedBackend

class Inner:
    spec = "openai:gpt-4o"

cache = CachedBackend(Inner(), Path(sys.argv[1]))
text = sys.argv[2] * 200_000
for _ in range(40):
    cache.store("ab" + "0" * 62, ModelResponse(text, usage=Usage(1, 1)))
"""


def test_processes_sharing_a_cache_never_see_a_partial_file(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    key = "ab" + "0" * 62
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(directory), letter], stderr=subprocess.PIPE)
        for letter in ("x", "y")
    ]
    reader = CachedBackend(_Counting(), directory)
    seen: set[str] = set()
    while any(writer.poll() is None for writer in writers):
        stored = reader.path(key)
        if stored.exists():
            data = json.loads(stored.read_text())  # never a torn file: each write is a rename
            seen.add(data["text"][0])
            assert data["text"] in ("x" * 200_000, "y" * 200_000)
    assert [writer.wait() for writer in writers] == [0, 0], [w.stderr.read() for w in writers if w.stderr]
    assert seen <= {"x", "y"} and reader.lookup(key) is not None
    assert [p.name for p in (directory / "ab").iterdir()] == [f"{key}.json"]  # no temporary file left behind


def test_the_second_identical_solve_makes_no_request_and_costs_nothing(
    item_dir: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    item, root = item_dir
    script = [Reply(tool_calls=[("draw_line", {"start": [10, 10], "end": [90, 60]})]), Reply("One.\n\\boxed{1}")]
    with FakeProvider(script, default=Fail(500, message="unexpected call")) as server:
        backend = CachedBackend(load_model("openai:gpt-4o", base_url=server.openai_url), tmp_path / "cache")
        first, first_trace = asyncio.run(solve(item, root, backend, "canvas"))
        assert len(server.requests) == 2
        second, second_trace = asyncio.run(solve(item, root, backend, "canvas"))
        assert len(server.requests) == 2  # no request reached the server
    assert first.status == second.status == "ok" and first.text == second.text == "One.\n\\boxed{1}"
    assert first.usage == {"input_tokens": 200, "output_tokens": 40, "cost_usd": 0.0009, "cached_calls": 0}
    assert second.usage == {"input_tokens": 200, "output_tokens": 40, "cost_usd": 0.0, "cached_calls": 2}
    first_models = first_trace.of_kind("model")
    second_models = second_trace.of_kind("model")
    assert [s.cached for s in first_models] == [False, False] and [s.cached for s in second_models] == [True, True]
    assert [s.request_key for s in first_models] == [s.request_key for s in second_models]
    assert all(len(s.request_key or "") == 64 for s in first_models)
    assert first_models[0].request_parts == second_models[0].request_parts
    assert first_models[0].request_parts["model"] == "openai:gpt-4o"
    # the hints name the item (for replay), never its answer or meta
    assert server.requests[0].body["model"] == "gpt-4o"
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            assert SECRET.encode() not in raw and b"Authorization" not in raw and b"authorization" not in raw


def test_the_session_hints_carry_the_item_id_and_arm_but_never_the_answer(item_dir: Any) -> None:
    item, root = item_dir
    seen: list[dict[str, Any]] = []

    class Spy:
        spec = provider = model = "scripted"

        async def generate(self, request: ModelRequest) -> ModelResponse:
            seen.append(dict(request.hints))
            return ModelResponse("\\boxed{3}")

        def sampling_support(self) -> dict[str, str]:
            return {}

    prediction, trace = asyncio.run(solve(item, root, Spy(), "text"))
    assert prediction.status == "ok"
    [hints] = seen
    assert hints["id"] == item.id == "q1" and hints["mode"] == "text"
    assert "answer" not in hints and "meta" not in hints and item.answer not in json.dumps(hints)
    [step] = trace.of_kind("model")
    assert step.cached is False and step.request_key == request_key("scripted", _text_request(item, root))


def _text_request(item: Any, root: Path) -> ModelRequest:
    """The request the text loop sends for `item` (to check the key the trace records)."""
    from mcot.agents.prompts import render_task
    from mcot.agents.session import image_part

    from mcot.registry import BENCHMARKS

    task = render_task(item.benchmark, item.question, item.choices, item.answer_type, has_image=bool(item.images))
    cap = BENCHMARKS.get(item.benchmark).max_new_tokens  # the text arm is capped at the benchmark's limit
    return ModelRequest([user(*[image_part(root / p) for p in item.images], task)], max_tokens=min(4096, cap or 4096))


def test_every_image_the_session_sends_carries_the_sha256_of_its_bytes(item_dir: Any, toolbox: Any) -> None:
    import hashlib

    item, root = item_dir
    checked: list[int] = []

    class Spy:
        spec = provider = model = "scripted"

        async def generate(self, request: ModelRequest) -> ModelResponse:
            images = [p for m in request.messages for p in m.parts if isinstance(p, ImagePart)]
            images += [i for m in request.messages for p in m.parts if isinstance(p, ToolResultPart) for i in p.images]
            assert all(image.sha256 == hashlib.sha256(image.data).hexdigest() for image in images)
            checked.append(len(images))
            if len(checked) == 1:
                calls = (
                    ToolCall("c1", "draw_line", '{"start": [5, 5], "end": [60, 40]}'),
                    ToolCall("c2", "zoom", '{"region": [0, 0, 80, 60]}'),
                )
                return ModelResponse("", calls)
            return ModelResponse("\\boxed{3}")

        def sampling_support(self) -> dict[str, str]:
            return {}

    prediction, _ = asyncio.run(solve(item, root, Spy(), "canvas", toolbox=toolbox, tools=("draw_line", "zoom")))
    assert prediction.status == "ok" and checked == [1, 3]  # the first canvas; then the zoom and the new canvas
