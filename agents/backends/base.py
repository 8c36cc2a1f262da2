"""The small protocol every model backend implements, and the request/response records it speaks."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from mcot.agents.errors import ModelSpecError
from mcot.agents.messages import Message, ToolCall

SchemaFlavor = Literal["openai", "anthropic", "compatible"]


@dataclass(frozen=True)
class ToolSet:
    """The tools offered to the model: their names and a cached schema list per wire flavour."""

    names: tuple[str, ...]
    schema_fn: Callable[[SchemaFlavor, tuple[str, ...]], list[dict[str, Any]]] = field(compare=False, repr=False)
    _cache: dict[str, list[dict[str, Any]]] = field(default_factory=dict, compare=False, repr=False)
    _digest: list[str] = field(default_factory=list, compare=False, repr=False)
    """The sha256 of the names and schemas, once `mcot.agents.cache` has computed it (request keys)."""

    def schemas(self, flavor: SchemaFlavor) -> list[dict[str, Any]]:
        """Return the tool entries for one wire flavour (built once, then reused)."""
        if flavor not in self._cache:
            self._cache[flavor] = self.schema_fn(flavor, self.names)
        return self._cache[flavor]


@dataclass(frozen=True)
class ModelRequest:
    """One model call: the conversation, the tools (None: none offered) and sampling settings.

    `seed` is sent only by backends whose API takes one, and only when it is not None. `hints` carries
    prompt-view facts (id: the item's id, benchmark, answer_type, choices, mode: the arm's name) for policies
    that are not language models and for replay; real backends ignore it. It never holds the answer or meta,
    and it is no part of the request's key (`mcot.agents.cache.request_key`).
    """

    messages: Sequence[Message]
    tools: ToolSet | None = None
    max_tokens: int = 4096
    temperature: float = 0.0
    seed: int | None = None
    hints: Mapping[str, Any] = field(default_factory=dict)
    _digests: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Request digests by model spec, once `mcot.agents.cache` has computed them (the request is never changed)."""


@dataclass(frozen=True)
class Usage:
    """Token counts of one response."""

    input_tokens: int = 0
    output_tokens: int = 0


MAX_TOKENS_PER_CALL = 100_000_000
"""More tokens than this in one response's usage is taken for a broken or hostile figure, not a count."""


class UnusableUsage(Exception):
    """A response's usage figures are negative, not finite, not numbers, or absurd: its cost cannot be known.

    Not retried (the server would say the same again): the pair records the error, and no budget is ever
    lowered by a negative cost.
    """


def checked_usage(**figures: Any) -> Usage:
    """Return `Usage(input_tokens, output_tokens)` from a response's figures (None or absent: 0).

    Each figure must be a whole number from 0 to MAX_TOKENS_PER_CALL (an integral float is taken); anything
    else raises UnusableUsage naming the figure as the server wrote it.
    """
    counts: list[int] = []
    for name, value in figures.items():
        if value is None:
            counts.append(0)
            continue
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if (
            number is None
            or not math.isfinite(number)
            or number != int(number)
            or not 0 <= number <= MAX_TOKENS_PER_CALL
        ):
            raise UnusableUsage(f"the response's usage is unusable: {name}={repr(value)[:40]}")
        counts.append(int(number))
    return Usage(*counts)


@dataclass(frozen=True)
class ModelResponse:
    """What a backend returns: text, tool calls, usage, the retries it took, and the sampling it sent.

    `sampling` holds exactly the sampling fields the request carried on the wire (e.g. `{"temperature": 0.0,
    "seed": 7}`); a backend that sends none (offline, scripted) leaves it empty. `request_key` is the request's
    key (`mcot.agents.cache.request_key`) when the backend computed it (the response cache, replay); `cached` is
    True for a response served from the response cache, with no model call and nothing paid.
    """

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    stop_reason: str | None = None
    retries: tuple[dict[str, Any], ...] = ()
    tool_calls_in_text: bool = False
    sampling: Mapping[str, Any] = field(default_factory=dict)
    request_key: str | None = None
    cached: bool = False


@runtime_checkable
class ModelBackend(Protocol):
    """A model behind one async call; `provider`/`model` name it for pricing, `spec` for manifests."""

    spec: str
    provider: str
    model: str

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the model's next turn for the request."""
        ...

    def sampling_support(self) -> dict[str, str]:
        """Return, per sampling setting (temperature, seed), whether it is sent, or why not."""
        ...


