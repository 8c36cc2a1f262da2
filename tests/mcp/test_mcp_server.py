"""`mcot mcp serve`, driven by the `mcp` SDK's own client: over stdio and over streamable HTTP it lists the canvas
tools with mcot's schemas, draws, answers with the canvas as image content, keeps one canvas per session, starts
from an image the client sends, and answers bad input with a tool error without dropping the session."""

from __future__ import annotations

import base64
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hostile_servers import free_port
from served import serving

pytest.importorskip("mcp")

from mcot.tools.registry import lookup
from mcot.tools.schemas import parameters_schema
from mcot.tools.toolsets import canvas_tools
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from PIL import Image


def _image(content: list[Any]) -> Image.Image:
    (block,) = [block for block in content if block.type == "image"]
    assert block.mime_type == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(block.data))) as image:
        image.load()
        return image.convert("RGB")


def _png(size: tuple[int, int], color: str) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


async def _draw_and_look(session: ClientSession) -> None:
    await session.initialize()
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert list(listed) == ["start_canvas", "get_canvas", *canvas_tools()]
    assert listed["draw_line"].input_schema == parameters_schema(lookup("draw_line"))  # type: ignore[arg-type]
    started = await session.call_tool("start_canvas", {"width": 120, "height": 80})
    assert not started.is_error and _image(started.content).size == (120, 80)
    drawn = await session.call_tool("draw_line", {"start": [0, 40], "end": [119, 40], "color": "red", "width": 4})
    assert not drawn.is_error and "created e1" in drawn.content[0].text
    assert _image(drawn.content).getpixel((60, 40))[0] > 200  # the line is in the returned canvas
    bad = await session.call_tool("draw_line", {"start": "nowhere"})
    assert bad.is_error and "invalid arguments" in bad.content[0].text
    unknown = await session.call_tool("teleport", {})
    assert unknown.is_error and "teleport" in unknown.content[0].text
    shown = await session.call_tool("get_canvas", {})  # the session survived both
    assert not shown.is_error and _image(shown.content).getpixel((60, 40))[0] > 200


def test_stdio_lists_draws_and_returns_the_canvas_image() -> None:
    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "mcot", "mcp", "serve"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await _draw_and_look(session)
            sent = await session.call_tool("start_canvas", {"image": _png((50, 40), "blue")})
            assert not sent.is_error and _image(sent.content).getpixel((10, 10)) == (0, 0, 255)

    anyio.run(main)


@pytest.fixture(scope="module")
def http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("mcp-images")
    Image.new("RGB", (30, 20), "green").save(folder / "green.png")
    port = free_port()
    argv = [sys.executable, "-m", "mcot", "mcp", "serve", "--http", f"127.0.0.1:{port}", "--images-root", str(folder)]
    with serving(argv, port, stderr=subprocess.PIPE):
        yield f"http://127.0.0.1:{port}/mcp"


def test_http_serves_the_same_tools_and_two_sessions_keep_two_canvases(http_url: str) -> None:
    async def one(color: str, width: int) -> tuple[tuple[int, int], tuple[int, int, int]]:
        async with streamable_http_client(http_url) as (read, write), ClientSession(read, write) as session:
            await _draw_and_look(session)
            await session.call_tool("start_canvas", {"width": width, "height": 60})
            await session.call_tool("draw_circle", {"center": [20, 20], "radius": 15, "fill": color})
            await anyio.sleep(0.3)  # the other session draws meanwhile
            image = _image((await session.call_tool("get_canvas", {})).content)
            return image.size, image.getpixel((20, 20))

    async def both() -> list[Any]:
        found: list[Any] = [None, None]

        async def run(k: int, color: str, width: int) -> None:
            found[k] = await one(color, width)

        async with anyio.create_task_group() as group:
            group.start_soon(run, 0, "red", 100)
            group.start_soon(run, 1, "blue", 140)
        return found

    red, blue = anyio.run(both)
    assert red[0] == (100, 60) and blue[0] == (140, 60)
    assert red[1][0] > 200 and red[1][2] < 80
    assert blue[1][2] > 200 and blue[1][0] < 80


def test_http_starts_from_a_file_under_the_images_root_only(http_url: str) -> None:
    async def main() -> None:
        async with streamable_http_client(http_url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            opened = await session.call_tool("start_canvas", {"path": "green.png"})
            assert not opened.is_error and _image(opened.content).getpixel((5, 5)) == (0, 128, 0)
            outside = await session.call_tool("start_canvas", {"path": "../../etc/passwd"})
            assert outside.is_error and "outside the folder" in outside.content[0].text
            both = await session.call_tool("start_canvas", {"path": "green.png", "image": "AAAA"})
            assert both.is_error and "not both" in both.content[0].text

    anyio.run(main)


def test_the_cli_refuses_a_bad_toolset_or_address_in_one_line(tmp_path: Path) -> None:
    for args, said in ((["--toolset", "nope"], "no toolset named 'nope'"), (["--http", "localhost"], "HOST:PORT")):
        done = subprocess.run([sys.executable, "-m", "mcot", "mcp", "serve", *args], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)  # fmt: skip
        assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1
