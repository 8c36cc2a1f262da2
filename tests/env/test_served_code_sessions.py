"""The code arm's toolset served: `mcot env serve --toolset code+canvas` driven by openenv-core's own client and
`mcot mcp serve --toolset code+canvas` by the `mcp` SDK's client give each session its own Python session, kept
between calls and fresh after a reset; a reset, the end of an OpenEnv session and the end of an inspect sample
close the Python session they held, rather than leaving its sandbox to the garbage collector."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from extras import needs
from hostile_servers import free_port
from mcot.tools.code.binding import bound_session
from mcot.tools.code.sandbox import sandbox_problem
from served import env_client, serving

from mcot.env.canvas_session import CanvasSession

pytestmark = [
    needs("openenv"),
    pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}"),
]


def _cell(code: str) -> Any:
    """Return the OpenEnv action of one Python cell (mcot.env.openenv_server imports openenv-core's server)."""
    from mcot.env.openenv_server import CanvasAction

    return CanvasAction(tool="python", arguments={"code": code})


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    port = free_port()
    argv = [sys.executable, "-m", "mcot", "env", "serve", "--toolset", "code+canvas", "--port", str(port)]
    with serving(argv, port):
        yield f"http://127.0.0.1:{port}"


def test_two_openenv_clients_keep_two_python_sessions(url: str) -> None:
    with env_client(url) as first, env_client(url) as second:
        assert first.reset().observation["tools"][:2] == ["python", "draw_line"]
        second.reset()
        assert first.step({"tool": "python", "arguments": {"code": "x = 'one'"}}).observation["ok"]
        assert second.step({"tool": "python", "arguments": {"code": "x = 'two'"}}).observation["ok"]
        one = first.step({"tool": "python", "arguments": {"code": "print(x)"}}).observation["text"]
        two = second.step({"tool": "python", "arguments": {"code": "print(x)"}}).observation["text"]
        assert "one" in one and "two" not in one and "two" in two and "one" not in two
        first.reset()  # a new episode: a fresh Python session
        again = first.step({"tool": "python", "arguments": {"code": "print('x' in globals())"}}).observation
        assert "False" in again["text"]


def test_a_reset_and_the_end_of_a_session_close_its_python_session() -> None:
    from mcot.env.openenv_server import environment_factory

    env = environment_factory("code+canvas")()
    env.reset()
    assert "42" in env.step(_cell("print(6 * 7)")).text
    used = bound_session(env.session.episode.canvas)
    assert used is not None and used.alive
    env.reset()
    assert not used.alive  # closed by the reset, not left to the garbage collector
    env.step(_cell("y = 1"))
    last = bound_session(env.session.episode.canvas)
    assert last is not None and last.alive and last is not used
    env.close()  # what OpenEnv calls when the session ends
    assert not last.alive


def test_a_failed_start_keeps_the_canvas_and_its_python_session() -> None:
    session = CanvasSession("code+canvas")
    session.call("python", {"code": "z = 5"})
    held = bound_session(session.episode.canvas)
    assert held is not None
    refused = session.start(image="not base64!")
    assert not refused.ok and held.alive
    assert "5" in session.call("python", {"code": "print(z)"}).text
    session.close()
    assert not held.alive


def test_an_mcp_session_keeps_its_python_state_until_start_canvas() -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def main() -> list[str]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "mcot", "mcp", "serve", "--toolset",
                                                                     "code+canvas"])  # fmt: skip
        texts = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for code in ("x = 41", "print(x + 1)"):
                reply = await session.call_tool("python", {"code": code})
                assert not reply.is_error
                texts.append(reply.content[0].text)
            await session.call_tool("start_canvas", {"width": 64, "height": 48})
            texts.append((await session.call_tool("python", {"code": "print('x' in globals())"})).content[0].text)
        return texts

    _, kept, fresh = anyio.run(main)
    assert "42" in kept and "False" in fresh
