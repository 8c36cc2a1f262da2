"""A scripted model provider on 127.0.0.1 for tests, perf scripts and dry runs: real HTTP, no network.

It speaks the OpenAI Chat Completions wire format on `POST .../chat/completions`, the Anthropic
Messages format on `POST .../messages` and the OpenAI Images API on `POST .../images/generations` (JSON) and
`POST .../images/edits` (multipart/form-data), answering each request with the next entry of its script and
recording every request (path, headers, parsed body, raw bytes), so a test can assert on what the real SDKs sent.
An Images request answered by a chat `Reply` (e.g. the default) gets `ImageReply()`: one PNG per image asked for.

    with FakeProvider([Reply(tool_calls=[("draw_line", {"start": [0, 0], "end": [9, 9]})]),
                       Fail(429, headers={"Retry-After": "1"}),
                       Reply("\\boxed{3}")]) as server:
        backend = load_model("openai:gpt-4o", base_url=server.openai_url)
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import io
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """A successful model turn: text and tool calls (name, arguments as a dict or a raw string)."""

    text: str = ""
    tool_calls: Sequence[tuple[str, dict[str, Any] | str]] = ()
    usage: tuple[int, int] = (100, 20)


@dataclass(frozen=True)
class Fail:
    """An HTTP error response with optional headers (e.g. Retry-After)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"


