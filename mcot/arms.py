"""The arms of an experiment: what `--mode` and `--tools` name, and what each arm offers the model.

An arm is a declared toolset (`mcot.core.registry.TOOLSETS`: `text` offers no tools, `canvas` only the canvas
operations, `tools` the canvas plus the domain tools, and any a plugin declares) or `custom`, the tools
`--tools` lists. The manifest records each arm's exact tool names and schema hashes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcot.core.errors import UsageError
from mcot.core.registry import TOOLSETS
from mcot.tools.errors import ToolError
from mcot.tools.toolsets import custom_toolset, schema_hashes, toolset, toolset_names

CUSTOM = "custom"


def arm_names() -> tuple[str, ...]:
    """Return the names `--mode` takes: every declared toolset, then `custom`."""
    return (*toolset_names(), CUSTOM)


@dataclass(frozen=True)
class Arm:
    """One arm: its name (the `mode` its results are recorded under), the exact tools it offers, and whether the
    model sees the canvas after the first observation (`sees_canvas`, from the toolset's declaration)."""

    name: str
    tools: tuple[str, ...]
    sees_canvas: bool = True

    def manifest_entry(self) -> dict[str, Any]:
        """Return the arm as the manifest records it: name, tool names, each tool's schema sha256, sees_canvas."""
        return {
            "name": self.name,
            "tools": list(self.tools),
            "tool_schemas": schema_hashes(self.tools),
            "sees_canvas": self.sees_canvas,
        }


def parse_arms(mode: str, tools: str | None = None) -> tuple[Arm, ...]:
    """Return the arms of `--mode A,B` (and `--tools X,Y` for a custom arm); raise UsageError on a bad name.

    `--tools` defines the `custom` arm; it is added after the listed arms unless `--mode` places it.
    """
    names = list(dict.fromkeys(m.strip() for m in mode.split(",") if m.strip()))
    known = arm_names()
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise UsageError(f"--mode takes a comma-separated list of {', '.join(known)} (got {mode!r})")
    if tools is not None and CUSTOM not in names:
        names.append(CUSTOM)
    if CUSTOM in names and tools is None:
        raise UsageError("--mode custom needs --tools NAME,NAME,… (the tools the custom arm offers)")
    arms = []
    try:
        for name in names:
            chosen = custom_toolset((tools or "").split(",")) if name == CUSTOM else toolset(name)
            declared = TOOLSETS.find(name) if name != CUSTOM else None
            arms.append(Arm(name, chosen, declared.sees_canvas if declared is not None else True))
    except ToolError as exc:
        raise UsageError(f"--tools: {exc}") from exc
    return tuple(arms)


def describe_arms(arms: tuple[Arm, ...]) -> str:
    """Return one line per arm saying which tools it offered (for summaries and reports)."""
    lines = []
    for arm in arms:
        if not arm.tools:
            offered = "no tools (one answer in words)"
        elif len(arm.tools) > 16:
            declared = TOOLSETS.find(arm.name)
            what = declared.description if declared is not None else ", ".join(arm.tools[:8]) + ", …"
            offered = f"{what} ({len(arm.tools)} tools)"
        else:
            offered = f"{len(arm.tools)} tools: {', '.join(arm.tools)}"
        lines.append(f"{arm.name}: {offered}")
    return "\n".join(lines)
