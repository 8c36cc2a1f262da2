"""One SDK client per event loop: an httpx client is bound to the loop it was made on."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

Client = TypeVar("Client")


class LoopClients(Generic[Client]):
    """Hands out the running loop's client, made by `make` on first use (the SDKs' own retries off there)."""

    def __init__(self, make: Callable[[], Client]) -> None:
        self._make = make
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Client] = weakref.WeakKeyDictionary()

    def get(self) -> Client:
        """Return the running loop's client, made on first use."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = self._make()
        return client
