"""Run directories made by hand, in the manifest shape `mcot run` writes (arms with tools, a frozen dataset)."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mcot.core.item import Item, write_items

CANVAS_TOOLS = ["draw_line", "draw_arrow", "trace_path", "undo"]
ARMS = {"text": [], "canvas": CANVAS_TOOLS, "tools": [*CANVAS_TOOLS, "maze_from_image", "solve_maze"]}

MakeRun = Callable[..., Path]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ok(item_id: str, arm: str, prediction: str, *, trace: str | None = None) -> dict[str, Any]:
    """A finished result line as the runner writes it."""
    return {
        "id": item_id,
        "mode": arm,
        "status": "ok",
        "prediction": prediction,
        "steps": 1,
        "usage": {"input_tokens": 10, "output_tokens": 5, "cost_usd": None},
        "latency_s": 0.1,
        "error": None,
        "trace": trace,
    }


def failed(item_id: str, arm: str, reason: str, status: str = "error") -> dict[str, Any]:
    """A failed result line as the runner writes it."""
    return {**ok(item_id, arm, ""), "status": status, "steps": 0, "error": reason}


def run_builder(tmp_path: Path) -> MakeRun:
    """Return a builder: items, arms and result lines (and traces) in, a run directory out.

    The source items go to `<root>-items/`, their frozen copy to RUN/items.jsonl; the manifest records both
    hashes (`dataset.sha256` of the copy, `dataset.source_sha256` of the source) and the arms with their tools.
    """

    def build(
        name: str,
        items: Sequence[Item],
        arms: Sequence[str],
        results: Sequence[dict[str, Any]],
        traces: Mapping[tuple[str, str], list[dict[str, Any]]] | None = None,
    ) -> Path:
        root = tmp_path / name
        source = tmp_path / f"{name}-items"
        write_items(source, [(item, {}) for item in items])
        root.mkdir(parents=True)
        shutil.copyfile(source / "items.jsonl", root / "items.jsonl")
        manifest = {
            "mcot_version": "0.1.0",
            "model": {"spec": "offline", "base_url": None},
            "arms": [{"name": arm, "tools": ARMS[arm], "tool_schemas": {}} for arm in arms],
            "modes": list(arms),
            "dataset": {
                "path": str(source),
                "sha256": sha256(root / "items.jsonl"),
                "source_sha256": sha256(source / "items.jsonl"),
                "n_items": len(items),
                "limit": None,
            },
            "config": {"max_steps": 12, "temperature": 0.0, "seed": None},
            "sessions": [{"started": "2025-01-01T00:00:00+00:00", "finished": None, "concurrency": 1}],
            "judge": None,
        }
        (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
        rows = list(results)
        for (item_id, arm), steps in (traces or {}).items():
            relative = f"traces/{item_id}.{arm}.jsonl"
            (root / "traces").mkdir(exist_ok=True)
            (root / relative).write_text("".join(json.dumps(step) + "\n" for step in steps))
            rows = [{**row, "trace": relative} if (row["id"], row["mode"]) == (item_id, arm) else row for row in rows]
        (root / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
        return root

    return build
