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

With `faults=Faults(rate=0.3, seed=7)` it also misbehaves like a flaky provider: per request, with the set
probabilities, a 429 (with or without Retry-After), a 500/502/503/529, an answer that never comes, a connection
reset mid-body, a truncated or unparsable body, an empty answer, a tool call to an unknown tool, tool arguments
that are not JSON, or a body that stops short of its promised length. Whether a request is faulted is decided
by the seed, the request's bytes and how often the same bytes came before, so a rerun of the same requests
meets the same faults whatever their order. `server.counts` keeps what a test or a soak script measures:
faults injected by kind, requests per (conversation, arm, turn), and the valid answers given per request key
(a key answered twice was paid twice).

An `Agent` entry answers from what the server knows of the request (`RequestInfo`): `SoakAgent` is a
deterministic test model for soak and crash scripts (a tool round or two in an arm with tools, then a final
answer that depends only on the conversation), `JudgeAgent` a deterministic judge.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import hashlib
import io
import json
import re
import socket
import struct
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """A successful model turn: text and tool calls (name, arguments as a dict or a raw string).

    `usage` is sent as given (a hostile server's negative or absurd counts included). `stop_reason` replaces the
    wire's own (`stop`/`tool_calls`, `end_turn`/`tool_use`), e.g. `Reply("", stop_reason="length")` for a
    well-formed empty answer. `arguments_as_objects` sends OpenAI tool arguments as JSON objects instead of the
    JSON text the wire format wants (as some servers do).
    """

    text: str = ""
    tool_calls: Sequence[tuple[str, Any]] = ()
    usage: tuple[Any, Any] = (100, 20)
    stop_reason: str | None = None
    arguments_as_objects: bool = False


@dataclass(frozen=True)
class Fail:
    """An HTTP error response with optional headers (e.g. Retry-After)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"


@dataclass(frozen=True)
class Raw:
    """A verbatim response body (e.g. an unparsable one, or gzip bytes with `{"Content-Encoding": "gzip"}`)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Redirect:
    """A redirect answer (307 by default) to `location`, e.g. another server's URL."""

    location: str
    status: int = 307


@dataclass(frozen=True)
class Trickle:
    """An answer whose body comes `every_s` seconds a byte (its headers at once): a server too slow to finish.

    `body` defaults to a valid answer in the request's wire format; the trickle stops when the client goes
    away or the server stops.
    """

    body: bytes | None = None
    every_s: float = 1.0


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


Answer = Reply | ImageReply | Fail | Raw | Redirect | Trickle


@dataclass(frozen=True)
class RequestInfo:
    """What the server knows of one request besides its body.

    `key`: sha256 of the request's bytes (retries of one call share it); `conversation`: a short hash of what
    stays the same over the turns of one (item, arm) solve (system text, first user message, offered tools);
    `arm`: "text" without tools, else "tools-" and a short hash of their names; `turn`: the number of
    assistant messages in the request; `paid_before`: valid answers already given to this very key;
    `wire`: "openai", "anthropic" or "images"; `headers`: the request's headers (e.g. to echo a key back).
    """

    path: str
    body: dict[str, Any]
    key: str
    conversation: str
    arm: str
    turn: int
    paid_before: int
    wire: str
    headers: Mapping[str, str] = field(default_factory=dict)


class Agent:
    """An entry that answers from the request and what the server knows of it (subclass and define `answer`)."""

    def answer(self, request: RequestInfo) -> Answer:
        """Return the answer to one request."""
        raise NotImplementedError


Entry = Answer | Agent | Callable[[dict[str, Any]], Answer]

FAULT_KINDS: tuple[str, ...] = (
    "429",
    "429_retry_after",
    "500",
    "502",
    "503",
    "529",
    "hang",
    "reset",
    "truncated_json",
    "invalid_json",
    "empty",
    "unknown_tool",
    "bad_arguments",
    "cut_body",
)
"""The faults a `Faults` can inject: HTTP errors (429 without and with Retry-After, 5xx), an answer that never
comes (`hang`), a connection reset mid-body, a 200 whose body is cut and says so by its length (`truncated_json`)
or is not JSON, an empty answer (OpenAI: no choices; Anthropic: no content blocks; Images: no data), a tool call
to a tool that does not exist, tool arguments that are not JSON, and a body that stops before the length its
headers promised (a stream that stops early)."""

