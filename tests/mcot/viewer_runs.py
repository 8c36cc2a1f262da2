"""Hand-made run directories for the viewer tests: a triage run with every answer class, verdict and status,
a run whose texts are HTML/JS payloads, generation and diagram-edit runs, and a large synthetic run.

Each is written as `mcot run` / `mcot imagine` and `mcot score` would leave it (frozen items with their hash in the
manifest, results, traces, blobs, scores), so `write_viewer` reads it through `mcot.core.rundir.open_run`. Two are
made by the commands themselves: a judged `mcot imagine` run and an offline `mcot run` in the tools arm.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image


def png(path: Path, color: str, size: tuple[int, int] = (8, 8)) -> None:
    """Write a small one-colour PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path)


def _lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


@dataclass
class Pair:
    """One (item, arm) of a hand-made run: its result, trace and score."""

    item: str
    arm: str
    status: str = "ok"
    correct: bool | None = True
    method: str = "rule"
    verdict: str | None = None
    prediction: str = "\\boxed{B}"
    trace: list[dict[str, Any]] = field(default_factory=list)
    result_extra: dict[str, Any] = field(default_factory=dict)
    score: bool = True
    """False: no score line for this pair."""


def item(item_id: str, benchmark: str, category: str, question: str, **extra: Any) -> dict[str, Any]:
    """Return an item line (choice A/B, answer B, one image) with `extra` fields replacing the defaults."""
    return {
        "id": item_id,
        "benchmark": benchmark,
        "category": category,
        "question": question,
        "images": ["images/q.png"],
        "choices": ["left", "right"],
        "answer": "B",
        "answer_type": "choice",
        "meta": {},
        **extra,
    }


def canvas_trace(turns: int = 5, tools: int = 4, failed: int = 1, text: str = "I draw") -> list[dict[str, Any]]:
    """Return a trace of `turns` model turns, `tools` tool calls (`failed` of them failed), each call observed."""
    steps: list[dict[str, Any]] = [{"step": 0, "kind": "observation", "text": "The canvas.", "image": "blobs/red.png"}]
    for turn in range(turns):
        call = turn < tools
        steps.append(
            {
                "step": len(steps),
                "kind": "model",
                "text": text if call else "\\boxed{B}",
                "tool_calls": [{"name": "draw_line", "arguments": {"start": [0, 0], "end": [4, 4]}}] if call else [],
            }
        )
        if call:
            error = "start is outside the canvas" if turn < failed else None
            steps.append(
                {
                    "step": len(steps),
                    "kind": "tool",
                    "tool": "draw_line",
                    "arguments": {"start": [0, 0], "end": [4, 4]},
                    "result": None if error else f"drew e{turn + 1}",
                    "error": error,
                }
            )
            steps.append({"step": len(steps), "kind": "observation", "image": "blobs/red.png"})
    return steps


