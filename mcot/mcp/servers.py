"""MCP servers' tools in mcot's arms: `mcot run --mcp NAME=COMMAND` (and `[[mcp]]` in STUDY.toml).

`started(specs)` starts each server (its command over stdio, with the official `mcp` SDK's client), lists its
tools, and declares every one as an mcot tool (group `mcp:NAME`) whose calls go to that server, for as long as the
context lasts; `--tools NAME:*` then names all of a server's tools (mcot.tools.toolsets.custom_toolset), or single
tools by their names. A declared tool's argument schema is the server's `inputSchema` verbatim, so the manifest's
schema hashes change when the server's tools do, and a resume with changed tools is refused like any changed
setting. A result's text contents become the tool's text, its first image (PNG; other formats converted) the
tool's image, which reaches each provider as mcot's own tools' images do (OpenAI chat: a user message after the
tool messages; Anthropic: inside the tool_result).

The sessions live on one background event loop (a daemon thread); a call blocks its caller (a solver's tool
thread) until the answer or the time-out. A server that exits fails each later call with one line naming it; one
that hangs fails the call after `timeout` seconds; the run goes on either way.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import hashlib
import io
import json
import re
import shlex
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from mcot.core.errors import UsageError
from mcot.tools.errors import ToolError
from mcot.tools.registry import TOOLS, Context, Output, ToolSpec, lookup, unregister
from mcot.tools.toolsets import schema_sha256

GROUP_PREFIX = "mcp:"
START_TIMEOUT_S = 60.0
DEFAULT_CALL_TIMEOUT_S = 60.0
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_TOOL = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class ServerSpec:
    """One server to start: the name the arms use (`--tools NAME:*`) and its command line."""

    name: str
    command: str

    def argv(self) -> list[str]:
        """Return the command line split as a shell would (no shell runs it)."""
        return shlex.split(self.command)


def parse_spec(value: str) -> ServerSpec:
    """Return the server of `NAME=COMMAND`; UsageError in one line for another shape."""
    name, sep, command = value.partition("=")
    name = name.strip()
    if not sep or not _NAME.match(name) or not command.strip():
        raise UsageError(f"--mcp takes NAME=COMMAND, NAME of letters, digits, _ and - (got {value!r})")
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"--mcp {name}: the command cannot be split into words ({exc})") from None
    if not argv:
        raise UsageError(f"--mcp {name}: the command is empty")
    return ServerSpec(name, command.strip())


def parse_specs(values: Sequence[str] | None) -> tuple[ServerSpec, ...]:
    """Return the servers of repeated `--mcp NAME=COMMAND` values; UsageError for a name given twice."""
    specs = tuple(parse_spec(value) for value in values or ())
    names = [spec.name for spec in specs]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UsageError(f"--mcp names {', '.join(twice)} more than once")
    return specs


def arguments_model(schema: dict[str, Any]) -> type[BaseModel]:
    """Return an argument model taking any JSON object (the server validates) whose JSON schema is `schema`."""
    fixed = copy.deepcopy(schema) if isinstance(schema, dict) else {"type": "object", "properties": {}}
    fixed.setdefault("properties", {})

    class Arguments(BaseModel):
        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return copy.deepcopy(fixed)

    return Arguments


@dataclass
class Server:
    """A started server: its spec, what it said it is, its tools (name → MCP Tool), the call queue's state."""

    spec: ServerSpec
    info: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, Any] = field(default_factory=dict)
    session: Any = None
    ended: str | None = None
    """Why the server is gone (None while it runs)."""

    def manifest_entry(self) -> dict[str, Any]:
        """Return the server as the manifest records it: name, command, name and version it gave, tool hashes."""
        return {
            "name": self.spec.name,
            "command": self.spec.command,
            "server": self.info.get("name"),
            "version": self.info.get("version"),
            "tools": {name: tool_sha256(tool) for name, tool in self.tools.items()},
        }


