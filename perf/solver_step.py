"""Per-step cost of the solver loop itself (graph, messages, tool dispatch, trace), canvas rendering excluded.

A scripted model asks for a tool that reads the canvas without changing it (`measure_distance`), so no
observation is rendered. Each step is timed inside the loop: the time from one model call to the next is one
iteration, and within it the model call (scripted, next to nothing) and the tool call are timed too, so the
loop's own work is iteration − model − tool, step by step. Blobs go to a real blob store and the trace to a file
(its write is timed and shared out over the steps). Each solve gives the median over its steady steps; the figure
is the median of `--repeats` solves (at least five). The reference, the bare tool call alone, is measured in the
same run and process. Last line: `step_ms=<median> tool_call_ms=<median> loop_overhead_ms=<median>`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.agents import Budget, load_model, solve
from mcot.agents.toolbox import RegistryToolbox
from mcot.canvas import Canvas
from mcot.tools import call

from mcot.core.item import Item, write_items
from mcot.core.rundir import BlobStore

CALL = {
    "name": "measure_distance",
    "arguments": {
        "a": {"kind": "point", "points": [[10, 10]]},
        "b": {"kind": "point", "points": [[200, 150]]},
        "draw": False,
    },
}


@dataclass
class Clock:
    """Time stamps taken inside the loop: each model call's start and end, and each tool call's duration."""

    model_start: list[float] = field(default_factory=list)
    model_end: list[float] = field(default_factory=list)
    tool_s: list[float] = field(default_factory=list)


class TimedModel:
    """A model backend that notes when each call starts and ends; everything else is the inner backend's."""

    def __init__(self, inner: Any, clock: Clock) -> None:
        self._inner = inner
        self._clock = clock

    async def generate(self, request: Any) -> Any:
        """Return the inner backend's answer, timed."""
        self._clock.model_start.append(time.perf_counter())
        try:
            return await self._inner.generate(request)
        finally:
            self._clock.model_end.append(time.perf_counter())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class TimedToolbox(RegistryToolbox):
    """The registry toolbox, with each tool call timed."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    def call(self, name: str, arguments: dict[str, Any] | str, canvas: Any) -> Any:
        """Run one tool through mcot.tools.call, timed."""
        start = time.perf_counter()
        try:
            return super().call(name, arguments, canvas)
        finally:
            self._clock.tool_s.append(time.perf_counter() - start)


@dataclass
class Steps:
    """Milliseconds of the steady steps of one solve: whole iterations, their tool calls, the loop's own work."""

    step: list[float]
    tool: list[float]
    loop: list[float]
    write_per_step: float


async def _timed_solve(item: Item, items_dir: Path, script: Path, blobs: BlobStore, out: Path) -> Steps:
    clock = Clock()
    model = TimedModel(load_model(f"scripted:{script}"), clock)
    prediction, trace = await solve(
        item, items_dir, model, "tools", budget=Budget(max_steps=64), blobs=blobs, toolbox=TimedToolbox(clock)
    )
    assert prediction.status == "ok", prediction.error
    start = time.perf_counter()
    trace.write_jsonl(out)
    write_s = time.perf_counter() - start
    steps, tools, loops = [], [], []
    # iteration k: from model call k's start to model call k+1's start (it holds model call k and tool call k);
    # the first iteration also warms caches, so it is left out
    for k in range(1, len(clock.model_start) - 1):
        whole = clock.model_start[k + 1] - clock.model_start[k]
        model_s = clock.model_end[k] - clock.model_start[k]
        tool_s = clock.tool_s[k]
        steps.append(whole * 1000)
        tools.append(tool_s * 1000)
        loops.append((whole - model_s - tool_s) * 1000)
    return Steps(steps, tools, loops, write_s * 1000 / max(1, len(clock.tool_s)))


def main() -> None:
    """Run the measurement and print medians (of per-solve medians) with their spread."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="solves to time (at least 5)")
    parser.add_argument("--steps", type=int, default=12, help="tool steps per solve")
    args = parser.parse_args()
    repeats = max(5, args.repeats)
    folder = Path(tempfile.mkdtemp(prefix="mcot-perf-"))
    item = Item(id="p", benchmark="games", category="maze", question="How far?", answer="1", answer_type="number")
    write_items(folder / "items", [(item, {})])
    blobs = BlobStore(folder / "blobs")
    turns = [{"text": "measuring", "tool_calls": [CALL]} for _ in range(args.steps)] + [{"text": "\\boxed{1}"}]
    script = folder / "script.json"
    script.write_text(json.dumps(turns))

    solves = [
        asyncio.run(_timed_solve(item, folder / "items", script, blobs, folder / f"trace-{k}.jsonl"))
        for k in range(repeats)
    ]
    step = [statistics.median(s.step) for s in solves]
    tool = [statistics.median(s.tool) for s in solves]
    loop = [statistics.median(s.loop) for s in solves]
    write = [s.write_per_step for s in solves]

    canvas = Canvas(size=(640, 480))
    assert call(CALL["name"], CALL["arguments"], canvas).ok
    bare = []
    for _ in range(200):
        start = time.perf_counter()
        call(CALL["name"], CALL["arguments"], canvas)
        bare.append((time.perf_counter() - start) * 1000)

    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):.3f} ms (solves range {min(values):.3f}–{max(values):.3f})"

    steady = len(solves[0].step)
    print(f"timed inside the loop: {repeats} solves of {args.steps} tool steps, {steady} steady steps each")
    print(f"one loop iteration (model call to model call): {spread(step)}")
    print(f"  the tool call within it: {spread(tool)}")
    print(f"  the loop's own work (iteration − model call − tool call): {spread(loop)}")
    print(f"  trace file write, per step: {statistics.median(write):.3f} ms")
    print(f"reference: the bare tool call alone, median of 200, measured in this run and process: "
          f"{statistics.median(bare):.3f} ms")  # fmt: skip
    print(
        f"step_ms={statistics.median(step):.2f} tool_call_ms={statistics.median(tool):.3f} "
        f"loop_overhead_ms={statistics.median(loop):.2f}"
    )


if __name__ == "__main__":
    main()
