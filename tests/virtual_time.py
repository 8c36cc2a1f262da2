"""An asyncio event loop on a virtual clock, for tests of anything that waits on `loop.time()` (rate limits,
back-off, time-outs): a wait of N seconds takes no real time, and `loop.time()` says exactly when each thing ran.

When the loop has nothing ready and its next timer is due in N seconds, the clock jumps N seconds instead of the
loop sleeping; I/O that is ready is still served at once. Work handed to a thread (`asyncio.to_thread`,
`run_in_executor`) takes no virtual time: while any is outstanding the clock stands still and the loop waits for
it for real, so a timer never fires early because a thread was slow. A loop with no timer at all waits for real
I/O as usual. Talking to a server over a socket is not virtual: the clock would jump while a reply is on its way.
Several loops may share one `VirtualClock`, so that what one loop did can be compared with what the next does.

    clock = VirtualClock()
    with asyncio.Runner(loop_factory=lambda: virtual_loop(clock)) as runner:
        runner.run(coroutine())
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable
from typing import Any


class VirtualClock:
    """Seconds on a clock that moves only when a loop on it would otherwise wait."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def advance(self, seconds: float) -> None:
        """Move the clock `seconds` forward."""
        self.now += seconds


class _FastForwardSelector(selectors.DefaultSelector):
    """The default selector, except that a wait with a deadline moves the clock instead of sleeping."""

    def __init__(self, clock: VirtualClock, threads_busy: Callable[[], bool]) -> None:
        super().__init__()
        self._clock = clock
        self._threads_busy = threads_busy

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None or self._threads_busy():  # only real I/O (a thread's result, a socket) can wake the loop
            return list(super().select(timeout))
        events = list(super().select(0))
        if not events and timeout > 0:
            self._clock.advance(timeout)
        return events


class _VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: VirtualClock) -> None:
        self._virtual_clock = clock
        self._in_threads = 0
        super().__init__(selector=_FastForwardSelector(clock, lambda: self._in_threads > 0))

    def time(self) -> float:
        return self._virtual_clock.now

    def run_in_executor(self, executor: Any, func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        future = super().run_in_executor(executor, func, *args)
        self._in_threads += 1
        future.add_done_callback(self._thread_done)
        return future

    def _thread_done(self, _: asyncio.Future[Any]) -> None:
        self._in_threads -= 1


def virtual_loop(clock: VirtualClock | None = None) -> asyncio.AbstractEventLoop:
    """Return a new event loop whose `time()` is `clock` (a fresh clock at 0 when none is given)."""
    return _VirtualTimeLoop(clock if clock is not None else VirtualClock())


def run_virtual(coroutine: Any, clock: VirtualClock | None = None) -> Any:
    """Run `coroutine` to its end on a fresh virtual-time loop (as `asyncio.run` does); return its result."""
    with asyncio.Runner(loop_factory=lambda: virtual_loop(clock)) as runner:
        return runner.run(coroutine)
