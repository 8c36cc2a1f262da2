"""Time of one served canvas step: an MCP tool call over stdio (`mcot mcp serve`) and an OpenEnv step over the
loopback (`mcot env serve`), beside the in-process `CanvasEnv` step of perf/env_step.py (goal: each ≤ 3× it).

A step is one `draw_line` between random points on a 640 × 640 GePBench figure and the observation coming back:
in process a PIL image (CanvasEnv, TRL), remotely the canvas as PNG (MCP image content through the `mcp` SDK's
client; base64 in OpenEnv's JSON through openenv-core's GenericEnvClient over its WebSocket). The three are
measured one after another at every step, so that all see the same load of a shared machine; episodes of
`--steps` calls are repeated `--episodes` times (a fresh canvas each). Needs the `mcp` and `openenv` extras.

Beside the wall-clock medians it reports each server process's CPU per measured step (Linux: /proc), a figure
that a busy machine's load changes little: each server works only during its own call. After the measured
episodes, what a served step adds is split in two, again measured in turn: the transport's floor (a call refused
for bad arguments, text only and no image: the SDK's or OpenEnv's round trip alone) and the PNG encoding of the
changed canvas (in process, the canvas's own PNG writer on the drawn canvas: what a served step does and the
in-process step does not).

Run: python perf/serve_step.py [--steps 20] [--episodes 10] [--seed 0]. The last line is `env_step_ms=…
mcp_step_ms=… mcp_ratio_vs_env=… openenv_step_ms=… openenv_ratio_vs_env=… mcp_server_cpu_ms=…
openenv_server_cpu_ms=… mcp_floor_ms=… openenv_floor_ms=… png_ms=…`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from env_step import figure, line
from PIL import Image


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_s(pid: int) -> float:
    """Return the CPU seconds (user + system) process `pid` has used so far, from /proc (nan elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _mcp_server_pid(exclude: int) -> int:
    """Return the pid of this process's child `… mcot mcp serve` (the stdio server the SDK's client started)."""
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and int(entry.name) != exclude and b"mcp" in command:
            return int(entry.name)
    return -1


def _wait(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            if process.poll() is not None:
                raise SystemExit("mcot env serve exited") from None
            time.sleep(0.2)
    raise SystemExit("mcot env serve did not start")


async def measure(args: argparse.Namespace, path: Path, item: dict[str, Any]) -> dict[str, list[float]]:
    """Return the step times (ms) of the three, measured in turn at every step."""
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from openenv.core.generic_client import GenericEnvClient

    from mcot.env import CanvasEnv
    from mcot.env.episode import OBSERVE_MAX_SIDE

    image = Image.open(path).convert("RGB")
    png = base64.b64encode(path.read_bytes()).decode("ascii")
    row = {"item": json.dumps(item), "images": [image], "prompt": [{"role": "user", "content": "…"}]}
    rng = random.Random(args.seed)
    env = CanvasEnv()
    port = _free_port()
    served = subprocess.Popen([sys.executable, "-m", "mcot", "env", "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    times: dict[str, list[float]] = {"env": [], "mcp": [], "openenv": [], "mcp_cpu": [], "openenv_cpu": [],
                                     "mcp_floor": [], "openenv_floor": [], "png": []}  # fmt: skip
    refused = {"start": "here"}  # draw_line's schema refuses it: a text-only answer, the canvas unchanged
    try:
        _wait(port, served)
        params = StdioServerParameters(command=sys.executable, args=["-m", "mcot", "mcp", "serve"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            mcp_pid = _mcp_server_pid(served.pid)
            with GenericEnvClient(base_url=f"http://127.0.0.1:{port}").sync() as remote:
                for episode in range(args.episodes + 1):  # the first episode warms up (imports, caches, the font)
                    if episode == 1:
                        cpu = {"mcp": _cpu_s(mcp_pid), "openenv": _cpu_s(served.pid)}
                    env.reset(**row)
                    await session.call_tool("start_canvas", {"image": png})
                    remote.reset(images=[f"data:image/png;base64,{png}"])
                    for _ in range(args.steps):
                        arguments = line(rng)
                        start = time.perf_counter()
                        env.draw_line(**arguments)
                        after_env = time.perf_counter()
                        result = await session.call_tool("draw_line", arguments)
                        after_mcp = time.perf_counter()
                        step = remote.step({"tool": "draw_line", "arguments": arguments})
                        after_openenv = time.perf_counter()
                        assert not result.is_error and result.content[-1].type == "image"
                        assert step.observation["canvas"]
                        if episode:
                            times["env"].append((after_env - start) * 1000)
                            times["mcp"].append((after_mcp - after_env) * 1000)
                            times["openenv"].append((after_openenv - after_mcp) * 1000)
                measured = args.episodes * args.steps  # the resets of the measured episodes are counted in
                times["mcp_cpu"].append((_cpu_s(mcp_pid) - cpu["mcp"]) * 1000 / measured)
                times["openenv_cpu"].append((_cpu_s(served.pid) - cpu["openenv"]) * 1000 / measured)
                for _ in range(args.episodes):
                    env.reset(**row)
                    for _ in range(args.steps):
                        env.draw_line(**line(rng))
                        canvas = env.episode.canvas if env.episode is not None else None
                        start = time.perf_counter()
                        floor = await session.call_tool("draw_line", refused)
                        after_mcp = time.perf_counter()
                        step = remote.step({"tool": "draw_line", "arguments": refused})
                        after_openenv = time.perf_counter()
                        assert canvas is not None and canvas.observe(OBSERVE_MAX_SIDE).data
                        after_png = time.perf_counter()
                        assert floor.is_error and not step.observation["ok"]
                        times["mcp_floor"].append((after_mcp - start) * 1000)
                        times["openenv_floor"].append((after_openenv - after_mcp) * 1000)
                        times["png"].append((after_png - after_openenv) * 1000)
    finally:
        served.terminate()
        served.wait(30)
    return times


def main() -> None:
    """Measure and print the medians and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="calls per episode")
    parser.add_argument("--episodes", type=int, default=10, help="episodes measured (one more warms up)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, item = figure(Path(tmp))
        times = asyncio.run(measure(args, path, item))
    env, mcp, openenv = (statistics.median(times[key]) for key in ("env", "mcp", "openenv"))
    print(f"CanvasEnv.draw_line in process (PIL 640 × 640): median {env:.2f} ms")
    print(f"MCP tools/call draw_line over stdio (PNG image content): median {mcp:.2f} ms ({mcp / env:.2f}× in process)")
    print(f"OpenEnv step draw_line over the loopback (PNG base64): median {openenv:.2f} ms ({openenv / env:.2f}×)")
    mcp_cpu, openenv_cpu = times["mcp_cpu"][0], times["openenv_cpu"][0]
    print(f"server CPU a step: mcot mcp serve {mcp_cpu:.2f} ms, mcot env serve {openenv_cpu:.2f} ms")
    mcp_floor, openenv_floor, png = (statistics.median(times[key]) for key in ("mcp_floor", "openenv_floor", "png"))
    print(f"transport floor (a refused call, text only): MCP {mcp_floor:.2f} ms, OpenEnv {openenv_floor:.2f} ms")
    print(f"PNG of the changed canvas (in process, what a served step adds): median {png:.2f} ms")
    print(
        f"env_step_ms={env:.2f} mcp_step_ms={mcp:.2f} mcp_ratio_vs_env={mcp / env:.2f} "
        f"openenv_step_ms={openenv:.2f} openenv_ratio_vs_env={openenv / env:.2f} "
        f"mcp_server_cpu_ms={mcp_cpu:.2f} openenv_server_cpu_ms={openenv_cpu:.2f} "
        f"mcp_floor_ms={mcp_floor:.2f} openenv_floor_ms={openenv_floor:.2f} png_ms={png:.2f}"
    )


if __name__ == "__main__":
    main()
