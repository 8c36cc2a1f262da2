"""The plain-HTTP JSON client behind `openai-compatible:` on http URLs: framing, keep-alive, errors, when it applies."""

from __future__ import annotations

import asyncio
import gzip
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable

import pytest
from mcot.agents.backends import ModelRequest, load_model
from mcot.agents.backends.plain_http import (
    HTTPConnectionError,
    HTTPStatusError,
    HTTPTimeout,
    JSONRecord,
    PlainHTTPClient,
    classify_plain_http_error,
    plain_http_usable,
)
from mcot.agents.messages import Message, TextPart

from mcot.testing.fake_provider import Fail, FakeProvider, Reply

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return head[0], headers, body


async def _with_server(answer: Answer, run: Callable[[str], Awaitable[object]]) -> object:
    """Run `run(base_url)` against a raw asyncio server whose connections are handled by `answer`."""
    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await run(f"http://127.0.0.1:{port}/v1")
    finally:
        server.close()


def test_a_round_trip_sends_json_with_the_headers_and_reads_attributes() -> None:
    with FakeProvider([Reply("four", usage=(7, 2))]) as server:

        async def go() -> object:
            client = PlainHTTPClient(server.openai_url, headers={"Authorization": "Bearer k-1"}, timeout_s=5)
            return await client.post_json("/chat/completions", {"model": "m", "messages": [{"role": "user"}]})

        completion = asyncio.run(go())
        request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.body == {"model": "m", "messages": [{"role": "user"}]}
    assert request.headers["Authorization"] == "Bearer k-1"
    assert request.headers["Content-Type"] == "application/json"
    assert isinstance(completion, JSONRecord)
    assert completion.choices[0].message.content == "four"
    assert completion.choices[0].message.tool_calls is None  # a missing key reads as None, as in the SDK types
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (7, 2)


def test_sequential_requests_reuse_one_connection() -> None:
    connections = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        while not reader.at_eof():
            try:
                await _read_request(reader)
            except asyncio.IncompleteReadError:
                break
            writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n{"n": 1}')

    async def run(url: str) -> list[int]:
        client = PlainHTTPClient(url, timeout_s=5)
        results = [(await client.post_json("/x", {})).n for _ in range(5)]
        client.close()
        return results

    assert asyncio.run(_with_server(answer, run)) == [1, 1, 1, 1, 1]
    assert len(connections) == 1


def test_chunked_gzip_and_100_continue_are_read() -> None:
    payload = gzip.compress(json.dumps({"ok": True, "text": "é" * 3000}).encode())
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(payload[i : i + 1000]), payload[i : i + 1000]) for i in range(0, len(payload), 1000)
    )

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n")
        writer.write(chunks + b"0\r\nX-Trailer: 1\r\n\r\n")
        await writer.drain()

    async def run(url: str) -> object:
        return await PlainHTTPClient(url, timeout_s=5).post_json("/x", {})

    answer_record = asyncio.run(_with_server(answer, run))
    assert answer_record.ok is True and answer_record.text == "é" * 3000


def test_an_answer_without_length_is_read_to_the_end_and_its_connection_closed() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b'HTTP/1.0 200 OK\r\n\r\n{"a": [1, 2]}')
        writer.close()

    async def run(url: str) -> tuple[object, int]:
        client = PlainHTTPClient(url, timeout_s=5)
        result = await client.post_json("/x", {})
        return result, len(client._idle)

    result, idle = asyncio.run(_with_server(answer, run))
    assert result.a == [1, 2] and idle == 0


def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    opened = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        opened.append(1)
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        await writer.drain()
        writer.close()  # keep-alive promised, then hung up (as a server's idle time-out does)

    async def run(url: str) -> None:
        client = PlainHTTPClient(url, timeout_s=5)
        await client.post_json("/x", {})
        await asyncio.sleep(0.05)  # the loop sees the end of the stream
        await client.post_json("/x", {})

    asyncio.run(_with_server(answer, run))
    assert len(opened) == 2


def test_an_error_status_is_worded_as_the_sdk_words_it_and_classified() -> None:
    with FakeProvider([Fail(429, headers={"Retry-After": "2"}, message="slow down")]) as server:
        with pytest.raises(HTTPStatusError) as caught:
            asyncio.run(PlainHTTPClient(server.openai_url, timeout_s=5).post_json("/chat/completions", {}))
    error = caught.value
    assert error.status == 429 and error.message == "Error code: 429 - slow down"
    assert error.body == {"error": {"message": "slow down", "type": "server_error", "code": None}}
    failure = classify_plain_http_error(error)
    assert failure is not None
    assert (failure.retryable, failure.status, failure.retry_after_s) == (True, 429, 2.0)
    assert failure.reason == "HTTP 429: Error code: 429 - slow down"


def test_a_refused_connection_and_a_time_out_are_retryable_and_unreachable() -> None:
    async def refused() -> None:
        await PlainHTTPClient("http://127.0.0.1:9/v1", timeout_s=5).post_json("/chat/completions", {})

    with pytest.raises(HTTPConnectionError) as caught:
        asyncio.run(refused())
    failure = classify_plain_http_error(caught.value)
    assert failure is not None and failure.retryable and failure.unreachable
    assert failure.reason.startswith("connection error (POST http://127.0.0.1:9/v1/chat/completions): cannot connect")

    with FakeProvider([Reply("late")], latency_s=1.0) as server:
        with pytest.raises(HTTPTimeout) as timed:
            asyncio.run(PlainHTTPClient(server.openai_url, timeout_s=0.2).post_json("/chat/completions", {}))
    failure = classify_plain_http_error(timed.value)
    assert failure is not None and failure.retryable and failure.unreachable
    assert failure.reason == f"request timed out after 0.2 s (POST {server.openai_url}/chat/completions)"
    assert classify_plain_http_error(ValueError("x")) is None


def test_it_applies_to_plain_http_without_credentials_or_a_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert plain_http_usable("http://127.0.0.1:8000/v1")
    assert not plain_http_usable("https://api.example.com/v1")
    assert not plain_http_usable("http://user:secret@10.0.0.2:8000/v1")
    assert not plain_http_usable(None)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy:3128")
    assert not plain_http_usable("http://10.0.0.2:8000/v1")
    monkeypatch.setenv("NO_PROXY", "10.0.0.2")
    assert plain_http_usable("http://10.0.0.2:8000/v1")


def test_the_compatible_backend_uses_it_without_importing_the_openai_sdk() -> None:
    code = (
        "import asyncio, sys\n"
        "from mcot.agents.backends import ModelRequest, load_model\n"
        "from mcot.testing.fake_provider import FakeProvider, Reply\n"
        "from mcot.agents.messages import Message, TextPart\n"
        "with FakeProvider([Reply('four')]) as server:\n"
        "    backend = load_model('openai-compatible:m', base_url=server.openai_url)\n"
        "    request = ModelRequest(messages=[Message('user', [TextPart('2 + 2?')])], max_tokens=9)\n"
        "    print(asyncio.run(backend.generate(request)).text, 'openai' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["four", "False"], done.stderr


def test_an_openai_backend_still_goes_through_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeProvider([Reply("four")]) as server:
        backend = load_model("openai:gpt-4o", base_url=server.openai_url)
        request = ModelRequest(messages=[Message("user", [TextPart("2 + 2?")])], max_tokens=9)
        assert asyncio.run(backend.generate(request)).text == "four"
        sent = server.requests[0].headers
    assert "X-Stainless-Lang" in sent or "x-stainless-lang" in sent
