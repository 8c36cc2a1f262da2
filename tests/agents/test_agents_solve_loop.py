"""solve(): modes, budgets, tool errors, context limits, replay and concurrency (scripted models, no network)."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest
from mcot.agents import Budget, Prediction, Trace, solve
from mcot.agents.backends.base import ModelRequest, ModelResponse, Usage
from mcot.agents.messages import ImagePart, ToolCall, ToolResultPart
from mcot.canvas import Canvas
from virtual_time import VirtualClock, run_virtual

from mcot.rundir import BlobStore, MemoryBlobs

DRAW = {"name": "draw_line", "arguments": {"start": [40, 40], "end": [120, 100]}}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_text_and_canvas_on_the_same_item_answer_in_the_same_format(item_dir, scripted):
    item, root = item_dir
    spec = scripted([{"text": "draw first", "tool_calls": [DRAW]}, {"text": "One.\n\\boxed{1}"}])
    text_pred, text_trace = run(solve(item, root, spec, "text"))
    canvas_pred, canvas_trace = run(solve(item, root, spec, "canvas"))
    assert text_pred.status == canvas_pred.status == "ok"
    assert text_pred.steps == 1 and canvas_pred.steps == 2
    assert [s.kind for s in text_trace] == ["model"]
    assert [s.kind for s in canvas_trace] == ["observation", "model", "tool", "observation", "model"]
    assert canvas_pred.text == "One.\n\\boxed{1}"
    assert text_pred.usage == {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "cached_calls": 0}


def test_real_tools_trace_replays_byte_identically(item_dir, scripted, tmp_path):
    item, root = item_dir
    turns = [
        {"text": "", "tool_calls": [DRAW, {"name": "show_grid", "arguments": {"on": True, "step": 40}}]},
        {"text": "", "tool_calls": [{"name": "mark_point", "arguments": {"at": [80, 70], "label": "c"}}]},
        {
            "text": "",
            "tool_calls": [
                {"name": "undo", "arguments": {}},
                {"name": "zoom", "arguments": {"region": [0, 0, 160, 120]}},
            ],
        },
        {"text": "", "tool_calls": [{"name": "draw_circle", "arguments": {"center": [80, 70], "radius": 30}}]},
        {"text": "\\boxed{1}"},
    ]
    blobs = BlobStore(tmp_path / "blobs")
    prediction, trace = run(solve(item, root, scripted(turns), "canvas", blobs=blobs))
    assert prediction.status == "ok", prediction.error
    observations = [i for i, s in enumerate(trace.steps) if s.kind == "observation"]
    assert len(observations) == 5
    base = Canvas.from_path(root / "images" / "q1.png").base
    for index in observations:
        replayed = Canvas.replay(base, trace.ops(upto=index)).snapshot()
        assert trace.steps[index].image == f"blobs/{replayed.sha256}.png"
        assert (tmp_path / trace.steps[index].image).read_bytes() == replayed.png
    zoom = next(s for s in trace.steps if s.tool == "zoom")
    assert zoom.image is not None and (tmp_path / zoom.image).is_file() and zoom.ops == []
    seen = trace.steps[observations[-1]].seen
    assert seen is not None and (tmp_path / seen).is_file()

    path = trace.write_jsonl(tmp_path / "traces" / "q1.canvas.jsonl")
    assert Trace.read_jsonl(path).to_lines() == trace.to_lines()


def test_step_budget_keeps_the_last_answer(item_dir, scripted):
    item, root = item_dir
    turns = [{"text": f"attempt {i}: \\boxed{{{i}}}", "tool_calls": [DRAW]} for i in range(10)]
    prediction, trace = run(solve(item, root, scripted(turns), "canvas", Budget(max_steps=3)))
    assert prediction.status == "budget"
    assert prediction.steps == 3
    assert prediction.text == "attempt 2: \\boxed{2}"
    assert "step budget" in prediction.error
    assert len(trace.of_kind("model")) == 3 and len(trace.of_kind("tool")) == 2


class CountingModel:
    """Draws forever, reporting 50 output tokens a turn; records each request."""

    provider, model, spec = "test", "counting", "test:counting"

    def __init__(self, delay: float = 0.0) -> None:
        self.requests: list[ModelRequest] = []
        self.delay = delay

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        n = len(self.requests)
        call = ToolCall(f"c{n}", "mark_point", f'{{"at": [{10 + n}, 10]}}')
        return ModelResponse(f"guess {n}", (call,), Usage(10, 50))


def test_output_token_budget(item_dir, toolbox):
    item, root = item_dir
    model = CountingModel()
    budget = Budget(max_output_tokens=120, max_tokens_per_call=100)
    prediction, _ = run(solve(item, root, model, "custom", budget, tools=toolbox.names(), toolbox=toolbox))
    assert prediction.status == "budget" and "output-token" in prediction.error
    assert prediction.usage["output_tokens"] == 150 and prediction.usage["cost_usd"] is None
    assert [r.max_tokens for r in model.requests] == [100, 70, 20]


class HangingModel(CountingModel):
    """Answers its first turn at once, then never again (within any test's patience)."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if self.requests:
            await asyncio.sleep(60)
        return await super().generate(request)


def test_wall_clock_budget(item_dir, toolbox):
    item, root = item_dir
    clock = VirtualClock()  # the loop's clock: the model's hang passes at once, the tools' threads take no time
    prediction, trace = run_virtual(
        solve(item, root, HangingModel(), "custom", Budget(item_timeout_s=2.0), tools=toolbox.names(), toolbox=toolbox),
        clock,
    )
    assert clock.now == pytest.approx(2.0)  # stopped at the budget: neither earlier nor after the model's 60 s
    assert prediction.status == "error" and "item time-out" in prediction.error  # a resume retries it
    assert prediction.text == "guess 1" and prediction.steps == 1
    assert [s.kind for s in trace] == ["observation", "model", "tool", "observation"]


def test_only_the_latest_canvas_images_stay_in_context(item_dir, toolbox):
    item, root = item_dir
    model = CountingModel()
    run(
        solve(
            item,
            root,
            model,
            "custom",
            Budget(max_steps=6, max_canvas_images=2),
            tools=toolbox.names(),
            toolbox=toolbox,
        )
    )
    last = model.requests[-1].messages
    images = [p for m in last for p in m.parts if isinstance(p, ImagePart)]
    assert len(images) == 2 and all(i.canvas for i in images)
    omitted = [p for m in last for p in m.parts if getattr(p, "text", "").startswith("[earlier canvas image")]
    assert len(omitted) == 4  # six canvas images were shown in all: the initial one and five after tools
    assert len(model.requests) == 6


def test_unknown_tool_and_tool_exception_become_errors_the_model_sees(item_dir, toolbox, scripted):
    item, root = item_dir
    turns = [
        {"text": "", "tool_calls": [{"name": "teleport", "arguments": {}}, {"name": "boom", "arguments": {}}, DRAW]},
        {"text": "\\boxed{1}"},
    ]
    seen: list[ModelRequest] = []
    from mcot.agents.backends.scripted import ScriptedBackend

    backend = ScriptedBackend(scripted(turns)[len("scripted:") :])
    original = backend.generate

    async def spy(request: ModelRequest) -> ModelResponse:
        seen.append(request)
        return await original(request)

    backend.generate = spy  # type: ignore[method-assign]
    prediction, trace = run(solve(item, root, backend, "custom", tools=toolbox.names(), toolbox=toolbox))
    assert prediction.status == "ok"
    results = [p for p in seen[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert [r.is_error for r in results] == [True, True, False]
    assert "tool 'teleport' is unknown" in results[0].text and "draw_line" in results[0].text
    assert "RuntimeError" in results[1].text
    tools = trace.of_kind("tool")
    assert tools[0].error and tools[1].error and tools[2].error is None


def test_missing_image_is_an_error_not_a_crash(item_dir, scripted):
    item, root = item_dir
    (root / "images" / "q1.png").unlink()
    prediction, _ = run(solve(item, root, scripted([{"text": "x"}]), "canvas"))
    assert prediction.status == "error" and "q1.png" in prediction.error


def test_many_solves_at_once(item_dir, toolbox):
    item, root = item_dir

    async def many() -> list[tuple[Prediction, Trace]]:
        return await asyncio.gather(
            *(
                solve(
                    item,
                    root,
                    CountingModel(0.01),
                    "custom",
                    Budget(max_steps=3),
                    tools=toolbox.names(),
                    toolbox=toolbox,
                )
                for _ in range(16)
            )
        )

    outcomes = run(many())
    assert all(p.status == "budget" and p.steps == 3 for p, _ in outcomes)
    # interleaved solves do not disturb each other: same steps, same rendered images
    assert len({tuple((s.kind, s.image, s.text) for s in t) for _, t in outcomes}) == 1


def test_memory_blobs_hash_content():
    blobs = MemoryBlobs()
    sha = blobs.put(b"abc")
    assert sha == hashlib.sha256(b"abc").hexdigest() and blobs.data[sha + ".png"] == b"abc"


def test_an_unknown_arm_without_tools_is_refused():
    with pytest.raises(ValueError, match=r"no toolset named 'sketch'.*tools="):
        run(solve(None, ".", "offline", "sketch"))  # type: ignore[arg-type]


def test_tools_the_toolbox_lacks_are_refused(item_dir, toolbox):
    item, root = item_dir
    with pytest.raises(ValueError, match="no tool 'solve_maze'"):
        run(solve(item, root, "offline", "custom", tools=("draw_line", "solve_maze"), toolbox=toolbox))


def test_scripted_file_per_mode(item_dir, tmp_path):
    import json

    item, root = item_dir
    path = tmp_path / "modes.json"
    path.write_text(
        json.dumps(
            {"text": [{"text": "\\boxed{2}"}], "canvas": [{"text": "", "tool_calls": [DRAW]}, {"text": "\\boxed{1}"}]}
        )
    )
    text, _ = run(solve(item, root, f"scripted:{path}", "text"))
    canvas, _ = run(solve(item, root, f"scripted:{path}", "canvas"))
    assert (text.text, text.steps) == ("\\boxed{2}", 1)
    assert (canvas.text, canvas.steps) == ("\\boxed{1}", 2)


class RecordingModel:
    """Answers at once and keeps every request."""

    provider, model, spec = "test", "recording", "test:recording"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse("B")


def test_both_modes_send_the_same_task_text(tmp_path):
    from mcot.benchmarks.item import Item

    root = tmp_path / "gep"
    (root / "images").mkdir(parents=True)
    from PIL import Image

    Image.new("L", (640, 640), 255).save(root / "images" / "g.png")
    item = Item(
        id="g1",
        benchmark="gepbench",
        category="counting",
        question="How many circles are there?",
        images=["images/g.png"],
        choices=["1", "2", "3", "4"],
        answer="B",
        answer_type="choice",
    )
    texts = {}
    for mode in ("text", "canvas"):
        model = RecordingModel()
        prediction, _ = run(solve(item, root, model, mode))
        assert prediction.text == "B"
        texts[mode] = model.requests[0].messages[-1].parts[-1].text
    assert texts["text"] == texts["canvas"]
    assert texts["text"].splitlines()[1:5] == ["A. 1", "B. 2", "C. 3", "D. 4"]


def test_an_item_without_image_gets_a_blank_canvas(tmp_path):
    from mcot.benchmarks.item import Item

    item = Item(
        id="t1",
        benchmark="rbench-v",
        category="physics",
        question="A ball falls 5 m. Time?",
        answer="1 s",
        answer_type="number",
    )
    prediction, trace = run(solve(item, tmp_path, RecordingModel(), "canvas"))
    assert prediction.status == "ok"
    assert trace.steps[0].text == "The canvas (1024 × 768 canvas pixels)."