TRANSPORT_FAULTS = frozenset(FAULT_KINDS) - {"empty", "unknown_tool", "bad_arguments"}
"""Faults that need no model answer to alter: they apply to any request, a scripted Fail or Raw included."""

UNKNOWN_TOOL = "teleport_pen"
"""The tool name of an `unknown_tool` fault: no toolbox offers it."""

BAD_ARGUMENTS = '{"start": [0, 0], "end": ['
"""The arguments of a `bad_arguments` fault's `draw_line` call: cut-off JSON."""


@dataclass(frozen=True)
class Faults:
    """Per-request fault injection: `rate` of the requests get a fault, its kind drawn with `kinds`' weights.

    `kinds`: fault names (equal weights) or {name: weight}; a kind that cannot apply to a request (a tool call
    fault on an Images request) is left out of that draw. `hang_s`: how long a `hang` holds the connection
    before closing it without an answer (set it above the client's time-out to see the time-out). 429s with
    Retry-After ask for 0 to `retry_after_max_s` whole seconds. The draws are seeded by `seed`, the request's
    bytes and how many times those bytes came before.
    """

    rate: float = 0.3
    seed: int = 0
    kinds: Sequence[str] | Mapping[str, float] = FAULT_KINDS
    hang_s: float = 2.0
    retry_after_max_s: int = 1

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"Faults.rate must be between 0 and 1, not {self.rate}")
        unknown = sorted(set(self.weights()) - set(FAULT_KINDS))
        if unknown:
            raise ValueError(f"unknown fault kinds {unknown}; the kinds are {', '.join(FAULT_KINDS)}")

    def weights(self) -> dict[str, float]:
        """Return {kind: weight} for the kinds in use."""
        if isinstance(self.kinds, Mapping):
            return {str(kind): float(weight) for kind, weight in self.kinds.items() if weight > 0}
        return {str(kind): 1.0 for kind in self.kinds}

    def draw(self, key: str, occurrence: int, applicable: frozenset[str]) -> tuple[str | None, float]:
        """Return (the fault for the `occurrence`-th arrival of request `key` or None, a uniform number for it)."""
        digest = hashlib.sha256(f"{self.seed}:{key}:{occurrence}".encode()).digest()
        u_fault, u_kind, u_extra = (int.from_bytes(digest[i : i + 8], "big") / 2**64 for i in (0, 8, 16))
        if u_fault >= self.rate:
            return None, u_extra
        weights = [(kind, weight) for kind, weight in self.weights().items() if kind in applicable]
        total = sum(weight for _, weight in weights)
        if total <= 0:
            return None, u_extra
        point = u_kind * total
        for kind, weight in weights:
            point -= weight
            if point < 0:
                return kind, u_extra
        return weights[-1][0], u_extra


@dataclass(frozen=True)
class Paid:
    """One valid answer the server gave (a 200 whose body the SDK accepts): when, to which request."""

    t: float
    key: str
    conversation: str
    arm: str
    turn: int
    final: bool


