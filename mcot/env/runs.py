"""Episodes written as a run directory (docs/design.md's layout), so that `mcot view` and `mcot score` open them.

Each episode becomes one (item, arm) of the run: its item in RUN/items.jsonl (the canvas image under images/),
a result line (the completion's text as the prediction, when given), and its trace, whose observation images are
rendered by replaying the episode's op log on the item's canvas (RUN/blobs/<sha256>.png): the images the
environment returned, pixel for pixel.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcot.env.episode import OBSERVE_MAX_SIDE, Episode

ENV_COMMAND = "mcot env"
ENV_MODEL = "environment"


def replay_observations(episode: Episode) -> list[dict[str, Any]]:
    """Return the episode's trace steps with each observation's images (run-relative blob paths) and SVG, made by
    replaying the op log; the PNG bytes are in `episode.blobs`, by sha256."""
    from mcot.canvas import Canvas

    canvas = (
        Canvas(base=episode.base)
        if episode.base is not None
        else Canvas(size=(episode.canvas.width, episode.canvas.height))
    )
    steps = []
    for step in episode.trace():
        step = dict(step)
        if step["kind"] == "tool":
            for record in step.get("ops") or []:
                canvas.apply(record)
        elif step["kind"] == "observation":
            snap = canvas.snapshot()
            seen = canvas.observe(max_side=OBSERVE_MAX_SIDE)
            episode.blobs[snap.sha256] = snap.png
            episode.blobs[seen.sha256] = seen.data
            step.update(image=f"blobs/{snap.sha256}.png", seen=f"blobs/{seen.sha256}.png", svg=canvas.svg())
        steps.append(step)
    return steps


def write_episodes(
    episodes: Sequence[Episode], out: Path, *, completions: Sequence[str] | None = None, arm: str | None = None
) -> Path:
    """Write episodes as the run directory `out` (one (item, arm) each; `completions` the model's final texts);
    return `out`. Raise FileExistsError when `out` holds files."""
    from mcot import __version__
    from mcot.agents.trace import Step
    from mcot.rundir import Result, ResultUsage, file_sha256, now_iso

    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty; choose another folder for the episodes")
    for folder in ("traces", "blobs", "images"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    tools = episodes[0].tools if episodes else ()
    name = arm or ("canvas" if tools else "text")
    items, results = [], []
    for k, episode in enumerate(episodes):
        item = episode.item
        if episode.base is not None and item.images:
            buffer = io.BytesIO()
            episode.base.save(buffer, format="PNG")
            target = out / item.images[0]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(buffer.getvalue())
        items.append(item.to_json_line())
        steps = replay_observations(episode)
        trace = f"traces/{hashlib.sha256(item.id.encode()).hexdigest()[:16]}.{name}.jsonl"
        lines = [json.dumps(Step(t=0.0, **step).to_dict(), ensure_ascii=False) for step in steps]
        (out / trace).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        prediction = completions[k] if completions is not None else ""
        tool_steps = sum(1 for step in steps if step["kind"] == "tool")
        usage = ResultUsage(input_tokens=0, output_tokens=0, cost_usd=0.0)
        results.append(
            Result(
                id=item.id, mode=name, status="ok", prediction=prediction, steps=tool_steps, usage=usage, trace=trace
            )
        )
    for sha, data in {sha: data for episode in episodes for sha, data in episode.blobs.items()}.items():
        (out / "blobs" / f"{sha}.png").write_bytes(data)
    (out / "items.jsonl").write_text("".join(line + "\n" for line in items), encoding="utf-8")
    (out / "results.jsonl").write_text("".join(result.to_line() + "\n" for result in results), encoding="utf-8")
    manifest = {
        "command": ENV_COMMAND,
        "mcot_version": __version__,
        "model": {"spec": ENV_MODEL},
        "arms": [{"name": name, "tools": list(tools)}],
        "dataset": {"path": str(out), "sha256": file_sha256(out / "items.jsonl"), "n_items": len(items)},
        "started": now_iso(),
        "finished": now_iso(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out
