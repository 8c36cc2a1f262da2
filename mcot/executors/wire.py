"""The driver↔worker pipe protocol: length-prefixed frames, each one pickled list of small messages.

Messages are tuples whose first element names them. Everything queued during one turn of the event loop goes
out as one frame (`Outbox`), so a burst of pairs or results costs one write and one pickle, not one each.
Driver → worker: ("init", recipe, run_root, items_dir, relay), ("solve", id, item_json_line, arm),
("cancel", id), ("stop",). Worker → driver: ("ready", pid), ("failed", reason), ("done", id, record),
("fail", id, reason), ("obs", [Failure | None, ...]), ("counts", {url: counts}), ("bye",).
"""

from __future__ import annotations

import asyncio
import pickle
import struct
from collections.abc import Callable
from typing import Any

HEADER = struct.Struct("!I")
MAX_FRAME = 1 << 30


def encode(messages: list[tuple[Any, ...]]) -> bytes:
    """Return one frame holding `messages`: a 4-byte length, then their pickle."""
    data = pickle.dumps(messages, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) >= MAX_FRAME:
        raise ValueError(f"a frame of {len(data)} bytes is too large for the worker pipe")
    return HEADER.pack(len(data)) + data


async def read_frame(reader: asyncio.StreamReader) -> list[tuple[Any, ...]] | None:
    """Return the messages of the next frame, or None at the end of the stream (the other side is gone)."""
    try:
        header = await reader.readexactly(HEADER.size)
        (size,) = HEADER.unpack(header)
        data = await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        return None
    messages: list[tuple[Any, ...]] = pickle.loads(data)
    return messages


class Outbox:
    """Messages queued during one turn of the event loop, written as one frame at the end of the turn."""

    def __init__(
        self, write: Callable[[bytes], None], extra: Callable[[], list[tuple[Any, ...]]] | None = None
    ) -> None:
        """`write` sends a frame; `extra`, asked at each flush, returns messages to append (pending events)."""
        self._write = write
        self._extra = extra
        self._messages: list[tuple[Any, ...]] = []
        self._scheduled = False

    def put(self, message: tuple[Any, ...]) -> None:
        """Queue a message for this turn's frame."""
        self._messages.append(message)
        self.schedule()

    def schedule(self) -> None:
        """Make sure a flush runs at the end of this turn of the loop."""
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write everything queued as one frame (nothing when the queue is empty)."""
        self._scheduled = False
        if self._extra is not None:
            self._messages.extend(self._extra())
        if self._messages:
            messages, self._messages = self._messages, []
            self._write(encode(messages))
