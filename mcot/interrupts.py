"""Ctrl-C and SIGTERM during a run: stop starting pairs, let those in flight finish for a few seconds, cancel
the rest, and leave the ledger consistent. A second signal cancels at once (still consistent: a cancelled pair
writes nothing, and the ledger is closed on the way out).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from dataclasses import dataclass, field

GRACE_S = 5.0
EXIT_INTERRUPTED = 130
SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class Interrupts:
    """The run's stop state, set by signal handlers on the running loop (or by `request()` directly)."""

    grace_s: float = GRACE_S
    on_first: Callable[[], None] | None = None
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    forced: asyncio.Event = field(default_factory=asyncio.Event)

    def install(self) -> None:
        """Handle SIGINT and SIGTERM on the running loop (where the platform lets a loop do so)."""
        loop = asyncio.get_running_loop()
        for sig in SIGNALS:
            try:
                loop.add_signal_handler(sig, self.request, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or Windows
                pass

    def uninstall(self) -> None:
        """Give the signals back to their default handlers."""
        loop = asyncio.get_running_loop()
        for sig in SIGNALS:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass

    def request(self, sig: signal.Signals | None = None) -> None:
        """Take one stop request: the first stops new work, the second forces the stop."""
        if self.stopping.is_set():
            self.forced.set()
            return
        self.stopping.set()
        if self.on_first is not None:
            self.on_first()

    @property
    def interrupted(self) -> bool:
        """Return whether a stop was asked for."""
        return self.stopping.is_set()
