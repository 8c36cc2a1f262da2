"""Bounded retries with exponential back-off and jitter, honouring Retry-After.

mcot owns retrying: the SDK clients are created with `max_retries=0`, so every retry happens here and is
noted (attempt, reason, wait) for the trace. Retried: HTTP 408, 409, 429 and 5xx, timeouts, connection
errors and response bodies that cannot be parsed. Anything else fails at once. A policy's `observer` hears
the outcome of every attempt (None for a success, the Failure otherwise), which is how the runner learns of
overload (`is_overload`) and paces itself; an observer that also has `halt_reason()` is asked before each
retry whether to stop retrying (the run's circuit breaker, `mcot.breaker`).

A failure's reason is redacted (keys, credentials) before it is shortened for notes and errors, so a secret that
whitespace changes would have hidden is removed while it is still whole.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from mcot.agents.errors import ModelError

T = TypeVar("T")
RETRY_STATUSES = frozenset({408, 409, 429})
OVERLOAD_STATUSES = frozenset({429, 503, 529})
"""Answers meaning "too much traffic": rate limited, service unavailable, Anthropic's overloaded (529)."""


@dataclass(frozen=True)
class Failure:
    """A classified failure of one attempt: whether to retry, a short reason, the HTTP status, Retry-After.

    `overloaded`: the provider said it is overloaded whatever the status (Anthropic's `overloaded_error`).
    `unreachable`: no answer came back (connection refused or dropped, time-out), which says more about
    the endpoint than about the request. `cannot_connect`: not even a connection could be made (refused,
    unknown host, no route), what the run's circuit breaker counts.
    """

    retryable: bool
    reason: str
    status: int | None = None
    retry_after_s: float | None = None
    overloaded: bool = False
    unreachable: bool = False
    cannot_connect: bool = False


def is_overload(failure: Failure) -> bool:
    """Return whether a failure means the provider is overloaded (HTTP 429, 503, 529 or an overloaded error)."""
    return failure.overloaded or failure.status in OVERLOAD_STATUSES


@dataclass(frozen=True)
class RetryPolicy:
    """How many tries, how long to wait between them, the sleep function (injectable for tests), an observer.

    `observer` is called after every attempt: with None when it succeeded, with the Failure when it failed
    in a classified way (retryable or not), before any wait. It must be quick and must not block.
    """

    max_tries: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    jitter: float = 0.5
    sleep: Callable[[float], Awaitable[Any]] = field(default=asyncio.sleep, compare=False)
    observer: Callable[[Failure | None], None] | None = field(default=None, compare=False)

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Return the wait before try `attempt + 1`: Retry-After when given, else jittered exponential."""
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.max_delay_s)
        backoff = min(self.base_delay_s * 2 ** (attempt - 1), self.max_delay_s)
        return backoff * (1.0 - self.jitter * random.random())


def retry_after_seconds(headers: Any, *, now: Callable[[], float] = time.time) -> float | None:
    """Return the wait a response asks for (`retry-after-ms` or `retry-after`: seconds or an HTTP date).

    `now` is the clock an HTTP date is measured from (Unix seconds).
    """
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
        return max(parsed.timestamp() - now(), 0.0) if parsed is not None else None


REASON_WIDTH = 300
"""The longest failure reason kept in notes and errors (characters, after redaction)."""


def shorten(text: str, limit: int = REASON_WIDTH) -> str:
    """Return text on one line (whitespace runs as one space), cut to `limit` characters with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    ModelError when a failure is not retryable, the tries are spent, or the observer's `halt_reason()` gives
    a reason to stop. `policy.observer` hears every outcome.
    """
    observer = policy.observer
    halt = getattr(observer, "halt_reason", None)
    attempt = 0
    while True:
        attempt += 1
        try:
            result = await attempt_fn()
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            reason = shorten(redact(failure.reason))
            if observer is not None:  # told the redacted reason: the runner may print or relay it
                _tell(observer, failure if reason == failure.reason else replace(failure, reason=reason))
            if not failure.retryable or attempt >= policy.max_tries:
                spent = f" after {attempt} tries" if failure.retryable else ""
                raise ModelError(f"model call failed{spent}: {reason}", status=failure.status, retries=notes) from None
            stop = _halt_reason(halt)
            if stop:
                raise ModelError(
                    f"model call failed after {attempt} tries: {reason}; not retried: {stop}",
                    status=failure.status,
                    retries=notes,
                ) from None
            wait = policy.delay(attempt, failure.retry_after_s)
            notes.append({"attempt": attempt, "status": failure.status, "error": reason, "wait_s": round(wait, 3)})
            await policy.sleep(wait)
        else:
            if observer is not None:
                _tell(observer, None)
            return result


def _halt_reason(halt: Callable[[], str | None] | None) -> str | None:
    if halt is None:
        return None
    try:
        return halt()
    except Exception:
        return None  # as with the observer: a bug there never ends a call


def _tell(observer: Callable[[Failure | None], None], outcome: Failure | None) -> None:
    try:
        observer(outcome)
    except Exception:
        # The observer only paces the run (AIMD) and feeds its progress line; it never decides an answer. A bug
        # in it must not turn a model answer that arrived, and was paid for, into a failed item, nor cut a
        # retry short, so what it raises is dropped here.
        pass
