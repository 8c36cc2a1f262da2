"""A pool of warm code sessions: started ahead of need, handed to one pair each, never given back.

A session from the pool has its kernel running and the prelude imported; `take()` hands one over at once and
starts a replacement in the background. A session is closed with its pair (never shared between items), so
the pool only ever holds sessions that no cell has touched.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from collections import deque

from mcot.tools.code.kernel import CodeSession
from mcot.tools.code.limits import DEFAULT_LIMITS, CodeLimits

DEFAULT_SIZE = 2
"""Warm sessions kept ready per (limits, isolation) (MCOT_CODE_POOL overrides it; 0 turns the pool off)."""


class SessionPool:
    """Keeps `size` started sessions ready; `take()` returns one (or starts one cold when none is ready yet)."""

    def __init__(self, limits: CodeLimits = DEFAULT_LIMITS, *, isolated: bool = True, size: int = DEFAULT_SIZE):
        self.limits, self.isolated, self.size = limits, isolated, size
        self._ready: deque[CodeSession] = deque()
        self._starting = 0
        self._lock = threading.Lock()
        self._ready_changed = threading.Condition(self._lock)
        self._closed = False
        self.cold_starts = 0

    def take(self) -> CodeSession:
        """Return a started session that no cell has used, and refill the pool.

        A ready session is handed over at once; while sessions are starting, the caller waits for one of them
        (starting more at once would only share the same cores); only when none is ready or starting is one
        started cold, in the caller's thread.
        """
        import time

        deadline = time.monotonic() + self.limits.start_s
        with self._ready_changed:
            while not self._ready and self._starting > 0 and time.monotonic() < deadline:
                self._ready_changed.wait(timeout=0.5)
            session = self._ready.popleft() if self._ready else None
        if session is not None and not session.alive:
            session.close()
            session = None
        self.fill()
        if session is None:
            self.cold_starts += 1
            session = CodeSession(self.limits, isolated=self.isolated).start()
        return session

    def fill(self) -> None:
        """Start sessions in the background until `size` are ready or starting; returns at once."""
        with self._lock:
            wanted = self.size - len(self._ready) - self._starting
            if self._closed or wanted <= 0:
                return
            self._starting += wanted
        for _ in range(wanted):
            threading.Thread(target=self._start_one, name="mcot-code-pool", daemon=True).start()

    def wait_ready(self, count: int | None = None, timeout: float = 120.0) -> int:
        """Wait until `count` (default: the pool's size) sessions are ready; return how many are."""
        import time

        deadline = time.monotonic() + timeout
        wanted = self.size if count is None else count
        while time.monotonic() < deadline:
            with self._lock:
                if len(self._ready) >= wanted or (self._starting == 0 and len(self._ready) < wanted and self._closed):
                    break
            time.sleep(0.02)
        with self._lock:
            return len(self._ready)

    def _start_one(self) -> None:
        session: CodeSession | None = None
        with contextlib.suppress(Exception):  # a failed warm start is retried cold by `take`, where it is reported
            session = CodeSession(self.limits, isolated=self.isolated).start()
        with self._lock:
            self._starting -= 1
            if session is not None and not self._closed:
                self._ready.append(session)
                session = None
            self._ready_changed.notify_all()
        if session is not None:
            session.close()

    def close(self) -> None:
        """Close every ready session; a pool closed takes no more (take still starts sessions cold)."""
        with self._lock:
            self._closed = True
            ready, self._ready = list(self._ready), deque()
        for session in ready:
            session.close()


_POOLS: dict[tuple[CodeLimits, bool], SessionPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(limits: CodeLimits = DEFAULT_LIMITS, *, isolated: bool = True) -> SessionPool:
    """Return this process's pool for (limits, isolation), made on first use and closed when the process ends."""
    with _POOLS_LOCK:
        pool = _POOLS.get((limits, isolated))
        if pool is None:
            size = int(os.environ.get("MCOT_CODE_POOL", DEFAULT_SIZE))
            pool = _POOLS[(limits, isolated)] = SessionPool(limits, isolated=isolated, size=max(0, size))
        return pool


@atexit.register
def _close_pools() -> None:
    for pool in list(_POOLS.values()):
        pool.close()
