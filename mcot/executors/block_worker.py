"""A worker process of `mcot gen --workers N`: calls a generator's block function for each request, in order.

Started as `python -m mcot.executors.block_worker`; frames of `mcot.executors.wire` on stdin and stdout.
Driver → worker: ("call", module, function, args); worker → driver: ("result", value) or ("error", exception).
Results come back in the order of the calls. Its stdout is moved to stderr (a stray print cannot break the
protocol) and it ignores SIGINT: the driver stops it (end of stdin, or SIGTERM).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from typing import IO, Any, BinaryIO

from mcot.core.ref import Ref
from mcot.executors.wire import HEADER, encode


def read_frame_sync(stream: IO[bytes]) -> list[tuple[Any, ...]] | None:
    """Return the messages of the next frame from a blocking stream, or None at its end."""
    header = _read_exactly(stream, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    data = _read_exactly(stream, size)
    if data is None:
        return None
    messages: list[tuple[Any, ...]] = pickle.loads(data)
    return messages


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """Answer every call until the end of `requests`."""
    while (frame := read_frame_sync(requests)) is not None:
        for _, module, function, args in frame:
            try:
                value = Ref(f"{module}:{function}").resolve()(*args)
                reply = encode([("result", value)])
            except Exception as exc:
                try:
                    reply = encode([("error", exc)])
                except Exception:
                    reply = encode([("error", RuntimeError(f"{type(exc).__name__}: {exc}"))])
            replies.write(reply)
            replies.flush()


def main() -> None:
    """Serve calls on this process's stdin and stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to stderr, never into the protocol
    serve(requests, replies)


if __name__ == "__main__":
    main()
    sys.exit(0)
