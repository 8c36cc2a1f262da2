"""mcot: multimodal chain-of-thought with a canvas.

The installed package holds the rooms (`mcot.agents`, `mcot.canvas`, `mcot.tools`, `mcot.benchmarks`,
`mcot.eval`), the ground floor every room may use (`mcot.registry`, `mcot.rundir`, `mcot.plugins`), and the CLI
and run orchestration (`mcot.cli`, `mcot.runner`, `mcot.commands`). This module re-exports the public
declaration API (`mcot.declare`): `mcot.declare_benchmark`, `mcot.tool`, `mcot.declare_backend`, … Names are
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
_EXPORTS = {
    **dict.fromkeys(_DECLARE, "mcot.declare"),
    "Ref": "mcot.registry",
    "Registry": "mcot.registry",
    "RegistryError": "mcot.registry",
}

if TYPE_CHECKING:
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
    from mcot.registry import Ref, Registry, RegistryError


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "AnswerForm",
    "Benchmark",
    "ExportFormat",
    "ExportView",
    "ItemGenerator",
    "Loader",
    "Ref",
    "Registry",
    "RegistryError",
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
