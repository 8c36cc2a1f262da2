"""Which code session belongs to which pair: one session per canvas (a canvas is one (item, arm) pair's).

A solve reserves a session for its canvas (`reserve`: the item's images, the sandbox or not); the session is
taken from the warm pool at the pair's first `python` call, so a pair that never runs code costs no session,
and it is closed when the pair ends (`release`). A `python` call on a canvas with nothing reserved (`mcot tools
call python`, a training episode) gets a session of its own on first use, with the canvas's base image as
`image`, closed when the canvas is released or garbage-collected.
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
_RESERVED: dict[int, tuple[list[Path], bool, CodeLimits]] = {}
_OPENING: dict[int, threading.Lock] = {}
_LOCK = threading.RLock()


def reserve(canvas: Any, images: list[Path], *, isolated: bool = True, limits: CodeLimits = DEFAULT_LIMITS) -> None:
    """Say which images and sandbox the canvas's session will have, once its first cell runs; returns nothing."""
    with _LOCK:
        _RESERVED[id(canvas)] = (list(images), isolated, limits)
    weakref.finalize(canvas, _unreserve, id(canvas))


def _unreserve(key: int) -> None:
    with _LOCK:
        _RESERVED.pop(key, None)


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
    """Return the session bound to `canvas`, opening one on first use (as reserved, else isolated, default limits,
    the canvas's base image)."""
    key = id(canvas)
    with _LOCK:
        bound = _SESSIONS.get(key)
        if bound is not None:
            return bound[0]
        opening = _OPENING.setdefault(key, threading.Lock())
    with opening:  # one opening per canvas, even when two calls race; other canvases do not wait for it
        with _LOCK:
            bound = _SESSIONS.get(key)
            reserved = _RESERVED.get(key)
        if bound is not None:
            return bound[0]
        try:
            if reserved is None:
                return open_session(canvas)
            images, isolated, limits = reserved
            return open_session(canvas, images, isolated=isolated, limits=limits)
        finally:
            with _LOCK:
                _OPENING.pop(key, None)


def bound_session(canvas: Any) -> CodeSession | None:
    """Return the session bound to `canvas`, or None."""
    with _LOCK:
        bound = _SESSIONS.get(id(canvas))
    return bound[0] if bound is not None else None


def release(canvas: Any) -> None:
    """Close the session bound to `canvas`, if any; returns nothing."""
    with _LOCK:
        bound = _SESSIONS.pop(id(canvas), None)
        _RESERVED.pop(id(canvas), None)
    if bound is not None:
        bound[1].detach()
        bound[0].close()


def _forget(key: int, session: CodeSession) -> None:
    with _LOCK:
        if key in _SESSIONS and _SESSIONS[key][0] is session:
            del _SESSIONS[key]
    session.close()