def tool_sha256(tool: Any) -> str:
    """Return the sha256 of an MCP tool's model-facing definition (name, description, input schema)."""
    definition = {"name": tool.name, "description": tool.description or "", "parameters": tool.input_schema}
    return hashlib.sha256(json.dumps(definition, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class MCPServers:
    """Started MCP servers whose tools are declared as mcot tools until `close`."""

    def __init__(self, specs: Sequence[ServerSpec], timeout_s: float = DEFAULT_CALL_TIMEOUT_S) -> None:
        self.specs = tuple(specs)
        self.timeout_s = timeout_s
        self.servers: dict[str, Server] = {}
        self.declared: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcot-mcp", daemon=True)
        self._stops: list[asyncio.Event] = []
        self._holders: list[Future[None]] = []

    def start(self) -> None:
        """Start every server, list its tools and declare them; UsageError naming a server that does not start."""
        self._thread.start()
        for spec in self.specs:
            server = Server(spec)
            ready: Future[None] = Future()
            stop = self._run(self._make_event()).result()
            self._stops.append(stop)
            self._holders.append(asyncio.run_coroutine_threadsafe(self._hold(server, ready, stop), self._loop))
            try:
                ready.result(START_TIMEOUT_S)
            except FutureTimeout:
                raise UsageError(
                    f"--mcp {spec.name}: the server did not answer within {START_TIMEOUT_S:g} s ({spec.command})"
                ) from None
            except Exception as exc:
                raise UsageError(
                    f"--mcp {spec.name}: the server did not start: {_reason(exc)} ({spec.command})"
                ) from None
            self.servers[spec.name] = server
            self._declare(server)

    def manifest_entries(self) -> list[dict[str, Any]]:
        """Return the manifest's `mcp`: one entry per server (command, version, tools and their schema hashes)."""
        return [server.manifest_entry() for server in self.servers.values()]

    def tools_of(self, name: str) -> tuple[str, ...]:
        """Return the tool names of server `name`, in its order."""
        return tuple(self.servers[name].tools)

    def call(self, server: Server, tool: str, arguments: dict[str, Any]) -> Any:
        """Return the Output of one call (mcot.tools.registry.Output); raise ToolError with one line on failure."""

        if server.ended is not None or server.session is None:
            raise ToolError(f"the MCP server {server.spec.name!r} is not running ({server.ended or 'not started'})")
        future = asyncio.run_coroutine_threadsafe(server.session.call_tool(tool, arguments), self._loop)
        try:
            result = future.result(self.timeout_s)
        except FutureTimeout:
            future.cancel()
            raise ToolError(
                f"the MCP server {server.spec.name!r} did not answer {tool} within {self.timeout_s:g} s"
            ) from None
        except Exception as exc:
            ended = server.ended or _reason(exc)
            raise ToolError(f"the MCP server {server.spec.name!r} failed the call of {tool}: {ended}") from None
        return output(result, tool)

    def close(self) -> None:
        """Undeclare the tools and stop every server; returns None."""

        for name in self.declared:
            unregister(name)
        self.declared.clear()
        schema_sha256.cache_clear()
        for stop in self._stops:
            self._loop.call_soon_threadsafe(stop.set)
        for holder in self._holders:
            with contextlib.suppress(Exception):
                holder.result(10)
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    # --- the background loop ---------------------------------------------------------------------------
    def _run(self, coroutine: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    async def _make_event(self) -> asyncio.Event:
        return asyncio.Event()

    async def _hold(self, server: Server, ready: Future[None], stop: asyncio.Event) -> None:
        """Keep one server's session open (its transport's context in this one task) until `stop` or its end."""
        from mcp import ClientSession, StdioServerParameters, stdio_client

        argv = server.spec.argv()
        params = StdioServerParameters(command=argv[0], args=argv[1:])
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                initialized = await session.initialize()
                info = getattr(initialized, "server_info", None)
                server.info = {"name": getattr(info, "name", None), "version": getattr(info, "version", None)}
                listed = await session.list_tools()
                server.tools = {tool.name: tool for tool in listed.tools}
                server.session = session
                ready.set_result(None)
                await stop.wait()
        except BaseException as exc:  # the server's exit ends its session: later calls say so
            server.ended = f"it exited: {_reason(exc)}" if server.session is not None else _reason(exc)
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            if not isinstance(exc, Exception):
                raise
        finally:
            if server.ended is None:
                server.ended = "it was stopped"
            server.session = None

    def _declare(self, server: Server) -> None:
        for name, tool in server.tools.items():
            if not _TOOL.match(name):
                raise UsageError(
                    f"--mcp {server.spec.name}: its tool {name!r} has a name models cannot call "
                    "(letters, digits, _ and - only)"
                )
            if lookup(name) is not None:
                raise UsageError(
                    f"--mcp {server.spec.name}: its tool {name!r} has the name of a tool mcot already has; "
                    "a tool name must say one tool (rename it in the server)"
                )
            schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
            model = arguments_model(schema)

            def run(args: BaseModel, ctx: Context, _server: Server = server, _tool: str = name) -> Output:
                return self.call(_server, _tool, dict(args.model_extra or {}))

            run.__name__ = name
            spec = ToolSpec(name, tool.description or name, model, run, f"{GROUP_PREFIX}{server.spec.name}")
            TOOLS.register(name, spec, description=(tool.description or name).split("\n", 1)[0], replace=True)
            self.declared.append(name)
        schema_sha256.cache_clear()


def output(result: Any, tool: str) -> Any:
    """Return an MCP tool result as an mcot tool Output (texts joined, first image as PNG); ToolError on is_error."""

    texts, images = [], []
    for block in result.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "image":
            images.append(png_bytes(block.data, getattr(block, "mime_type", "image/png")))
        else:
            texts.append(f"[{kind} content]")
    text = "\n".join(texts).strip()
    if result.is_error:
        raise ToolError(" ".join((text or "the server reported an error").split()))
    if len(images) > 1:
        text = f"{text}\n({len(images)} images returned; the first is shown)".strip()
    data = result.structured_content if isinstance(result.structured_content, dict) else {}
    return Output(text=text or f"{tool}: done", data=dict(data), image=images[0] if images else None)


def png_bytes(data: str, mime_type: str) -> bytes:
    """Return an image content block's bytes as PNG (converted when the server sent another format)."""
    raw = base64.b64decode(data)
    if mime_type == "image/png":
        return raw
    from PIL import Image

    with Image.open(io.BytesIO(raw)) as image:
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="PNG")
        return buffer.getvalue()


def _reason(exc: BaseException) -> str:
    """Return one line saying why, from an exception or an exception group's first leaf."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "…"


_ACTIVE: list[MCPServers] = []


def active_entries() -> list[dict[str, Any]] | None:
    """Return the manifest's `mcp` for the servers started now (None when none are)."""
    entries = [entry for servers in _ACTIVE for entry in servers.manifest_entries()]
    return entries or None


@contextlib.contextmanager
def started(values: Sequence[str] | None, timeout_s: float = DEFAULT_CALL_TIMEOUT_S) -> Iterator[MCPServers | None]:
    """Start the servers of `--mcp NAME=COMMAND` values for the body's duration (None when there are none)."""
    specs = parse_specs(values)
    if not specs:
        yield None
        return
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        raise UsageError("--mcp needs the `mcp` extra: pip install 'mcot[mcp]'")
    servers = MCPServers(specs, timeout_s)
    _ACTIVE.append(servers)
    try:
        servers.start()
        yield servers
    finally:
        _ACTIVE.remove(servers)
        servers.close()
