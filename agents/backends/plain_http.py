"""A small HTTP/1.1 client for JSON APIs served over plain HTTP (vLLM, SGLang, Ollama on a cluster's network).

The SDKs' stack (openai → httpx → httpcore) spends a few milliseconds of event-loop CPU on every request:
typed request and response models, and a scan of every pooled connection, each probed with a system call,
when a request is queued and again when it is released. Against a local server at hundreds of requests per
second that is the bottleneck, and importing the OpenAI SDK adds half a second to start-up. This client does
one thing: POST a JSON body and read a JSON answer over keep-alive connections kept on a stack (the most
recently used first; one whose server has hung up is dropped without a system call). A failure comes back as
`HTTPStatusError` (status, message, headers, body), `HTTPTimeout` or `HTTPConnectionError`;
`classify_plain_http_error` turns them into the retry layer's `Failure`s, worded as the SDK errors are.

`plain_http_usable(url)` says when it applies: an `http://` URL without credentials that no proxy setting
covers. HTTPS, proxies and everything else stay with the SDKs.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from mcot.agents.retry import Failure, retry_after_seconds, status_is_retryable

HEAD_LIMIT = 1 << 20
"""The largest status line + headers accepted (bytes)."""
IDLE_EXPIRY_S = 4.0
"""A kept-alive connection idle longer than this is closed rather than reused (uvicorn, behind vLLM, closes
idle connections after 5 s; reusing one as it closes would fail the request)."""
MAX_IDLE = 1024
"""Idle connections kept per client; more are closed when released."""
_PROXY_VARIABLES = ("http_proxy", "all_proxy")


class PlainHTTPError(Exception):
    """A request that got no usable HTTP answer; `url` is where it went."""

    def __init__(self, message: str, url: str) -> None:
        super().__init__(message)
        self.message = message
        self.url = url


class HTTPStatusError(PlainHTTPError):
    """The server answered with an error status; `body` is the parsed JSON (or the text) of its answer."""

    def __init__(self, status: int, message: str, url: str, headers: Mapping[str, str], body: Any) -> None:
        super().__init__(message, url)
        self.status = status
        self.headers = dict(headers)
        self.body = body


class HTTPConnectionError(PlainHTTPError):
    """The connection could not be made, or it broke before a whole answer came back."""


class HTTPTimeout(PlainHTTPError):
    """No whole answer came back within the client's time-out."""


