"""A small hand-built run directory, as `mcot run` and `mcot score` would leave it."""

import hashlib
import json
from pathlib import Path

import pytest
from PIL import Image

from mcot.rundir import Manifest, RunDir


def _png(path: Path, color: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), color).save(path)


@pytest.fixture
def handmade_run(tmp_path: Path) -> Path:
    items = tmp_path / "items"
    _png(items / "images" / "q1.png", "white")
    item = {
        "id": "q1",
        "benchmark": "games",
        "category": "maze",
        "question": "Which exit? </script>",
        "images": ["images/q1.png"],
        "choices": ["A", "B"],
        "answer": "B",
        "answer_type": "choice",
        "meta": {},
    }
    (items / "items.jsonl").write_text(json.dumps(item) + "\n")
    run = tmp_path / "run"
    rd = RunDir(run)
    run.mkdir(parents=True)
    (run / "items.jsonl").write_text(json.dumps(item) + "\n")
    frozen = hashlib.sha256((run / "items.jsonl").read_bytes()).hexdigest()
    rd.write_manifest(
        Manifest.model_validate(
            {
                "model": {"spec": "offline"},
                "modes": ["text", "canvas"],
                "dataset": {"path": str(items), "sha256": frozen},
            }
        )
    )
    _png(run / "blobs" / "abc.png", "red")
    trace = [
        {"step": 0, "kind": "observation", "image": "blobs/abc.png"},
        {"step": 1, "kind": "model", "text": "I draw", "tool_calls": [{"name": "draw_line"}]},
        {
            "step": 2,
            "kind": "tool",
            "tool": "draw_line",
            "arguments": {"start": [0, 0], "end": [1, 1]},
            "result": "drew e1",
            "error": None,
        },
        {"step": 3, "kind": "observation", "image": "blobs/abc.png"},
        {"step": 4, "kind": "model", "text": "\\boxed{B}"},
    ]
    (run / "traces").mkdir()
    (run / "traces" / "q1.canvas.jsonl").write_text("".join(json.dumps(s) + "\n" for s in trace))
    results = [
        {"id": "q1", "mode": "text", "status": "ok", "prediction": "A", "steps": 1, "trace": None},
        {"id": "q1", "mode": "canvas", "status": "error", "prediction": "", "steps": 0, "trace": None},
        {
            "id": "q1",
            "mode": "canvas",
            "status": "ok",
            "prediction": "\\boxed{B}",
            "steps": 2,
            "trace": "traces/q1.canvas.jsonl",
        },
    ]
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    scores = [
        {
            "id": "q1",
            "mode": "canvas",
            "benchmark": "games",
            "category": "maze",
            "correct": True,
            "score": 1.0,
            "method": "rule",
            "extracted": "B",
        },
        {
            "id": "q1",
            "mode": "text",
            "benchmark": "games",
            "category": "maze",
            "correct": False,
            "score": 0.0,
            "method": "rule",
            "extracted": "A",
        },
    ]
    (run / "scores.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scores))
    return run
