"""Adaptive concurrency: additive increase, multiplicative decrease on a provider's overload answers.

`--concurrency K` is the ceiling. Each 429/503/529 answer (seen by the backends' retry loop and passed to
`on_call`) halves the number of pairs the runner keeps in flight, at most once a second so that one burst of
answers to requests sent together counts once; after as many successful calls as the current limit (about one
round of requests) it rises by one again, back up to K.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcot.agents.retry import is_overload

if TYPE_CHECKING:
    from mcot.agents.retry import Failure

DECREASE_FACTOR = 0.5
DECREASE_SPACING_S = 1.0


@dataclass
class AdaptiveConcurrency:
    """The number of pairs a run may keep in flight now, between 1 and `ceiling`."""

    ceiling: int
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    limit: int = 0
    overloads: int = 0
    decreases: int = 0
    _successes: int = 0
    _last_decrease: float = float("-inf")
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.ceiling < 1:
            raise ValueError(f"the concurrency ceiling must be at least 1, got {self.ceiling}")
        self.limit = self.limit or self.ceiling

    def on_call(self, failure: Failure | None) -> None:
        """Take one model call's outcome: None (success) or its classified failure."""

        with self._lock:
            if failure is None:
                self._successes += 1
                if self.limit < self.ceiling and self._successes >= self.limit:
                    self.limit += 1
                    self._successes = 0
                return
            if not is_overload(failure):
                return
            self.overloads += 1
            now = self.clock()
            if now - self._last_decrease < DECREASE_SPACING_S:
                return
            self._last_decrease = now
            self._successes = 0
            lowered = max(1, int(self.limit * DECREASE_FACTOR))
            if lowered < self.limit:
                self.limit = lowered
                self.decreases += 1

    def describe(self) -> str:
        """Return the progress line's concurrency field, e.g. `16` or `4/16 (lowered after 7 overload answers)`."""
        if self.limit == self.ceiling and not self.decreases:
            return str(self.ceiling)
        return f"{self.limit}/{self.ceiling} (lowered after {self.overloads} overload answers)"
