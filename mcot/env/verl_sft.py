"""`SFTDataset`: verl's MultiTurnSFTDataset over an `mcot export --as verl-sft` parquet file.

The export stores each row's tool definitions as JSON text (tool schemas have no single Arrow type); verl 0.9's
MultiTurnSFTDataset hands the column to the chat template as it reads it, so this subclass parses it first. Name it
in verl's SFT config: `data.custom_cls.path=pkg://mcot.env.verl_sft data.custom_cls.name=SFTDataset`.
"""

from __future__ import annotations

import json
from typing import Any

from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset


class SFTDataset(MultiTurnSFTDataset):
    """MultiTurnSFTDataset whose `tools` column (JSON text in mcot's export) is parsed into tool definitions."""

    def _read_files_and_process(self) -> None:
        super()._read_files_and_process()
        read: Any = getattr(self, "tools", None)  # set by verl's reader: its column of each row's tools
        if read is not None:
            self.tools = [parse_tools(tools) for tools in read]


def parse_tools(value: Any) -> list[dict[str, Any]] | None:
    """Return tool definitions from JSON text (an empty text or list as None, which the chat template skips)."""
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else None
    return value or None