def write_run(
    root: Path,
    items: list[dict[str, Any]],
    arms: list[str],
    pairs: list[Pair],
    *,
    scored: bool = True,
    images: dict[str, str] | None = None,
) -> Path:
    """Write a run directory at `root` (its source items at `root`.parent/items) and return it."""
    source = root.parent / f"{root.name}-items"
    for relative, color in (images or {"images/q.png": "white"}).items():
        png(source / relative, color)
    (source / "items.jsonl").write_text(_lines(items), encoding="utf-8")
    root.mkdir(parents=True)
    (root / "items.jsonl").write_text(_lines(items), encoding="utf-8")
    frozen = hashlib.sha256((root / "items.jsonl").read_bytes()).hexdigest()
    manifest = {
        "model": {"spec": "offline"},
        "arms": [{"name": arm, "tools": [] if arm == "text" else ["draw_line"]} for arm in arms],
        "dataset": {"path": str(source), "sha256": frozen},
    }
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    png(root / "blobs" / "red.png", "red")
    png(root / "blobs" / "blue.png", "blue", (16, 8))
    (root / "traces").mkdir()
    by_item = {row["id"]: row for row in items}
    results, scores = [], []
    for n, pair in enumerate(pairs):
        trace_path = None
        if pair.trace:
            trace_path = f"traces/t{n}.jsonl"  # ids may hold characters a file name cannot
            (root / trace_path).write_text(_lines(pair.trace), encoding="utf-8")
        row = by_item[pair.item]
        failed = pair.status != "ok"
        results.append(
            {
                "id": pair.item,
                "mode": pair.arm,
                "status": pair.status,
                "prediction": "" if failed else pair.prediction,
                "steps": sum(1 for step in pair.trace if step.get("kind") == "model"),
                "usage": {"input_tokens": 120, "output_tokens": 30, "cost_usd": 0.0012},
                "latency_s": 1.5,
                "error": "the model timed out" if failed else None,
                "trace": trace_path,
                "benchmark": row["benchmark"],
                "category": row["category"],
                **pair.result_extra,
            }
        )
        if not pair.score:
            continue
        details: dict[str, Any] = {"status": pair.status} if failed else {}
        if pair.verdict:
            details["trace"] = {"verdict": pair.verdict, "violation": None, "task": row["category"], "candidates": 1}
        if pair.verdict == "invalid":
            details["trace"]["violation"] = "the path crosses a wall at (3, 4)"
        scores.append(
            {
                "id": pair.item,
                "mode": pair.arm,
                "benchmark": row["benchmark"],
                "category": row["category"],
                "score": None if pair.correct is None else float(bool(pair.correct) and not failed),
                "correct": False if failed else pair.correct,
                "method": "error" if failed else pair.method,
                "extracted": None if failed else "B",
                "judge": None,
                "details": details,
            }
        )
    (root / "results.jsonl").write_text(_lines(results), encoding="utf-8")
    if scored:
        (root / "scores.jsonl").write_text(_lines(scores), encoding="utf-8")
    return root


def triage_run(root: Path) -> Path:
    """Return a run of 5 items × 3 arms with every answer class, verdict and status (TRIAGE lists the pairs)."""
    items = [
        item("m1", "games", "maze", "Which exit does the shortest path reach?"),
        item("m2", "games", "maze", "How many moves to the red exit?"),
        item("d1", "games", "dart", "Where does the dart land after one bounce?"),
        item("g1", "gepbench", "counting", "How many triangles are in the figure?"),
        item("g2", "gepbench", "size", "Which circle is larger, the left or the right one?"),
    ]
    return write_run(root, items, ["text", "canvas", "tools"], TRIAGE)


TRIAGE = [
    Pair("m1", "text", correct=False, prediction="A"),
    Pair("m1", "canvas", correct=False, verdict="invalid", trace=canvas_trace()),
    Pair("m1", "tools", correct=True, verdict="valid", trace=canvas_trace(3, 2, 0)),
    Pair("m2", "text", correct=True),
    Pair("m2", "canvas", correct=True, verdict="invalid", trace=canvas_trace(2, 1, 0)),
    Pair("m2", "tools", status="error", verdict="absent"),
    Pair("d1", "text", correct=None, method="judge_error"),
    Pair("d1", "canvas", correct=False, verdict="absent", trace=canvas_trace(1, 0, 0)),
    Pair("d1", "tools", status="budget"),
    Pair("g1", "text", correct=False),
    Pair("g1", "canvas", correct=False, trace=canvas_trace(2, 1, 0)),
    Pair("g1", "tools", correct=True, trace=canvas_trace(2, 1, 0)),
    Pair("g2", "text", correct=True),
    Pair("g2", "canvas", correct=True, trace=canvas_trace(2, 1, 0)),
    Pair("g2", "tools", correct=False, trace=canvas_trace(2, 1, 0)),
]
"""m1/canvas: 5 model turns, 4 tool calls (1 failed), 5 canvas images; wrong canvas traces: m1, d1, g1."""


