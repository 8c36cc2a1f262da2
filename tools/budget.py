"""Time caps for tool calls: a per-call deadline that long-running loops check cooperatively."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from mcot.tools.errors import ToolTimeout

DEFAULT_SECONDS = 5.0
"""Wall-clock budget of one tool call, in seconds."""

_deadline: ContextVar[tuple[float, Callable[[], float]] | None] = ContextVar("tools_deadline", default=None)


@contextmanager
def time_budget(seconds: float = DEFAULT_SECONDS, *, clock: Callable[[], float] = time.monotonic) -> Iterator[None]:
    """Run the body with a deadline `seconds` from now on `clock`; `check_time` raises once it has passed.

    `clock` is for tests: one that ticks per reading makes a time-out happen at a known check, whatever the load.
    """
    token = _deadline.set((clock() + seconds, clock))
    try:
        yield
    finally:
        _deadline.reset(token)


def check_time(what: str = "the computation") -> None:
    """Return None while the current call's deadline has not passed; raise ToolTimeout after it."""
    current = _deadline.get()
    if current is None:
        return
    deadline, clock = current
    if clock() > deadline:
        raise ToolTimeout(
            f"{what} ran past the {DEFAULT_SECONDS:g} s time limit of a tool call; "
            "ask for less work (fewer steps, bounces or events, a smaller region or a simpler expression)"
        )
