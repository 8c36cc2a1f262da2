"""Validation and canonicalisation of operation arguments.

Every function here returns the canonical form of a value (floats, lists, lowercase colours) or raises
CanvasError with a message that names the argument, what was wrong and what is allowed.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any

from mcot.canvas._errors import CanvasError
from mcot.canvas._limits import MAX_COORD, MAX_PATH_POINTS, MAX_TEXT_CHARS
from PIL import ImageColor

_HEX = re.compile(r"^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")


def number(
    name: str, value: Any, *, low: float | None = None, high: float | None = None, low_open: bool = False
) -> float:
    """Return ``value`` as a finite float within [low, high] (``(low, high]`` when low_open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise CanvasError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    try:
        result = float(value)
    except OverflowError:
        raise CanvasError(f"{name} is too large a number to read (the largest is about 1e308)") from None
    if not math.isfinite(result):
        raise CanvasError(f"{name} must be a finite number, got {result!r} (NaN and infinity are not allowed)")
    if low is not None and (result < low or (low_open and result == low)):
        bound = f"> {low:g}" if low_open else f">= {low:g}"
        allowed = f"{bound} and <= {high:g}" if high is not None else bound
        raise CanvasError(f"{name} is {result:g}, out of range: it must be {allowed}")
    if high is not None and result > high:
        lower = (f"> {low:g}" if low_open else f">= {low:g}") if low is not None else None
        allowed = f"{lower} and <= {high:g}" if lower else f"<= {high:g}"
        raise CanvasError(f"{name} is {result:g}, out of range: it must be {allowed}")
    return result


def integer(name: str, value: Any, *, low: int, high: int) -> int:
    """Return ``value`` as an int within [low, high]; integral floats such as 50.0 are accepted."""
    result = number(name, value, low=low, high=high)
    if result != int(result):
        raise CanvasError(f"{name} must be a whole number, got {result:g}")
    return int(result)


def coordinate(name: str, value: Any) -> float:
    """Return a coordinate as a float; coordinates outside the image are allowed within +-MAX_COORD."""
    return number(name, value, low=-MAX_COORD, high=MAX_COORD)


def point(name: str, value: Any) -> list[float]:
    """Return an ``[x, y]`` pair of finite floats in pixel coordinates."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) != 2:
        raise CanvasError(f"{name} must be a point [x, y] of two numbers (pixels, origin top-left), got {value!r}")
    return [coordinate(f"{name}[0] (x)", value[0]), coordinate(f"{name}[1] (y)", value[1])]


def points(name: str, value: Any, *, minimum: int) -> list[list[float]]:
    """Return a list of at least ``minimum`` points ``[[x, y], ...]``."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise CanvasError(f"{name} must be a list of points [[x, y], ...], got {value!r}")
    if not minimum <= len(value) <= MAX_PATH_POINTS:
        raise CanvasError(f"{name} has {len(value)} points; it needs between {minimum} and {MAX_PATH_POINTS}")
    return [point(f"{name}[{i}]", p) for i, p in enumerate(value)]


def region(name: str, value: Any) -> list[float]:
    """Return a rectangle ``[x0, y0, x1, y1]`` with x0 < x1 and y0 < y1."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) != 4:
        raise CanvasError(f"{name} must be a rectangle [x0, y0, x1, y1] of four numbers, got {value!r}")
    x0, y0, x1, y1 = (coordinate(f"{name}[{i}]", v) for i, v in enumerate(value))
    if not (x0 < x1 and y0 < y1):
        raise CanvasError(f"{name} {[x0, y0, x1, y1]} is empty: it needs x0 < x1 and y0 < y1")
    return [x0, y0, x1, y1]


def boolean(name: str, value: Any) -> bool:
    """Return ``value`` if it is a bool (true/false), else raise."""
    if not isinstance(value, bool):
        raise CanvasError(f"{name} must be true or false, got {value!r}")
    return value


def text(name: str, value: Any, *, allow_empty: bool = False) -> str:
    """Return a string of at most MAX_TEXT_CHARS characters."""
    if not isinstance(value, str):
        raise CanvasError(f"{name} must be a string, got {value!r} ({type(value).__name__})")
    if len(value) > MAX_TEXT_CHARS:
        raise CanvasError(f"{name} has {len(value)} characters; at most {MAX_TEXT_CHARS} are allowed")
    if not allow_empty and not value.strip():
        raise CanvasError(f"{name} must not be empty")
    return value


def color(name: str, value: Any) -> str:
    """Return a colour in canonical form: a lowercase CSS colour name or ``#rrggbb``."""
    if not isinstance(value, str):
        raise CanvasError(f"{name} must be a colour string (a CSS name such as 'red' or '#rrggbb'), got {value!r}")
    candidate = value.strip().lower()
    if _HEX.match(candidate):
        if len(candidate) == 4:
            candidate = "#" + "".join(c * 2 for c in candidate[1:])
        return candidate
    if candidate in ImageColor.colormap:
        return candidate
    raise CanvasError(
        f"{name} {value!r} is not a known colour: use a CSS colour name (red, blue, green, orange, purple, "
        "black, white, gray, ...) or a hex colour '#rrggbb'"
    )


def rgb(value: str) -> tuple[float, float, float]:
    """Return the (r, g, b) components in [0, 1] of a canonical colour."""
    r, g, b = ImageColor.getrgb(value)[:3]
    return r / 255.0, g / 255.0, b / 255.0


def element_id(value: Any, known: Any) -> str:
    """Return ``value`` if it names an element in ``known`` (a mapping of ids), else raise."""
    if not isinstance(value, str):
        raise CanvasError(f"element id must be a string such as 'e1', got {value!r}")
    if value not in known:
        listed = ", ".join(list(known)[:20]) or "none"
        raise CanvasError(f"unknown element id {value!r}; the canvas has: {listed}")
    return value