PAYLOADS = (
    "<script>window.pwned='script'</script>",
    "<!--<script>",
    "</script><script>window.pwned='close'</script>",
    '" onmouseover="window.pwned=\'attr\'" x="',
    "'><img src=x onerror=\"window.pwned='img'\">",
    "javascript:window.pwned='url'",
)
EVIL_ID = "<img src=x onerror=\"window.pwned='id'\">&mode=x#y"
EVIL_TEXT = " ".join(PAYLOADS)


def payload_run(root: Path) -> Path:
    """Return a run whose item id, question, choices, answer, prediction, tool arguments, results and image paths
    are HTML and JavaScript payloads (EVIL_ID, EVIL_TEXT), with a plain item beside it."""
    evil = item(
        EVIL_ID,
        "games<script>",
        'maze"><b>',
        f"Question {EVIL_TEXT} [click](javascript:window.pwned='md')",
        choices=[PAYLOADS[0], PAYLOADS[4]],
        answer=PAYLOADS[2],
        answer_type="text",
        images=["javascript:window.pwned='item-image'"],
    )
    trace = [
        {"step": 0, "kind": "observation", "text": PAYLOADS[1], "image": "javascript:window.pwned='step-image'"},
        {
            "step": 1,
            "kind": "model",
            "text": f"Thinking {EVIL_TEXT}",
            "tool_calls": [{"name": PAYLOADS[0], "arguments": {"text": PAYLOADS[2], "href": PAYLOADS[5]}}],
        },
        {
            "step": 2,
            "kind": "tool",
            "tool": PAYLOADS[3],
            "arguments": {"text": PAYLOADS[2], "href": PAYLOADS[5], "label": PAYLOADS[4]},
            "result": PAYLOADS[1] + " " + PAYLOADS[2],
            "error": PAYLOADS[0],
        },
        {"step": 3, "kind": "observation", "image": "blobs/red.png"},
        {"step": 4, "kind": "model", "text": f"Answer: {EVIL_TEXT}"},
    ]
    pairs = [
        Pair(EVIL_ID, "canvas", correct=False, prediction=f"Answer: {EVIL_TEXT}", trace=trace),
        Pair(EVIL_ID, "text", correct=False, prediction=PAYLOADS[2]),
        Pair("plain", "canvas", correct=True, trace=canvas_trace(1, 0, 0)),
    ]
    plain = item("plain", "games", "maze", "A plain question.")
    return write_run(root, [evil, plain], ["text", "canvas"], pairs)


def generation_run(root: Path) -> Path:
    """Return a run with a generated image (a GOBench-style prompt) and a diagram edit (input, reference, output)."""
    prompt = item(
        "light-1",
        "gobench",
        "direct_light_images",
        "A tree at sunset casts a shadow",
        images=[],
        choices=None,
        answer="",
        answer_type="image",
    )
    edit = item(
        "edit-1",
        "omniphys",
        "optics",
        "Draw the reflected ray.",
        choices=None,
        answer="images/ref.png",
        answer_type="image",
        images=["images/q.png"],
        meta={"reference_image": "images/ref.png"},
    )
    generated = [
        {
            "step": 0,
            "kind": "model",
            "text": "A tree at sunset casts a shadow",
            "image": "blobs/blue.png",
            "arguments": {"operation": "generate", "n": 1},
        }
    ]
    pairs = [
        Pair(
            "light-1",
            "procedural",
            correct=None,
            method="none",
            prediction="blobs/blue.png",
            trace=generated,
            result_extra={
                "image": "blobs/blue.png",
                "images": ["blobs/blue.png"],
                "generator": "procedural",
                "image_meta": [{"seed": 1, "template": "shadow_sun", "broken": False}],
            },
        ),
        Pair(
            "edit-1",
            "canvas",
            correct=True,
            method="judge",
            prediction="Done.",
            trace=canvas_trace(2, 1, 0),
            result_extra={
                "image": "blobs/red.png",
                "images": ["blobs/red.png"],
                "image_meta": [{"source": "canvas", "width": 8, "height": 8}],
            },
        ),
    ]
    return write_run(
        root,
        [prompt, edit],
        ["canvas", "procedural"],
        pairs,
        images={"images/q.png": "white", "images/ref.png": "green"},
    )


