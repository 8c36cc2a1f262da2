"""The agents' view of the tools package: names, schemas per wire flavour, and calls that never raise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from mcot.agents.backends.base import SchemaFlavor, ToolSet


@dataclass(frozen=True)
class ToolOutcome:
    """A tool call's outcome as the loop uses it (mirrors mcot.tools.ToolResult)."""

    ok: bool
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    drawn: list[str] = field(default_factory=list)
    error: str | None = None
    image: bytes | None = None


class Toolbox(Protocol):
    """Where the loop gets its tools from (the tools package by default; a fake in some tests)."""

    def names(self) -> tuple[str, ...]:
        """Return every tool name this toolbox can run."""
        ...

    def schemas(self, flavor: SchemaFlavor, names: tuple[str, ...]) -> list[dict[str, Any]]:
        """Return the tool entries for a wire flavour."""
        ...

    def call(self, name: str, arguments: dict[str, Any] | str, canvas: Any) -> Any:
        """Run one tool on the canvas and return its result (never raises)."""
        ...


class RegistryToolbox:
    """The tools package: every registered tool, schemas from mcot.tools.openai_tools / anthropic_tools / …

    Schemas are built once per (flavour, tool names) for the whole process, not once per item: building
    them walks every argument model through pydantic.
    """

    def names(self) -> tuple[str, ...]:
        """Return every registered tool name."""
        from mcot import tools

        return tuple(tools.registry())

    def has(self, name: str) -> bool:
        """Return whether a tool is registered as `name` (without loading every tool module when it is)."""
        from mcot.tools.registry import lookup

        return lookup(name) is not None

    def schemas(self, flavor: SchemaFlavor, names: tuple[str, ...]) -> list[dict[str, Any]]:
        """Return the tool entries for a wire flavour (cached while the named tools stay registered as they are)."""
        return list(_registry_schemas(flavor, tuple(names)))

    def call(self, name: str, arguments: dict[str, Any] | str, canvas: Any) -> Any:
        """Run one tool through mcot.tools.call."""
        from mcot import tools

        return tools.call(name, arguments, canvas)


_SCHEMAS: dict[tuple[str, tuple[str, ...]], tuple[tuple[Any, ...], list[dict[str, Any]]]] = {}
"""(flavour, names) → (the ToolSpecs the entries were built from, the entries)."""


def _registry_schemas(flavor: SchemaFlavor, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """Return the registry's tool entries for a flavour, rebuilt only when one of the named tools was re-registered."""
    from mcot.tools.registry import lookup

    # each name looked up alone: the canvas arm's tools never import the domain tools' modules (shapely, numpy…)
    specs = tuple(lookup(name) for name in names)
    hit = _SCHEMAS.get((flavor, names))
    if hit is not None and all(a is b for a, b in zip(hit[0], specs, strict=True)):
        return hit[1]
    from mcot.tools.schemas import flavored_tools

    entries = flavored_tools(flavor, list(names))
    _SCHEMAS[(flavor, names)] = (specs, entries)
    return entries


def toolset(toolbox: Toolbox, names: Sequence[str]) -> ToolSet:
    """Return the ToolSet offering exactly `names`; raise ValueError naming any the toolbox cannot run."""
    chosen = tuple(names)
    has = getattr(toolbox, "has", None)  # a toolbox that answers by name need not load every tool to say
    if has is not None and all(has(name) for name in chosen):
        return ToolSet(chosen, toolbox.schemas)
    known = set(toolbox.names())
    missing = [name for name in chosen if name not in known]
    if missing:
        lacking = ", ".join(map(repr, missing))
        raise ValueError(f"the toolbox has no tool {lacking}; it has: {', '.join(sorted(known))}")
    return ToolSet(chosen, toolbox.schemas)


def outcome(result: Any) -> ToolOutcome:
    """Return a ToolOutcome from any mcot.tools.ToolResult-shaped object."""
    return ToolOutcome(
        ok=bool(getattr(result, "ok", False)),
        text=str(getattr(result, "text", "")),
        data=dict(getattr(result, "data", None) or {}),
        drawn=list(getattr(result, "drawn", None) or []),
        error=getattr(result, "error", None),
        image=getattr(result, "image", None),
    )
