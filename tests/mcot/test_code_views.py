"""A code arm's run everywhere the other arms go: the viewer shows cells, the exports carry every image of a cell,
`mcot score` replays the cells and the report counts cells, failures and replays, and CanvasEnv has `python`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcot.tools.code.sandbox import sandbox_problem
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.core.rundir import open_run, read_jsonl

pytestmark = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")

CELLS = [
    {
        "code": "from IPython.display import display\nsmall = image.crop((0, 0, 32, 24))\ndisplay(small)\nsmall.resize((64, 48))"
    },
    {"code": "1 / 0"},
    {"code": "print(small.size)"},
]


@pytest.fixture(scope="module")
def code_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import io

    root = tmp_path_factory.mktemp("coderun")
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "orange").save(buffer, format="PNG")
    item = Item(id="q0", benchmark="gepbench", category="counting", question="How many circles are there?",
                images=["images/q0.png"], choices=["1", "2"], answer="A", answer_type="choice", meta={"level": "easy"})  # fmt: skip
    write_items(root / "items", [(item, {"images/q0.png": buffer.getvalue()})])
    script = root / "turns.json"
    turns = [{"text": "", "tool_calls": [{"name": "python", "arguments": cell}]} for cell in CELLS]
    script.write_text(json.dumps([*turns, {"text": "A"}]))
    run = root / "run"
    mcot = [sys.executable, "-m", "mcot"]
    done = subprocess.run([*mcot, "run", "--data", str(root / "items"), "--model", f"scripted:{script}", "--mode", "code",
                           "--out", str(run)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    scored = subprocess.run([*mcot, "score", str(run)], capture_output=True, text=True, timeout=300)
    assert scored.returncode == 0, scored.stderr
    assert "code replay: 1 of 1 pairs' cells showed the same images again" in scored.stdout
    return run


def test_the_trace_records_each_cell_and_its_images_as_blobs(code_run: Path) -> None:
    steps = open_run(code_run).trace("q0", "code") or []
    tools = [s for s in steps if s["kind"] == "tool"]
    first = tools[0]
    assert len(first["images"]) == 2 and first["image"] == first["images"][0]
    assert all((code_run / path).is_file() for path in first["images"])
    cell = first["data"]["cell"]
    assert cell["outcome"] == "ok" and [f"blobs/{sha}.png" for sha in cell["images"]] == first["images"]
    assert cell["duration_s"] > 0 and cell["source"] == CELLS[0]["code"]
    assert tools[1]["data"]["cell"]["exception"] == "ZeroDivisionError" and tools[1]["error"]
    assert tools[2]["data"]["cell"]["stdout"] == "(32, 24)\n"
    (replayed,) = read_jsonl(code_run / "code_replay.jsonl")
    assert replayed == {"id": "q0", "mode": "code", "cells": 3, "matched": True, "differ": []}


def test_the_report_counts_cells_failures_and_replays(code_run: Path) -> None:
    report = (code_run / "report.md").read_text().split("### Code use", 1)[1]
    row = next(line for line in report.splitlines() if line.startswith("| code | 1 |"))
    assert row == "| code | 1 | 1 | 3 | 3 | 33.3 | ZeroDivisionError 33.3 | 0 | 0 | 0 | 1 of 1 |"


def test_the_viewer_shows_cells_with_their_images(code_run: Path) -> None:
    from mcot.viewer import viewer_data

    data, shards = viewer_data(open_run(code_run), code_run)
    text = json.dumps(data) + "".join(shards)
    assert '"cell":{"source":' in text and "ZeroDivisionError: division by zero" in text
    assert text.count("cell image") == 0  # labels are made by the page; the links are there
    assert all(sha in text for sha in (open_run(code_run).trace("q0", "code") or [])[2]["data"]["cell"]["images"])


@pytest.mark.parametrize("view", ["messages", "sharegpt", "verl-sft", "trl"])
def test_every_export_view_carries_the_cells_and_their_images(code_run: Path, tmp_path: Path, view: str) -> None:
    out = tmp_path / view
    done = subprocess.run([sys.executable, "-m", "mcot", "export", str(code_run), "--format", "jsonl", "--as", view,
                           "--out", str(out)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (record,) = read_jsonl(out / "records.jsonl")
    text = json.dumps(record)
    assert "small.resize((64, 48))" in text and "ZeroDivisionError" in text and "(32, 24)" in text
    assert len(record["images"]) >= 3  # the item's image and both images of the first cell


def test_canvas_env_offers_python_one_session_per_episode(tmp_path: Path) -> None:
    from mcot.tools.code.binding import bound_session

    from mcot.env import CanvasEnv

    Image.new("RGB", (40, 30), "blue").save(tmp_path / "a.png")
    item = Item(id="e", benchmark="games", category="maze", question="?", images=["a.png"], choices=None,
                answer="1", answer_type="number", meta={})  # fmt: skip
    env = CanvasEnv.with_toolset("code", images_root=tmp_path)()
    env.reset(item=item.model_dump() if hasattr(item, "model_dump") else item.__dict__)
    assert [name for name in dir(env) if not name.startswith("_") and callable(getattr(env, name))] == [
        "get_reward", "python", "reset", "with_toolset"
    ]  # fmt: skip
    blocks = env.python(code="x = 2\nimage.size")
    assert {"type": "text", "text": "[value]\n(40, 30)"} in blocks
    first = env.episode
    assert first is not None and bound_session(first.canvas) is not None
    env.reset(item=item.model_dump() if hasattr(item, "model_dump") else item.__dict__)
    assert bound_session(first.canvas) is None  # the last episode's session ended with it
    assert "NameError" in json.dumps(env.python(code="x"), default=str)
    env.episode.close()


def test_a_verl_row_of_the_code_arm_drives_mcots_verl_tool_with_one_session(code_run: Path, tmp_path: Path) -> None:
    pytest.importorskip("verl.tools.base_tool")
    import asyncio

    from mcot.env.verl import CanvasTool

    out = tmp_path / "verl"
    done = subprocess.run([sys.executable, "-m", "mcot", "export", str(code_run), "--format", "jsonl", "--as", "verl",
                           "--out", str(out)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = read_jsonl(out / "records.jsonl")
    assert row["extra_info"]["tool_selection"] == ["python"]
    created = row["extra_info"]["tools_kwargs"]["python"]["create_kwargs"]
    tool = CanvasTool({"toolset": "code", "tool": "python"}, None)
    image = (out / row["images"][0]).read_bytes()

    async def episode() -> list[str]:
        instance, _ = await tool.create("code-trajectory", create_kwargs=created, image=image)
        texts = []
        for code in ("x = 3\nimage.size, image.getpixel((0, 0))", "x * 2", "1 / 0"):
            response, reward, metrics = await tool.execute(instance, {"code": code})
            lines = response.text.splitlines()  # a value ends the text; an error starts it
            texts.append(f"{metrics['ok']} {reward} {lines[-1] if metrics['ok'] else lines[0]}")
        await tool.release(instance)
        return texts

    assert asyncio.run(episode()) == [
        "True 0.0 ((64, 48), (255, 165, 0))", "True 0.0 6", "False 0.0 ZeroDivisionError: division by zero"
    ]  # fmt: skip
