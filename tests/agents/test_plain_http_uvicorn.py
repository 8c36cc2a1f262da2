"""The plain HTTP client against uvicorn, the ASGI server vLLM and SGLang run on: keep-alive expiry, chunked bodies,
early closes, and the protections it holds (header values, body limits, redirects)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from mcot.agents.backends.plain_http import (
    HeaderError,
    HTTPConnectionError,
    HTTPStatusError,
    PlainHTTPClient,
    classify_plain_http_error,
)
from mcot.agents.backends.wire_limits import ResponseTooLarge, WireLimits

uvicorn = pytest.importorskip("uvicorn")

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class App:
    """An ASGI app: POST /v1/<kind> answers as `kind` says; it counts the connections it served."""

    def __init__(self) -> None:
        self.peers: set[Any] = set()

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        self.peers.add(tuple(scope.get("client") or ()))
        while (await receive()).get("more_body"):
            pass
        kind = scope["path"].rsplit("/", 1)[-1]
        if kind == "chunked":  # no length: uvicorn sends it chunked
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
            )
            parts = [b'{"text": "', b"a" * 70_000, b'", "n": ', b"3}"]
            for part in parts:
                await send({"type": "http.response.body", "body": part, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        elif kind == "early-close":  # promises 1,000 bytes, sends 10, then the app fails and the server hangs up
            start = {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"1000")]}
            await send(start)
            await send({"type": "http.response.body", "body": b'{"text": "', "more_body": True})
            raise RuntimeError("the app died mid-answer")
        elif kind == "big":
            body = json.dumps({"text": "b" * 3_000_000}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body})
        elif kind == "redirect":
            headers = [(b"location", b"http://elsewhere.invalid:9/v1/chat/completions"), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 307, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
        else:
            body = b'{"n": 1}'
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"8")]})
            await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, App]]:
    app = App()
    config = uvicorn.Config(app, host="127.0.0.1", port=0, timeout_keep_alive=1, log_level="critical", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        threading.Event().wait(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/v1", app
    server.should_exit = True
    thread.join(timeout=10)


def test_a_connection_uvicorn_expired_is_replaced_without_an_error(served: tuple[str, App]) -> None:
    url, app = served

    async def run() -> list[int]:
        client = PlainHTTPClient(url, timeout_s=10)
        first = (await client.post_json("/ok", {})).n
        await asyncio.sleep(1.6)  # past uvicorn's keep-alive time-out of 1 s: it closed the connection
        second = (await client.post_json("/ok", {})).n
        third = (await client.post_json("/ok", {})).n  # kept alive again: the same connection
        client.close()
        return [first, second, third]

    app.peers.clear()
    assert asyncio.run(run()) == [1, 1, 1]
    assert len(app.peers) == 2


def test_a_chunked_body_from_uvicorn_is_read_whole(served: tuple[str, App]) -> None:
    url, _ = served
    answer = asyncio.run(PlainHTTPClient(url, timeout_s=10).post_json("/chunked", {}))
    assert answer.n == 3 and answer.text == "a" * 70_000


def test_an_early_close_is_a_retryable_connection_error(served: tuple[str, App]) -> None:
    url, _ = served
    with pytest.raises(HTTPConnectionError) as caught:
        asyncio.run(PlainHTTPClient(url, timeout_s=10).post_json("/early-close", {}))
    failure = classify_plain_http_error(caught.value)
    assert failure is not None and failure.retryable and not failure.cannot_connect
    assert "the server closed the connection before the whole answer came" in failure.reason


def test_a_body_over_the_limit_is_refused_by_its_length(served: tuple[str, App]) -> None:
    url, _ = served
    client = PlainHTTPClient(url, timeout_s=10, limits=WireLimits(1 << 20))
    with pytest.raises(ResponseTooLarge, match=r"larger than the limit of 1 MiB \(at least 3,000,012 bytes\)"):
        asyncio.run(client.post_json("/big", {}))


def test_a_redirect_is_an_error_naming_where_it_pointed(served: tuple[str, App]) -> None:
    url, _ = served
    with pytest.raises(HTTPStatusError) as caught:
        asyncio.run(PlainHTTPClient(url, timeout_s=10).post_json("/redirect", {}))
    failure = classify_plain_http_error(caught.value)
    assert failure is not None and not failure.retryable and failure.status == 307
    assert "redirects to another server (http://elsewhere.invalid:9/v1/chat/completions)" in failure.reason


@pytest.mark.parametrize("value", ["Bearer k\r\nX-Injected: 1", "Bearer k\n", "Bearer\tk", "Bearer k\x00"])
def test_a_header_value_with_a_control_character_is_refused(value: str) -> None:
    with pytest.raises(HeaderError, match="the value of the Authorization header holds a control character"):
        PlainHTTPClient("http://127.0.0.1:9/v1", headers={"Authorization": value})
