"""Accuracy per dollar and per 1,000 tokens: the two ratios of mcot.eval.cost, shared with `mcot compare`.

A ratio is over every pair of its group: when some pair's cost (or tokens) is unknown the ratio is unknown
(None), never one over the pairs that know it; when the total is 0 (the offline policy, a scripted model) it is
undefined (None).
"""

from __future__ import annotations

from collections.abc import Sequence

from mcot.core.rundir import Result

EFFICIENCY_NOTE = (
    "correct / $ = correct answers / total cost, correct / 1k tokens = correct / (tokens / 1000), over the paired "
    "items (failed pairs included: they were paid, and are wrong); — when some pair's cost or tokens are unknown "
    "or the total is 0"
)


def correct_per_usd(correct: int, costs: Sequence[float | None]) -> float | None:
    """Return correct answers per dollar of `costs` (one per pair); None when one is unknown or they sum to 0."""
    if not costs or any(cost is None for cost in costs):
        return None
    total = sum(cost for cost in costs if cost is not None)
    return correct / total if total > 0 else None


def correct_per_1k_tokens(correct: int, tokens: Sequence[int | None]) -> float | None:
    """Return correct answers per 1,000 tokens (one count per pair); None when one is unknown or they sum to 0."""
    if not tokens or any(count is None for count in tokens):
        return None
    total = sum(count for count in tokens if count is not None)
    return correct / (total / 1000) if total > 0 else None


def pair_tokens(result: Result) -> int | None:
    """Return a result's input plus output tokens, or None when either is unknown."""
    usage = result.usage
    if usage.input_tokens is None or usage.output_tokens is None:
        return None
    return usage.input_tokens + usage.output_tokens


def paired_efficiency(results: Sequence[Result | None], correct: int) -> dict[str, float | None]:
    """Return the tokens and the two ratios of paired results with `correct` right answers among them:
    {"tokens" (total over those that know it), "tokens_known", "correct_per_usd", "correct_per_1k_tokens"}.
    A missing result (None) makes both ratios unknown."""
    tokens = [pair_tokens(result) if result is not None else None for result in results]
    costs = [result.usage.cost_usd if result is not None else None for result in results]
    known = [count for count in tokens if count is not None]
    return {
        "tokens": float(sum(known)) if known else None,
        "tokens_known": float(len(known)),
        "correct_per_usd": correct_per_usd(correct, costs),
        "correct_per_1k_tokens": correct_per_1k_tokens(correct, tokens),
    }
