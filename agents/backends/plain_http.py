"""A small HTTP/1.1 client for JSON APIs served over plain HTTP (vLLM, SGLang, Ollama on a cluster's network).

The SDKs' stack (openai → httpx → httpcore) spends a few milliseconds of event-loop CPU on every request:
typed request and response models, and a scan of every pooled connection, each probed with a system call,
when a request is queued and again when it is released. Against a local server at hundreds of requests per
second that is the bottleneck, and importing the OpenAI SDK adds half a second to start-up. This client does
one thing: POST a JSON body and read a JSON answer over keep-alive connections kept on a stack (the most
recently used first; one whose server has hung up is dropped without a system call). A failure comes back as
`HTTPStatusError` (status, message, headers, body), `HTTPTimeout` or `HTTPConnectionError`;
`classify_plain_http_error` turns them into the retry layer's `Failure`s, worded as the SDK errors are.

It holds the line a well-kept client holds (perf/harness_overhead.py and perf/scaling.py measure it against
aiohttp side by side; it is kept because it costs less CPU a call): header values with a control character
are refused before anything is sent (no header injection); an answer's body is bounded on the wire and after
decompression (`wire_limits.WireLimits`), read in pieces and refused as soon as it passes the limit; a redirect
is never followed; the whole exchange, connecting included, has one time-out; a kept-alive connection that the
server closed as it was reused is replaced once by a fresh one.

`plain_http_usable(url)` says when it applies: an `http://` URL without credentials that no proxy setting
covers. HTTPS, proxies and everything else stay with the SDKs.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from mcot.agents.backends.base import UnparsableResponse
from mcot.agents.backends.wire_limits import BodyDecoder, ResponseTooLarge, UnreadableEncoding, WireLimits
from mcot.agents.endpoints import public_url
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
    """The connection could not be made (`connect` True), or it broke before a whole answer came back."""

    def __init__(self, message: str, url: str, *, connect: bool = False) -> None:
        super().__init__(message, url)
        self.connect = connect


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
    from urllib.request import proxy_bypass_environment  # type: ignore[attr-defined]

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


class HeaderError(ValueError):
    """A header name or value that cannot go on the wire (a control character such as CR or LF, or not Latin-1)."""


def checked_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Return the headers unchanged, or raise HeaderError naming the first one with a character HTTP forbids.

    CR and LF would end the header and start another (header injection); other control characters are refused
    by servers. A value's own text is never shown: it may be a key.
    """
    for name, value in headers.items():
        if not _TOKEN.fullmatch(name):
            raise HeaderError(f"the header name {name[:40]!r} is not an HTTP token")
        if _FORBIDDEN.search(value) or (not value.isascii() and not _latin1(value)):
            raise HeaderError(
                f"the value of the {name} header holds a control character (CR, LF, tab…) or is not Latin-1"
            )
    return dict(headers)


def _latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f]")


