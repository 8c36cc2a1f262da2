"""What a strategy of the offline policy is, the view it works from, and the declared strategies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcot.agents.messages import ToolResultPart

from mcot.core.registry import STRATEGIES


@dataclass(frozen=True)
class OfflineView:
    """What the offline policy may look at: the prompt view's text fields, images, and its own tool results.

    `benchmark` only picks the answer format (mcot.agents.prompts' registry); no strategy reads it. The item's
    category and the arm's name are left out on purpose: strategies recognise an item by what a model is
    shown, and what the policy may do comes from `tools`, the tools the request offers. `canvas` is the PNG
    (or JPEG) the model was last shown of the canvas, None when no canvas is open.
    """

    question: str
    choices: tuple[str, ...] | None
    benchmark: str
    answer_type: str
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


@dataclass(frozen=True)
class Strategy:
    """How the policy plays one kind of item.

    `kind` names the item in words ("a block maze"), `recognises` says from the view whether the item is that
    kind, `needs` lists every tool `play` may call, and `play` returns the next move (never None, never
    raising for an unreadable picture). The policy plays only when every needed tool is offered.
    """

    kind: str
    recognises: Callable[[OfflineView], bool]
    play: Callable[[OfflineView], Move]
    needs: tuple[str, ...] = ()

    def missing(self, offered: tuple[str, ...]) -> tuple[str, ...]:
        """Return the needed tools that are not among `offered`, in the order of `needs`."""
        return tuple(name for name in self.needs if name not in offered)


def strategies() -> dict[str, Strategy]:
    """Return the declared strategies (`mcot.core.registry.STRATEGIES`, `mcot.declare_strategy`) in declaration order."""

    return dict(STRATEGIES.items())
