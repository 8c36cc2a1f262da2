"""Per-step cost of the solver loop itself (graph, messages, tool dispatch, trace), canvas rendering excluded.

A scripted model asks for a tool that reads the canvas without changing it (`measure_distance`), so no
observation is rendered; the cost of one step is the median of (long solve − short solve) / (extra steps),
written to a real blob store and trace file. The reference in the same run is the bare tool call alone.
Last line: `step_ms=<median> tool_call_ms=<median> loop_overhead_ms=<step − tool>`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from agents import Budget, load_model, solve
from benchmarks.item import Item, write_items
from canvas import BlobStore, Canvas
from tools import call

CALL = {
    "name": "measure_distance",
    "arguments": {
        "a": {"kind": "point", "points": [[10, 10]]},
        "b": {"kind": "point", "points": [[200, 150]]},
        "draw": False,
    },
}


def _script(folder: Path, steps: int) -> Path:
    turns = [{"text": "measuring", "tool_calls": [CALL]} for _ in range(steps - 1)] + [{"text": "\\boxed{1}"}]
    path = folder / f"script-{steps}.json"
    path.write_text(json.dumps(turns))
    return path


async def _solve_seconds(item: Item, items_dir: Path, script: Path, blobs: BlobStore, out: Path) -> float:
    model = load_model(f"scripted:{script}")
    start = time.perf_counter()
    _, trace = await solve(item, items_dir, model, "tools", budget=Budget(max_steps=64), blobs=blobs)
    trace.write_jsonl(out)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--short", type=int, default=2)
    parser.add_argument("--long", type=int, default=12)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mcot-perf-"))
    item = Item(id="p", benchmark="games", category="maze", question="How far?", answer="1", answer_type="number")
    write_items(folder / "items", [(item, {})])
    blobs = BlobStore(folder / "blobs")
    short, long = _script(folder, args.short), _script(folder, args.long)

    per_step = []
    for k in range(args.repeats):
        a = asyncio.run(_solve_seconds(item, folder / "items", short, blobs, folder / f"s{k}.jsonl"))
        b = asyncio.run(_solve_seconds(item, folder / "items", long, blobs, folder / f"l{k}.jsonl"))
        per_step.append((b - a) / (args.long - args.short) * 1000)
    canvas = Canvas(size=(640, 480))
    tool_ms = []
    assert call(CALL["name"], CALL["arguments"], canvas).ok
    for _ in range(200):
        start = time.perf_counter()
        call(CALL["name"], CALL["arguments"], canvas)
        tool_ms.append((time.perf_counter() - start) * 1000)
    step, tool = statistics.median(per_step), statistics.median(tool_ms)
    print(f"solver step, median of {args.repeats} ({args.long} − {args.short} steps): {step:.2f} ms")
    print(f"the tool call alone, median of 200: {tool:.3f} ms")
    print(f"step_ms={step:.2f} tool_call_ms={tool:.3f} loop_overhead_ms={step - tool:.2f}")


if __name__ == "__main__":
    main()
