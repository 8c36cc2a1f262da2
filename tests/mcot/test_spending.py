"""--max-cost: what a run has spent, and the refusal of a budget for a model without a price."""

import pytest

from mcot.errors import UsageError
from mcot.rundir import Result
from mcot.spending import CostBudget, check_priced


def test_the_budget_counts_every_ledger_line_and_stops_at_the_ceiling() -> None:
    budget = CostBudget(1.0)
    lines = [{"status": "error", "usage": {"cost_usd": 0.4}}, {"status": "ok", "usage": {"cost_usd": 0.5}}]
    budget.add_all(Result.from_line({"id": "q", "mode": "text", **line}) for line in lines)
    assert not budget.reached
    budget.add(Result.from_line({"id": "q", "mode": "text", "status": "ok", "usage": {"cost_usd": 0.2}}))
    assert budget.reached
    assert budget.spent_usd == pytest.approx(1.1)


def test_max_cost_without_a_price_is_refused_naming_the_model() -> None:
    check_priced(2.0, "openai", "gpt-4o", "openai:gpt-4o")
    check_priced(None, "openai-compatible", "my-model", "openai-compatible:my-model")
    with pytest.raises(UsageError, match="openai-compatible:my-model"):
        check_priced(2.0, "openai-compatible", "my-model", "openai-compatible:my-model")
    with pytest.raises(UsageError, match="positive"):
        check_priced(0.0, "openai", "gpt-4o", "openai:gpt-4o")
