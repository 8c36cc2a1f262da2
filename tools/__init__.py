"""Tools a model can call: canvas operations plus physics, optics, geometry, graph and perception tools.

Each tool is a typed function with a pydantic argument model and a docstring (see `registry`); `call` runs one
and never raises; the schema functions give the same tools to OpenAI, Anthropic and OpenAI-compatible servers.
"""

from mcot.tools.canvas_ops import canvas_tools
from mcot.tools.errors import ToolError, ToolTimeout
from mcot.tools.registry import ToolSpec, call, registry
from mcot.tools.result import ToolResult
from mcot.tools.schemas import anthropic_tools, compatible_tools, openai_tools

__all__ = [
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "ToolTimeout",
    "anthropic_tools",
    "call",
    "canvas_tools",
    "compatible_tools",
    "openai_tools",
    "registry",
]
