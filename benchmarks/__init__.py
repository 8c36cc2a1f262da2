"""Benchmark items: the mcot item format, native loaders and generators with exact ground truth."""

from mcot.core.item import (
    Item,
    ItemError,
    ItemsWriter,
    PromptView,
    iter_items,
    prompt_view,
    read_items,
    write_items,
)

__all__ = ["Item", "ItemError", "ItemsWriter", "PromptView", "iter_items", "prompt_view", "read_items", "write_items"]
