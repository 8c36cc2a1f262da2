"""mcot: multimodal chain-of-thought with a canvas.

The installed package holds the rooms (`mcot.agents`, `mcot.canvas`, `mcot.tools`, `mcot.benchmarks`,
`mcot.eval`), the ground floor every room may use (`mcot.core.registry`, `mcot.core.rundir`, `mcot.core.plugins`), and the CLI
and run orchestration (`mcot.cli`, `mcot.runner`, `mcot.commands`). This module re-exports the public
declaration API (`mcot.core.declare`): `mcot.declare_benchmark`, `mcot.tool`, `mcot.declare_backend`, …, and the
types a plugin's functions take and return (`mcot.Scorer`, `mcot.Score`, `mcot.Tally`, `mcot.Context`, …). Names are
imported on first use, so `import mcot` costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.core.lazy import lazy_exports
from mcot.core.plugin_types import PLUGIN_TYPES

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
_EXPORTS = {
    **dict.fromkeys(_DECLARE, "mcot.core.declare"),
    **PLUGIN_TYPES,
    "Ref": "mcot.core.registry",
    "Registry": "mcot.core.registry",
    "RegistryError": "mcot.core.registry",
}

if TYPE_CHECKING:
    from mcot.agents.offline.strategies import Move, OfflineView, Strategy
    from mcot.benchmarks.loaders._types import LoadedItem, Skip, Tally
    from mcot.core.declare import (
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
    from mcot.core.registry import Ref, Registry, RegistryError
    from mcot.core.rundir.results import Result
    from mcot.core.rundir.scores import Score
    from mcot.eval.protocols.scorer import Scorer, ScoringProtocol
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