@dataclass
class ServerCounts:
    """What the server saw and did: requests, faults injected by kind, requests per (conversation, arm, turn),
    valid answers per request key, and the log of valid answers (`paid`) with their times."""

    requests: int = 0
    injected: Counter[str] = field(default_factory=Counter)
    by_turn: Counter[tuple[str, str, int]] = field(default_factory=Counter)
    valid: Counter[str] = field(default_factory=Counter)
    paid: list[Paid] = field(default_factory=list)

    def paid_twice(self) -> dict[str, int]:
        """Return {request key: valid answers} for the keys answered validly more than once."""
        return {key: n for key, n in self.valid.items() if n > 1}

    def repaid(self) -> int:
        """Return how many valid answers repeated one given before to the same request."""
        return sum(n - 1 for n in self.valid.values() if n > 1)

    def summary(self) -> dict[str, Any]:
        """Return the counts as plain JSON: requests, injected by kind, valid answers, repaid, max per turn."""
        return {
            "requests": self.requests,
            "injected": dict(sorted(self.injected.items())),
            "faults": sum(self.injected.values()),
            "valid_answers": sum(self.valid.values()),
            "repaid": self.repaid(),
            "conversations": len({conversation for conversation, _, _ in self.by_turn}),
            "max_requests_per_turn": max(self.by_turn.values(), default=0),
        }


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

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client went away mid-answer (a killed runner, a client time-out); report the rest."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeProvider:
    """A threaded HTTP server answering from a script; use as a context manager or call start/stop.

    `latency_s` delays every answer (each request has its own thread), to measure a runner against a slow model.
    `faults` injects provider faults (see `Faults`); `stable_ids` makes the ids in an answer (tool calls,
    messages) a function of the request, so that the same request gets the same answer byte for byte and a
    conversation replays identically. `keep_requests=False` keeps only the counts, not every request (a long
    soak sends gigabytes of canvas images).
    """

    def __init__(
        self,
        script: Sequence[Entry] = (),
        *,
        default: Entry | None = None,
        latency_s: float = 0.0,
        faults: Faults | None = None,
        stable_ids: bool = False,
        keep_requests: bool = True,
    ) -> None:
        self.script: list[Entry] = list(script)
        self.latency_s = latency_s
        self.default: Entry = default if default is not None else Reply("(script exhausted)")
        self.faults = faults
        self.stable_ids = stable_ids
        self.keep_requests = keep_requests
        self.requests: list[Recorded] = []
        self.counts = ServerCounts()
        self._seen: Counter[str] = Counter()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._counter = 0
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        # a short poll interval: `stop()` waits for the serving loop's next poll (0.5 s by default)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        """Return the server's root URL (`http://127.0.0.1:PORT`)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

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
        """Stop serving (a held `hang` answer is let go) and close the socket; a request that still comes on a
        kept-alive connection has that connection closed unanswered, as a dead server's would be."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, info: RequestInfo) -> Answer:
        with self._lock:
            entry = self.script.pop(0) if self.script else self.default
            self._counter += 1
        if isinstance(entry, Agent):
            return entry.answer(info)
        return entry(info.body) if callable(entry) else entry

    def _call_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def _id_maker(self, info: RequestInfo) -> Callable[[], int | str]:
        """Return the id source of one answer: the server's counter, or ids derived from the request's key."""
        if not self.stable_ids:
            return self._call_id
        numbers = iter(range(1, 1_000_000))
        return lambda: f"{info.key[:16]}{next(numbers)}"

    def _arrive(
        self, path: str, body: dict[str, Any], raw: bytes, headers: Mapping[str, str] | None = None
    ) -> tuple[RequestInfo, int]:
        """Count an arriving request; return what is known of it and how many times its bytes came before."""
        key = hashlib.sha256(raw).hexdigest()
        wire = "images" if "/images/" in path else "anthropic" if path.rstrip("/").endswith("/messages") else "openai"
        conversation, arm, turn = conversation_of(body, wire)
        with self._lock:
            occurrence = self._seen[key]
            self._seen[key] += 1
            self.counts.requests += 1
            self.counts.by_turn[(conversation, arm, turn)] += 1
            paid_before = self.counts.valid[key]
        return RequestInfo(path, body, key, conversation, arm, turn, paid_before, wire, dict(headers or {})), occurrence

    def _fault(self, info: RequestInfo, occurrence: int, answer: Answer) -> tuple[str | None, float]:
        """Return the fault to inject into this answer (None: none) and a uniform number that goes with it."""
        if self.faults is None:
            return None, 0.0
        applicable = set(TRANSPORT_FAULTS)
        if isinstance(answer, Reply) and info.wire != "images":
            applicable |= {"empty", "unknown_tool", "bad_arguments"}
        elif info.wire == "images" or isinstance(answer, ImageReply):
            applicable.add("empty")
        kind, u = self.faults.draw(info.key, occurrence, frozenset(applicable))
        if kind is not None:
            with self._lock:
                self.counts.injected[kind] += 1
        return kind, u

    def _render(self, info: RequestInfo, answer: Answer, fault: str | None) -> _Out:
        """Return the response for an answer, with a fault that changes the answer itself applied."""
        body, anthropic = info.body, info.wire == "anthropic"
        if isinstance(answer, Raw):
            return _Out(answer.status, answer.body, answer.content_type, dict(answer.headers))
        if isinstance(answer, Redirect):
            return _Out(answer.status, b"", "text/plain", {"Location": answer.location})
        if isinstance(answer, Trickle):
            body_bytes = answer.body
            if body_bytes is None:
                body_bytes = self._render(info, Reply("slow"), None).data
            return _Out(200, body_bytes, trickle_s=answer.every_s)
        if isinstance(answer, Fail):
            payload = _error_body(answer, anthropic)
            return _Out(answer.status, json.dumps(payload).encode(), headers=dict(answer.headers))
        if info.wire == "images" or isinstance(answer, ImageReply):
            reply = answer if isinstance(answer, ImageReply) else ImageReply()
            payload = _images_body(reply, body)
            if fault == "empty":
                payload["data"] = []
            return _Out(200, json.dumps(payload).encode())
        if fault == "unknown_tool":
            answer = Reply(answer.text, (*answer.tool_calls, (UNKNOWN_TOOL, {"to": [10, 10]})), answer.usage)
        elif fault == "bad_arguments" and not anthropic:
            answer = Reply(answer.text, (*answer.tool_calls, ("draw_line", BAD_ARGUMENTS)), answer.usage)
        model = str(body.get("model", "fake"))
        ids = self._id_maker(info)
        payload = _anthropic_body(answer, model, ids) if anthropic else _openai_body(answer, model, ids)
        if fault == "bad_arguments" and anthropic:  # the wire wants an object; a faulty server sends a string
            payload["content"].append(
                {"type": "tool_use", "id": f"toolu_{ids()}", "name": "draw_line", "input": BAD_ARGUMENTS}
            )
            payload["stop_reason"] = "tool_use"
            answer = Reply(answer.text, (*answer.tool_calls, ("draw_line", BAD_ARGUMENTS)), answer.usage)
        if fault == "empty":  # malformed: a well-formed empty answer has a stop reason and is an answer
            if anthropic:
                payload["content"] = []
                payload["stop_reason"] = None
            else:
                payload["choices"] = []
        return _Out(200, json.dumps(payload).encode(), final=not answer.tool_calls)

    def _paid(self, info: RequestInfo, out: _Out) -> Paid:
        """Note a valid answer (a 200 whose body the SDKs accept) given to a request; return its entry."""
        paid = Paid(time.time(), info.key, info.conversation, info.arm, info.turn, out.final)
        with self._lock:
            self.counts.valid[info.key] += 1
            self.counts.paid.append(paid)
        return paid

    def _unpaid(self, paid: Paid) -> None:
        """Take back an answer `_paid` noted whose write failed."""
        with self._lock:
            self.counts.valid[paid.key] -= 1
            if not self.counts.valid[paid.key]:
                del self.counts.valid[paid.key]
            self.counts.paid[:] = [entry for entry in self.counts.paid if entry is not paid]

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
                if server._stopping.is_set():  # a stopped server is dead: a kept-alive connection gets no answer
                    self.close_connection = True
                    return
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
                if server.keep_requests:
                    with server._lock:
                        server.requests.append(Recorded(self.path, dict(self.headers.items()), body, raw))
                info, occurrence = server._arrive(self.path, body, raw, dict(self.headers.items()))
                answer = server._next(info)
                if server.latency_s:
                    time.sleep(server.latency_s)
                fault, u = server._fault(info, occurrence, answer)
                if fault == "hang":  # hold the connection, then close it without a word
                    server._stopping.wait(server.faults.hang_s if server.faults else 0.0)
                    self.close_connection = True
                    return
                if fault in _STATUS_FAULTS:
                    status = _STATUS_FAULTS[fault]
                    headers = {}
                    if fault == "429_retry_after" and server.faults is not None:
                        headers["Retry-After"] = str(int(u * (server.faults.retry_after_max_s + 1)))
                    payload = _fault_error_body(status, info.wire == "anthropic")
                    self._send(status, json.dumps(payload).encode(), "application/json", headers)
                    return
                out = server._render(info, answer, fault)
                data = out.data
                if fault == "truncated_json":
                    data = data[: max(1, len(data) // 2)]
                elif fault == "invalid_json":
                    data = b"<html><body><h1>upstream error</h1></body></html>"
                elif fault in ("reset", "cut_body"):
                    self._send_part(out, data, reset=fault == "reset")
                    return
                if out.trickle_s is not None:
                    self._send_slowly(out, data)
                    return
                # counted before the write, so that a client holding the answer reads it counted; taken back
                # when the write fails (the answer never left)
                paid = server._paid(info, out) if _accepted(info.wire, out.status, data) else None
                try:
                    self._send(out.status, data, out.content_type, out.headers)
                except OSError:
                    if paid is not None:
                        server._unpaid(paid)
                    raise

            def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_slowly(self, out: _Out, data: bytes) -> None:
                """Send the headers, then the body a byte every `out.trickle_s` seconds."""
                self.send_response(out.status)
                self.send_header("content-type", out.content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.flush()
                self.close_connection = True
                for i in range(len(data)):
                    if server._stopping.wait(out.trickle_s or 0.0):
                        return
                    try:
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                    except OSError:
                        return  # the client gave up

            def _send_part(self, out: _Out, data: bytes, *, reset: bool) -> None:
                """Promise the whole body, send half of it, then reset the connection or close it."""
                self.send_response(out.status)
                self.send_header("content-type", out.content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.close_connection = True
                if reset:  # SO_LINGER 0: closing sends RST instead of FIN
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()

        return Handler


@dataclass
class _Out:
    status: int
    data: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    final: bool = True
    trickle_s: float | None = None


_STATUS_FAULTS = {"429": 429, "429_retry_after": 429, "500": 500, "502": 502, "503": 503, "529": 529}


def _accepted(wire: str, status: int, data: bytes) -> bool:
    """Return whether the SDKs take a response as an answer: a 200 with a JSON body that holds one."""
    if status != 200:
        return False
    try:
        payload = json.loads(data)
    except ValueError:
        return False
    if not isinstance(payload, dict):
        return False
    if wire == "openai":
        return bool(payload.get("choices"))
    if wire == "images":
        return bool(payload.get("data"))
    return isinstance(payload.get("content"), list)


def conversation_of(body: dict[str, Any], wire: str) -> tuple[str, str, int]:
    """Return (conversation hash, arm, turn) of a request: what stays fixed over the turns of one solve.

    The conversation is the system text, the first user message and the offered tool names; the arm "text"
    when no tools are offered, else "tools-" and a short hash of their names; the turn the number of assistant
    messages. An Images request is its own conversation (hash of model and prompt) in arm "images", turn 0.
    """
    if wire == "images":
        seed = json.dumps([body.get("model"), body.get("prompt")], sort_keys=True, default=str)
        return _short_hash(seed), "images", 0
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    system = body.get("system") or [m.get("content") for m in messages if m.get("role") == "system"]
    first_user = next((m for m in messages if m.get("role") == "user"), None)
    names = sorted(_tool_name(tool) for tool in body.get("tools") or [] if isinstance(tool, dict))
    conversation = _short_hash(json.dumps([system, first_user, names], sort_keys=True, default=str))
    arm = "tools-" + _short_hash(json.dumps(names))[:6] if names else "text"
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    return conversation, arm, turn


_NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
_CHOICE_LINE = re.compile(r"^[A-Z]\. ", re.MULTILINE)
_TAKE = "second thoughts"


@dataclass
class SoakAgent(Agent):
    """A deterministic test model for soak and crash scripts, in either chat wire format (and the Images API).

    With tools offered it draws first (one `draw_line` round, and a `mark_point` round for a third of the
    conversations); then, and at once without tools, it answers "Reference <conversation>. The answer is
    \\boxed{…}": a letter when the task lists choices, else a number, written in words for a `words` share of
    the conversations (rules cannot read those, so a judge is asked). The answer depends only on the
    conversation, so a rerun scores the same, except that a request answered validly before is answered
    differently with probability `drift` (a tool round says so in its text, and the final answer follows
    it): a real model asked twice need not say the same thing, so only a response cache makes a resumed run
    equal an uninterrupted one.
    """

    drift: float = 0.0
    words: float = 0.15

    def answer(self, request: RequestInfo) -> Answer:
        """Return a tool round or the final answer for this turn of the conversation."""
        if request.wire == "images":
            return ImageReply()
        h = int(request.conversation, 16)
        variant = 0
        if request.paid_before and self.drift:
            u = int(hashlib.sha256(f"{request.key}:{request.paid_before}".encode()).hexdigest()[:8], 16) / 2**32
            variant = request.paid_before if u < self.drift else 0
        if request.arm != "text":
            rounds = 2 if h % 3 == 0 else 1
            if request.turn < rounds:
                call = (
                    ("draw_line", {"start": [5, 5], "end": [40, 40]})
                    if request.turn == 0
                    else ("mark_point", {"at": [20, 20], "label": "P"})
                )
                take = f" ({_TAKE} {variant})" if variant else ""
                return Reply(f"Step {request.turn + 1}: I draw to see better{take}.", tool_calls=[call])
        # a tool round answered otherwise (drift) leads to another final answer, as a real model's would
        variant += json.dumps(request.body.get("messages")).count(_TAKE)
        n_choices = len(_CHOICE_LINE.findall(_first_user_text(request.body)))
        if n_choices:
            value = chr(65 + (h + variant) % n_choices)
        else:
            number = (h + variant) % len(_NUMBER_WORDS)
            in_words = (h >> 12) % 1000 < self.words * 1000
            value = _NUMBER_WORDS[number] if in_words else str(number)
        return Reply(f"Reference {request.conversation}. The answer is \\boxed{{{value}}}.")


@dataclass
class JudgeAgent(Agent):
    """A deterministic judge: "1" or "0" by a hash of the request's last user message."""

    def answer(self, request: RequestInfo) -> Answer:
        """Return the verdict for this judge prompt."""
        messages = request.body.get("messages") or []
        last = json.dumps(messages[-1] if messages else None, sort_keys=True, default=str)
        return Reply("1" if int(_short_hash(last), 16) % 2 else "0", usage=(200, 1))


