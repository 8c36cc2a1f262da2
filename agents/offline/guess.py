"""The offline policy's fixed guess and its answer when the offered tools cannot solve an item."""

from __future__ import annotations

from collections.abc import Sequence

from mcot.agents.offline.strategies import OfflineView
from mcot.agents.prompts import format_final_answer


def fixed_guess(view: OfflineView) -> str:
    """Return the policy's fixed guess in the benchmark's answer format (first option, 0, yes, 3, …)."""
    value = {"choice": "A", "number": "0", "yesno": "Yes", "rating": "3"}.get(view.answer_type, "unknown")
    if view.answer_type != "choice" and view.choices:
        value = "A"
    return format_final_answer(view.benchmark, value)


def cannot_solve(view: OfflineView, kind: str, missing: Sequence[str]) -> str:
    """Return the answer to an item the policy recognises but cannot solve with the offered tools: what it
    would need, then the fixed guess on the last line."""
    return (
        f"This is {kind}. I cannot solve it with the tools offered here: it needs {_listing(missing)}, "
        "not among the offered tools, so I give my fixed guess.\n"
        f"{fixed_guess(view)}"
    )


def _listing(names: Sequence[str]) -> str:
    """Return names as 'a', 'a and b' or 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
