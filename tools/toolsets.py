"""Named toolsets: which tools an arm of an experiment offers, and a hash of each tool's schema.

Toolsets are declared in `mcot.registry.TOOLSETS` (`mcot.declare_toolset`; mcot's own in `mcot.builtin`):
`text` offers nothing, `canvas` only the canvas operations of DESIGN.md (draw, transform, edit, undo, zoom,
grid: nothing that computes an answer), `tools` the canvas plus every declared tool (physics, optics, geometry,
graph, perception, algebra, and any a plugin declares). A custom arm names its tools one by one
(`custom_toolset`), or all of a started MCP server's tools as `SERVER:*` (mcot.mcp.servers).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable
from functools import cache

from mcot.tools.errors import ToolError
from mcot.tools.registry import lookup, registry

from mcot.registry import TOOLSETS


def canvas_tools() -> tuple[str, ...]:
    """Return the canvas operations' tool names, in the op table's order (DESIGN.md's for the built-in ones)."""
    from mcot.tools.canvas_ops import canvas_tools as from_the_table

    return from_the_table()


def every_tool() -> tuple[str, ...]:
    """Return every declared tool: the canvas operations first, then the domain tools by group (an MCP server's
    tools only where an arm names them: `--tools SERVER:*`)."""
    return tuple(name for name, spec in registry().items() if not spec.group.startswith("mcp:"))


def toolset_names() -> tuple[str, ...]:
    """Return the declared toolset names, in declaration order (from fewest tools to most for mcot's own)."""
    return TOOLSETS.names()


def toolset(name: str) -> tuple[str, ...]:
    """Return the tool names of a named toolset; raise ToolError (with a did-you-mean) for another name."""
    declared = TOOLSETS.find(name)
    if declared is None:
        names = toolset_names()
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ToolError(f"no toolset named {name!r} (the toolsets are {', '.join(names)}){hint}")
    return declared.tools()


def custom_toolset(names: Iterable[str]) -> tuple[str, ...]:
    """Return the named tools in the order given, without repeats; raise ToolError naming an unknown one."""
    chosen = tuple(dict.fromkeys(one for name in names if name.strip() for one in _expand(name.strip())))
    if not chosen:
        raise ToolError("a custom toolset needs at least one tool name")
    for name in chosen:
        if lookup(name) is None:
            close = difflib.get_close_matches(name, list(registry()), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ToolError(f"there is no tool named {name!r}{hint} (`mcot tools` lists them)")
    return chosen


def _expand(name: str) -> tuple[str, ...]:
    """Return the tools a `--tools` entry names: `SERVER:*` every tool of a started MCP server, else the name."""
    if not name.endswith(":*"):
        return (name,)
    server = name.removesuffix(":*")
    group = f"mcp:{server}"
    found = tuple(tool for tool, spec in registry().items() if spec.group == group)
    if not found:
        raise ToolError(f"{name!r} names the tools of an MCP server {server!r}, and none is started (--mcp {server}=COMMAND)")
    return found


@cache
def schema_sha256(name: str) -> str:
    """Return the sha256 of a tool's model-facing definition (name, description, argument schema)."""
    from mcot.tools.schemas import parameters_schema

    spec = lookup(name)
    if spec is None:
        raise KeyError(name)
    definition = {"name": spec.name, "description": spec.description, "parameters": parameters_schema(spec)}
    return hashlib.sha256(json.dumps(definition, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def schema_hashes(names: Iterable[str]) -> dict[str, str]:
    """Return {tool name: schema sha256} for the named tools, in the order given."""
    return {name: schema_sha256(name) for name in names}
