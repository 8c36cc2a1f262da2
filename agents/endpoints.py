"""Several base URLs behind one backend (vLLM or SGLang data-parallel replicas): spread, rest, count.

`EndpointPool` hands each attempt the healthy endpoint with the fewest requests in flight (the least recently
picked among equals, and not the one the previous try of the same call went to when another is healthy). An
endpoint that fails `REST_AFTER_FAULTS` times in a row with a fault of its own (no answer: connection error or
time-out; or an HTTP 5xx) is rested for `FIRST_REST_S`, doubling for each rest after it up to `LONGEST_REST_S`;
when its rest ends it is tried again, and one more fault rests it again. A 429 or another 4xx is the request's
or the account's affair, not the endpoint's, and rests nothing. When every endpoint rests, the one whose rest
ends first is tried.

URLs may carry credentials, in the userinfo (`http://user:KEY@host/v1`) or in the query string
(`…/v1?api_key=KEY`): every URL this module reports (`counts()`, `Endpoint.public_url`) has them removed, and
`scrub_url_secrets` removes them from any text.

`probe(urls)` is the check a run makes before it starts: a TCP connection to each endpoint, a few seconds at
most, so that a wrong `--base-url` stops the run at once instead of after minutes of retries.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from mcot.agents.retry import Failure

T = TypeVar("T")

REST_AFTER_FAULTS = 3
"""Faults in a row (connection errors, time-outs, 5xx) after which an endpoint is rested."""

FIRST_REST_S = 30.0
"""The first rest of an endpoint, in seconds; each rest after it is twice as long, up to LONGEST_REST_S."""

LONGEST_REST_S = 300.0
"""The longest rest of an endpoint, in seconds."""

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@]*@")
_CREDENTIAL_NAME = r"(?:[\w.\-]*[_\-.])?(?:api[_\-]?key|key|token|secret|password|passwd|pwd|auth|authorization|signature|sig|credentials?|session)"
_QUERY_CREDENTIAL = re.compile(rf"(?i)([?&;]{_CREDENTIAL_NAME}=)[^&#\s\"'<>]*")
HIDDEN = "***"
"""What stands where a credential was."""


def public_url(url: str) -> str:
    """Return a URL without its credentials: userinfo dropped, credential-like query values hidden.

    `http://user:key@host/v1` → `http://host/v1`; `http://host/v1?api_key=K&x=1` → `http://host/v1?api_key=***&x=1`.
    """
    parts = urlsplit(url)
    if "@" in parts.netloc:
        parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
    if parts.query:
        parts = parts._replace(query=_QUERY_CREDENTIAL.sub(rf"\1{HIDDEN}", "?" + parts.query)[1:])
    return urlunsplit(parts)


def scrub_url_secrets(text: str) -> str:
    """Return text with the userinfo of every URL in it removed and credential-like query values hidden."""
    if "@" in text:
        text = _USERINFO.sub(r"\1", text)
    if "=" in text:
        text = _QUERY_CREDENTIAL.sub(rf"\1{HIDDEN}", text)
    return text


scrub_userinfo = scrub_url_secrets
"""The former name of `scrub_url_secrets` (it removed userinfo only)."""


def url_secrets(urls: Sequence[str]) -> tuple[str, ...]:
    """Return the credentials inside URLs, as written and decoded: the userinfo's password (else its user name)
    and the values of credential-like query parameters (`api_key`, `token`, `…_secret`, …)."""
    secrets: list[str] = []
    for url in urls:
        parts = urlsplit(url)
        if "@" in parts.netloc:
            userinfo = parts.netloc.rpartition("@")[0]
            user, _, password = userinfo.partition(":")
            secret = password or user
            if secret:
                secrets.extend(dict.fromkeys((secret, unquote(secret))))
        for name, value in parse_qsl(parts.query, keep_blank_values=False):
            if value and re.fullmatch(f"(?i){_CREDENTIAL_NAME}", name):
                raw = re.search(rf"(?:^|[&;]){re.escape(name)}=([^&;#]*)", parts.query)
                secrets.extend(dict.fromkeys((value, raw.group(1) if raw else value)))
    return tuple(secrets)


def endpoint_urls(base_url: str | Sequence[str] | None) -> tuple[str, ...]:
    """Return base URLs as a tuple: None or "" → (), a string → (it,), a sequence → its non-empty entries, once each."""
    if base_url is None:
        return ()
    if isinstance(base_url, str):
        return (base_url.strip(),) if base_url.strip() else ()
    return tuple(dict.fromkeys(url.strip() for url in base_url if url and url.strip()))


PROBE_TIMEOUT_S = 5.0
"""How long the check before a run waits for each endpoint's TCP connection."""


async def probe(urls: Sequence[str], timeout_s: float = PROBE_TIMEOUT_S) -> dict[str, str | None]:
    """Return {URL: None when a TCP connection to it could be made, else why not}, all endpoints at once.

    A URL that a proxy setting covers is not probed (None): only the proxy could say whether it answers.
    """

    async def one(url: str) -> str | None:
        parts = urlsplit(url)
        host = parts.hostname
        if not host or parts.scheme not in ("http", "https") or _proxied(parts.scheme, host):
            return None
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            async with asyncio.timeout(timeout_s):
                _, writer = await asyncio.open_connection(host, port)
        except TimeoutError:
            return f"no connection within {timeout_s:g} s"
        except OSError as exc:
            return _why(exc)
        writer.close()
        return None

    unique = endpoint_urls(urls)
    found = await asyncio.gather(*(one(url) for url in unique))
    return dict(zip(unique, found, strict=True))


