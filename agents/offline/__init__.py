"""The `offline` policy: deterministic, no key, no network; strategies solve the items they recognise.

A strategy recognises its kind of item from what a model would see (question text, choices, the latest
canvas image) and plays it with the tools it declares, reading the results of its own tool calls. Strategies
are declared by name (`mcot.declare_strategy`); the first that recognises an item plays it, but only when the request offers every
tool it needs: otherwise the policy says what it would need and gives its fixed guess. Everything else gets
the fixed guess in the benchmark's answer format (mcot.agents.prompts' task-format registry). Nothing here can
read an item's answer, meta or category: the policy only receives the model request.

Modules import one way: `strategies` and `pixels` import none of the others, `linework` imports `pixels`,
`guess` imports `strategies`; `games` imports those four; `builtin` imports `games`; `policy` imports `guess`
and `strategies`; this package re-exports.
"""

from mcot.agents.offline.guess import cannot_solve, fixed_guess
from mcot.agents.offline.policy import OfflineBackend, next_move, offline_view
from mcot.agents.offline.strategies import Move, OfflineView, Strategy, strategies

__all__ = [
    "Move",
    "OfflineBackend",
    "OfflineView",
    "Strategy",
    "cannot_solve",
    "fixed_guess",
    "next_move",
    "offline_view",
    "strategies",
]
