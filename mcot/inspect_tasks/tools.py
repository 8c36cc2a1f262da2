"""mcot's tools as inspect tools: each call runs on the sample's canvas and answers with text and image content."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from inspect_ai.model import ContentImage, ContentText
from inspect_ai.tool import Tool, ToolDef, ToolError, ToolParams, tool

from mcot.env.canvas_session import CanvasSession, Reply
from mcot.env.trl import describe


def content(reply: Reply) -> list[ContentText | ContentImage]:
    """Return a reply as inspect content: the text, then each image (a tool's own, the canvas) as a PNG data URL."""
    images = [
        ContentImage(image="data:image/png;base64," + base64.b64encode(png).decode("ascii")) for png in reply.pngs()
    ]
    return [ContentText(text=reply.text), *images]


def tool_definition(name: str, session: CanvasSession) -> ToolDef:
    """Return the inspect tool definition of mcot tool `name` on `session` (schema and description from mcot)."""
    from mcot.tools.registry import lookup
    from mcot.tools.schemas import parameters_schema

    spec = lookup(name)
    if spec is None:
        raise ValueError(f"there is no mcot tool named {name!r}")

    async def execute(**arguments: Any) -> list[ContentText | ContentImage]:
        reply = await asyncio.to_thread(session.call, name, arguments)
        if not reply.ok:
            raise ToolError(reply.text.removeprefix("Error: "))
        return content(reply)

    schema = parameters_schema(spec)
    required = set(schema.get("required") or [])
    for argument, prop in (schema.get("properties") or {}).items():  # inspect wants every argument described
        if not prop.get("description"):
            prop["description"] = describe(argument, prop, argument not in required)
    parameters = ToolParams.model_validate(schema)
    return ToolDef(execute, name=name, description=spec.description, parameters=parameters)


@tool(name="mcot_tool")
def canvas_tool(name: str = "draw_line", toolset: str = "canvas") -> Tool:
    """Return mcot tool `name` as an inspect tool on a canvas of its own (a blank one of the toolset)."""
    return tool_definition(name, CanvasSession(toolset)).as_tool()


def session_tools(session: CanvasSession) -> list[Tool]:
    """Return every tool of the session's toolset as inspect tools sharing the session's canvas."""
    return [tool_definition(name, session).as_tool() for name in session.tools]
