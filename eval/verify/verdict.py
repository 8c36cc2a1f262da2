"""The verdict on a trace, and how a verifier picks it from its checks of the candidate drawings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TraceVerdict:
    """The verdict on one trace: valid, invalid (with the first violation) or absent."""

    verdict: str
    violation: str | None = None
    task: str | None = None
    candidates: int = 0
    tool_drawn: int = 0
    """Path-like elements on the final canvas that a tool drew (not credited to the model)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the verdict as the JSON object stored in a score's details."""
        return asdict(self)


@dataclass(frozen=True)
class Check:
    """One candidate drawing checked: whether it satisfies the task, its first violation, how far it got."""

    ok: bool
    violation: str | None
    progress: float


def best(checks: Sequence[Check], candidates: int, task: str) -> TraceVerdict:
    """Return valid if any candidate passed, else invalid with the violation of the one that went furthest."""
    if not checks:
        return TraceVerdict("absent", None, task, 0)
    for check in checks:
        if check.ok:
            return TraceVerdict("valid", None, task, candidates)
    furthest = max(range(len(checks)), key=lambda i: (checks[i].progress, i))
    return TraceVerdict("invalid", checks[furthest].violation, task, candidates)
