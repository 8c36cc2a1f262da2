"""An item whose answer is an image: the canvas arm's final canvas is the prediction's image (real canvas)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import diagram_fixture as fixture
from mcot.agents import Budget, solve
from mcot.agents.backends.base import ModelRequest, ModelResponse, Usage
from mcot.agents.messages import ToolCall
from mcot.canvas import Canvas
from mcot.eval.verify import trace_ops
from PIL import Image

from mcot.core.item import Item, read_items
from mcot.core.rundir import MemoryBlobs


def _item(tmp_path: Path, item_id: str = "reflect-1") -> tuple[Item, Path]:
    root = fixture.items_dir(tmp_path, (item_id,))
    return read_items(root)[0], root


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def _replayed(item: Item, root: Path, steps: list[dict[str, Any]]) -> bytes:
    """Return the PNG of a fresh canvas over the item's input with every op of the trace's tool steps applied."""
    base = Image.open(root / item.images[0])
    return Canvas.replay(base, trace_ops(steps)).snapshot().png


def test_the_final_canvas_is_the_output_and_replays_from_the_trace(tmp_path: Path, scripted: Any) -> None:
    item, root = _item(tmp_path)
    name, arguments = fixture.CORRECT["reflect-1"]
    spec = scripted(
        [
            {"text": "", "tool_calls": [_call("show_grid", {"on": True})]},
            {
                "text": "grid off, then the ray",
                "tool_calls": [_call("show_grid", {"on": False}), _call(name, arguments)],
            },
            {"text": "The reflected ray leaves P at the same angle to the normal."},
        ]
    )
    blobs = MemoryBlobs()
    prediction, trace = asyncio.run(solve(item, root, spec, "canvas", blobs=blobs))
    assert prediction.status == "ok" and prediction.text.startswith("The reflected ray")
    assert len(prediction.images) == 1
    path = prediction.images[0]
    output = blobs.data[path.removeprefix("blobs/")]
    steps = [step.to_dict() for step in trace]
    assert output == _replayed(item, root, steps)
    assert output == fixture.reference_diagram("reflect-1")  # the correct drawing, pixel for pixel
    assert path == [s.image for s in trace if s.kind == "observation"][-1]  # what the model saw last
    assert prediction.image_meta == [{"source": "canvas", "width": 320, "height": 240}]
    assert prediction.to_record()["image"] == path


def test_the_text_arm_and_answers_in_words_keep_no_image(tmp_path: Path, scripted: Any, make_items: Any) -> None:
    item, root = _item(tmp_path)
    spec = scripted([{"text": "The ray goes up and to the right."}])
    prediction, _ = asyncio.run(solve(item, root, spec, "text"))
    assert prediction.status == "ok" and prediction.images == []
    assert "image" not in prediction.to_record()
    number = make_items(tmp_path / "numbers")  # a number item in the canvas arm: its answer is text
    drawn = scripted(
        [{"text": "", "tool_calls": [_call("draw_line", {"start": [1, 1], "end": [9, 9]})]}, {"text": "1"}]
    )
    prediction, _ = asyncio.run(solve(number, tmp_path / "numbers", drawn, "canvas"))
    assert prediction.status == "ok" and prediction.images == []


def test_a_step_budget_stop_keeps_the_canvas_as_it_stands(tmp_path: Path, scripted: Any) -> None:
    item, root = _item(tmp_path, "throw-1")
    name, arguments = fixture.WRONG["throw-1"]
    spec = scripted(
        [{"text": "", "tool_calls": [_call(name, arguments)]}, {"text": "", "tool_calls": [_call(name, arguments)]}]
    )
    blobs = MemoryBlobs()
    prediction, trace = asyncio.run(solve(item, root, spec, "canvas", Budget(max_steps=2), blobs=blobs))
    assert prediction.status == "budget"
    output = blobs.data[prediction.images[0].removeprefix("blobs/")]
    assert output == fixture.canvas_after("throw-1", [(name, arguments)])  # the second call never ran
    assert output == _replayed(item, root, [step.to_dict() for step in trace])


class DrawThenHang:
    """Draws the correct ray, then never answers: the wall-clock budget ends the solve."""

    provider, model, spec = "test", "hang", "test:hang"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if any(m.role == "assistant" for m in request.messages):
            await asyncio.sleep(60)
        name, arguments = fixture.CORRECT["reflect-1"]
        call = ToolCall(id="c1", name=name, arguments=json.dumps(arguments))
        return ModelResponse(text="", tool_calls=(call,), usage=Usage(1, 1), stop_reason="tool_use")


def test_a_timeout_keeps_the_last_canvas_the_model_saw(tmp_path: Path) -> None:
    item, root = _item(tmp_path)
    blobs = MemoryBlobs()
    prediction, trace = asyncio.run(
        solve(item, root, DrawThenHang(), "canvas", Budget(item_timeout_s=1.0), blobs=blobs)
    )
    assert prediction.status == "error" and prediction.error is not None and "item time-out" in prediction.error
    seen = [s.image for s in trace if s.kind == "observation"]
    assert len(seen) == 2 and prediction.images == [seen[-1]]
    output = blobs.data[seen[-1].removeprefix("blobs/")]
    assert output == fixture.reference_diagram("reflect-1")
    assert Image.open(io.BytesIO(output)).size == fixture.SIZE
