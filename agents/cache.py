"""Request keys and the response cache: re-running the same inputs at temperature 0 costs nothing.

A request's key is the sha256 of its canonical form, independent of any wire format: the model spec, every
message (role, text, images by the sha256 of their bytes, tool calls with their arguments as canonical JSON,
tool results), the offered tools (names and the sha256 of their schemas), max_tokens, temperature and seed.
The hints (item id, arm, prompt-view facts) are no part of it. The key is built from one digest per part, and
`request_parts` gives those digests shortened, so that two requests with different keys can be told apart
part by part ("tools differ", "message 3 (user) differs").

`CachedBackend(inner, DIR)` stores every successful response under `DIR/<key[:2]>/<key>.json` (written to a
temporary sibling and renamed, so processes may share DIR; one JSON line that reads back whatever it holds) and
serves a stored one without a call. The files hold the response only (text, tool calls, usage, stop reason,
sampling): never a key or a header.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from mcot.agents.backends.base import ModelBackend, ModelRequest, ModelResponse, ToolSet, Usage
from mcot.agents.messages import ImagePart, Message, TextPart, ToolCall, ToolResultPart

from mcot.core.rundir import json_line, write_text_atomic

SHORT = 12
"""Hex digits of a part's digest in `request_parts` (and in trace steps)."""
_SAMPLING = ("max_tokens", "temperature", "seed")
_MEMO = "_request_digest"


@dataclass(frozen=True)
class RequestDigest:
    """A request's key and its parts: the model spec and sampling values as text, the rest as short digests."""

    key: str
    parts: dict[str, str]


def request_key(spec: str, request: ModelRequest) -> str:
    """Return the sha256 hex key of a request to the model `spec` (hints excluded)."""
    return digest_request(spec, request).key


def request_parts(spec: str, request: ModelRequest) -> dict[str, str]:
    """Return the parts of a request's key: model, max_tokens, temperature, seed, tools, "message N" (short digests)."""
    return dict(digest_request(spec, request).parts)


def digest_request(spec: str, request: ModelRequest) -> RequestDigest:
    """Return a request's key and parts for the model `spec`; computed once per request object and spec."""
    memo = request._digests
    found = memo.get(spec)
    if found is not None:
        return found
    messages = [_message_digest(message) for message in request.messages]
    tools = _tools_digest(request.tools) if request.tools is not None else None
    temperature = float(request.temperature)
    whole = [spec, request.max_tokens, temperature, request.seed, tools, messages]
    key = hashlib.sha256(_dumps(whole).encode("utf-8", "surrogatepass")).hexdigest()
    parts = {
        "model": spec,
        "max_tokens": str(request.max_tokens),
        "temperature": repr(temperature),
        "seed": str(request.seed),
        "tools": tools[:SHORT] if tools is not None else "none",
    }
    for index, digest in enumerate(messages):
        parts[f"message {index}"] = f"{request.messages[index].role}:{digest[:SHORT]}"
    found = RequestDigest(key, parts)
    memo[spec] = found
    return found


def differing_parts(recorded: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """Return how a request differs from a recorded one, part by part ("tools differ", "message 3 (user) differs")."""
    out: list[str] = []
    for name in ("model", *_SAMPLING):
        if recorded.get(name) != now.get(name):
            out.append(f"{name} differs: {recorded.get(name, '?')} recorded, {now.get(name, '?')} now")
    if recorded.get("tools") != now.get("tools"):
        out.append("tools differ (names or schemas)")
    changed: list[str] = []
    count = max(_message_count(recorded), _message_count(now))
    for index in range(count):
        old, new = recorded.get(f"message {index}"), now.get(f"message {index}")
        if old == new:
            continue
        if old is None:
            changed.append(f"message {index} ({_role(new)}) is new")
        elif new is None:
            changed.append(f"message {index} ({_role(old)}) is missing")
        else:
            changed.append(f"message {index} ({_role(new)}) differs")
    if len(changed) > 3:
        changed = [*changed[:3], f"{len(changed) - 3} more messages differ"]
    return out + changed


def _message_count(parts: Mapping[str, str]) -> int:
    return sum(1 for name in parts if name.startswith("message "))


def _role(part: str | None) -> str:
    return (part or "?").split(":", 1)[0]


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_SORTED_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str)


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)


def _message_digest(message: Message) -> str:
    """Return a message's sha256, kept on the message while its role, parts and tool calls stay the same objects.

    The Session rebuilds the request every turn from the same messages (appending to the last one), so each
    message is digested about once; a message whose parts were replaced or extended is digested again.
    """
    memo = message.__dict__.get(_MEMO)
    parts = message.parts
    if (
        memo is not None
        and memo[1] is message.tool_calls
        and memo[2] == message.role
        and memo[3] == message.tool_calls_in_text
        and len(memo[0]) == len(parts)
        and all(map(operator.is_, memo[0], parts))
    ):
        return memo[4]
    digest = _digest_message(message)
    message.__dict__[_MEMO] = (tuple(parts), message.tool_calls, message.role, message.tool_calls_in_text, digest)
    return digest


