"""The small protocol every model backend implements, and the request/response records it speaks."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from agents.messages import Message, ToolCall

SchemaFlavor = Literal["openai", "anthropic", "compatible"]


@dataclass(frozen=True)
class ToolSet:
    """The tools offered to the model: their names and a cached schema list per wire flavour."""

    names: tuple[str, ...]
    schema_fn: Callable[[SchemaFlavor, tuple[str, ...]], list[dict[str, Any]]] = field(compare=False, repr=False)
    _cache: dict[str, list[dict[str, Any]]] = field(default_factory=dict, compare=False, repr=False)

    def schemas(self, flavor: SchemaFlavor) -> list[dict[str, Any]]:
        """Return the tool entries for one wire flavour (built once, then reused)."""
        if flavor not in self._cache:
            self._cache[flavor] = self.schema_fn(flavor, self.names)
        return self._cache[flavor]


@dataclass(frozen=True)
class ModelRequest:
    """One model call: the conversation, the tools (None: none offered) and sampling limits.

    `hints` carries prompt-view facts (benchmark, answer_type, choices, mode) for policies that are not
    language models; real backends ignore it. It never holds the answer or meta.
    """

    messages: Sequence[Message]
    tools: ToolSet | None = None
    max_tokens: int = 4096
    temperature: float = 0.0
    hints: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    """Token counts of one response."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class ModelResponse:
    """What a backend returns: text, tool calls, usage, and the retries it took to get there."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    stop_reason: str | None = None
    retries: tuple[dict[str, Any], ...] = ()
    tool_calls_in_text: bool = False


@runtime_checkable
class ModelBackend(Protocol):
    """A model behind one async call; `provider`/`model` name it for pricing, `spec` for manifests."""

    spec: str
    provider: str
    model: str

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the model's next turn for the request."""
        ...


_KEY_PATTERN = re.compile(r"(sk-(?:ant-)?|key-|Bearer\s+)[A-Za-z0-9_\-\.]{6,}")


def redactor(*secrets: str | None) -> Callable[[str], str]:
    """Return a function that removes the given secrets and anything shaped like an API key from text."""
    known = [s for s in secrets if s and len(s) >= 4]

    def redact(text: str) -> str:
        for secret in known:
            text = text.replace(secret, "***")
        return _KEY_PATTERN.sub(lambda m: m.group(1) + "***", text)

    return redact
