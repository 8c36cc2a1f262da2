"""The well-kept alternative to `mcot.agents.backends.plain_http.PlainHTTPClient`, for measuring side by side.

`AiohttpJSONClient` speaks the same interface (`post_json`, `close`, the same errors) over an aiohttp
`ClientSession` set up as a careful user would: a `TCPConnector` with room for 1,024 connections and the
same 4 s keep-alive expiry, aiohttp's C parser with its `max_line_size`/`max_field_size`, no redirects, a
total time-out per request, the body read in chunks against mcot's body limit. `install()` puts it in place of
the plain client for the process (perf scripts only); run as a script it is `mcot` with it installed:

    python perf/aiohttp_client.py run --data … --model openai-compatible:m --base-url http://127.0.0.1:8000/v1 …
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from mcot.agents.backends import plain_http
from mcot.agents.backends.plain_http import HTTPConnectionError, HTTPTimeout, JSONRecord, checked_headers, status_error
from mcot.agents.backends.wire_limits import WireLimits


class AiohttpJSONClient:
    """POSTs JSON to one server over an aiohttp session made on first use in the running loop."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout_s: float = 180.0,
        limits: WireLimits | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.limits = limits or WireLimits()
        self._headers = checked_headers({"User-Agent": "mcot", "Accept": "application/json", **(headers or {})})
        self._session: Any = None

    def _open(self) -> Any:
        import aiohttp

        connector = aiohttp.TCPConnector(limit=1024, keepalive_timeout=plain_http.IDLE_EXPIRY_S)
        return aiohttp.ClientSession(
            headers=self._headers, connector=connector, timeout=aiohttp.ClientTimeout(total=self.timeout_s)
        )

    async def post_json(self, path: str, payload: Any) -> Any:
        """Return the JSON answer to POSTing `payload` to base_url + path (objects as `JSONRecord`s)."""
        import aiohttp

        if self._session is None:
            self._session = self._open()
        url = self.base_url + path
        limit = self.limits.max_body_bytes
        try:
            async with self._session.post(url, json=payload, allow_redirects=False) as response:
                parts, size = [], 0
                async for chunk in response.content.iter_chunked(1 << 16):
                    size += len(chunk)
                    if size > limit:
                        raise self.limits.too_large(size, "after decompression")
                    parts.append(chunk)
                data = b"".join(parts)
                status, headers = response.status, {k.lower(): v for k, v in response.headers.items()}
        except TimeoutError:
            raise HTTPTimeout(f"request timed out after {self.timeout_s:g} s", url) from None
        except aiohttp.ClientError as exc:
            raise HTTPConnectionError(f"{type(exc).__name__}: {exc}", url) from None
        if status >= 300:
            raise status_error(status, headers, data, url)
        return json.loads(data, object_hook=JSONRecord)

    def close(self) -> None:
        """Drop the session (its connections close with the loop)."""
        self._session = None


def install() -> None:
    """Make every OpenAI-compatible backend of this process use `AiohttpJSONClient` instead of the plain client."""
    from mcot.agents.backends import openai_chat

    openai_chat.PlainHTTPClient = AiohttpJSONClient  # type: ignore[misc,assignment]


if __name__ == "__main__":
    install()
    from mcot.cli import main

    sys.argv = ["mcot", *sys.argv[1:]]
    main()