def _first_user_text(body: dict[str, Any]) -> str:
    """Return the text of a request's first user message (either wire format)."""
    first = next((m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"), None)
    content = (first or {}).get("content")
    if isinstance(content, str):
        return content
    texts = [
        block.get("text", "") for block in content or [] if isinstance(block, dict) and block.get("type") == "text"
    ]
    return "\n".join(texts)


def _tool_name(tool: dict[str, Any]) -> str:
    function = tool.get("function")
    return str(function.get("name") if isinstance(function, dict) else tool.get("name"))


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _arguments_text(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _total(usage: tuple[Any, Any]) -> Any:
    try:
        return usage[0] + usage[1]
    except TypeError:
        return None


def _openai_body(reply: Reply, model: str, next_id: Callable[[], int | str]) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{next_id()}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": arguments if reply.arguments_as_objects else _arguments_text(arguments),
            },
        }
        for name, arguments in reply.tool_calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{next_id()}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": reply.stop_reason or ("tool_calls" if calls else "stop")}
        ],
        "usage": {
            "prompt_tokens": reply.usage[0],
            "completion_tokens": reply.usage[1],
            "total_tokens": _total(reply.usage),
        },
    }


def _anthropic_body(reply: Reply, model: str, next_id: Callable[[], int | str]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for name, arguments in reply.tool_calls:
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                arguments = {"_raw": arguments}
        content.append({"type": "tool_use", "id": f"toolu_{next_id()}", "name": name, "input": arguments})
    return {
        "id": f"msg_{next_id()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn"),
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
        name = str(part.get_param("name", header="content-disposition"))
        data: Any = part.get_payload(decode=True) or b""
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


_ANTHROPIC_ERROR_TYPES = {429: "rate_limit_error", 529: "overloaded_error"}


def _fault_error_body(status: int, anthropic: bool) -> dict[str, Any]:
    """Return the error body a provider sends with an HTTP error status, in the request's wire format."""
    message = f"injected fault: HTTP {status}"
    if anthropic:
        return {"type": "error", "error": {"type": _ANTHROPIC_ERROR_TYPES.get(status, "api_error"), "message": message}}
    kind = "rate_limit_exceeded" if status == 429 else "server_error"
    return {"error": {"message": message, "type": kind, "code": None}}


def _error_body(fail: Fail, anthropic: bool) -> dict[str, Any]:
    if anthropic:
        return {"type": "error", "error": {"type": "api_error", "message": fail.message}}
    return {"error": {"message": fail.message, "type": "server_error", "code": None}}
