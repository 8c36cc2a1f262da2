"""The static trace viewer: one HTML file that works from file://, images referenced from the run's blobs."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from eval.rundir import RunDir, check_frozen_items, latest_by_key, read_jsonl

TEMPLATE = "viewer.html"
# Trace fields the viewer shows; the rest (svg, ops, data) stays on disk to keep the page light.
SHOWN_STEP_FIELDS = (
    "step",
    "kind",
    "text",
    "tool",
    "arguments",
    "result",
    "error",
    "image",
    "tool_calls",
    "t",
    "drawn_by",
)


def _relink(image: str | None, prefix: str) -> str | None:
    return None if not image else f"{prefix}{image}" if prefix else image


def viewer_records(run_dir: RunDir, image_prefix: str = "") -> list[dict[str, Any]]:
    """Return one record per recorded (item, arm): the item's prompt, its result, its score and its trace steps.

    Items come from the run's frozen RUN/items.jsonl (RunDirError when it no longer matches the manifest).
    """
    items = {str(r["id"]): r for r in read_jsonl(check_frozen_items(run_dir.root, run_dir.read_manifest()))}
    scores = latest_by_key(read_jsonl(run_dir.scores_path))
    records = []
    for (item_id, mode), result in sorted(run_dir.results().items()):
        item = items.get(item_id, {})
        score = scores.get((item_id, mode), {})
        steps = []
        if result.get("trace"):
            for step in read_jsonl(run_dir.root / result["trace"]):
                shown = {key: step.get(key) for key in SHOWN_STEP_FIELDS}
                shown["image"] = _relink(step.get("image"), image_prefix)
                steps.append(shown)
        records.append(
            {
                "id": item_id,
                "mode": mode,
                "benchmark": result.get("benchmark", item.get("benchmark")),
                "category": result.get("category", item.get("category")),
                "question": item.get("question", ""),
                "choices": item.get("choices"),
                "answer": item.get("answer"),
                "status": result.get("status"),
                "error": result.get("error"),
                "steps": result.get("steps", 0),
                "extracted": score.get("extracted"),
                "correct": score.get("correct"),
                "trace": steps,
            }
        )
    return records


def write_viewer(run_root: Path, out: Path | None = None) -> Path:
    """Write the viewer page for a run (default RUN/index.html) and return its path."""
    run_dir = RunDir(Path(run_root))
    check_frozen_items(run_dir.root, run_dir.read_manifest())  # fails clearly before anything is written
    out = Path(out) if out is not None else run_dir.root / "index.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    prefix = os.path.relpath(run_dir.root.resolve(), out.parent.resolve())
    prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
    data = {"runs": viewer_records(run_dir, prefix)}
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    template = resources.files("mcot").joinpath("templates", TEMPLATE).read_text(encoding="utf-8")
    title = run_dir.root.name.replace("&", "&amp;").replace("<", "&lt;")
    html = template.replace("__MCOT_TITLE__", title).replace("__MCOT_DATA__", payload)
    out.write_text(html, encoding="utf-8")
    return out
