"""Bounded retries with exponential back-off and jitter, honouring Retry-After.

mcot owns retrying: the SDK clients are created with `max_retries=0`, so every retry happens here and is
noted (attempt, reason, wait) for the trace. Retried: HTTP 408, 409, 429 and 5xx, timeouts, connection
errors and response bodies that cannot be parsed. Anything else fails at once.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agents.errors import ModelError

T = TypeVar("T")
RETRY_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True)
class Failure:
    """A classified failure of one attempt: whether to retry, a short reason, the HTTP status, Retry-After."""

    retryable: bool
    reason: str
    status: int | None = None
    retry_after_s: float | None = None


@dataclass(frozen=True)
class RetryPolicy:
    """How many tries, how long to wait between them, and the sleep function (injectable for tests)."""

    max_tries: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    jitter: float = 0.5
    sleep: Callable[[float], Awaitable[Any]] = field(default=asyncio.sleep, compare=False)

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Return the wait before try `attempt + 1`: Retry-After when given, else jittered exponential."""
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.max_delay_s)
        backoff = min(self.base_delay_s * 2 ** (attempt - 1), self.max_delay_s)
        return backoff * (1.0 - self.jitter * random.random())


def retry_after_seconds(headers: Any) -> float | None:
    """Return the wait a response asks for (`retry-after-ms` or `retry-after`: seconds or an HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return float(value) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(parsed.timestamp() - time.time(), 0.0) if parsed is not None else None


def status_is_retryable(status: int) -> bool:
    """Return whether an HTTP status is worth another try."""
    return status in RETRY_STATUSES or status >= 500


async def call_with_retries(
    attempt_fn: Callable[[], Awaitable[T]],
    classify: Callable[[BaseException], Failure | None],
    policy: RetryPolicy,
    notes: list[dict[str, Any]],
    redact: Callable[[str], str] = lambda s: s,
) -> T:
    """Return the first successful result of `attempt_fn`, appending one note per retry to `notes`.

    `classify` maps an exception to a Failure (None: not a provider failure, re-raised as is). Raises
    ModelError when a failure is not retryable or the tries are spent.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            return await attempt_fn()
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            reason = redact(failure.reason)
            if not failure.retryable or attempt >= policy.max_tries:
                spent = f" after {attempt} tries" if failure.retryable else ""
                raise ModelError(f"model call failed{spent}: {reason}", status=failure.status, retries=notes) from None
            wait = policy.delay(attempt, failure.retry_after_s)
            notes.append({"attempt": attempt, "status": failure.status, "error": reason, "wait_s": round(wait, 3)})
            await policy.sleep(wait)
