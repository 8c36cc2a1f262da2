"""Which verifier checks an item: the one its benchmark's declaration names, and the tasks a verifier declares."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mcot.eval.registry import scoring_spec
from mcot.eval.verify.games import VERIFIERS, verify_games_trace
from mcot.eval.verify.verdict import TraceVerdict

from mcot.core.item import Item

VERIFIED_TASKS: dict[Callable[..., TraceVerdict | None], tuple[str, ...]] = {verify_games_trace: tuple(VERIFIERS)}
"""The item categories a benchmark's verifier checks, where it can say so ahead of any trace (the report lists each,
even with no trace); a verifier not here is known by the categories its verdicts came from."""


def verifier_tasks(verifier: Callable[..., TraceVerdict | None] | None) -> tuple[str, ...]:
    """Return the item categories `verifier` declares it checks (VERIFIED_TASKS), () when it declares none."""
    return VERIFIED_TASKS.get(verifier, ()) if verifier is not None else ()


def verify_trace(item: Item, steps: Sequence[dict[str, Any]] | None) -> TraceVerdict | None:
    """Return the verdict of the verifier registered for the item's benchmark, or None when it has none."""

    verifier = scoring_spec(item.benchmark).verifier
    return verifier(item, steps) if verifier is not None else None
