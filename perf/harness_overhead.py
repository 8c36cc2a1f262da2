"""Harness overhead of `mcot run` against a local OpenAI-compatible server, side by side with inspect_ai.

The server (`mcot.testing.fake_provider.FakeProvider`, TCP_NODELAY, a 1,024 backlog) runs in a process of its own, so
its CPU is not the harness's. It answers a request that offers tools with a `draw_line` call, then a
`mark_point` call, then a final answer (3 model calls an item); a request without tools gets the answer at once.
The items are `mcot gen games` items (question + picture). inspect_ai, when installed, solves the same items as
multimodal samples (`openai-api/fake/m`, chat completions, no streaming) with the same two tools as no-op inspect
tools, in the same run, on the same server. Each measurement runs in a fresh process with its modules imported
before the clock starts.

(a) 0 ms latency, text and canvas arms: harness CPU (user + system, all threads) per model call, and mcot's
    ratio to inspect_ai's; (b) 200 ms latency, concurrency 32, about 2,000 model calls in the canvas arm: wall
    time from the first request to the end against the ideal (calls × 0.2 s / 32); (c) start-up of
    `mcot run --limit 1` with an OpenAI-compatible model (its default arms, text and canvas; and the text arm
    alone): exec to the first request the server sees (startup_s: the default arms), the exit (the last
    request to the process's end), and the CPU seconds of the whole command (startup_cpu_s: the figure that
    holds on a busy machine, where the wall-clock ones include the wait for a core). The modules are compiled
    once beforehand into a pycache folder of the script's own, as pip compiles an installed package's (a
    machine with PYTHONDONTWRITEBYTECODE=1 would otherwise compile ~135 of mcot's modules at every start), and
    the default arms are measured a second time with every module compiled from source.

(a) and (b) also run mcot with aiohttp in place of its own plain HTTP client (`mcot-aiohttp`, when aiohttp is
installed: perf/aiohttp_client.py), the well-kept client it is weighed against (issue 21, part 12).

Usage: python perf/harness_overhead.py [--quick] [--repeats 3] [--concurrency 32] [--no-aiohttp]
Last line: `text_ratio_vs_inspect=… tool_ratio_vs_inspect=… wall_vs_ideal=… startup_s=… startup_cpu_s=…
aiohttp_text_ratio_vs_inspect=… aiohttp_tool_ratio_vs_inspect=… aiohttp_vs_plain_text=… aiohttp_vs_plain_tool=…`
(ratios n/a without inspect_ai or aiohttp).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULT = "RESULT "
TOOL_TURNS = (
    ("draw_line", {"start": [10, 10], "end": [200, 120], "color": "blue"}),
    ("mark_point", {"at": [100, 100], "label": "A"}),
)
ANSWER = "The answer is \\boxed{3}."
LATENCY_S = 0.2


# --- the server (its own process) ------------------------------------------------------------------------------


def scripted_turn(body: dict[str, Any]) -> Any:
    """Return the fake model's turn for a request: the next tool call while tools are offered, then the answer."""
    from mcot.testing.fake_provider import Reply

    turn = sum(1 for message in body.get("messages") or () if message.get("role") == "assistant")
    if body.get("tools") and turn < len(TOOL_TURNS):
        return Reply(tool_calls=[TOOL_TURNS[turn]])
    return Reply(ANSWER)


def serve(latency_s: float) -> None:
    """Serve the scripted model until stdin closes; answer `stats` (then reset) with one JSON line on stdout."""
    from mcot.testing.fake_provider import FakeProvider

    lock = threading.Lock()
    counts: dict[str, Any] = {"calls": 0, "first": None, "last": None, "cpu0": time.process_time()}
    server: FakeProvider

    def reply(body: dict[str, Any]) -> Any:
        now = time.time()
        with lock:
            counts["calls"] += 1
            counts["first"] = counts["first"] or now
            counts["last"] = now
        server.requests.clear()  # keep no request bodies: thousands of canvas images would fill the memory
        return scripted_turn(body)

    with FakeProvider(default=reply, latency_s=latency_s) as server:
        print(server.openai_url, flush=True)
        for line in sys.stdin:
            if line.strip() == "stats":
                with lock:
                    cpu = time.process_time()
                    stats = {**counts, "cpu_s": cpu - counts["cpu0"]}
                    counts.update(calls=0, first=None, last=None, cpu0=cpu)
                print(json.dumps(stats), flush=True)