def _why(exc: OSError) -> str:
    """Return the system's words for a failed connect ("Connection refused", "Name or service not known")."""
    if isinstance(exc, socket.gaierror) or not exc.errno or exc.errno < 0:
        return exc.strerror or str(exc) or type(exc).__name__
    return os.strerror(exc.errno)


def _proxied(scheme: str, host: str) -> bool:
    """Return whether a proxy variable (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`) covers requests to `host`."""
    names = (f"{scheme}_proxy", "all_proxy")
    if not any(os.environ.get(name) or os.environ.get(name.upper()) for name in names):
        return False
    from urllib.request import proxy_bypass_environment  # type: ignore[attr-defined]

    return not proxy_bypass_environment(host)


def is_endpoint_fault(failure: Failure) -> bool:
    """Return whether a failure counts against the endpoint: no answer (connection, time-out) or an HTTP 5xx."""
    return failure.unreachable or (failure.status is not None and failure.status >= 500)


@dataclass(eq=False)
class Endpoint:
    """One base URL and its state: requests in flight, counts, faults in a row, and when its rest ends."""

    url: str
    public_url: str
    in_flight: int = 0
    requests: int = 0
    ok: int = 0
    failed: int = 0
    rested: int = 0
    faults_in_row: int = 0
    rest_until: float = 0.0
    next_rest_s: float = FIRST_REST_S
    last_pick: int = 0


class EndpointPool:
    """Spreads attempts over base URLs, rests those that keep failing, and counts what each did.

    Safe to share between threads and event loops (a lock guards the counts); `clock` is injectable for tests.
    """

    def __init__(self, urls: Sequence[str], *, clock: Callable[[], float] = time.monotonic) -> None:
        unique = endpoint_urls(urls)
        if not unique:
            raise ValueError("an endpoint pool needs at least one base URL")
        self.endpoints = tuple(Endpoint(url, public_url(url)) for url in unique)
        self._clock = clock
        self._lock = threading.Lock()
        self._picks = 0

    def pick(self, avoid: Endpoint | None = None) -> Endpoint:
        """Return the endpoint for the next attempt (counted as in flight until `done` or `abandon`).

        `avoid`: the endpoint the previous try of the same call went to; another healthy one is preferred.
        """
        with self._lock:
            now = self._clock()
            healthy = [e for e in self.endpoints if e.rest_until <= now]
            if not healthy:
                healthy = [min(self.endpoints, key=lambda e: e.rest_until)]
            elif avoid is not None and len(healthy) > 1 and avoid in healthy:
                healthy.remove(avoid)
            endpoint = min(healthy, key=lambda e: (e.in_flight, e.last_pick))
            self._picks += 1
            endpoint.last_pick = self._picks
            endpoint.in_flight += 1
            endpoint.requests += 1
            return endpoint

    def done(self, endpoint: Endpoint, failure: Failure | None) -> None:
        """Record the outcome of an attempt on an endpoint (None: it succeeded), resting it after repeated faults."""
        with self._lock:
            endpoint.in_flight -= 1
            if failure is None:
                endpoint.ok += 1
                endpoint.faults_in_row = 0
                endpoint.next_rest_s = FIRST_REST_S
                endpoint.rest_until = 0.0  # an answer proves it is back, even one tried while resting
                return
            endpoint.failed += 1
            if not is_endpoint_fault(failure):
                endpoint.faults_in_row = 0  # it answered: the fault streak is broken
                return
            now = self._clock()
            if endpoint.rest_until > now:
                return  # attempts started before the rest, failing now, neither lengthen nor repeat it
            endpoint.faults_in_row += 1
            if endpoint.faults_in_row >= REST_AFTER_FAULTS:
                endpoint.rest_until = now + endpoint.next_rest_s
                endpoint.next_rest_s = min(endpoint.next_rest_s * 2, LONGEST_REST_S)
                endpoint.rested += 1
                endpoint.faults_in_row = REST_AFTER_FAULTS - 1  # back from rest, one more fault rests it again

    def abandon(self, endpoint: Endpoint) -> None:
        """Record an attempt that ended without an outcome of the endpoint's (cancelled, or a local error)."""
        with self._lock:
            endpoint.in_flight -= 1

    def counts(self) -> dict[str, dict[str, int]]:
        """Return {URL without userinfo: {"requests", "ok", "failed", "rested"}} for every endpoint."""
        out: dict[str, dict[str, int]] = {}
        with self._lock:
            for number, e in enumerate(self.endpoints, start=1):
                key = e.public_url if e.public_url not in out else f"{e.public_url} #{number}"
                out[key] = {"requests": e.requests, "ok": e.ok, "failed": e.failed, "rested": e.rested}
        return out

    def attempts(
        self,
        call: Callable[[Endpoint], Awaitable[T]],
        classify: Callable[[BaseException], Failure | None],
    ) -> Callable[[], Awaitable[T]]:
        """Return an attempt function for `call_with_retries`: each try picks an endpoint, calls, reports.

        A try after a failed one goes to another healthy endpoint when there is one.
        """
        last: Endpoint | None = None

        async def attempt() -> T:
            nonlocal last
            endpoint = last = self.pick(avoid=last)
            try:
                result = await call(endpoint)
            except Exception as exc:
                failure = classify(exc)
                if failure is None:
                    self.abandon(endpoint)
                else:
                    self.done(endpoint, failure)
                raise
            except BaseException:
                self.abandon(endpoint)
                raise
            self.done(endpoint, None)
            return result

        return attempt
