"""The agents' view of the tools package: names, schemas per wire flavour, and calls that never raise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

from agents.backends.base import SchemaFlavor, ToolSet


@dataclass(frozen=True)
class ToolOutcome:
    """A tool call's outcome as the loop uses it (mirrors tools.ToolResult)."""

    ok: bool
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    drawn: list[str] = field(default_factory=list)
    error: str | None = None
    image: bytes | None = None


class Toolbox(Protocol):
    """Where the loop gets its tools from (the tools package by default; a fake in some tests)."""

    def names(self) -> tuple[str, ...]:
        """Return every tool name offered in canvas mode."""
        ...

    def schemas(self, flavor: SchemaFlavor, names: tuple[str, ...]) -> list[dict[str, Any]]:
        """Return the tool entries for a wire flavour."""
        ...

    def call(self, name: str, arguments: dict[str, Any] | str, canvas: Any) -> Any:
        """Run one tool on the canvas and return its result (never raises)."""
        ...


class RegistryToolbox:
    """The tools package: every registered tool, schemas from tools.openai_tools / anthropic_tools / …"""

    def names(self) -> tuple[str, ...]:
        """Return every registered tool name."""
        import tools

        return tuple(tools.registry())

    def schemas(self, flavor: SchemaFlavor, names: tuple[str, ...]) -> list[dict[str, Any]]:
        """Return the tool entries for a wire flavour."""
        import tools

        builder = {
            "openai": tools.openai_tools,
            "anthropic": tools.anthropic_tools,
            "compatible": tools.compatible_tools,
        }
        return builder[flavor](list(names))

    def call(self, name: str, arguments: dict[str, Any] | str, canvas: Any) -> Any:
        """Run one tool through tools.call."""
        import tools

        return tools.call(name, arguments, canvas)


@cache
def _registry_schemas(flavor: SchemaFlavor, names: tuple[str, ...]) -> list[dict[str, Any]]:
    import tools

    builder = {"openai": tools.openai_tools, "anthropic": tools.anthropic_tools, "compatible": tools.compatible_tools}
    return builder[flavor](list(names))


def toolset(toolbox: Toolbox, names: Sequence[str] | None = None) -> ToolSet:
    """Return the ToolSet offering `names` (all of the toolbox's tools when None)."""
    chosen = tuple(names) if names is not None else toolbox.names()
    return ToolSet(chosen, toolbox.schemas)


def outcome(result: Any) -> ToolOutcome:
    """Return a ToolOutcome from any tools.ToolResult-shaped object."""
    return ToolOutcome(
        ok=bool(getattr(result, "ok", False)),
        text=str(getattr(result, "text", "")),
        data=dict(getattr(result, "data", None) or {}),
        drawn=list(getattr(result, "drawn", None) or []),
        error=getattr(result, "error", None),
        image=getattr(result, "image", None),
    )
