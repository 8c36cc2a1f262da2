"""Time opening the trace viewer of a 10,000-trace run in headless Chromium, from file:// as a user opens it.

A synthetic run is written first (items × arms pairs, each canvas trace with four model turns of about 120 words,
three tool calls and four canvas images; scores with answer classes and verdicts), then `write_viewer` makes the
page. Per run, a fresh browser context opens the page and waits until its script ran (the list is drawn and the
filters counted): `ready_ms` is that moment on the page's own clock (from navigation start), `load_ms` the load
event. `select_ms` is the wall time from pressing `j` to the first trace being shown (its shard loaded and drawn).

References measured in the same run: an empty page (the browser's floor), and the same data inlined the way a
one-file viewer would carry it (every trace in one <script type="application/json">, parsed at load: the parse
alone, nothing drawn).

Last line: ``traces=<n> ready_ms=<median> load_ms=<median> select_ms=<median> page_kb=<size> shards_mb=<size>
inline_ready_ms=<median> blank_ms=<median> write_s=<s>``.

Run: python perf/viewer_open.py [--traces 10000] [--runs 7] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image

from mcot.viewer import write_viewer

ARMS = ("text", "canvas", "tools")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]
WORDS = (
    "the ray leaves the source and meets the mirror at an angle of thirty degrees so the reflected ray goes up "
    "to the right and crosses the wall near the second marker which I draw next to check the path"
).split()


def _text(seed: int, n: int) -> str:
    return " ".join(WORDS[(seed + k * 7) % len(WORDS)] for k in range(n))


def _trace(n: int, arm: str) -> list[dict[str, Any]]:
    if arm == "text":
        return [{"step": 0, "kind": "model", "text": _text(n, 120) + " \\boxed{B}", "t": 1.2}]
    steps: list[dict[str, Any]] = [{"step": 0, "kind": "observation", "text": "The canvas.", "image": "blobs/a.png"}]
    for turn in range(4):
        call = turn < 3
        args = {"start": [10 * turn, 20], "end": [30, 40 + turn], "color": "red"}
        steps.append(
            {
                "step": len(steps),
                "kind": "model",
                "text": _text(n + turn, 120),
                "tool_calls": [{"name": "draw_line", "arguments": args}] if call else [],
                "t": 1.0 + turn,
            }
        )
        if call:
            steps.append(
                {
                    "step": len(steps),
                    "kind": "tool",
                    "tool": "draw_line",
                    "arguments": args,
                    "result": f"drew e{turn + 1}",
                    "error": None,
                    "t": 1.1 + turn,
                    "svg": "<svg>" + "x" * 400 + "</svg>",
                    "ops": [{"op": "draw_line", "args": args}],
                }
            )
            steps.append({"step": len(steps), "kind": "observation", "image": "blobs/b.png", "t": 1.2 + turn})
    return steps


def synthetic_run(root: Path, traces: int) -> Path:
    """Write a scored run of `traces` (item, arm) pairs at root/run (items at root/items); return the run."""
    n_items = math.ceil(traces / len(ARMS))
    items_dir, run = root / "items", root / "run"
    (items_dir / "images").mkdir(parents=True)
    Image.new("RGB", (64, 64), "white").save(items_dir / "images" / "q.png")
    items = []
    for n in range(n_items):
        items.append(
            {
                "id": f"item-{n:05d}",
                "benchmark": "games" if n % 2 else "gepbench",
                "category": ("maze", "ray", "dart", "size", "counting")[n % 5],
                "question": _text(n, 60) + f" (item {n})",
                "images": ["images/q.png"],
                "choices": ["A", "B"],
                "answer": "B",
                "answer_type": "choice",
                "meta": {},
            }
        )
    lines = "".join(json.dumps(item) + "\n" for item in items)
    (items_dir / "items.jsonl").write_text(lines)
    (run / "traces").mkdir(parents=True)
    (run / "blobs").mkdir()
    for name, color in (("a", "white"), ("b", "red")):
        Image.new("RGB", (64, 64), color).save(run / "blobs" / f"{name}.png")
    (run / "items.jsonl").write_text(lines)
    manifest = {
        "model": {"spec": "offline"},
        "arms": [{"name": arm, "tools": []} for arm in ARMS],
        "dataset": {"path": str(items_dir), "sha256": hashlib.sha256(lines.encode()).hexdigest()},
    }
    (run / "manifest.json").write_text(json.dumps(manifest))
    results, scores = [], []
    pairs = [(item, arm) for item in items for arm in ARMS][:traces]
    for n, (item, arm) in enumerate(pairs):
        rel = f"traces/{item['id']}.{arm}.jsonl"
        (run / rel).write_text("".join(json.dumps(step) + "\n" for step in _trace(n, arm)))
        results.append(
            {
                "id": item["id"],
                "mode": arm,
                "status": "ok" if n % 50 else "error",
                "prediction": "B",
                "steps": 4,
                "usage": {"input_tokens": 900, "output_tokens": 300, "cost_usd": 0.004},
                "latency_s": 3.2,
                "error": None,
                "trace": rel,
                "benchmark": item["benchmark"],
                "category": item["category"],
            }
        )
        details = {} if arm == "text" else {"trace": {"verdict": ("valid", "invalid", "absent")[n % 3]}}
        scores.append(
            {
                "id": item["id"],
                "mode": arm,
                "benchmark": item["benchmark"],
                "category": item["category"],
                "score": float(n % 3 == 0),
                "correct": n % 3 == 0,
                "method": "rule" if n % 50 else "error",
                "extracted": "B",
                "judge": None,
                "details": details,
            }
        )
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    (run / "scores.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scores))
    return run


def inline_reference(page: Path, out: Path) -> Path:
    """Write a page that carries every trace inline (one JSON script, parsed at load) and return it."""
    records: list[Any] = []
    for path in sorted((page.parent / f"{page.stem}_files").glob("t-*.js")):
        text = path.read_text()
        records.append(json.loads(text[text.index(",") + 1 : -3]))
    data = json.dumps(records, separators=(",", ":")).replace("<", "\\u003c")
    out.write_text(
        '<!doctype html><meta charset="utf-8"><script type="application/json" id="d">' + data + "</script>"
        "<script>const D = JSON.parse(document.getElementById('d').textContent);"
        "window.mcot = {ready: performance.now()};</script>"
    )
    return out


def time_pages(chromium: str, page: Path, inline: Path, blank: Path, runs: int) -> dict[str, list[float]]:
    """Return per-run timings (ms) of opening the viewer, selecting a trace, and the two references."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {"ready": [], "load": [], "select": [], "inline": [], "blank": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
        try:
            for run in range(runs + 1):  # the first run warms the OS file cache and is not counted
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                tab = context.new_page()
                tab.goto(blank.as_uri())
                blank_ms = tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
                tab.goto(page.as_uri())
                tab.wait_for_selector("body[data-ready]")
                ready = tab.evaluate("window.mcot.ready")
                tab.wait_for_load_state("load")
                load = tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
                started = time.perf_counter()
                tab.keyboard.press("j")
                tab.wait_for_selector(".column .step")
                select = (time.perf_counter() - started) * 1000
                tab.goto(inline.as_uri())
                tab.wait_for_function("window.mcot && window.mcot.ready", timeout=120_000)
                inline_ms = tab.evaluate("window.mcot.ready")
                context.close()
                if run:
                    for name, value in (
                        ("ready", ready),
                        ("load", load),
                        ("select", select),
                        ("inline", inline_ms),
                        ("blank", blank_ms),
                    ):
                        times[name].append(float(value))
        finally:
            browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcot-viewer-perf-") as folder:
        root = Path(folder)
        run = synthetic_run(root, args.traces)
        started = time.perf_counter()
        page = write_viewer(run)
        write_s = time.perf_counter() - started
        shards = list((run / "index_files").glob("t-*.js"))
        page_kb = page.stat().st_size / 1024
        shards_mb = sum(p.stat().st_size for p in shards) / 2**20
        inline = inline_reference(page, root / "inline.html")
        inline_mb = inline.stat().st_size / 2**20
        blank = root / "blank.html"
        blank.write_text('<!doctype html><meta charset="utf-8"><title>blank</title>')
        times = time_pages(args.chromium, page, inline, blank, args.runs)
    med = {name: statistics.median(values) for name, values in times.items()}
    print(
        f"viewer of {args.traces} traces: written in {write_s:.2f} s; page {page_kb:.0f} KB (the index), "
        f"{len(shards)} trace shards, {shards_mb:.1f} MB"
    )
    print(
        f"  open (script done, list drawn, filters counted): median {med['ready']:.0f} ms over {args.runs} runs "
        f"({', '.join(f'{v:.0f}' for v in times['ready'])}); load event {med['load']:.0f} ms"
    )
    print(f"  first trace shown after j (its shard loaded): median {med['select']:.0f} ms")
    print(
        f"  references: an empty page {med['blank']:.0f} ms; every trace inline, parse only "
        f"({inline_mb:.0f} MB page) {med['inline']:.0f} ms"
    )
    print(
        f"traces={args.traces} ready_ms={med['ready']:.0f} load_ms={med['load']:.0f} select_ms={med['select']:.0f} "
        f"page_kb={page_kb:.0f} shards_mb={shards_mb:.1f} inline_ready_ms={med['inline']:.0f} "
        f"blank_ms={med['blank']:.1f} write_s={write_s:.2f}"
    )


if __name__ == "__main__":
    main()
