"""The ablation arms against a local server: `canvas-blind` shows one image in every request, `look` offers exactly
`zoom` and `show_grid`, and the manifest records both arms' tools and whether each sees the canvas."""

import json
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from mcot.tools import canvas_tools
from PIL import Image

from mcot.arms import parse_arms
from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.testing import FakeProvider, Reply

DRAWING = [
    ("draw_line", {"start": [4, 4], "end": [40, 30]}),
    ("zoom", {"region": [0, 0, 32, 24]}),
]


def _png() -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    item = Item(
        id="q0",
        benchmark="gepbench",
        category="counting",
        question="How many circles are there?",
        images=["images/q0.png"],
        choices=["1", "2", "3", "4"],
        answer="C",
        answer_type="choice",
    )
    out = tmp_path / "items"
    write_items(out, [(item, {"images/q0.png": _png()})])
    return out


def _offered(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def _turns(body: dict[str, Any]) -> int:
    return sum(1 for message in body["messages"] if message["role"] == "assistant")


def _images(body: dict[str, Any]) -> int:
    count = 0
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for part in content if part.get("type") == "image_url")
    return count


def _answer(body: dict[str, Any]) -> Reply:
    """Two rounds of drawing in a drawing arm, one zoom in `look`, then the answer."""
    offered, turns = _offered(body), _turns(body)
    if "draw_line" in offered and turns < 2:
        return Reply("drawing", tool_calls=[DRAWING[0], DRAWING[1]] if turns == 0 else [DRAWING[0]])
    if "draw_line" not in offered and offered and turns == 0:
        return Reply("looking", tool_calls=[("show_grid", {"on": True}), DRAWING[1]])
    return Reply("C")


def _run(items_dir: Path, out: Path, mode: str) -> list[Any]:
    with FakeProvider([], default=_answer) as server:
        config = RunConfig(
            data=items_dir,
            model="openai-compatible:local-vlm",
            base_url=[server.openai_url],
            out=out,
            mode=mode,
            concurrency=1,
        )
        summary = run_items(config, quiet=True)
        requests = list(server.requests)
    assert summary.done == len(config.arms), summary
    return requests


def test_canvas_blind_requests_carry_exactly_one_image_and_canvas_ones_more(items_dir: Path, tmp_path: Path) -> None:
    requests = _run(items_dir, tmp_path / "run", "canvas,canvas-blind")
    solves: list[list[dict[str, Any]]] = []  # concurrency 1: one solve's requests follow each other
    for request in requests:
        if _turns(request.body) == 0:
            solves.append([])
        solves[-1].append(request.body)
    assert len(solves) == 2
    blind = [solve for solve in solves if "not shown the canvas again" in json.dumps(solve[-1]["messages"])]
    by_arm = {"canvas-blind": blind[0], "canvas": next(solve for solve in solves if solve is not blind[0])}
    assert [_turns(b) for b in by_arm["canvas-blind"]] == [0, 1, 2]
    assert [_images(b) for b in by_arm["canvas-blind"]] == [1, 1, 1]  # the first observation only
    assert [_images(b) for b in by_arm["canvas"]] == [1, 3, 3]  # + the zoom and each observation (at most 3 kept)
    system_prompts = {arm: json.dumps(solve[0]["messages"][0]) for arm, solve in by_arm.items()}
    assert "you see the canvas only once" in system_prompts["canvas-blind"]
    assert "you see the canvas only once" not in system_prompts["canvas"]
    last = by_arm["canvas-blind"][-1]["messages"]
    said = json.dumps(last)
    assert "- e1: line; start [4" in said and "- e2: line; start [4" in said
    assert "zoom: 64x48 view of region [0.0, 0.0, 32.0, 24.0] attached (not shown: this arm shows no image" in said
    for body in by_arm["canvas-blind"]:
        assert _offered(body) == list(canvas_tools())
    # the trace keeps every image the model was not shown
    results = {r["mode"]: r for r in read_jsonl(tmp_path / "run" / "results.jsonl")}
    assert results["canvas-blind"]["status"] == "ok"
    trace = tmp_path / "run" / results["canvas-blind"]["trace"]
    blind_steps = [json.loads(line) for line in trace.read_text().splitlines()]
    observations = [s for s in blind_steps if s["kind"] == "observation"]
    assert len(observations) == 3 and all(s["image"].startswith("blobs/") for s in observations)
    assert any(s["kind"] == "tool" and s["tool"] == "zoom" and s["image"] for s in blind_steps)


def test_look_requests_offer_exactly_zoom_and_show_grid(items_dir: Path, tmp_path: Path) -> None:
    requests = _run(items_dir, tmp_path / "run", "look")
    assert len(requests) == 2
    for request in requests:
        assert _offered(request.body) == ["zoom", "show_grid"]
    assert _images(requests[-1].body) >= 2  # look sees its zoom and the gridded canvas
    system = requests[0].body["messages"][0]["content"]
    system = system if isinstance(system, str) else " ".join(part.get("text", "") for part in system)
    # look's own system prompt: it names what the arm offers and no drawing tool
    assert "zoom returns a magnified view" in system and "cannot draw" in system and "draw_line" not in system


def test_manifest_records_the_ablation_arms_tools_and_what_they_see(items_dir: Path, tmp_path: Path) -> None:
    blind, look = parse_arms("canvas-blind,look")
    assert blind.tools == canvas_tools() and blind.sees_canvas is False
    assert look.tools == ("zoom", "show_grid") and look.sees_canvas is True
    run = tmp_path / "run"
    run_items(RunConfig(data=items_dir, model="offline", out=run, mode="canvas,canvas-blind,look"), quiet=True)
    arms = {arm["name"]: arm for arm in json.loads((run / "manifest.json").read_text())["arms"]}
    assert arms["canvas-blind"]["tools"] == list(canvas_tools()) and arms["canvas-blind"]["sees_canvas"] is False
    assert arms["look"]["tools"] == ["zoom", "show_grid"] and arms["look"]["sees_canvas"] is True
    assert arms["canvas"]["sees_canvas"] is True
    assert set(arms["look"]["tool_schemas"]) == {"zoom", "show_grid"}