class UnparsableResponse(Exception):
    """The server answered 200 with a body that is not a usable turn (no choices, no content, no stop reason).

    Retried like a garbled body. A well-formed empty answer (no text, no tool calls, and a stop reason such as
    `stop`, `length` or `end_turn`) is not one: it is the model's answer (see `EmptyAnswers`).
    """


class EmptyAnswer(UnparsableResponse):
    """A well-formed answer with no text and no tool calls, seen for the first time in a call: asked once more."""


@dataclass
class EmptyAnswers:
    """How one model call treats well-formed empty answers: the first is asked again once, the next is kept.

    `retry` False (a policy of one try) keeps the first at once. `check(stop_reason)` raises EmptyAnswer the
    first time and returns afterwards; an empty answer is then recorded as the model's answer, flagged empty.
    """

    retry: bool = True
    seen: int = 0

    def check(self, stop_reason: str | None) -> None:
        """Raise EmptyAnswer for the first empty answer of the call (when retrying is allowed), else return."""
        self.seen += 1
        if self.retry and self.seen == 1:
            raise EmptyAnswer(f"an empty answer (stop reason {stop_reason!r}); asked once more")


SAMPLING_KEYS = ("temperature", "seed")
"""The sampling settings mcot controls and records."""

DETERMINISTIC = {"temperature": "ignored: deterministic", "seed": "ignored: deterministic"}
"""`sampling_support()` of a backend that is not a sampled model (offline policy, scripted turns)."""


def sent_sampling(params: Mapping[str, Any]) -> dict[str, Any]:
    """Return the sampling fields of a request's wire parameters (those of SAMPLING_KEYS it carries)."""
    return {key: params[key] for key in SAMPLING_KEYS if key in params}


def sampling_support(backend: Any) -> dict[str, str]:
    """Return a backend's `sampling_support()`, or "unknown" per setting for one that does not say."""
    report = getattr(backend, "sampling_support", None)
    if report is None:
        return {key: "unknown: the backend does not say" for key in SAMPLING_KEYS}
    return dict(report())


_KEY_PATTERN = re.compile(r"(sk-(?:ant-)?|key-|Bearer\s+)[A-Za-z0-9_\-\.]{6,}")

PLACEHOLDER_KEY = "not-needed"
"""The key an OpenAI-compatible backend sends when none is set (servers without keys want one anyway)."""


def redactor(*secrets: str | None) -> Callable[[str], str]:
    """Return a function that removes the given secrets and anything shaped like an API key from text.

    A secret of any length is removed, and also where whitespace inside it was changed (a tab written as a
    space, a line broken): its runs of whitespace match any run. The placeholder key is no secret.
    """
    known = sorted({s for s in secrets if s and s != PLACEHOLDER_KEY}, key=len, reverse=True)
    flexible = [_whitespace_flexible(s) for s in known if any(c.isspace() for c in s) and s.split()]

    def redact(text: str) -> str:
        for secret in known:
            if secret in text:
                text = text.replace(secret, "***")
        for pattern in flexible:
            text = pattern.sub("***", text)
        return _KEY_PATTERN.sub(lambda m: m.group(1) + "***", text)

    return redact


def _whitespace_flexible(secret: str) -> re.Pattern[str]:
    """Return a pattern that finds `secret` with each run of whitespace in it written as any run (or none)."""
    words = [re.escape(word) for word in secret.split()]
    return re.compile(r"\s*".join(words))


def check_key(key: str, where: str) -> str:
    """Return an API key unchanged, or raise ModelSpecError when it holds a control character (CR, LF, tab…).

    Such a key would break every request (CR LF starts a header of its own); the key itself is never shown.
    """
    bad = next((c for c in key if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if bad is not None:
        raise ModelSpecError(
            f"{where} holds a control character ({_CONTROL_NAMES.get(bad, f'U+{ord(bad):04X}')}); "
            "remove it (a key read from a file often ends in a line break)"
        )
    return key


_CONTROL_NAMES = {"\r": "CR", "\n": "LF", "\t": "tab", "\x00": "NUL"}


def request_url(exc: BaseException) -> str:
    """Return " (METHOD URL)" for an SDK error that carries its httpx request, else "" (for failure causes)."""
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    return f" ({getattr(request, 'method', 'POST')} {url})" if url is not None else ""