class PlainHTTPClient:
    """POSTs JSON to one server (`base_url`, e.g. http://127.0.0.1:8000/v1) from one event loop.

    `headers` go with every request (e.g. Authorization; checked: a control character is a HeaderError);
    `timeout_s` bounds one whole exchange, connecting included; `limits` bound the answer's body on the wire and
    after decompression. Redirects are never followed: a 3xx is an HTTPStatusError naming where it points.
    Connections belong to the loop that opened them: make one client per event loop.
    """

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout_s: float = 180.0,
        limits: WireLimits | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"PlainHTTPClient speaks plain http only, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.timeout_s = timeout_s
        self.limits = limits or WireLimits()
        self._prefix = parts.path.rstrip("/")
        fixed = checked_headers(
            {
                "Host": parts.netloc,
                "User-Agent": "mcot",
                "Accept": "application/json",
                "Accept-Encoding": "gzip, deflate",
                "Content-Type": "application/json",
                **(headers or {}),
            }
        )
        self._head = "".join(f"{name}: {value}\r\n" for name, value in fixed.items())
        self._idle: list[_Connection] = []

    async def post_json(self, path: str, payload: Any) -> Any:
        """Return the JSON answer to POSTing `payload` to base_url + path (objects as `JSONRecord`s).

        Raises HTTPStatusError for a status of 300 or more (redirects are not followed), HTTPTimeout,
        HTTPConnectionError, ResponseTooLarge, and UnparsableResponse for a 2xx answer that is not JSON.
        """
        url = self.base_url + path
        body = json.dumps(payload).encode("ascii")
        head = f"POST {self._prefix}{path} HTTP/1.1\r\n{self._head}Content-Length: {len(body)}\r\n\r\n"
        try:
            async with asyncio.timeout(self.timeout_s):
                status, headers, data = await self._exchange(head.encode("latin-1") + body, url)
        except TimeoutError:
            raise HTTPTimeout(f"request timed out after {self.timeout_s:g} s", url) from None
        if status >= 300:
            raise status_error(status, headers, data, url)
        try:
            return json.loads(data, object_hook=JSONRecord)
        except RecursionError:
            raise UnparsableResponse("the response's JSON is nested too deeply to read") from None
        except ValueError as exc:
            raise UnparsableResponse(f"the response is not JSON: {exc}") from None

    def close(self) -> None:
        """Close the idle connections (in-flight ones close when their exchange ends)."""
        while self._idle:
            self._idle.pop().close()

    async def _exchange(self, request: bytes, url: str) -> tuple[int, dict[str, str], bytes]:
        connection = self._idle_connection()
        if connection is not None:
            try:
                return await self._send(connection, request, url)
            except _Stale:
                pass  # the server closed the kept-alive connection as it was reused: once more on a new one
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port, limit=HEAD_LIMIT)
        except OSError as exc:
            raise HTTPConnectionError(f"cannot connect to {self.host}:{self.port}: {exc}", url, connect=True) from None
        try:
            return await self._send(_Connection(reader, writer), request, url)
        except _Stale as stale:
            raise HTTPConnectionError(_broken(stale.cause), url) from None

    async def _send(self, connection: _Connection, request: bytes, url: str) -> tuple[int, dict[str, str], bytes]:
        """Return one exchange's answer; raise _Stale when the connection failed before any byte of an answer."""
        answered = False
        try:
            connection.writer.write(request)
            await connection.writer.drain()
            status, headers, keep = await _read_head(connection.reader)
            answered = True
            data = await _read_body(connection.reader, status, headers, self.limits)
        except (ResponseTooLarge, UnreadableEncoding):
            connection.close()
            raise
        except (OSError, EOFError, asyncio.LimitOverrunError, ValueError, zlib.error) as exc:
            connection.close()
            if not answered and _before_answer(exc):
                raise _Stale(exc) from None
            raise HTTPConnectionError(_broken(exc), url) from None
        except BaseException:
            connection.close()
            raise
        if keep and "content-length" not in headers and "chunked" not in headers.get("transfer-encoding", ""):
            keep = False  # the body ran to the end of the stream
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


