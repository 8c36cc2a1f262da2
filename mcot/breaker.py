"""A dead model endpoint stops a run in seconds: the check before a run starts, and the circuit breaker during it.

`check_endpoints(backend)` opens a TCP connection to each endpoint the backend will call (its `endpoints()`;
backends without one, such as offline, scripted and replay, have nothing to check) before anything is written:
when none can be reached the run is refused (UsageError, exit 2) naming the URLs; when some can, it goes on
with a warning and the endpoint pool rests the others.

`CircuitBreaker` hears every model call's outcome (a permanent answer — 401, 403, or 404 "model does not
exist" — opens it at once, `is_permanent`) (the runner's call observer passes them on). After
`threshold` attempts in a row across pairs that could not even connect, it opens: the runner starts no more
pairs and records those it did not start as failed with the breaker's cause (so the run exits 3 and says how
to resume), and the retry loops of the pairs in flight stop retrying (`halt_reason`). Any other outcome (an
answer, an HTTP error, a time-out) closes the streak; with several endpoints, a healthy one keeps it closed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcot.agents.endpoints import probe, public_url
from mcot.core.errors import UsageError
from mcot.executors.records import failure_record

if TYPE_CHECKING:
    from mcot.agents.retry import Failure
    from mcot.core.item import Item
    from mcot.core.rundir.results import Result

BREAKER_THRESHOLD = 10
"""Attempts in a row, across pairs, that could not connect, after which a run starts no more pairs."""


@dataclass
class CircuitBreaker:
    """Counts model calls in a row that could not connect; open (a reason in `opened`) once `threshold` is reached."""

    threshold: int = BREAKER_THRESHOLD
    in_row: int = 0
    last: str = ""
    opened: str | None = None
    subject: str = ""
    """What the breaker guards, as its reason names it (`guarded`: "the model SPEC at URL"); empty: the endpoint."""

    def record(self, failure: Failure | None) -> None:
        """Count one attempt's outcome (None: it succeeded); once open, the breaker stays open for the session."""
        if self.opened is not None:
            return
        if failure is not None and is_permanent(failure):
            self.last = failure.reason
            said = failure.reason if failure.reason.startswith("HTTP ") else f"HTTP {failure.status}: {failure.reason}"
            self.opened = f"{self.subject or 'the endpoint'} gave a permanent answer ({said}); correct the model name " \
                          "or the key"  # fmt: skip
            return
        if failure is None or not failure.cannot_connect:
            self.in_row = 0
            return
        self.in_row += 1
        self.last = failure.reason
        if self.in_row >= self.threshold:
            self.opened = (
                f"{self.subject or 'the model endpoint'} accepts no connection ({self.in_row} attempts in a row failed "
                "to connect)"
            )

    def __call__(self, failure: Failure | None) -> None:
        """Hear one attempt's outcome as a retry observer (`RetryPolicy.observer`): `record` it; returns nothing."""
        self.record(failure)

    def halt_reason(self) -> str | None:
        """Return why retries should stop (the breaker is open), or None."""
        return self.opened

    def cause(self) -> str:
        """Return the failure cause recorded for a pair the open breaker kept from starting."""
        return f"not started: {self.opened}; re-run the same command once it answers (the last: {self.last})"


def guarded(what: str, spec: str, backend: Any) -> str:
    """Return how a breaker names what it guards: `what` (model, judge, generator), its spec and the URLs its
    backend calls, without credentials ("the model openai-compatible:m at http://127.0.0.1:8000/v1")."""
    endpoints = getattr(backend, "endpoints", None)
    urls = [public_url(str(url)) for url in endpoints()] if callable(endpoints) else []
    return f"the {what} {spec}" + (f" at {', '.join(urls)}" if urls else "")


PERMANENT_STATUSES = (401, 403)
"""HTTP statuses no retry can change (a wrong or forbidden key): the first one opens the breaker."""


def is_permanent(failure: Failure) -> bool:
    """Return whether a failure is an answer no retry changes: 401/403, or 404 saying the model does not exist."""
    if failure.status in PERMANENT_STATUSES:
        return True
    reason = failure.reason.lower()
    return (
        failure.status == 404
        and "model" in reason
        and any(
            words in reason for words in ("does not exist", "not found", "not exist", "unknown model", "no such model")
        )
    )


def record_not_started(append: Callable[[Result], None], pairs: Iterable[tuple[Item, str]], cause: str) -> int:
    """Append a failure record with `cause` for each (item, arm) that did not start; return how many."""

    count = 0
    for item, arm in pairs:
        append(failure_record(item, arm, cause, 0.0))
        count += 1
    return count


async def check_endpoints(backend: Any) -> None:
    """Refuse the command (UsageError naming the URLs) when none of the backend's endpoints accepts a connection,
    or one is not an http:// or https:// URL; returns nothing.

    Serves every command that calls a model: `mcot run` and `mcot study` (the runs' models), `mcot score --judge`
    and the study's judge (the judge), `mcot imagine` (every generator with endpoints). Endpoints that do not
    answer while others do are named in a warning on stderr; the command goes on.
    """
    endpoints = getattr(backend, "endpoints", None)
    urls: Sequence[str] = endpoints() if callable(endpoints) else ()
    if not urls:
        return

    for url in urls:
        scheme = urlsplit(str(url)).scheme.lower()
        if scheme not in ("http", "https"):
            raise UsageError(
                f"--base-url {public_url(str(url))} is a {scheme or 'scheme-less'} URL; only http:// and https:// "
                "URLs are accepted"
            )

    found = await probe(urls)
    dead = {public_url(url): why for url, why in found.items() if why is not None}
    if not dead:
        return
    named = "; ".join(f"{url} ({why})" for url, why in list(dead.items())[:3])
    if len(dead) == len(found):
        raise UsageError(f"cannot connect to {named}; nothing was run or paid: start the server or correct --base-url")
    print(f"mcot: no connection to {named}; the run goes on with the other endpoints", file=sys.stderr)


def check_endpoints_now(backend: Any) -> None:
    """Run `check_endpoints(backend)` from synchronous code, inside a running event loop or not; returns nothing."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(check_endpoints(backend))
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # a loop runs here: probe in a thread's own
        pool.submit(asyncio.run, check_endpoints(backend)).result()
