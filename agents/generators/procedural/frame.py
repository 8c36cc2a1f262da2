"""Scene units → pixels: a uniform scale with y pointing up, fitted to the image, and small drawing helpers."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Frame:
    """Maps scene coordinates (x right, y up, in the scene's unit) to pixels: px = x0 + x·scale, py = y0 − y·scale."""

    scale: float
    x0: float
    y0: float

    def px(self, x: float, y: float) -> tuple[float, float]:
        """Return the pixel position of the scene point (x, y)."""
        return (self.x0 + x * self.scale, self.y0 - y * self.scale)

    def to_dict(self) -> dict[str, Any]:
        """Return the frame as JSON values: {"px_per_unit", "origin": [px of scene (0, 0)]}."""
        return {"px_per_unit": round(self.scale, 6), "origin": [round(self.x0, 6), round(self.y0, 6)]}


def fit(
    xs: Iterable[float],
    ys: Iterable[float],
    box: tuple[float, float, float, float],
) -> Frame:
    """Return the largest frame that puts every (x in xs, y in ys) inside the pixel ``box`` (left, top, right, bottom).

    The scene's x extent is centred in the box; its y extent is aligned to the box's bottom (y up).
    """
    xs, ys = list(xs), list(ys)
    xmin, xmax = min(xs), max(xs)
    ymin, ymax = min(ys), max(ys)
    left, top, right, bottom = box
    sx = (right - left) / max(xmax - xmin, 1e-9)
    sy = (bottom - top) / max(ymax - ymin, 1e-9)
    scale = min(sx, sy)
    x0 = (left + right) / 2 - (xmin + xmax) / 2 * scale
    y0 = bottom + ymin * scale
    return Frame(scale, x0, y0)


def take(given: Mapping[str, Any], key: str, draw: Callable[[], T]) -> T:
    """Return ``given[key]`` when the scene sets it, else a freshly drawn value (the draw is made either way)."""
    value = draw()
    return given[key] if key in given else value


def uniform(rng: random.Random, low: float, high: float, digits: int = 1) -> float:
    """Return a uniform draw in [low, high] rounded to ``digits`` decimals (scenes stay readable in YAML)."""
    return round(rng.uniform(low, high), digits)


def need(condition: bool, message: str) -> None:
    """Raise ValueError(message) unless ``condition`` holds (scene validation)."""
    if not condition:
        raise ValueError(message)


def number(scene: Mapping[str, Any], key: str, low: float | None = None, high: float | None = None) -> float:
    """Return scene[key] as a float, checking that it is a number in the open range (low, high)."""
    value = scene.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"scene field {key!r} must be a number, got {value!r}")
    if low is not None:
        need(value > low, f"scene field {key!r} must be > {low}, got {value}")
    if high is not None:
        need(value < high, f"scene field {key!r} must be < {high}, got {value}")
    return float(value)


def choice(scene: Mapping[str, Any], key: str, options: tuple[str, ...]) -> str:
    """Return scene[key], checking that it is one of ``options``."""
    value = scene.get(key)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"scene field {key!r} must be one of {', '.join(options)}; got {value!r}")
    return value
