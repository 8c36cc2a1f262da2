"""The offline policy's built-in strategies, declared when this module is imported (game items first).

`mcot.builtin` names this module as a source of `mcot.core.registry.STRATEGIES`, so the game strategies (numpy,
the pixel readers) load only when the offline policy first looks for a strategy.
"""

from __future__ import annotations

from mcot.agents.offline.code import STRATEGIES as CODE_STRATEGIES
from mcot.agents.offline.games import STRATEGIES as GAME_STRATEGIES

from mcot.core.declare import declare_strategy

for _name, _strategy in {**GAME_STRATEGIES, **CODE_STRATEGIES}.items():
    declare_strategy(_name, _strategy, replace=True)
