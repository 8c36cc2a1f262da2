"""`--max-cost USD`: a run stops starting new pairs once what it has spent reaches the budget.

What a run has spent is the sum of `usage.cost_usd` over every line of its ledger, earlier sessions included
(a retried pair's failed attempts were paid too), so a later command with a larger budget resumes where this
one stopped. Pairs in flight when the budget is reached finish, so a run may overshoot by what they cost.
Cached and replayed model turns cost nothing. What is spent never goes down: a cost that is negative, not a
number or not finite (a ledger written before the backends refused such usage figures) adds nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from mcot.errors import UsageError
from mcot.rundir.results import Result


@dataclass
class CostBudget:
    """Money spent by a run so far against an optional ceiling (None: no ceiling, costs are still summed)."""

    max_usd: float | None
    spent_usd: float = 0.0

    def add(self, record: Result) -> None:
        """Add one ledger line's cost (a line without a known cost adds nothing)."""
        cost = record.usage.cost_usd
        if cost is not None and math.isfinite(cost) and cost > 0:
            self.spent_usd += cost

    def add_all(self, records: Iterable[Result]) -> None:
        """Add every ledger line of earlier sessions."""
        for record in records:
            self.add(record)

    @property
    def reached(self) -> bool:
        """Return whether no new pair may start."""
        return self.max_usd is not None and self.spent_usd >= self.max_usd


def check_priced(max_usd: float | None, provider: str, model: str, spec: str) -> None:
    """Refuse `--max-cost` for a model without a known price (UsageError naming it); accept anything else."""
    if max_usd is None:
        return
    if not max_usd > 0:
        raise UsageError(f"--max-cost must be a positive amount of USD, got {max_usd}")
    from mcot.agents.pricing import price_for

    if price_for(provider, model) is None:
        raise UsageError(
            f"--max-cost needs the price of {spec}, and agents/prices.json has none for {provider} {model!r}; "
            "add it there or run without --max-cost"
        )


def usd(amount: float) -> str:
    """Return an amount of money for people: `$12.34`, or four decimals below a dollar (`$0.0045`)."""
    return f"${amount:,.2f}" if abs(amount) >= 1 else f"${amount:.4f}"
