"""The httpx client mcot hands the OpenAI and Anthropic SDKs: no redirects, bounded bodies, the SDK's own pool.

The SDKs' default clients follow redirects (a 307 to another host re-posts the prompt, the images and the key
there) and read any body whole, decompressing without bound. `sdk_http_client` makes the SDK's own default
client class (its connection limits, proxies from the environment) with `follow_redirects=False` (a 3xx becomes
the SDK's status error, which the backends word as "redirects to …; not followed") and a response hook that
puts every body behind a `BodyDecoder`: counted on the wire and after decompression against `WireLimits`,
gzip and deflate decoded there, so that httpx never inflates without a limit. The whole-request time-out is the
backends' (`asyncio.timeout` around each call): httpx's own time-outs are per read, which a server trickling a
byte a second never trips.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import cache
from typing import Any

from mcot.agents.backends.wire_limits import BodyDecoder, WireLimits

ACCEPTED_ENCODINGS = "gzip, deflate"
"""What the SDK clients ask for: the encodings `BodyDecoder` reads."""


def sdk_http_client(default_client: type[Any], limits: WireLimits, **options: Any) -> Any:
    """Return an instance of an SDK's default async httpx client class that follows no redirect and bounds bodies.

    `default_client`: `openai.DefaultAsyncHttpxClient` or `anthropic.DefaultAsyncHttpxClient`; `options` go to it
    (e.g. `timeout`).
    """
    headers = {"accept-encoding": ACCEPTED_ENCODINGS, **options.pop("headers", {})}
    return default_client(
        follow_redirects=False, headers=headers, event_hooks={"response": [bounded_body(limits)]}, **options
    )


def bounded_body(limits: WireLimits) -> Callable[[Any], Awaitable[None]]:
    """Return an httpx response hook that refuses a body past the limits and decodes it within them."""

    async def hook(response: Any) -> None:
        length = response.headers.get("content-length")
        if length and length.strip().isdigit() and int(length) > limits.max_body_bytes:
            await response.aclose()
            raise limits.too_large(int(length))
        try:
            decoder = BodyDecoder(response.headers.get("content-encoding"), limits)
        except Exception:
            await response.aclose()
            raise
        if decoder.decodes:
            for name in ("content-encoding", "content-length"):
                if name in response.headers:
                    del response.headers[name]
        response.stream = _stream_class(_httpx_of(response))(response.stream, decoder)

    return hook


def _httpx_of(response: Any) -> Any:
    """Return the httpx package a response comes from (the SDKs may ship their own, e.g. `httpx2`)."""
    return sys.modules[type(response).__module__.split(".")[0]]


@cache
def _stream_class(httpx: Any) -> type[Any]:
    """Return a byte-stream class of that httpx package that decodes a wrapped stream through a BodyDecoder."""

    class BoundedStream(httpx.AsyncByteStream):
        def __init__(self, inner: Any, decoder: BodyDecoder) -> None:
            self._inner = inner
            self._decoder = decoder

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self._inner:
                out = self._decoder.feed(chunk)
                if out:
                    yield out
            tail = self._decoder.finish()
            if tail:
                yield tail

        async def aclose(self) -> None:
            await self._inner.aclose()

    return BoundedStream