class _Stale(Exception):
    """A reused connection failed before the server sent a byte of its answer."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _before_answer(exc: BaseException) -> bool:
    """Return whether a failure means the server hung up before answering (safe to send again)."""
    if isinstance(exc, asyncio.IncompleteReadError):
        return not exc.partial
    return isinstance(exc, ConnectionResetError | BrokenPipeError | ConnectionAbortedError)


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bool]:
    """Return (status, headers with lower-case names, whether the connection may be reused)."""
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
    return status, headers, keep


async def _read_body(reader: asyncio.StreamReader, status: int, headers: dict[str, str], limits: WireLimits) -> bytes:
    """Return the body of an answer, decoded, refused (ResponseTooLarge) as soon as it passes the limits."""
    if status in (204, 304):
        return b""
    decoder = BodyDecoder(headers.get("content-encoding"), limits)
    parts: list[bytes] = []
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
            if size < 0:
                raise ValueError("a negative chunk size")
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass  # trailers
                break
            await _read_exactly(reader, size, decoder, parts)
            await reader.readexactly(2)
    elif "content-length" in headers:
        length = int(headers["content-length"])
        if length < 0:
            raise ValueError("a negative Content-Length")
        if length > limits.max_body_bytes:
            raise limits.too_large(length)
        await _read_exactly(reader, length, decoder, parts)
    else:
        while chunk := await reader.read(_CHUNK):
            parts.append(decoder.feed(chunk))
    parts.append(decoder.finish())
    return parts[0] if len(parts) == 1 else b"".join(parts)


async def _read_exactly(reader: asyncio.StreamReader, size: int, decoder: BodyDecoder, parts: list[bytes]) -> None:
    """Read `size` bytes of the body in pieces of at most _CHUNK, each through the decoder (which counts them)."""
    if decoder.wire + size > decoder.limits.max_body_bytes:
        raise decoder.limits.too_large(decoder.wire + size)
    while size > 0:
        piece = await reader.readexactly(min(size, _CHUNK))
        size -= len(piece)
        parts.append(decoder.feed(piece))


_CHUNK = 1 << 20


def _broken(exc: BaseException) -> str:
    if isinstance(exc, asyncio.IncompleteReadError):
        if not exc.partial:
            return "the server closed the connection without answering"
        return "the server closed the connection before the whole answer came"
    if isinstance(exc, asyncio.LimitOverrunError):
        return "the answer's headers are too long"
    return f"{type(exc).__name__}: {exc}"


def status_error(status: int, headers: Mapping[str, str], data: bytes, url: str) -> HTTPStatusError:
    """Return the error of an answer with a status of 300 or more, its message worded as the OpenAI SDK words it.

    A redirect says where it pointed: mcot follows none (a POST re-sent elsewhere would carry the prompt, the
    images and the key to another server).
    """
    text = data.decode("utf-8", "replace").strip()
    message = f"Error code: {status}"
    body: Any = text
    if 300 <= status < 400:
        location = headers.get("location") or "nowhere"
        return HTTPStatusError(status, redirect_refused(url, location), url, headers, body)
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        pass
    else:
        error = body.get("error", body) if isinstance(body, dict) else None
        detail = error.get("message") if isinstance(error, dict) else None
        if isinstance(detail, str) and detail:
            message += f" - {detail}"
    return HTTPStatusError(status, message, url, headers, body)


def redirect_refused(url: str, location: str) -> str:
    """Return the reason a redirect from `url` to `location` is not followed, for a failure cause."""
    target = urljoin(url, location)
    where = "another server" if _origin(target) != _origin(url) else "another path"
    return (
        f"the server redirects to {where} ({public_url(target)}); mcot follows no redirect, so that a prompt "
        "and a key never go where they were not sent: give the final address as --base-url"
    )


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname or "", parts.port


def classify_plain_http_error(exc: BaseException) -> Failure | None:
    """Return how a failure of this client is handled (None: not one of its errors)."""
    if isinstance(exc, HTTPStatusError):
        return Failure(
            status_is_retryable(exc.status),
            f"HTTP {exc.status}: {exc.message}",
            exc.status,
            retry_after_seconds(exc.headers),
        )
    if isinstance(exc, HTTPTimeout):
        return Failure(True, f"{exc.message} (POST {exc.url})", unreachable=True)
    if isinstance(exc, HTTPConnectionError):
        return Failure(
            True, f"connection error (POST {exc.url}): {exc.message}", unreachable=True, cannot_connect=exc.connect
        )
    return classify_wire_error(exc)


def classify_wire_error(exc: BaseException) -> Failure | None:
    """Return the failure of an answer refused by mcot's wire limits, on any HTTP path (None: not one of them)."""
    if isinstance(exc, ResponseTooLarge | UnreadableEncoding):
        return Failure(False, f"unusable response: {exc}")
    return None
