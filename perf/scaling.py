"""How `mcot run` scales with concurrency and worker processes against a model with 200 ms latency.

Text items (`mcot gen gepbench`, one model call each) go to the scripted OpenAI-compatible server of
perf/harness_overhead.py (`mcot.testing.fake_provider.FakeProvider`, TCP_NODELAY, a 1,024 backlog), which runs in a
process of its own, so that its CPU is not the runner's and it can be said how busy it was. Each level is one
`mcot run --mode text --concurrency K [--workers N]` command; its rate is the calls the server saw from its
first request to its last answer (the last request + 0.2 s), per second: start-up is left out. Its speed-up is
the rate over the rate at concurrency 1; the ideal is calls / (⌈calls / K⌉ × 0.2 s), K always in flight. Then
`mcot gen gepbench` figures per second with 1 and 2 worker processes (the whole command, files included).

At 64 and 256 in flight the same command also runs with aiohttp in place of mcot's plain HTTP client
(perf/aiohttp_client.py, when aiohttp is installed), each level's two clients one after the other: the
well-kept client it is weighed against (issue 21, part 12).

Usage: python perf/scaling.py [--quick] [--items 1000] [--no-aiohttp]
Last line: `calls_s_c1=… calls_s_c4=… calls_s_c16=… calls_s_c64=… calls_s_c256=… calls_s_w2_c256=…
gen_figures_s_w1=… gen_figures_s_w2=… aiohttp_calls_s_c64=… aiohttp_calls_s_c256=…` (n/a where the command lacks
the option or aiohttp is not installed).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from harness_overhead import ServerProcess  # the sibling script (python puts perf/ on the path)

LATENCY_S = 0.2


@dataclass
class Level:
    """One `mcot run` at one concurrency (and worker count): what the server saw, and what the command cost."""

    concurrency: int
    workers: int
    calls: int
    span_s: float
    """From the first request to the last request the server saw."""
    wall_s: float
    client_cpu_s: float
    server_cpu_s: float

    @property
    def rate(self) -> float:
        """Return the model calls per second from the first request to the last answer."""
        return self.calls / (self.span_s + LATENCY_S)

    @property
    def ideal(self) -> float:
        """Return the rate with `concurrency` calls always in flight and no time between them."""
        return self.calls / (-(-self.calls // self.concurrency) * LATENCY_S)


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def mcot_command(client: str = "plain") -> list[str]:
    """Return the command that runs this checkout's `mcot` (`client` "aiohttp": with aiohttp as its HTTP client)."""
    if client == "aiohttp":
        return [sys.executable, str(Path(__file__).with_name("aiohttp_client.py"))]
    return [sys.executable, "-m", "mcot"]


def has_option(command: list[str], option: str) -> bool:
    """Return whether `command --help` lists `option`."""
    done = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=120)
    return option in done.stdout


def run_level(
    server: ServerProcess, items: Path, n: int, concurrency: int, workers: int, scratch: Path, client: str = "plain"
) -> Level | None:
    """Run `n` text items at `concurrency` (with `workers` processes when above 1); None if the command failed."""
    out = Path(tempfile.mkdtemp(prefix=f"c{concurrency}-w{workers}-", dir=scratch)) / "run"
    command = [*mcot_command(client), "run", "--data", str(items), "--model", "openai-compatible:m"]
    command += ["--base-url", server.url, "--out", str(out), "--mode", "text", "--limit", str(n)]
    command += ["--concurrency", str(concurrency)]
    if workers > 1:
        command += ["--workers", str(workers)]
    server.stats()
    cpu = _children_cpu_s()
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, env={**os.environ, "CI": "1"})
    wall = time.perf_counter() - began
    stats = server.stats()
    shutil.rmtree(out.parent, ignore_errors=True)
    if done.returncode or stats["calls"] < 2:
        print(f"  concurrency {concurrency}, {workers} worker(s): failed ({done.returncode}): {done.stderr[-800:]}")
        return None
    return Level(
        concurrency,
        workers,
        stats["calls"],
        stats["last"] - stats["first"],
        wall,
        _children_cpu_s() - cpu,
        stats["cpu_s"],
    )


