"""The offline policy's built-in strategies: one call registers them all."""

from __future__ import annotations

from mcot.agents.offline.games import STRATEGIES as GAME_STRATEGIES
from mcot.agents.offline.strategies import register_strategy


def register_builtin_strategies() -> None:
    """Register every built-in strategy (game items first); calling it again changes nothing."""
    for name, strategy in GAME_STRATEGIES.items():
        register_strategy(name, strategy)
