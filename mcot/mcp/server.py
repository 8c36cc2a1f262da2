"""`mcot mcp serve`: a toolset as an MCP server (official `mcp` SDK), one canvas per MCP session.

The server lists every tool of the toolset with its JSON schema and description from mcot's registry (the schema
a model is sent in a run), and two of its own: `start_canvas` (blank, or from an image file the server may read,
or image content the client sends) and `get_canvas` (the canvas as an image). A tool's result carries its text
and, when the canvas changed, the rendered canvas as MCP `image` content (zoom's view too). A bad call is an MCP
tool error (`is_error`), never a dropped session. Each MCP session (each stdio process, each streamable-HTTP
session) gets its own blank canvas; the canvases of closed sessions are dropped with them.
"""

from __future__ import annotations

import base64
from collections import OrderedDict
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from mcot import __version__
from mcot.env.canvas_session import CanvasSession, Reply
from mcot.tools.registry import lookup
from mcot.tools.schemas import parameters_schema
from mcot.tools.toolsets import toolset as toolset_names

START = "start_canvas"
GET = "get_canvas"
SERVER_NAME = "mcot-canvas"
MAX_CANVASES = 64
"""The most sessions an HTTP server takes at once (its session manager's bound) and canvases it keeps (the least
recently used goes first); a 1024 × 768 canvas takes a few MB."""

START_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "an image file to draw on, relative to the server's image folder"},
        "image": {"type": "string", "description": "the image to draw on, base64 (PNG or JPEG) or a data: URL"},
        "width": {"type": "integer", "minimum": 16, "maximum": 4096, "description": "a blank canvas's width"},
        "height": {"type": "integer", "minimum": 16, "maximum": 4096, "description": "a blank canvas's height"},
    },
    "required": [],
}


def own_tools() -> list[types.Tool]:
    """Return the server's own tools: start the canvas (blank or on an image) and get it as an image."""
    return [
        types.Tool(
            name=START,
            description="Start this session's canvas again: blank (optionally of width × height pixels), or on an "
            "image (a file the server may read, or base64 image content). Returns the canvas image.",
            input_schema=START_SCHEMA,
        ),
        types.Tool(
            name=GET,
            description="Return this session's canvas as an image (what a model is shown), with its size.",
            input_schema={"type": "object", "properties": {}, "required": []},
        ),
    ]


def toolset_tools(toolset: str) -> list[types.Tool]:
    """Return the MCP tool entries of a toolset: name, description and argument schema from mcot's registry."""

    entries = []
    for name in toolset_names(toolset):
        spec = lookup(name)
        if spec is not None:
            entries.append(types.Tool(name=name, description=spec.description, input_schema=parameters_schema(spec)))
    return entries


def result(reply: Reply) -> types.CallToolResult:
    """Return a reply as an MCP tool result: the text, then each image as `image` content (PNG, base64)."""
    content: list[Any] = [types.TextContent(type="text", text=reply.text)]
    content += [
        types.ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type="image/png")
        for png in reply.pngs()
    ]
    return types.CallToolResult(content=content, is_error=not reply.ok)


def canvas_server(toolset: str = "canvas", images_root: Path | None = None) -> Server[Any]:
    """Return the MCP server offering `toolset` on one canvas per session (images read under `images_root`)."""
    listed = [*own_tools(), *toolset_tools(toolset)]
    canvases: OrderedDict[str, CanvasSession] = OrderedDict()

    def canvas_of(ctx: Any) -> CanvasSession:
        # streamable HTTP hands each request a new ServerSession: its MCP session id says whose canvas it is;
        # stdio serves one session per process
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        key = str(headers.get("mcp-session-id") or "") if headers is not None else ""
        if key not in canvases:
            canvases[key] = CanvasSession(toolset, images_root)
            while len(canvases) > MAX_CANVASES:  # the least recently used canvas of a long-gone session goes
                canvases.popitem(last=False)[1].close()
        canvases.move_to_end(key)
        return canvases[key]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return result(answer(canvas_of(ctx), params.name, dict(params.arguments or {})))

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=f"mcot's {toolset} toolset on a canvas of your own: {START} to begin (blank or on an image), "
        f"then draw; every change answers with the canvas image; {GET} shows it.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def answer(canvas: CanvasSession, name: str, arguments: dict[str, Any]) -> Reply:
    """Return the reply of one call on a session's canvas: the server's own tools, else the toolset's (never raises)."""
    try:
        if name == START:
            return start(canvas, arguments)
        if name == GET:
            width, height = canvas.episode.canvas.width, canvas.episode.canvas.height
            return Reply(True, f"The canvas ({width} × {height} canvas pixels).", canvas=canvas.png())
        return canvas.call(name, arguments)
    except Exception as exc:  # the contract: a tool error, never a dropped session
        return Reply(False, f"Error: {name} failed ({type(exc).__name__}: {exc})")


def start(canvas: CanvasSession, arguments: dict[str, Any]) -> Reply:
    """Return the reply of `start_canvas`: the arguments checked, then the canvas started."""
    unknown = sorted(set(arguments) - set(START_SCHEMA["properties"]))
    if unknown:
        return Reply(False, f"Error: {START} takes path, image, width, height (not {', '.join(unknown)})")
    if arguments.get("path") is not None and arguments.get("image") is not None:
        return Reply(False, f"Error: {START} takes a path or an image, not both")
    width, height = arguments.get("width"), arguments.get("height")
    if (width is None) != (height is None):
        return Reply(False, f"Error: {START} takes both width and height for a blank canvas, or neither")
    size = None
    if width is not None and height is not None:
        if not all(isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 4096 for v in (width, height)):
            return Reply(False, f"Error: {START}: width and height must be whole numbers of pixels from 16 to 4096")
        size = (width, height)
    return canvas.start(path=arguments.get("path"), image=arguments.get("image"), size=size)


def serve(toolset: str = "canvas", http: str | None = None, images_root: Path | None = None) -> None:
    """Serve the toolset over stdio (the default) or streamable HTTP at `HOST:PORT` until stopped; returns None."""
    import anyio

    server = canvas_server(toolset, images_root)
    if http is None:
        anyio.run(_stdio, server)
        return
    import uvicorn

    host, port = split_address(http)
    app = server.streamable_http_app(host=host, max_sessions=MAX_CANVASES)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")).run()


async def _stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def split_address(address: str) -> tuple[str, int]:
    """Return (host, port) of `HOST:PORT` (`:PORT` alone: 127.0.0.1); ValueError with the form expected."""
    host, _, port = address.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765 (got {address!r})")
    return host.strip("[]") or "127.0.0.1", int(port)