class JSONRecord:
    """A decoded JSON object whose keys read as attributes, a missing one as None (as the SDKs' types do)."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.data.get(name)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __repr__(self) -> str:
        return f"JSONRecord({self.data!r})"


def plain_http_usable(url: str | None) -> bool:
    """Return whether `url` can go through this client: plain http, no userinfo, not covered by a proxy variable."""
    if not url:
        return False
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or parts.username is not None or parts.password is not None:
        return False
    if not any(os.environ.get(name) or os.environ.get(name.upper()) for name in _PROXY_VARIABLES):
        return True
    from urllib.request import proxy_bypass_environment

    return bool(proxy_bypass_environment(parts.hostname))


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = field(default_factory=time.monotonic)

    def reusable(self, now: float) -> bool:
        return not self.reader.at_eof() and not self.writer.is_closing() and now - self.idle_since < IDLE_EXPIRY_S

    def close(self) -> None:
        self.writer.close()


class PlainHTTPClient:
    """POSTs JSON to one server (`base_url`, e.g. http://127.0.0.1:8000/v1) from one event loop.

    `headers` go with every request (e.g. Authorization); `timeout_s` bounds one whole exchange, connecting
    included. Connections belong to the loop that opened them: make one client per event loop.
    """

    def __init__(self, base_url: str, *, headers: Mapping[str, str] | None = None, timeout_s: float = 180.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"PlainHTTPClient speaks plain http only, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.timeout_s = timeout_s
        self._prefix = parts.path.rstrip("/")
        fixed = {
            "Host": parts.netloc,
            "User-Agent": "mcot",
            "Accept": "application/json",
            "Content-Type": "application/json",
            **(headers or {}),
        }
        self._head = "".join(f"{name}: {value}\r\n" for name, value in fixed.items())
        self._idle: list[_Connection] = []

    async def post_json(self, path: str, payload: Any) -> Any:
        """Return the JSON answer to POSTing `payload` to base_url + path (objects as `JSONRecord`s).

        Raises HTTPStatusError for a status of 400 or more, HTTPTimeout, HTTPConnectionError, and
        json.JSONDecodeError (a ValueError) for a 2xx answer that is not JSON.
        """
        url = self.base_url + path
        body = json.dumps(payload).encode("ascii")
        head = f"POST {self._prefix}{path} HTTP/1.1\r\n{self._head}Content-Length: {len(body)}\r\n\r\n"
        try:
            async with asyncio.timeout(self.timeout_s):
                status, headers, data = await self._exchange(head.encode("latin-1") + body, url)
        except TimeoutError:
            raise HTTPTimeout(f"request timed out after {self.timeout_s:g} s", url) from None
        if status >= 400:
            raise _status_error(status, headers, data, url)
        return json.loads(data, object_hook=JSONRecord)

    def close(self) -> None:
        """Close the idle connections (in-flight ones close when their exchange ends)."""
        while self._idle:
            self._idle.pop().close()

    async def _exchange(self, request: bytes, url: str) -> tuple[int, dict[str, str], bytes]:
        connection = self._idle_connection()
        if connection is None:
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port, limit=HEAD_LIMIT)
            except OSError as exc:
                raise HTTPConnectionError(f"cannot connect to {self.host}:{self.port}: {exc}", url) from None
            connection = _Connection(reader, writer)
        try:
            connection.writer.write(request)
            await connection.writer.drain()
            status, headers, data, keep = await _read_response(connection.reader)
        except (OSError, EOFError, asyncio.LimitOverrunError, ValueError, zlib.error) as exc:
            connection.close()
            raise HTTPConnectionError(_broken(exc), url) from None
        except BaseException:
            connection.close()
            raise
        if keep and len(self._idle) < MAX_IDLE:
            connection.idle_since = time.monotonic()
            self._idle.append(connection)
        else:
            connection.close()
        return status, headers, data

    def _idle_connection(self) -> _Connection | None:
        now = time.monotonic()
        while self._idle:
            connection = self._idle.pop()
            if connection.reusable(now):
                return connection
            connection.close()
        return None


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes, bool]:
    """Return (status, headers with lower-case names, body, whether the connection may be reused)."""
    while True:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        status = int(rest[:3])
        if not version.startswith("HTTP/1.") or not 100 <= status <= 599:
            raise ValueError(f"not an HTTP/1.x answer: {lines[0][:80]!r}")
        if status >= 200 or status == 101:
            break  # 1xx (100 Continue, 103 Early Hints) come before the answer
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
    keep = version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
    if status in (204, 304):
        body = b""
    elif "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    else:
        body, keep = await reader.read(), False
    encoding = headers.get("content-encoding", "identity").lower()
    if encoding == "gzip":
        body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        body = zlib.decompress(body)
    elif encoding not in ("identity", ""):
        raise ValueError(f"the answer is {encoding}-encoded, which this client does not read")
    return status, headers, body, keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


def _broken(exc: BaseException) -> str:
    if isinstance(exc, asyncio.IncompleteReadError):
        if not exc.partial:
            return "the server closed the connection without answering"
        return "the server closed the connection before the whole answer came"
    if isinstance(exc, asyncio.LimitOverrunError):
        return "the answer's headers are too long"
    return f"{type(exc).__name__}: {exc}"


def _status_error(status: int, headers: dict[str, str], data: bytes, url: str) -> HTTPStatusError:
    """Return the error of an error answer, its message worded as the OpenAI SDK words it."""
    text = data.decode("utf-8", "replace").strip()
    message = f"Error code: {status}"
    body: Any = text
    try:
        body = json.loads(text)
    except ValueError:
        pass
    else:
        error = body.get("error", body) if isinstance(body, dict) else None
        detail = error.get("message") if isinstance(error, dict) else None
        if isinstance(detail, str) and detail:
            message += f" - {detail}"
    return HTTPStatusError(status, message, url, headers, body)


def classify_plain_http_error(exc: BaseException) -> Failure | None:
    """Return how a failure of this client is handled (None: not one of its errors)."""
    if isinstance(exc, HTTPStatusError):
        return Failure(
            status_is_retryable(exc.status),
            f"HTTP {exc.status}: {_short(exc.message)}",
            exc.status,
            retry_after_seconds(exc.headers),
        )
    if isinstance(exc, HTTPTimeout):
        return Failure(True, f"request timed out (POST {exc.url})", unreachable=True)
    if isinstance(exc, HTTPConnectionError):
        return Failure(True, f"connection error (POST {exc.url}): {_short(exc.message)}", unreachable=True)
    return None


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
