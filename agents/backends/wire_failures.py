"""How what any HTTP backend meets becomes the retry layer's `Failure`: time-outs, refused answers, redirects.

Shared by the chat backends (both SDKs and the plain client) and the Images generator, so that a failure reads
the same whichever path met it: a request past its whole-request time-out, an answer mcot refused (body over the
limit, usage it cannot count, JSON it cannot read), a redirect it does not follow, a connection never made.
"""

from __future__ import annotations

import json
from typing import Any

from mcot.agents.backends.base import EmptyAnswer, UnparsableResponse, UnusableUsage, request_url
from mcot.agents.backends.plain_http import classify_wire_error, redirect_refused
from mcot.agents.retry import Failure, retry_after_seconds, status_is_retryable

_CAUSE_DEPTH = 8


class RequestTimedOut(Exception):
    """One request ran past the backend's whole-request time-out (`timeout_s`), however its bytes trickled in."""

    def __init__(self, timeout_s: float, url: str | None) -> None:
        super().__init__(f"request timed out after {timeout_s:g} s")
        self.url = url


def classify_response_error(exc: BaseException) -> Failure | None:
    """Return the failure of an answer mcot itself refused or could not read, on either SDK (None: not one)."""
    if isinstance(exc, UnusableUsage):
        return Failure(False, str(exc))
    if isinstance(exc, RequestTimedOut):
        where = f" (POST {exc.url})" if exc.url else ""
        return Failure(True, f"{exc}{where}", unreachable=True)
    if isinstance(exc, EmptyAnswer):
        return Failure(True, str(exc))
    if isinstance(exc, UnparsableResponse | json.JSONDecodeError):
        return Failure(True, f"unparsable response: {exc}")
    if isinstance(exc, RecursionError):
        return Failure(True, "unparsable response: its JSON is nested too deeply to read")
    return classify_wire_error(exc)


def status_failure(exc: Any, *, overloaded: bool = False) -> Failure:
    """Return the failure of an SDK status error; a redirect says where it pointed (mcot follows none)."""
    status = int(exc.status_code)
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    message = str(exc.message)
    if 300 <= status < 400:
        location = (headers or {}).get("location") or "nowhere"
        message = redirect_refused(str(getattr(getattr(response, "request", None), "url", "")), location)
    return Failure(
        status_is_retryable(status), f"HTTP {status}: {message}", status, retry_after_seconds(headers), overloaded
    )


def connection_failure(exc: BaseException) -> Failure:
    """Return the failure of an SDK connection error: a body mcot refused, or no connection (`cannot_connect`)."""
    cause = exc.__cause__
    depth = 0
    while cause is not None:
        refused = classify_wire_error(cause)
        if refused is not None:
            return refused
        if type(cause).__name__ in ("ConnectError", "ConnectTimeout"):
            return Failure(True, f"connection error{request_url(exc)}: {cause}", unreachable=True, cannot_connect=True)
        cause = cause.__cause__ or cause.__context__
        depth += 1
        if depth > _CAUSE_DEPTH:
            break
    return Failure(True, f"connection error{request_url(exc)}: {exc}", unreachable=True)
