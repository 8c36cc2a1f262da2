"""Cost of a model call (USD per million tokens) and of generated images, from the tables in prices.json.

A model missing from a table costs None (unknown), never zero. Dated snapshots match their family by the
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
    text = resources.files("mcot.agents").joinpath("prices.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data["providers"]


@cache
def image_price_table() -> dict[str, dict[str, dict[str, Any]]]:
    """Return {provider: {model: entry}} of the image prices in prices.json (see its "images"."about")."""
    text = resources.files("mcot.agents").joinpath("prices.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data.get("images", {}).get("providers", {})


def _entry(table: dict[str, Any] | None, model: str) -> Any:
    """Return a provider table's entry for a model: `*`, the exact name, else the longest prefixing family."""
    if table is None:
        return None
    if "*" in table:
        return table["*"]
    if model in table:
        return table[model]
    best = max((k for k in table if model.startswith(k + "-")), key=len, default=None)
    return table[best] if best is not None else None


def price_for(provider: str, model: str) -> dict[str, float] | None:
    """Return the price entry of a model, or None when the table does not know it."""
    return _entry(price_table().get(provider), model)


def cost_usd(provider: str, model: str, input_tokens: int, output_tokens: int) -> float | None:
    """Return the cost in USD of the given token counts, or None for a model without a known price.

    Negative counts cost nothing (the backends refuse them; a cost never lowers a budget).
    """
    price = price_for(provider, model)
    if price is None:
        return None
    return (max(input_tokens, 0) * price["input"] + max(output_tokens, 0) * price["output"]) / 1_000_000


def image_cost_usd(
    provider: str,
    model: str,
    n: int,
    *,
    size: str | None = None,
    quality: str | None = None,
    usage: dict[str, Any] | None = None,
) -> float | None:
    """Return the cost in USD of `n` generated images, or None when the table cannot price them.

    Token prices apply when the model has them and `usage` (the Images API's `usage`: input_tokens,
    input_tokens_details {text_tokens, image_tokens}, output_tokens) is given; else the per-image price of
    `quality` and `size` (`WxH`), each defaulting to the model's default. Local generators cost 0.
    """
    entry = _entry(image_price_table().get(provider), model)
    if entry is None:
        return None
    if entry.get("free"):
        return 0.0
    tokens = entry.get("tokens")
    if tokens and usage and usage.get("output_tokens") is not None:
        details = usage.get("input_tokens_details") or {}
        image_in = max(int(details.get("image_tokens") or 0), 0)
        text_in = max(int(details.get("text_tokens") or max(int(usage.get("input_tokens") or 0) - image_in, 0)), 0)
        return (
            text_in * tokens["text_input"]
            + image_in * tokens["image_input"]
            + max(int(usage["output_tokens"]), 0) * tokens["output"]
        ) / 1_000_000
    per_quality = (entry.get("per_image") or {}).get(quality or entry.get("default_quality") or "")
    price = (per_quality or {}).get(size or entry.get("default_size") or "")
    return None if price is None else n * float(price)
