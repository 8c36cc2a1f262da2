"""mcot: multimodal chain-of-thought with a canvas.

The installed package holds the rooms (`mcot.agents`, `mcot.canvas`, `mcot.tools`, `mcot.benchmarks`,
`mcot.eval`), the ground floor every room may use (`mcot.registry`, `mcot.rundir`, `mcot.plugins`), and the CLI
and run orchestration (`mcot.cli`, `mcot.runner`, `mcot.commands`). This module re-exports the public
declaration API (`mcot.declare`): `mcot.declare_benchmark`, `mcot.tool`, `mcot.declare_backend`, …, and the
types a plugin's functions take and return (`mcot.Scorer`, `mcot.Score`, `mcot.Tally`, `mcot.Context`, …). Names are
imported on first use, so `import mcot` costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.lazy import lazy_exports

__version__ = "0.1.0"

_DECLARE = (
    "AnswerForm",
    "Benchmark",
    "ExportFormat",
    "ExportView",
    "ItemGenerator",
    "Loader",
    "Toolset",
    "declare_answer_form",
    "declare_backend",
    "declare_benchmark",
    "declare_export_format",
    "declare_export_view",
    "declare_generator",
    "declare_item_generator",
    "declare_loader",
    "declare_protocol",
    "declare_strategy",
    "declare_toolset",
    "declare_tools",
    "tool",
)
_PLUGIN_TYPES = (
    "Context",
    "Output",
    "Tally",
    "LoadedItem",
    "Skip",
    "Scorer",
    "ScoringProtocol",
    "Score",
    "Result",
    "Strategy",
    "OfflineView",
    "Move",
)
"""The types of the plugin API (`mcot.declare.PLUGIN_TYPES`): a protocol's, a loader's, a tool's, a strategy's."""
_EXPORTS = {
    **dict.fromkeys(_DECLARE, "mcot.declare"),
    **dict.fromkeys(_PLUGIN_TYPES, "mcot.declare"),
    "Ref": "mcot.registry",
    "Registry": "mcot.registry",
    "RegistryError": "mcot.registry",
}

if TYPE_CHECKING:
    from mcot.agents.offline.strategies import Move, OfflineView, Strategy
    from mcot.benchmarks.loaders._types import LoadedItem, Skip, Tally
    from mcot.declare import (
        AnswerForm,
        Benchmark,
        ExportFormat,
        ExportView,
        ItemGenerator,
        Loader,
        Toolset,
        declare_answer_form,
        declare_backend,
        declare_benchmark,
        declare_export_format,
        declare_export_view,
        declare_generator,
        declare_item_generator,
        declare_loader,
        declare_protocol,
        declare_strategy,
        declare_tools,
        declare_toolset,
        tool,
    )
    from mcot.eval.protocols.scorer import Scorer, ScoringProtocol
    from mcot.registry import Ref, Registry, RegistryError
    from mcot.rundir.results import Result
    from mcot.rundir.scores import Score
    from mcot.tools.registry import Context, Output


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "AnswerForm",
    "Benchmark",
    "Context",
    "ExportFormat",
    "ExportView",
    "ItemGenerator",
    "LoadedItem",
    "Loader",
    "Move",
    "OfflineView",
    "Output",
    "Ref",
    "Registry",
    "RegistryError",
    "Result",
    "Score",
    "Scorer",
    "ScoringProtocol",
    "Skip",
    "Strategy",
    "Tally",
    "Toolset",
    "__version__",
    "declare_answer_form",
    "declare_backend",
    "declare_benchmark",
    "declare_export_format",
    "declare_export_view",
    "declare_generator",
    "declare_item_generator",
    "declare_loader",
    "declare_protocol",
    "declare_strategy",
    "declare_tools",
    "declare_toolset",
    "tool",
]
