"""OmniPhys diagram editing, route 2, end to end: native records → `mcot convert` → `mcot run --mode canvas` →
`mcot score --judge`: the final canvas is the output, the judge grades it 1 / 0.5 / 0 and the trace verifier checks
the drawing against `meta.solution_path`; the report shows the Diagram mean and the trace crosstab.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import diagram_fixture as fixture
import pytest
from mcot.canvas import Canvas
from mcot.eval.verify import trace_ops
from PIL import Image, ImageChops
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.item import read_items
from mcot.core.rundir import read_jsonl
from mcot.testing.fake_provider import FakeProvider, Reply


def mcot(*args: str) -> str:
    """Run an mcot command in this process; return its output."""
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def converted(tmp_path: Path, ids: tuple[str, ...]) -> Path:
    """Write the native fixture and convert it with `mcot convert omniphys --mapping`; return the items dir."""
    source = fixture.native_records(tmp_path / "native", ids)
    out = tmp_path / "items"
    mcot("convert", "omniphys", source, "--out", out, "--mapping", fixture.MAPPING)
    return out


def results(run: Path, arm: str = "canvas") -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in read_jsonl(run / "results.jsonl") if r["mode"] == arm}


def scores(run: Path, arm: str = "canvas") -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in read_jsonl(run / "scores.jsonl") if s["mode"] == arm}


def replayed(items: Path, item_id: str, run: Path, record: dict[str, Any]) -> bytes:
    """Return the PNG of a fresh canvas over the item's input with the trace's ops applied."""
    item = next(i for i in read_items(items) if i.id == item_id)
    steps = read_jsonl(run / record["trace"])
    return Canvas.replay(Image.open(items / item.images[0]), trace_ops(steps)).snapshot().png


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def test_scripted_model_and_scripted_judge_through_the_cli(tmp_path: Path) -> None:
    items = converted(tmp_path, ("reflect-1",))
    item = read_items(items)[0]
    assert (item.answer_type, item.meta["solution_path"]) == ("image", fixture.SOLUTIONS["reflect-1"])
    turns = tmp_path / "turns.json"
    canvas = [{"tool_calls": [call(*fixture.CORRECT["reflect-1"])]}, {"text": "Done."}]
    turns.write_text(json.dumps({"text": [{"text": "Answer: the ray goes up to the right."}], "canvas": canvas}))
    run = tmp_path / "run"
    mcot("run", "--data", items, "--model", f"scripted:{turns}", "--mode", "text,canvas", "--out", run)
    worded = [r for r in read_jsonl(run / "results.jsonl") if r["mode"] == "text"]
    assert len(worded) == 1 and "image" not in worded[0]  # no canvas, no edited diagram
    record = results(run)["reflect-1"]
    assert record["status"] == "ok" and record["prediction"] == "Done."
    assert record["image"].startswith("blobs/") and record["images"] == [record["image"]]
    output = (run / record["image"]).read_bytes()
    assert output == replayed(items, "reflect-1", run, record) == fixture.reference_diagram("reflect-1")

    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps([{"text": '{"grade": 1}'}]))
    mcot("score", run, "--judge", f"scripted:{judge}")
    score = scores(run)["reflect-1"]
    assert (score["method"], score["score"], score["correct"]) == ("judge", 1.0, True)
    assert score["details"]["grade"] == 1.0 and score["details"]["image"] == record["image"]
    assert score["details"]["trace"] == {
        "verdict": "valid",
        "violation": None,
        "task": "diagram",
        "candidates": 1,
        "tool_drawn": 0,
    }
    report = (run / "report.md").read_text()
    assert "| canvas | — | — | — | — | 0 | — | 0 | 1.00 |" in report
    assert "| text | — | — | — | — | 0 | — | 0 | 0.00 |" in report  # an answer in words is no diagram
    text_score = next(s for s in read_jsonl(run / "scores.jsonl") if s["mode"] == "text")
    assert (text_score["method"], text_score["score"]) == ("rule", 0.0) and "trace" not in text_score["details"]
    assert "| canvas | optics | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |" in report  # verified 1: right & valid


PLANS = {
    "height of S": [{"tool_calls": [fixture.CORRECT["reflect-1"]]}, {"text": "The reflected ray is drawn."}],
    "trajectory": [{"tool_calls": [fixture.WRONG["throw-1"]]}, {"text": "The ball goes straight to the ground."}],
    "second mirror": [{"text": "The reflected ray leaves P at 58° above the mirror."}],
}
"""What the model does per item, found by a phrase of its question: draw right, draw wrong, draw nothing."""


def model(body: dict[str, Any]) -> Reply:
    """The chat model on the local server: the next turn of the plan of the item in the request."""
    first = json.dumps(body["messages"][:2], ensure_ascii=False)
    plan = next(turns for phrase, turns in PLANS.items() if phrase in first)
    turn = plan[sum(1 for m in body["messages"] if m["role"] == "assistant")]
    return Reply(turn.get("text", ""), tool_calls=list(turn.get("tool_calls", [])))


def images_of(body: dict[str, Any]) -> list[Image.Image]:
    urls = [
        part["image_url"]["url"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]
    return [Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB") for url in urls]


def judge(body: dict[str, Any]) -> Reply:
    """A judge that grades 1 when the output (third image) matches the reference (second) pixel for pixel, else 0."""
    _, reference, output = images_of(body)
    same = reference.size == output.size and ImageChops.difference(reference, output).getbbox() is None
    return Reply(json.dumps({"grade": 1 if same else 0}))


def test_right_wrong_and_no_drawing_on_a_local_openai_model_and_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    monkeypatch.setenv("MCOT_JUDGE_CACHE", str(tmp_path / "judge-cache"))
    items = converted(tmp_path, tuple(fixture.SOLUTIONS))
    run = tmp_path / "run"
    with FakeProvider(default=model) as server:
        mcot(
            "run",
            "--data",
            items,
            "--model",
            "openai:gpt-4o",
            "--base-url",
            server.openai_url,
            "--mode",
            "canvas",
            "--out",
            run,
        )
    got = results(run)
    assert {r["status"] for r in got.values()} == {"ok"}
    outputs = {item_id: (run / r["image"]).read_bytes() for item_id, r in got.items()}
    assert outputs["reflect-1"] == fixture.reference_diagram("reflect-1")
    assert outputs["throw-1"] == fixture.canvas_after("throw-1", [fixture.WRONG["throw-1"]])
    assert outputs["reflect-2"] == fixture.canvas_after(
        "reflect-2", []
    )  # nothing drawn: the input, as the canvas renders it
    for item_id, record in got.items():
        assert outputs[item_id] == replayed(items, item_id, run, record)

    with FakeProvider(default=judge) as server:
        mcot("score", run, "--judge", "openai:gpt-4o", "--base-url", server.openai_url)
        asked = [r.body for r in server.requests]
    assert len(asked) == 3 and all(len(images_of(body)) == 3 for body in asked)
    graded = scores(run)
    assert {i: (s["score"], s["details"]["trace"]["verdict"]) for i, s in graded.items()} == {
        "reflect-1": (1.0, "valid"),
        "throw-1": (0.0, "invalid"),
        "reflect-2": (0.0, "absent"),
    }
    assert graded["throw-1"]["details"]["trace"]["violation"].startswith("the drawing is ")
    report = (run / "report.md").read_text()
    assert "| canvas | — | — | — | — | 0 | — | 0 | 0.33 |" in report
    assert "| canvas | mechanics | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 0 |" in report  # verified 1: wrong & invalid
    assert "| canvas | optics | 2 | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 0 |" in report  # right & valid, wrong & absent

    with FakeProvider(default=judge) as server:  # re-scoring reads every grade from the judge cache
        mcot("score", run, "--judge", "openai:gpt-4o", "--base-url", server.openai_url)
        assert server.requests == []
    assert {i: s["score"] for i, s in scores(run).items()} == {"reflect-1": 1.0, "throw-1": 0.0, "reflect-2": 0.0}


def test_a_domain_tools_drawing_is_the_output_but_not_the_models_drawing(tmp_path: Path) -> None:
    items = converted(tmp_path, ("reflect-1",))
    mirror = {"kind": "mirror", "points": [[40, fixture.MIRROR_Y], [280, fixture.MIRROR_Y]]}
    ray = {"origin": [60, 60], "direction": [100, 140], "surfaces": [mirror], "draw": True}
    turns = tmp_path / "turns.json"
    turns.write_text(json.dumps({"tools": [{"tool_calls": [call("trace_light_ray", ray)]}, {"text": "Traced."}]}))
    run = tmp_path / "run"
    mcot("run", "--data", items, "--model", f"scripted:{turns}", "--mode", "tools", "--out", run)
    record = results(run, "tools")["reflect-1"]
    assert (run / record["image"]).read_bytes() == replayed(items, "reflect-1", run, record)
    assert (run / record["image"]).read_bytes() != fixture.canvas_after("reflect-1", [])  # the tool drew the ray
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps([{"text": '{"grade": 1}'}]))
    mcot("score", run, "--judge", f"scripted:{judge}")
    score = scores(run, "tools")["reflect-1"]
    assert score["score"] == 1.0
    assert score["details"]["trace"] == {
        "verdict": "absent",
        "violation": None,
        "task": "diagram",
        "candidates": 0,
        "tool_drawn": 1,
    }
    assert "| tools | optics | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 0 |" in (run / "report.md").read_text()
