"""Time caps for tool calls: a per-call deadline that long-running loops check cooperatively."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from mcot.tools.errors import ToolTimeout

DEFAULT_SECONDS = 5.0
"""Wall-clock budget of one tool call, in seconds."""

_deadline: ContextVar[float | None] = ContextVar("tools_deadline", default=None)


@contextmanager
def time_budget(seconds: float = DEFAULT_SECONDS) -> Iterator[None]:
    """Run the body with a deadline `seconds` from now; `check_time` raises once it has passed."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def check_time(what: str = "the computation") -> None:
    """Return None while the current call's deadline has not passed; raise ToolTimeout after it."""
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise ToolTimeout(
            f"{what} ran past the {DEFAULT_SECONDS:g} s time limit of a tool call; "
            "ask for less work (fewer steps, bounces or events, a smaller region or a simpler expression)"
        )