def large_run(root: Path, n_items: int, arms: tuple[str, ...] = ("text", "canvas", "tools")) -> Path:
    """Return a synthetic run of `n_items` × `arms` pairs with realistic texts (a few KB of model text per trace)."""
    words = "the ray leaves the source and meets the mirror at an angle of thirty degrees before the wall".split()
    items, pairs = [], []
    for n in range(n_items):
        question = " ".join(words[(n + k) % len(words)] for k in range(40)) + f" (item {n})"
        items.append(
            item(f"item-{n:05d}", "games" if n % 2 else "gepbench", ("maze", "ray", "dart", "size")[n % 4], question)
        )
        for k, arm in enumerate(arms):
            text = " ".join(words[(n * 7 + k + j) % len(words)] for j in range(120))
            trace = (
                canvas_trace(4, 3, n % 2, text=text) if arm != "text" else [{"step": 0, "kind": "model", "text": text}]
            )
            pairs.append(
                Pair(
                    f"item-{n:05d}",
                    arm,
                    correct=(n + k) % 3 == 0,
                    trace=trace,
                    verdict=("valid", "invalid", "absent")[n % 3] if arm != "text" else None,
                )
            )
    return write_run(root, items, list(arms), pairs)


JUDGE_RATINGS = {"authenticity": ["Yes", "Yes", "No", "Yes", "Yes"], "aesthetics": 4, "fidelity": 3}
"""What the scripted judge of `judged_generation_run` answers for every image."""


def mcot(*args: str | Path) -> None:
    """Run one mcot command in a process of its own; fail with its stderr when it does not exit 0."""
    done = subprocess.run([sys.executable, "-m", "mcot", *map(str, args)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def judged_generation_run(root: Path) -> Path:
    """Return a run made by `mcot imagine --generator procedural` (three GOBench prompts, two arms) and scored by
    `mcot score --judge` with a scripted judge that rates every image JUDGE_RATINGS."""
    prompts = [
        ("direct_light_images", "A lonely oak tree in a sunny meadow casts a long, sharp shadow across the grass."),
        ("reflect_light_images", "A girl looks into a flat bathroom mirror; her reflection faces her."),
        ("refracted_light_images", "A straw stands in a clear glass of water and seems to bend at the surface."),
    ]
    records = [
        {
            "index": f"{category}_{n}.{suffix}",
            "category": category,
            "image": f"{category}/{n}.{suffix}.png",
            "title": f"scenario {n}",
            "prompt": prompt,
            "Questions_reality": "\n".join(f"{q}. Is optical law {q} obeyed?" for q in range(1, 6)),
            "Question_aesthetics": "Please rate the aesthetics of the image on a scale of 1-5.",
            "Question_Instruction_consistency": "Please rate the instruction consistency on a scale of 1-5.",
        }
        for n, (category, prompt) in enumerate(prompts, start=1)
        for suffix in (1, 2, 3)
    ]
    root.mkdir(parents=True)
    (root / "data_total.json").write_text(json.dumps(records))
    (root / "judge.json").write_text(json.dumps([{"text": json.dumps(JUDGE_RATINGS)}]))
    run = root / "run"
    mcot("imagine", "--data", root / "data_total.json", "--generator", "procedural", "--out", run, "--size", "128x128")
    mcot("score", run, "--judge", f"scripted:{root / 'judge.json'}")
    return run


def offline_tools_run(root: Path) -> Path:
    """Return a run made by `mcot run --model offline --mode tools` on one dots item (`mcot gen games --task dots`):
    its trace has domain tools that only look (detect_shapes, measure) and one that draws (analyze_polygon)."""
    mcot("gen", "games", "--task", "dots", "--n", "1", "--seed", "0", "--out", root / "items")
    mcot("run", "--data", root / "items", "--model", "offline", "--mode", "tools", "--out", root / "run")
    return root / "run"
