"""Cost of a model call from the price table in prices.json (USD per million tokens).

A model missing from the table costs None (unknown), never zero. Dated snapshots match their family by the
longest table key that prefixes the model name (`gpt-4o-2024-08-06` → `gpt-4o`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def price_table() -> dict[str, dict[str, dict[str, float]]]:
    """Return {provider: {model: {"input": usd_per_mtok, "output": usd_per_mtok}}} from prices.json."""
    text = resources.files("agents").joinpath("prices.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data["providers"]


def price_for(provider: str, model: str) -> dict[str, float] | None:
    """Return the price entry of a model, or None when the table does not know it."""
    table = price_table().get(provider)
    if table is None:
        return None
    if "*" in table:
        return table["*"]
    if model in table:
        return table[model]
    best = max((k for k in table if model.startswith(k + "-")), key=len, default=None)
    return table[best] if best is not None else None


def cost_usd(provider: str, model: str, input_tokens: int, output_tokens: int) -> float | None:
    """Return the cost in USD of the given token counts, or None for a model without a known price."""
    price = price_for(provider, model)
    if price is None:
        return None
    return (input_tokens * price["input"] + output_tokens * price["output"]) / 1_000_000
