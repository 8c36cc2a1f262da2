"""Client-side rate limits in front of any backend: requests and tokens per minute (`--max-rpm`, `--max-tpm`).

`RateLimitedBackend` waits on aiolimiter's leaky buckets before each call: one unit of the request bucket, and
the request's estimated tokens (input estimate + `max_tokens`) of the token bucket. A bucket holds `period_s`
worth of its rate, so after an idle spell up to that much goes out at once (the whole minute's allowance with
the default period) and then the rate holds. Token estimates are taken before the call and never corrected
afterwards: a provider's own count (its tokenizer, its image pricing) differs, so keep a margin under a quota.

aiolimiter binds a bucket to the event loop that first waits on it, so the buckets are made per loop: a backend
used from several `asyncio.run` calls in turn gets a fresh allowance in each.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mcot.agents.backends.base import ModelBackend, ModelRequest, ModelResponse, SchemaFlavor, ToolSet
from mcot.agents.messages import ImagePart, TextPart, ToolResultPart

if TYPE_CHECKING:
    from aiolimiter import AsyncLimiter

CHARS_PER_TOKEN = 4
"""Characters of text per token: the rule of thumb OpenAI and Anthropic both give for English text."""

IMAGE_TOKENS = 765
"""Input tokens estimated per image: OpenAI's high-detail price of a 1024×1024 image, 85 + 170 × 4 tiles of
512 px (Anthropic charges about width × height / 750, ≈ 1,400 for the same image, but scales larger images down
to about 1.15 megapixels; canvas observations are usually smaller)."""


@dataclass(frozen=True)
class RateLimits:
    """Requests and tokens per minute allowed to one backend (None: no limit), measured over `period_s`.

    `period_s` is also the largest burst: a bucket holds `period_s` seconds' worth of its rate.
    """

    max_rpm: float | None = None
    max_tpm: float | None = None
    period_s: float = 60.0

    def __post_init__(self) -> None:
        for name in ("max_rpm", "max_tpm", "period_s"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be a positive number, not {value!r}")

    @property
    def active(self) -> bool:
        """Return whether any limit is set."""
        return self.max_rpm is not None or self.max_tpm is not None

    def split(self, n: int) -> RateLimits:
        """Return the limits each of `n` workers gets so that together they keep these ones."""
        if n < 1:
            raise ValueError(f"limits are split among at least 1 worker, not {n}")
        return replace(
            self,
            max_rpm=None if self.max_rpm is None else self.max_rpm / n,
            max_tpm=None if self.max_tpm is None else self.max_tpm / n,
        )


def estimate_tokens(request: ModelRequest, flavor: SchemaFlavor = "compatible") -> int:
    """Return a request's estimated input tokens: text and tool schemas at CHARS_PER_TOKEN, IMAGE_TOKENS an image.

    `flavor` names the tool schema format the backend will send (its schemas are built once per tool set).
    """
    chars = 0
    images = 0
    for message in request.messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                chars += len(part.text)
            elif isinstance(part, ImagePart):
                images += 1
            elif isinstance(part, ToolResultPart):
                chars += len(part.text)
                images += len(part.images)
        for call in message.tool_calls:
            chars += len(call.name) + len(call.arguments)
    if request.tools is not None and request.tools.names:
        chars += _schema_chars(request.tools, flavor)
    return chars // CHARS_PER_TOKEN + images * IMAGE_TOKENS


_SCHEMA_CHARS: weakref.WeakKeyDictionary[ToolSet, dict[str, int]] = weakref.WeakKeyDictionary()


def _schema_chars(tools: ToolSet, flavor: SchemaFlavor) -> int:
    sizes = _SCHEMA_CHARS.setdefault(tools, {})
    size = sizes.get(flavor)
    if size is None:
        size = sizes[flavor] = len(json.dumps(tools.schemas(flavor)))
    return size


def _flavor(backend: Any) -> SchemaFlavor:
    """Return the tool-schema flavour a backend sends (its `schema_flavor`; `compatible` when it does not say)."""
    flavor: SchemaFlavor = getattr(backend, "schema_flavor", "compatible")
    return flavor


def _bucket(per_minute: float, period_s: float) -> AsyncLimiter:
    from aiolimiter import AsyncLimiter

    capacity = per_minute * period_s / 60.0
    if capacity < 1.0:  # aiolimiter hands out at most its capacity at a time: one unit over a longer period
        return AsyncLimiter(1.0, 60.0 / per_minute)
    return AsyncLimiter(capacity, period_s)


class RateLimitedBackend:
    """A backend that waits on request and token buckets before each call to `inner`; all else is `inner`'s.

    `waiting` is the number of calls waiting on a bucket now (for a progress line).
    """

    def __init__(self, inner: ModelBackend, limits: RateLimits) -> None:
        self._inner = inner
        self.limits = limits
        self.waiting = 0
        self._flavor = _flavor(inner)
        self._buckets: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[AsyncLimiter | None, AsyncLimiter | None]
        ] = weakref.WeakKeyDictionary()

    @property
    def inner(self) -> ModelBackend:
        """Return the wrapped backend."""
        return self._inner

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_inner":  # copy/pickle probes, and before __init__ has run
            raise AttributeError(name)
        return getattr(self._inner, name)

    def _loop_buckets(self) -> tuple[AsyncLimiter | None, AsyncLimiter | None]:
        loop = asyncio.get_running_loop()
        buckets = self._buckets.get(loop)
        if buckets is None:
            limits = self.limits
            buckets = self._buckets[loop] = (
                None if limits.max_rpm is None else _bucket(limits.max_rpm, limits.period_s),
                None if limits.max_tpm is None else _bucket(limits.max_tpm, limits.period_s),
            )
        return buckets

    def estimate(self, request: ModelRequest) -> int:
        """Return the tokens a request is charged to the token bucket: input estimate + max_tokens."""
        return estimate_tokens(request, self._flavor) + request.max_tokens

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return inner's answer to the request once the buckets allow it."""
        requests, tokens = self._loop_buckets()
        if requests is not None or tokens is not None:
            self.waiting += 1
            try:
                if requests is not None:
                    await requests.acquire()
                if tokens is not None:
                    await tokens.acquire(min(self.estimate(request), tokens.max_rate))
            finally:
                self.waiting -= 1
        return await self._inner.generate(request)

    def sampling_support(self) -> dict[str, str]:
        """Return inner's sampling support."""
        return self._inner.sampling_support()
