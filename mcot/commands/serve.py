"""`mcot mcp serve` and `mcot env serve`: the canvas as an MCP server and as an OpenEnv environment server."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mcot.command_options import EnvServeOptions, McpServeOptions
from mcot.core.errors import UsageError
from mcot.core.options import validated
from mcot.tools.errors import ToolError
from mcot.tools.toolsets import toolset as toolset_tools


def _check(toolset: str, images_root: Path | None) -> None:
    try:
        toolset_tools(toolset)
    except ToolError as exc:
        raise UsageError(f"--toolset: {exc}") from exc
    if images_root is not None and not Path(images_root).is_dir():
        raise UsageError(f"--images-root {images_root} is not a folder")


def _need(module: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise UsageError(f"this command needs the `{extra}` extra: pip install 'mcot[{extra}]'")


@validated(McpServeOptions)
def serve_mcp(toolset: str = "canvas", http: str | None = None, images_root: Path | None = None) -> int:
    """Serve the toolset over MCP until stopped; return the exit code (0)."""
    _need("mcp", "mcp")
    _check(toolset, images_root)
    from mcot.mcp.server import serve, split_address

    if http is not None:
        try:
            split_address(http)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
    serve(toolset, http, Path(images_root) if images_root is not None else None)
    return 0


@validated(EnvServeOptions)
def serve_env(
    toolset: str = "canvas",
    port: int = 8000,
    host: str = "127.0.0.1",
    images_root: Path | None = None,
    max_sessions: int = 16,
) -> int:
    """Serve the canvas environment over OpenEnv's HTTP/WebSocket protocol until stopped; return the exit code (0)."""
    _need("openenv", "openenv")
    _check(toolset, images_root)
    from mcot.env.openenv_server import serve

    serve(toolset, host, port, Path(images_root) if images_root is not None else None, max_sessions)
    return 0
