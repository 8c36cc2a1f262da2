"""The pair tasks a run has in flight, and a wait for one of them to finish that costs the same at any number.

`asyncio.wait(tasks, return_when=FIRST_COMPLETED)` adds and removes a callback on every task it is given, each
time it is called: at 256 pairs in flight and a wait per finished pair, that was a sixth of the driver's CPU.
Here each task has one callback for its life, which takes it out of the set and wakes the waiter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any


class InFlight:
    """Tasks that leave the set as they finish; the first exception one of them raises is raised to the waiter."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Event()
        self._error: BaseException | None = None

    def start(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Return a new task running `work`, kept in the set until it finishes."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled():
            error = task.exception()  # retrieved here, so asyncio never reports it as lost
            if error is not None and self._error is None:
                self._error = error
        self._changed.set()

    def wake(self) -> None:
        """Wake the waiter of `changed` without a task finishing (a stop was asked for)."""
        self._changed.set()

    def check(self) -> None:
        """Raise the first exception a finished task raised (a ledger that cannot be written), if any."""
        if self._error is not None:
            raise self._error

    async def changed(self) -> None:
        """Return once a task has finished or `wake` was called; raise as `check` does, before and after."""
        self.check()
        self._changed.clear()
        await self._changed.wait()
        self.check()

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[asyncio.Task[None]]:
        return iter(list(self._tasks))  # a copy: tasks leave the set as they finish