def gen_rate(figures: int, workers: int, scratch: Path) -> float:
    """Return figures per second of `mcot gen gepbench --n figures` (with `--workers` when above 1)."""
    out = Path(tempfile.mkdtemp(prefix=f"gen-w{workers}-", dir=scratch)) / "items"
    command = [*mcot_command(), "gen", "gepbench", "--out", str(out), "--n", str(figures), "--seed", "1"]
    if workers > 1:
        command += ["--workers", str(workers)]
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, timeout=1800)
    wall = time.perf_counter() - began
    shutil.rmtree(out.parent, ignore_errors=True)
    return figures / wall


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer items and figures")
    parser.add_argument("--items", type=int, default=None, help="text items at concurrency ≥ 16 (default 1,000)")
    parser.add_argument("--figures", type=int, default=None, help="gepbench figures per gen run (default 300)")
    parser.add_argument("--no-aiohttp", action="store_true", help="leave mcot-with-aiohttp out even when installed")
    parser.add_argument("--no-gen", action="store_true", help="leave the `gen gepbench` figures out")
    args = parser.parse_args()
    aiohttp_ok = False
    if not args.no_aiohttp:
        try:
            import aiohttp  # noqa: F401

            aiohttp_ok = True
        except ImportError:
            pass
    n = args.items or (300 if args.quick else 1000)
    figures = args.figures or (60 if args.quick else 300)
    # at concurrency 1 and 4 the full set would take minutes at 0.2 s a call: fewer items, still ≥ 10 s each
    counts = {1: min(n, 25 if args.quick else 50), 4: min(n, 100 if args.quick else 200), 16: n, 64: n, 256: n}
    command = mcot_command()
    workers_ok = has_option([*command, "run"], "--workers")
    gen_workers_ok = has_option([*command, "gen", "gepbench"], "--workers")
    scratch = Path(tempfile.mkdtemp(prefix="mcot-scaling-"))
    rates: dict[str, float | None] = {}
    try:
        items = scratch / "items"
        per_figure = 14  # about 13 questions per easy figure, 15 per hard one
        subprocess.run(
            [*command, "gen", "gepbench", "--out", str(items), "--n", str(-(-n // per_figure) + 2), "--seed", "0"],
            check=True,
            capture_output=True,
        )
        print(
            f"machine: {os.cpu_count()} CPUs; model latency {LATENCY_S * 1000:.0f} ms; text items (mcot gen gepbench)"
        )
        print(
            "the server runs in its own process; its CPU share: its CPU seconds from the first request to the last answer"
        )
        print(f"fewer items at concurrency 1 ({counts[1]}) and 4 ({counts[4]}); {n} from 16 up\n")
        server = ServerProcess(LATENCY_S)
        try:
            base = None
            levels = [(k, 1) for k in (1, 4, 16, 64, 256)] + ([(256, 2)] if workers_ok else [])
            runs = []
            for concurrency, workers in levels:
                runs.append((concurrency, workers, "plain"))
                if aiohttp_ok and workers == 1 and concurrency >= 64:
                    runs.append((concurrency, workers, "aiohttp"))
            for concurrency, workers, client in runs:
                level = run_level(server, items, counts[concurrency], concurrency, workers, scratch, client)
                key = f"calls_s_w{workers}_c{concurrency}" if workers > 1 else f"calls_s_c{concurrency}"
                key = f"aiohttp_{key}" if client == "aiohttp" else key
                rates[key] = level.rate if level else None
                if level is None:
                    continue
                base = base or level.rate
                ideal = level.ideal
                label = " (aiohttp)" if client == "aiohttp" else ""
                print(
                    f"  concurrency {concurrency:3}, {workers} worker(s){label}: {level.calls:5} calls, {level.rate:7.1f} calls/s "
                    f"({level.rate / ideal:.0%} of the ideal {ideal:.0f}), speed-up {level.rate / base:6.1f}×; "
                    f"command {level.wall_s:.1f} s, its CPU {level.client_cpu_s / level.calls * 1000:.2f} ms a call (start-up included); "
                    f"server CPU {level.server_cpu_s / (level.span_s + LATENCY_S):.0%} of a core"
                )
            if not workers_ok:
                rates["calls_s_w2_c256"] = None
                print("  --workers: not in `mcot run --help` yet")
        finally:
            server.close()
        gen: dict[int, float | None] = {1: None, 2: None}
        if not args.no_gen:
            print(f"\nmcot gen gepbench --n {figures}, whole command")
            gen = {1: gen_rate(figures, 1, scratch)}
            gen[2] = gen_rate(figures, 2, scratch) if gen_workers_ok else None
            for workers, rate in gen.items():
                print(f"  {workers} worker(s): {_fmt(rate)} figures/s")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    keys = ["calls_s_c1", "calls_s_c4", "calls_s_c16", "calls_s_c64", "calls_s_c256", "calls_s_w2_c256"]
    print(
        " ".join(
            [
                *(f"{key}={_fmt(rates.get(key))}" for key in keys),
                f"gen_figures_s_w1={_fmt(gen[1])}",
                f"gen_figures_s_w2={_fmt(gen[2])}",
                f"aiohttp_calls_s_c64={_fmt(rates.get('aiohttp_calls_s_c64'))}",
                f"aiohttp_calls_s_c256={_fmt(rates.get('aiohttp_calls_s_c256'))}",
            ]
        )
    )


if __name__ == "__main__":
    main()
