"""The `offline` policy: deterministic, no key, no network; strategies solve the items they recognise.

A strategy looks at what a model would see (question text, choices, the latest canvas image, the results
of its own tool calls) and returns the next move, or None when the item is not its kind. Strategies are
registered by name; the first that recognises an item plays it. Everything else gets a fixed guess in the
benchmark's answer format. Nothing here can read an item's answer or meta: the policy only receives the
model request.
"""

from agents.offline.policy import OfflineBackend, fixed_guess
from agents.offline.strategies import Move, OfflineView, Strategy, register_strategy, strategies, unregister_strategy

__all__ = [
    "Move",
    "OfflineBackend",
    "OfflineView",
    "Strategy",
    "fixed_guess",
    "register_strategy",
    "strategies",
    "unregister_strategy",
]
