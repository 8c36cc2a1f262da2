"""Which code session belongs to which pair: one session per canvas (a canvas is one (item, arm) pair's).

A solve attaches a session from the pool to its canvas with the item's images loaded, and releases it when
the pair ends. A `python` call on a canvas without one (`mcot tools call python`, a training episode) gets a
session of its own on first use, with the canvas's base image as `image`, closed when the canvas is released
or garbage-collected.
"""

from __future__ import annotations

import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any

from mcot.tools.code.kernel import CodeSession
from mcot.tools.code.limits import DEFAULT_LIMITS, CodeLimits
from mcot.tools.code.pool import shared_pool

_SESSIONS: dict[int, tuple[CodeSession, weakref.finalize]] = {}
_LOCK = threading.Lock()


def attach(canvas: Any, session: CodeSession) -> CodeSession:
    """Bind `session` to `canvas` (closing any session bound before); return the session."""
    release(canvas)
    finalizer = weakref.finalize(canvas, _forget, id(canvas), session)
    with _LOCK:
        _SESSIONS[id(canvas)] = (session, finalizer)
    return session


def open_session(
    canvas: Any,
    images: list[Path] | None = None,
    *,
    limits: CodeLimits = DEFAULT_LIMITS,
    isolated: bool = True,
) -> CodeSession:
    """Return a session from the warm pool bound to `canvas`, the images (default: the canvas base) loaded."""
    session = shared_pool(limits, isolated=isolated).take()
    try:
        if images is None and canvas is not None:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "image.png"
                canvas.base.save(path)
                session.load_images([path])
        else:
            session.load_images(list(images or []))
    except BaseException:
        session.close()
        raise
    return attach(canvas, session)


def session_for(canvas: Any) -> CodeSession:
    """Return the session bound to `canvas`, opening one (isolated, default limits) on first use."""
    with _LOCK:
        bound = _SESSIONS.get(id(canvas))
    if bound is not None:
        return bound[0]
    return open_session(canvas)


def bound_session(canvas: Any) -> CodeSession | None:
    """Return the session bound to `canvas`, or None."""
    with _LOCK:
        bound = _SESSIONS.get(id(canvas))
    return bound[0] if bound is not None else None


def release(canvas: Any) -> None:
    """Close the session bound to `canvas`, if any; returns nothing."""
    with _LOCK:
        bound = _SESSIONS.pop(id(canvas), None)
    if bound is not None:
        bound[1].detach()
        bound[0].close()


def _forget(key: int, session: CodeSession) -> None:
    with _LOCK:
        if key in _SESSIONS and _SESSIONS[key][0] is session:
            del _SESSIONS[key]
    session.close()
