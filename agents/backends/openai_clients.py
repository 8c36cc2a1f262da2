"""One `openai.AsyncOpenAI` client per event loop, with the SDK's own retries off (mcot retries itself)."""

from __future__ import annotations

import asyncio
import weakref

import openai


class OpenAIClients:
    """Hands out the client of the running event loop: an httpx client is bound to the loop it was made on."""

    def __init__(self, key: str, base_url: str | None, timeout_s: float) -> None:
        self._key = key
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )

    def get(self) -> openai.AsyncOpenAI:
        """Return the running loop's client, made on first use."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = openai.AsyncOpenAI(
                api_key=self._key, base_url=self._base_url, max_retries=0, timeout=self._timeout_s
            )
            self._clients[loop] = client
        return client