class ServerProcess:
    """The scripted OpenAI-compatible server in a child process (`--serve`); `stats()` reads and resets counts."""

    def __init__(self, latency_s: float) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--latency", str(latency_s)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise RuntimeError("the server process did not start")

    def stats(self) -> dict[str, Any]:
        """Return {calls, first, last (epoch seconds), cpu_s} since the last call, and start counting afresh."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("stats\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        """Stop the server process."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the harnesses (each in a fresh process) -------------------------------------------------------------------


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def mcot_worker(
    items: Path, url: str, arm: str, n: int, concurrency: int, out: Path, client: str = "plain"
) -> dict[str, Any]:
    """Run `mcot run` in this process (modules imported first; `client` "aiohttp": with aiohttp in place of the
    plain HTTP client); return {cpu_s, wall_s, end, code}."""
    import contextlib
    import io

    import mcot.agents.backends.openai_chat
    import mcot.agents.solver
    import mcot.canvas

    import mcot.commands.run
    from mcot.cli import app

    del mcot  # imported for their import time only
    if client == "aiohttp":
        import aiohttp  # noqa: F401  (imported before the clock starts)
        from aiohttp_client import install  # the sibling script

        install()
    argv = ["run", "--data", str(items), "--model", "openai-compatible:m", "--base-url", url, "--out", str(out)]
    argv += ["--mode", arm, "--limit", str(n), "--concurrency", str(concurrency)]
    cpu, wall = _cpu_s(), time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            code = app(argv, prog_name="mcot", standalone_mode=False)
        except SystemExit as exc:
            code = exc.code
    return {"cpu_s": _cpu_s() - cpu, "wall_s": time.perf_counter() - wall, "end": time.time(), "code": code}


def inspect_worker(items: Path, url: str, arm: str, n: int, concurrency: int, out: Path) -> dict[str, Any]:
    """Run the same items through inspect_ai in this process; return {cpu_s, wall_s, end, code, version}."""
    from importlib.metadata import version

    import inspect_ai.model._providers.openai_compatible  # noqa: F401  (imported before the clock starts)
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import tool

    from mcot.core.item import read_items

    @tool
    def draw_line():  # type: ignore[no-untyped-def]
        async def execute(
            start: list[float], end: list[float], width: float = 3, dashed: bool = False, color: str = "red"
        ) -> str:
            """Draw a straight segment on the canvas.

            Args:
                start: [x, y] where the segment starts
                end: [x, y] where it ends
                width: stroke width in pixels (default 3)
                dashed: dashed stroke
                color: stroke colour (CSS name or '#rrggbb'; default red)
            """
            return "drew line L1"

        return execute

    @tool
    def mark_point():  # type: ignore[no-untyped-def]
        async def execute(at: list[float], label: str = "", radius: float = 5, color: str = "red") -> str:
            """Mark a point on the canvas.

            Args:
                at: [x, y] of the marker
                label: text shown next to the marker
                radius: marker radius in pixels (default 5)
                color: marker colour (default red)
            """
            return "marked point P1"

        return execute

    samples = [
        Sample(
            id=item.id,
            input=[
                ChatMessageUser(
                    content=[
                        *(ContentImage(image=str(items / p)) for p in item.images),
                        ContentText(text=item.question),
                    ]
                )
            ],
            target=str(item.answer),
        )
        for item in read_items(items)[:n]
    ]
    solver = [use_tools(draw_line(), mark_point()), generate()] if arm == "canvas" else [generate()]
    task = Task(dataset=MemoryDataset(samples), solver=solver)
    os.environ["FAKE_API_KEY"] = "not-needed"
    cpu, wall = _cpu_s(), time.perf_counter()
    logs = inspect_eval(
        task,
        model="openai-api/fake/m",
        model_base_url=url,
        model_args={"stream": False},
        max_connections=concurrency,
        max_samples=concurrency,
        log_dir=str(out),
        display="none",
        score=False,
    )
    return {
        "cpu_s": _cpu_s() - cpu,
        "wall_s": time.perf_counter() - wall,
        "end": time.time(),
        "code": 0 if logs and logs[0].status == "success" else 1,
        "version": version("inspect_ai"),
    }


