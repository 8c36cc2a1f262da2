"""A worker process of `ProcessExecutor`: one event loop solving many pairs, started as
`python -m mcot.executors.worker` with the protocol of `mcot.executors.wire` on its stdin and stdout.

It writes traces and blobs into the run directory itself (same machine) and returns only the ledger record;
the driver alone appends the ledger. Its stdout is moved to stderr, so that a stray print cannot break the
protocol. It ignores SIGINT and SIGTERM (the driver decides when it stops: a "stop" message, the end of its
stdin when the driver is gone, or SIGKILL after the grace period).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.core.item import Item
from mcot.executors.inprocess import InProcessExecutor
from mcot.executors.wire import Outbox, read_frame

if TYPE_CHECKING:
    from mcot.agents.retry import Failure
    from mcot.executors.inprocess import InProcessExecutor

COUNTS_EVERY_S = 1.0


class WorkerLoop:
    """Reads requests from the driver, solves them concurrently, and sends back records and observer events."""

    def __init__(self, reader: asyncio.StreamReader, transport: asyncio.WriteTransport) -> None:
        self.reader = reader
        self.transport = transport
        self.outbox = Outbox(self._write, self._extra)
        self.events: list[Failure | None] = []
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.executor: InProcessExecutor | None = None
        self._counts: dict[str, Any] = {}
        self._counts_at = 0.0

    def _write(self, data: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(data)

    def _extra(self) -> list[tuple[Any, ...]]:
        """Return the messages to add to a frame: the observer events so far, and the counts once a second."""
        extra: list[tuple[Any, ...]] = []
        if self.events:
            events, self.events = self.events, []
            extra.append(("obs", events))
        now = time.monotonic()
        if now - self._counts_at >= COUNTS_EVERY_S:
            self._counts_at = now
            extra.extend(self._new_counts())
        return extra

    def _new_counts(self) -> list[tuple[Any, ...]]:
        """Return a "counts" message when the endpoint counts changed since the last one sent."""
        if self.executor is None:
            return []
        counts = self.executor.endpoint_counts()
        if not counts or counts == self._counts:
            return []
        self._counts = counts
        return [("counts", counts)]

    def observe(self, event: Failure | None) -> None:
        """Queue one model call's outcome for the driver (sent at the end of this turn of the loop)."""
        self.events.append(event)
        self.outbox.schedule()

    async def serve(self) -> int:
        """Serve until "stop" or the end of the input; return the exit status."""
        first = await read_frame(self.reader)
        if not first or first[0][0] != "init":
            return 2
        _, recipe, run_root, items_dir, relay = first[0]
        try:

            solvers = recipe.build_solvers(self.observe if relay else None)
            self.executor = InProcessExecutor(Path(run_root), Path(items_dir), solvers)
        except Exception as exc:
            self.outbox.put(("failed", f"{type(exc).__name__}: {exc}"))
            await self._drain()
            return 1

        self.outbox.put(("ready", os.getpid()))
        stopping = False
        for message in first[1:]:
            stopping = self._handle(message, Item) or stopping
        while not stopping:
            frame = await read_frame(self.reader)
            if frame is None:
                break
            for message in frame:
                stopping = self._handle(message, Item) or stopping
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        for message in self._new_counts():
            self.outbox.put(message)
        self.outbox.put(("bye",))
        await self._drain()
        return 0

    def _handle(self, message: tuple[Any, ...], item_type: Any) -> bool:
        """Act on one message; return True for "stop"."""
        kind = message[0]
        if kind == "solve":
            _, request, line, arm = message
            self.tasks[request] = asyncio.create_task(self._solve(request, line, arm, item_type))
        elif kind == "cancel":
            task = self.tasks.pop(message[1], None)
            if task is not None:
                task.cancel()
        elif kind == "stop":
            return True
        return False

    async def _solve(self, request: int, line: str, arm: str, item_type: Any) -> None:
        assert self.executor is not None
        try:
            item = item_type.model_validate_json(line)
            record = await self.executor.solve(item, arm)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the driver builds the failure record from its own copy of the item
            self.outbox.put(("fail", request, f"{type(exc).__name__}: {exc}"))
        else:
            self.outbox.put(("done", request, record))
        finally:
            self.tasks.pop(request, None)

    async def _drain(self, timeout_s: float = 5.0) -> None:
        """Let queued frames reach the pipe before the process exits."""
        self.outbox.flush()
        deadline = time.monotonic() + timeout_s
        while self.transport.get_write_buffer_size() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)


async def _serve(proto_in: int, proto_out: int) -> int:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(proto_in, "rb", 0))
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(proto_out, "wb", 0))
    try:
        return await WorkerLoop(reader, transport).serve()
    finally:
        transport.close()


def main() -> None:
    """Run one worker on this process's stdin and stdout; exit with its status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)  # a stray print goes to stderr, never into the protocol
    sys.exit(asyncio.run(_serve(proto_in, proto_out)))


if __name__ == "__main__":
    main()
