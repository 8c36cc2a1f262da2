"""The strategy registry of the offline policy, and the view a strategy works from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.messages import ToolResultPart


@dataclass(frozen=True)
class OfflineView:
    """What the offline policy may look at: the prompt view's text fields, images, and its own tool results.

    `canvas` is the PNG (or JPEG) the model was last shown of the canvas, None in text mode.
    """

    question: str
    choices: tuple[str, ...] | None
    benchmark: str
    category: str
    answer_type: str
    mode: str
    turn: int
    tools: tuple[str, ...]
    canvas: bytes | None
    images: tuple[bytes, ...]
    tool_results: tuple[ToolResultPart, ...]


@dataclass(frozen=True)
class Move:
    """A strategy's next move: tool calls to make, or (with no calls) the final answer text."""

    text: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = field(default=())


Strategy = Callable[[OfflineView], Move | None]
_REGISTRY: dict[str, Strategy] = {}


def register_strategy(name: str, strategy: Strategy | None = None) -> Any:
    """Register a strategy under `name` (usable as a decorator); return the strategy."""

    def add(fn: Strategy) -> Strategy:
        _REGISTRY[name] = fn
        return fn

    return add(strategy) if strategy is not None else add


def unregister_strategy(name: str) -> None:
    """Remove a registered strategy (no error if absent)."""
    _REGISTRY.pop(name, None)


def strategies() -> dict[str, Strategy]:
    """Return the registered strategies in registration order."""
    return dict(_REGISTRY)