@dataclass
class Measured:
    """One harness run: its CPU and wall seconds, the model calls the server saw, and its timestamps."""

    cpu_s: float
    wall_s: float
    calls: int
    first: float
    end: float
    server_cpu_s: float

    @property
    def cpu_ms_per_call(self) -> float:
        """Return the harness CPU milliseconds per model call."""
        return self.cpu_s / max(1, self.calls) * 1000

    @property
    def wall_after_first_s(self) -> float:
        """Return the seconds from the first request the server saw to the harness's end."""
        return self.end - self.first


def measure(
    harness: str, server: ServerProcess, items: Path, arm: str, n: int, concurrency: int, scratch: Path
) -> Measured:
    """Run one harness in a fresh process against the server; return what it cost."""
    out = Path(tempfile.mkdtemp(prefix=f"{harness}-{arm}-", dir=scratch))
    command = [sys.executable, __file__, "--worker", harness, "--items", str(items), "--url", server.url]
    command += ["--arm", arm, "--n", str(n), "--concurrency", str(concurrency), "--out", str(out / "run")]
    server.stats()
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    stats = server.stats()
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    if done.returncode or not lines:
        raise RuntimeError(f"{harness} {arm} failed ({done.returncode}): {done.stderr[-2000:]}")
    result = json.loads(lines[-1][len(RESULT) :])
    if result["code"]:
        raise RuntimeError(f"{harness} {arm} ended with code {result['code']}: {done.stderr[-2000:]}")
    shutil.rmtree(out, ignore_errors=True)
    return Measured(result["cpu_s"], result["wall_s"], stats["calls"], stats["first"], result["end"], stats["cpu_s"])


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bytecode_env(pycache: Path, *, compiled: bool) -> dict[str, str]:
    """Return the environment of a start-up measurement: Python's compiled modules kept in `pycache` (written and
    read there, as an installed package's are: pip compiles them at install) when `compiled`, else every module
    compiled from source at each start (an empty `pycache` that nothing is written to: what
    PYTHONDONTWRITEBYTECODE=1 on a fresh checkout gives)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if not compiled:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def startup(
    server: ServerProcess, items: Path, scratch: Path, mode: str | None = None, *, compiled: bool = True
) -> tuple[float, float, float]:
    """Return (seconds from exec to the first request, seconds from the last request to the exit, CPU seconds of
    the whole command) of one `mcot run --limit 1` with an OpenAI-compatible model (its default arms, or
    `--mode mode`), its modules compiled beforehand (`compiled`) or from source. The CPU figure holds on a busy
    machine, where the wall-clock ones wait for a core."""
    mcot = shutil.which("mcot", path=str(Path(sys.executable).parent)) or shutil.which("mcot") or "mcot"
    out = Path(tempfile.mkdtemp(prefix="startup-", dir=scratch)) / "run"
    command = [mcot, "run", "--data", str(items), "--model", "openai-compatible:m", "--base-url", server.url]
    command += ["--out", str(out), "--limit", "1", *(["--mode", mode] if mode else [])]
    pycache = scratch / ("pycache" if compiled else f"no-pycache-{out.parent.name}")
    env = bytecode_env(pycache, compiled=compiled)
    server.stats()
    cpu = _children_cpu_s()
    began = time.time()
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    ended = time.time()
    cpu = _children_cpu_s() - cpu
    stats = server.stats()
    if done.returncode or not stats["first"]:
        raise RuntimeError(f"mcot run --limit 1 failed ({done.returncode}): {done.stderr[-2000:]}")
    return stats["first"] - began, ended - stats["last"], cpu


def generate_items(folder: Path, per_task: int) -> Path:
    """Return an items directory of `mcot gen games` items (6 tasks × per_task) made in `folder`."""
    items = folder / "items"
    mcot = [sys.executable, "-m", "mcot"]
    subprocess.run(
        [*mcot, "gen", "games", "--out", str(items), "--n", str(per_task), "--seed", "0"],
        check=True,
        capture_output=True,
    )
    return items


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run: fewer items, one repeat")
    parser.add_argument("--repeats", type=int, default=None, help="repeats of (a) (default 3; 1 with --quick)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--calls", type=int, default=None, help="model calls in (b) (default 2,000; 400 --quick)")
    parser.add_argument("--no-inspect", action="store_true", help="leave inspect_ai out even when installed")
    parser.add_argument("--no-aiohttp", action="store_true", help="leave mcot-with-aiohttp out even when installed")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--latency", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--worker", choices=("mcot", "mcot-aiohttp", "inspect"), help=argparse.SUPPRESS)
    parser.add_argument("--items", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--arm", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency)
        return
    if args.worker:
        if args.worker == "inspect":
            result = inspect_worker(args.items, args.url, args.arm, args.n, args.concurrency, args.out)
        else:
            client = "aiohttp" if args.worker == "mcot-aiohttp" else "plain"
            result = mcot_worker(args.items, args.url, args.arm, args.n, args.concurrency, args.out, client)
        print(RESULT + json.dumps(result), flush=True)
        return

    repeats = args.repeats or (1 if args.quick else 3)
    calls_b = args.calls or (400 if args.quick else 2000)
    per_call = len(TOOL_TURNS) + 1
    n_b = -(-calls_b // per_call)
    n_a = 60 if args.quick else 240
    per_task = max(-(-n_b // 6), -(-n_a // 6))
    harnesses = ["mcot"]
    if not args.no_aiohttp:
        try:
            from importlib.metadata import version

            print(f"alternative client: aiohttp {version('aiohttp')} (mcot-aiohttp)")
            harnesses.append("mcot-aiohttp")
        except Exception:
            pass
    inspect_version = None
    if not args.no_inspect:
        try:
            from importlib.metadata import version

            inspect_version = version("inspect_ai")
            harnesses.append("inspect")
        except Exception:
            pass
    scratch = Path(tempfile.mkdtemp(prefix="mcot-harness-"))
    try:
        items = generate_items(scratch, per_task)
        print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
        if inspect_version:
            print(
                f"reference: inspect_ai {inspect_version}, measured on this machine in this run, same server and items"
            )
        else:
            print("reference: inspect_ai is not installed; ratios are n/a")
        print(f"items: mcot gen games, {per_task} per task; {per_call} model calls per canvas item, 1 per text item")

        per_call: dict[tuple[str, str], list[float]] = {}
        whole: dict[tuple[str, str], list[Measured]] = {}
        with ServerProcess(0.0) as server:
            print(
                f"\n(a) 0 ms latency, concurrency {args.concurrency}: harness CPU per model call, the marginal cost "
                f"of {n_a} items over {n_a // 4} (fixed costs out), median of {repeats}"
            )
            for arm in ("text", "canvas"):
                for _ in range(repeats):
                    for harness in harnesses:
                        small = measure(harness, server, items, arm, n_a // 4, args.concurrency, scratch)
                        large = measure(harness, server, items, arm, n_a, args.concurrency, scratch)
                        marginal = (large.cpu_s - small.cpu_s) / max(1, large.calls - small.calls) * 1000
                        per_call.setdefault((harness, arm), []).append(marginal)
                        whole.setdefault((harness, arm), []).append(large)
            ratios: dict[str, float | None] = {}
            alternative: dict[str, float | None] = {}
            for arm in ("text", "canvas"):
                for harness in harnesses:
                    runs = whole[(harness, arm)]
                    server_ms = _median([m.server_cpu_s / max(1, m.calls) * 1000 for m in runs])
                    print(
                        f"  {arm:6} {harness:7}: {_median(per_call[(harness, arm)]):6.2f} ms CPU per model call "
                        f"(whole run of {runs[0].calls} calls: {_median([m.cpu_ms_per_call for m in runs]):.2f} ms; "
                        f"the server's own {server_ms:.2f} ms, not counted)"
                    )
                ratios[arm] = (
                    _median(per_call[("mcot", arm)]) / _median(per_call[("inspect", arm)])
                    if "inspect" in harnesses
                    else None
                )
                print(f"  {arm} ratio mcot / inspect_ai: {_fmt_ratio(ratios[arm])}")
                if "mcot-aiohttp" in harnesses:
                    aio = _median(per_call[("mcot-aiohttp", arm)])
                    alternative[f"vs_plain_{arm}"] = aio / _median(per_call[("mcot", arm)])
                    alternative[f"vs_inspect_{arm}"] = (
                        aio / _median(per_call[("inspect", arm)]) if "inspect" in harnesses else None
                    )
                    print(
                        f"  {arm} mcot with aiohttp / with its plain client: {alternative[f'vs_plain_{arm}']:.2f}; "
                        f"with aiohttp / inspect_ai: {_fmt_ratio(alternative[f'vs_inspect_{arm}'])}"
                    )

            print("\n(c) start-up of `mcot run --limit 1 --model openai-compatible:m --base-url …`, median of 5")
            print("  (modules compiled once beforehand, as pip compiles an installed package's; then from source)")
            startup(server, items, scratch)  # compiles every module into the scratch folder's pycache
            for mode, compiled in ((None, True), ("text", True), (None, False)):
                times = [startup(server, items, scratch, mode, compiled=compiled) for _ in range(5)]
                first = _median([t[0] for t in times])
                runs = ", ".join(f"{t[0]:.2f}" for t in times)
                arms = "the default arms (text, canvas)" if mode is None else f"--mode {mode}"
                arms += "" if compiled else ", every module compiled from source"
                print(f"  {arms}: exec to the first request {first:.3f} s (runs: {runs}); ", end="")
                print(f"the last request to the process's end {_median([t[1] for t in times]):.3f} s; ", end="")
                print(f"CPU of the whole command {_median([t[2] for t in times]):.3f} s")
                if mode is None and compiled:
                    startup_s = first
                    startup_cpu_s = _median([t[2] for t in times])

        with ServerProcess(LATENCY_S) as server:
            ideal = None
            print(f"\n(b) {LATENCY_S * 1000:.0f} ms latency, concurrency {args.concurrency}, canvas arm, {n_b} items")
            walls: dict[str, Measured] = {}
            for harness in harnesses:
                m = measure(harness, server, items, "canvas", n_b, args.concurrency, scratch)
                walls[harness] = m
                ideal = m.calls * LATENCY_S / args.concurrency
                print(
                    f"  {harness:7}: {m.calls} calls in {m.wall_after_first_s:.1f} s after the first request "
                    f"(ideal {ideal:.1f} s): {m.wall_after_first_s / ideal:.2f}× the ideal; "
                    f"CPU {m.cpu_ms_per_call:.2f} ms per call; server CPU {m.server_cpu_s / m.wall_after_first_s:.0%}"
                )
            mcot_b = walls["mcot"]
            wall_vs_ideal = mcot_b.wall_after_first_s / (mcot_b.calls * LATENCY_S / args.concurrency)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    aiohttp_b = walls.get("mcot-aiohttp")
    print(
        f"text_ratio_vs_inspect={_fmt_ratio(ratios['text'])} tool_ratio_vs_inspect={_fmt_ratio(ratios['canvas'])} "
        f"wall_vs_ideal={wall_vs_ideal:.2f} startup_s={startup_s:.2f} startup_cpu_s={startup_cpu_s:.2f} "
        f"aiohttp_text_ratio_vs_inspect={_fmt_ratio(alternative.get('vs_inspect_text'))} "
        f"aiohttp_tool_ratio_vs_inspect={_fmt_ratio(alternative.get('vs_inspect_canvas'))} "
        f"aiohttp_vs_plain_text={_fmt_ratio(alternative.get('vs_plain_text'))} "
        f"aiohttp_vs_plain_tool={_fmt_ratio(alternative.get('vs_plain_canvas'))} "
        f"aiohttp_wall_vs_ideal="
        + (
            _fmt_ratio(aiohttp_b.wall_after_first_s / (aiohttp_b.calls * LATENCY_S / args.concurrency))
            if aiohttp_b
            else "n/a"
        )
    )


if __name__ == "__main__":
    main()