@dataclass(frozen=True)
class Raw:
    """A verbatim response body (e.g. an unparsable one)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


@dataclass(frozen=True)
class ImageReply:
    """A successful Images API answer (base64 PNGs).

    `images`: PNG bytes to return, or how many solid-colour 32×32 PNGs to make (None: the request's `n`).
    `size`, `quality` and `usage` are echoed as the response's fields when given; `as_url` answers with
    image URLs instead of base64 data.
    """

    images: Sequence[bytes] | int | None = None
    revised_prompt: str | None = None
    size: str | None = None
    quality: str | None = None
    usage: dict[str, Any] | None = None
    as_url: bool = False


Entry = Reply | ImageReply | Fail | Raw | Callable[[dict[str, Any]], "Reply | ImageReply | Fail | Raw"]


@dataclass
class Recorded:
    """One request the server received: a multipart body is parsed to {field: text or file dict}."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes = b""


class _Server(ThreadingHTTPServer):
    """The threaded server with a listen backlog for bursts of connects (the default of 5 drops them)."""

    request_queue_size = 1024
    daemon_threads = True


class FakeProvider:
    """A threaded HTTP server answering from a script; use as a context manager or call start/stop.

    `latency_s` delays every answer (each request has its own thread), to measure a runner against a slow model.
    """

    def __init__(self, script: Sequence[Entry] = (), *, default: Entry | None = None, latency_s: float = 0.0) -> None:
        self.script: list[Entry] = list(script)
        self.latency_s = latency_s
        self.default: Entry = default if default is not None else Reply("(script exhausted)")
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._counter = 0
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        # a short poll interval: `stop()` waits for the serving loop's next poll (0.5 s by default)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        """Return the server's root URL (`http://127.0.0.1:PORT`)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        """Return the base URL an OpenAI client wants (with /v1)."""
        return self.url + "/v1"

    @property
    def anthropic_url(self) -> str:
        """Return the base URL an Anthropic client wants (without /v1)."""
        return self.url

    def start(self) -> FakeProvider:
        """Start serving in a background thread; return self."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, body: dict[str, Any]) -> Reply | ImageReply | Fail | Raw:
        with self._lock:
            entry = self.script.pop(0) if self.script else self.default
            self._counter += 1
        return entry(body) if callable(entry) else entry

    def _call_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm against the
            # client's delayed ACK adds ~40 ms to every keep-alive request
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                content_type = self.headers.get("content-type") or ""
                if content_type.startswith("multipart/form-data"):
                    body = parse_multipart(content_type, raw)
                else:
                    try:
                        body = json.loads(raw or b"{}")
                    except ValueError:
                        body = {"_unparsable": raw.decode("utf-8", "replace")}
                with server._lock:
                    server.requests.append(Recorded(self.path, dict(self.headers.items()), body, raw))
                entry = server._next(body)
                if server.latency_s:
                    time.sleep(server.latency_s)
                anthropic = self.path.rstrip("/").endswith("/messages")
                images = "/images/" in self.path
                if isinstance(entry, Raw):
                    self._send(entry.status, entry.body, entry.content_type, {})
                elif isinstance(entry, Fail):
                    payload = _error_body(entry, anthropic)
                    self._send(entry.status, json.dumps(payload).encode(), "application/json", entry.headers)
                elif images or isinstance(entry, ImageReply):
                    reply = entry if isinstance(entry, ImageReply) else ImageReply()
                    self._send(200, json.dumps(_images_body(reply, body)).encode(), "application/json", {})
                else:
                    model = str(body.get("model", "fake"))
                    payload = _anthropic_body(entry, model, server) if anthropic else _openai_body(entry, model, server)
                    self._send(200, json.dumps(payload).encode(), "application/json", {})

            def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _arguments_text(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _openai_body(reply: Reply, model: str, server: FakeProvider) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{server._call_id()}",
            "type": "function",
            "function": {"name": name, "arguments": _arguments_text(arguments)},
        }
        for name, arguments in reply.tool_calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{server._call_id()}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {
            "prompt_tokens": reply.usage[0],
            "completion_tokens": reply.usage[1],
            "total_tokens": sum(reply.usage),
        },
    }


def _anthropic_body(reply: Reply, model: str, server: FakeProvider) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for name, arguments in reply.tool_calls:
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {"_raw": arguments}
        content.append({"type": "tool_use", "id": f"toolu_{server._call_id()}", "name": name, "input": arguments})
    return {
        "id": f"msg_{server._call_id()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]},
    }


def parse_multipart(content_type: str, raw: bytes) -> dict[str, Any]:
    """Return a multipart/form-data body as {name: text, or {"filename", "content_type", "data"} for a file}.

    A name sent more than once (`image[]`) maps to a list of its values.
    """
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        value: Any = (
            {"filename": filename, "content_type": part.get_content_type(), "data": data}
            if filename is not None
            else data.decode("utf-8")
        )
        if name in fields:
            previous = fields[name]
            fields[name] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            fields[name] = value
    return fields


def solid_png(index: int, size: tuple[int, int] = (32, 32)) -> bytes:
    """Return a PNG of one colour that differs with `index`."""
    from PIL import Image

    colour = ((50 * index + 40) % 256, (90 * index + 120) % 256, (130 * index + 200) % 256)
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format="PNG")
    return buffer.getvalue()


def _images_body(reply: ImageReply, body: dict[str, Any]) -> dict[str, Any]:
    images = reply.images
    if images is None or isinstance(images, int):
        count = int(body.get("n") or 1) if images is None else images
        images = [solid_png(i) for i in range(count)]
    data = []
    for i, png in enumerate(images):
        entry: dict[str, Any] = (
            {"url": f"https://images.invalid/{i}.png"} if reply.as_url else {"b64_json": base64.b64encode(png).decode()}
        )
        if reply.revised_prompt is not None:
            entry["revised_prompt"] = reply.revised_prompt
        data.append(entry)
    payload: dict[str, Any] = {"created": 0, "data": data}
    for key in ("size", "quality", "usage"):
        if getattr(reply, key) is not None:
            payload[key] = getattr(reply, key)
    return payload


def _error_body(fail: Fail, anthropic: bool) -> dict[str, Any]:
    if anthropic:
        return {"type": "error", "error": {"type": "api_error", "message": fail.message}}
    return {"error": {"message": fail.message, "type": "server_error", "code": None}}