def _digest_message(message: Message) -> str:
    parts: list[Any] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            parts.append(["text", part.text])
        elif isinstance(part, ImagePart):
            parts.append(["image", part.media_type, part.sha256])
        elif isinstance(part, ToolResultPart):
            images = [[image.media_type, image.sha256] for image in part.images]
            parts.append(["tool_result", part.call_id, part.name, part.text, part.is_error, images])
        else:  # pragma: no cover - the Part union has no other members
            parts.append(["other", repr(part)])
    calls = [[call.id, call.name, _canonical_arguments(call.arguments)] for call in message.tool_calls]
    canonical = [message.role, parts, calls, message.tool_calls_in_text]
    return hashlib.sha256(_dumps(canonical).encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=4096)
def _canonical_arguments(arguments: str) -> str:
    """Return tool-call arguments as canonical JSON when they parse as an object (blank: {}), else verbatim.

    A replayed turn carries the arguments as the trace recorded them (parsed), so two spellings of the same
    object must give one key.
    """
    parsed = ToolCall("", "", arguments).parsed_arguments()
    if parsed is None:
        return arguments
    return _dumps_sorted(parsed)


def _tools_digest(tools: ToolSet) -> str:
    """Return the sha256 of a ToolSet's names and (OpenAI-flavour) schemas, kept on the ToolSet."""
    if not tools._digest:
        schemas = tools.schemas("openai")
        per_tool = [_schema_digest(schema) for schema in schemas]
        tools._digest.append(hashlib.sha256(_dumps([list(tools.names), per_tool]).encode("utf-8")).hexdigest())
    return tools._digest[0]


_SCHEMA_DIGESTS: dict[int, tuple[Any, str]] = {}
"""id(schema entry) → (the entry, its digest): a registry hands the same entries to every item's ToolSet."""


def _schema_digest(schema: Any) -> str:
    found = _SCHEMA_DIGESTS.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    digest = hashlib.sha256(_dumps_sorted(schema).encode("utf-8")).hexdigest()
    if len(_SCHEMA_DIGESTS) >= 1024:  # toolboxes that build fresh entries every time: keep the memo small
        _SCHEMA_DIGESTS.clear()
    _SCHEMA_DIGESTS[id(schema)] = (schema, digest)
    return digest


def _dumps_sorted(value: Any) -> str:
    return _SORTED_ENCODER.encode(value)


# --- the response cache ------------------------------------------------------------------------------------


def response_to_json(response: ModelResponse, spec: str) -> dict[str, Any]:
    """Return what the cache stores of a response (never a key or a header)."""
    return {
        "model": spec,
        "text": response.text,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls],
        "usage": {"input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens},
        "stop_reason": response.stop_reason,
        "sampling": dict(response.sampling),
        "tool_calls_in_text": response.tool_calls_in_text,
    }


def response_from_json(data: Mapping[str, Any], key: str) -> ModelResponse:
    """Return the cached response a stored JSON object holds (`cached` True, `request_key` set)."""
    usage = data.get("usage") or {}
    return ModelResponse(
        text=str(data.get("text") or ""),
        tool_calls=tuple(
            ToolCall(str(c["id"]), str(c["name"]), str(c.get("arguments") or "")) for c in data.get("tool_calls") or []
        ),
        usage=Usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)),
        stop_reason=data.get("stop_reason"),
        tool_calls_in_text=bool(data.get("tool_calls_in_text")),
        sampling=dict(data.get("sampling") or {}),
        request_key=key,
        cached=True,
    )


class CachedBackend:
    """A ModelBackend that serves stored responses to requests it has seen, and stores every new success.

    Everything else (`spec`, `provider`, `model`, `sampling_support`, `endpoint_counts`, `check_dataset`, the
    key `_key` for redaction) is the inner backend's. `hits` and `misses` count this process's lookups.
    """

    def __init__(self, inner: ModelBackend, cache_dir: Path | str) -> None:
        self.inner = inner
        self.cache_dir = Path(cache_dir)
        self.hits = 0
        self.misses = 0

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not yet set (unpickling): never recurse
            raise AttributeError(name)
        return getattr(self.inner, name)

    def path(self, key: str) -> Path:
        """Return the file that holds (or will hold) the response to the request with `key`."""
        return self.cache_dir / key[:2] / f"{key}.json"

    def lookup(self, key: str) -> ModelResponse | None:
        """Return the stored response for `key`, or None (a missing or unreadable file is a miss)."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            return response_from_json(data, key)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def store(self, key: str, response: ModelResponse) -> Path:
        """Write a response under `key` atomically (a temporary sibling, then a rename); return its path."""

        return write_text_atomic(self.path(key), json_line(response_to_json(response, self.inner.spec)))

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the stored response to this request, else the inner backend's (stored when it succeeds)."""
        spec = getattr(self.inner, "key_spec", None) or self.inner.spec
        key = request_key(spec, request)
        stored = self.lookup(key)
        if stored is not None:
            self.hits += 1
            return stored
        self.misses += 1
        response = await self.inner.generate(request)
        self.store(key, response)
        return replace(response, request_key=key, cached=False)

    def sampling_support(self) -> dict[str, str]:
        """Return the inner backend's sampling support (the cache serves only what it was sent)."""
        return self.inner.sampling_support()
