"""Export a run as a multimodal chain-of-thought dataset: one record per (item, arm), in a format and a view.

Formats: `jsonl` (a folder: records.jsonl plus images/), `parquet` (one file, images embedded), `hf` (a
`datasets` folder for `load_from_disk` and `load_dataset`). Views: `records` (item, answer, score, trace),
`messages` (OpenAI-style chat for SFT of a tool-using VLM), `llava` (LLaVA `conversations`). Both are
declared (`mcot.core.registry.EXPORT_FORMATS`, `EXPORT_VIEWS`): a plugin adds its own. docs/export.md.
"""

from mcot.export.output import ExportError
from mcot.export.pipeline import ExportSummary, export_run

__all__ = ["ExportError", "ExportSummary", "export_run"]
