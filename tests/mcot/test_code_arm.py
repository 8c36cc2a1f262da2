"""The code arms through `mcot run`: a local model server sends attack cells and the run goes on; the manifest
records the sandbox; --unsafe-local-code is stated atop the report; without a sandbox the code arms are refused
in one line; the offline policy solves maze and dart items by writing code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcot.tools.code.sandbox import sandbox_problem
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.testing.fake_provider import FakeProvider, Reply

pytestmark = pytest.mark.long_running

needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")


def _mcot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcot", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    import io

    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    item = Item(id="q0", benchmark="gepbench", category="counting", question="How many circles are there?",
                images=["images/q0.png"], choices=["1", "2", "3", "4"], answer="A", answer_type="choice",
                meta={"level": "easy"})  # fmt: skip
    out = tmp_path / "items"
    write_items(out, [(item, {"images/q0.png": buffer.getvalue()})])
    return out


def _attacks(run_dir: Path, server_port: int) -> list[tuple[str, dict[str, str]]]:
    cells = [
        "import os\nwhile True:\n    os.fork()",
        f"open({str(run_dir / 'manifest.json')!r}).read()",
        f"import socket\nsocket.create_connection(('127.0.0.1', {server_port}), timeout=2)",
        "import subprocess\nsubprocess.run(['id'])",
        "big = bytearray(50 * 1024**3)",
        "import os, re\nsorted(k for k in os.environ if re.search('KEY|TOKEN|SECRET', k))",
        "x = 1\n" * 1_700_000,
        "image.size",
    ]
    return [("python", {"code": code}) for code in cells]


@needs_sandbox
def test_attack_cells_from_a_model_server_end_in_one_line_results_and_the_run_goes_on(
    items_dir: Path, tmp_path: Path
) -> None:
    import io
    import threading

    from mcot.core.item import read_items

    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    bystander = Item(id="q1", benchmark="gepbench", category="counting", question="How many squares are there?",
                     images=["images/q1.png"], choices=["1", "2"], answer="B", answer_type="choice",
                     meta={"level": "easy"})  # fmt: skip
    data = tmp_path / "two"
    write_items(data, [(read_items(items_dir)[0], {"images/q0.png": buffer.getvalue()}),
                       (bystander, {"images/q1.png": buffer.getvalue()})])  # fmt: skip
    run = tmp_path / "run"
    kept, attacked = threading.Event(), threading.Event()

    def answer(body: dict[str, Any]) -> Reply:
        turns = sum(m["role"] == "assistant" for m in body["messages"])
        if "How many squares" in json.dumps(body["messages"]):  # the other pair sets a variable before the attacks
            if turns == 1:  # and reads it after them
                kept.set()
                attacked.wait(240)
            cells = ["kept = 41", "kept + 1"]
            return Reply("", tool_calls=[("python", {"code": cells[turns]})]) if turns < 2 else Reply("\\boxed{B}")
        if turns == 0:
            kept.wait(240)
            return Reply("let me try", tool_calls=_attacks(run, port))
        attacked.set()
        return Reply("\\boxed{A}")

    with FakeProvider([], default=answer) as server:
        port = int(server.url.rsplit(":", 1)[1])
        result = subprocess.run(
            [sys.executable, "-m", "mcot", "run", "--data", str(data), "--model", "openai-compatible:vlm",
             "--base-url", server.openai_url, "--mode", "code", "--concurrency", "2", "--out", str(run)],
            capture_output=True, text=True, timeout=300, env={**__import__("os").environ, "OPENAI_API_KEY": "sk-secret"},
        )  # fmt: skip
        second = [r.body for r in server.requests if "How many circles" in json.dumps(r.body["messages"])][-1]
    assert result.returncode == 0, result.stderr
    lines = {line["id"]: line for line in read_jsonl(run / "results.jsonl")}
    assert lines["q0"]["status"] == "ok" and lines["q0"]["prediction"] == "\\boxed{A}"
    assert lines["q1"]["status"] == "ok" and lines["q1"]["prediction"] == "\\boxed{B}"
    tools = {
        path.name.split(".")[0]: [
            step for line in path.read_text().splitlines() if (step := json.loads(line))["kind"] == "tool"
        ]
        for path in (run / "traces").glob("*.jsonl")
    }
    cells = tools["q0"]
    assert [c["result"] for c in tools["q1"]] == ["(the cell ran and produced no output)", "[value]\n42"]
    firsts = [c["result"].splitlines()[0] for c in cells]
    assert firsts[0] == "PermissionError: [Errno 1] Operation not permitted"
    assert firsts[1].startswith("FileNotFoundError")
    assert firsts[2].startswith("ConnectionRefusedError")
    assert firsts[3] == "PermissionError: [Errno 1] Operation not permitted"
    assert firsts[4].startswith("MemoryError")
    assert cells[5]["result"] == "[value]\n[]"
    assert firsts[6].startswith("the cell is 10,200,000 characters long")
    assert cells[7]["result"] == "[value]\n(64, 48)"
    assert [c["data"]["cell"]["outcome"] for c in cells] == ["exception"] * 5 + ["ok", "refused", "ok"]
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 8 and "sk-secret" not in json.dumps(second)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["code"]["unsafe_local_code"] is False and manifest["code"]["sandbox"]["kind"] == "bubblewrap"
    assert manifest["arms"][0]["tools"] == ["python"]
    system = second["messages"][0]["content"]
    assert "Python session" in system and "/scratch" in system


def test_without_a_sandbox_the_code_arms_are_refused_in_one_line(items_dir: Path, tmp_path: Path) -> None:
    from mcot.tools.code import sandbox

    from mcot.core.errors import UsageError
    from mcot.runconfig import RunConfig
    from mcot.runner import preflight

    sandbox.sandbox_problem.cache_clear()
    original = sandbox.bwrap_binary
    sandbox.bwrap_binary = lambda: None  # type: ignore[assignment]
    try:
        config = RunConfig(data=items_dir, model="offline", out=tmp_path / "run", mode="text,code")
        with pytest.raises(UsageError) as refused:
            preflight(config)
        preflight(RunConfig(data=items_dir, model="offline", out=tmp_path / "run", mode="text"))
        preflight(RunConfig(data=items_dir, model="offline", out=tmp_path / "run", mode="code", unsafe_local_code=True))
    finally:
        sandbox.bwrap_binary = original  # type: ignore[assignment]
        sandbox.sandbox_problem.cache_clear()
    message = str(refused.value)
    assert "\n" not in message and "no bwrap binary was found" in message and "--unsafe-local-code" in message


def test_unsafe_local_code_is_in_the_manifest_and_atop_the_report(tmp_path: Path) -> None:
    data = tmp_path / "maze"
    assert _mcot("gen", "games", "--task", "maze", "--n", "1", "--seed", "2", "--out", str(data)).returncode == 0
    run = tmp_path / "run"
    done = _mcot(
        "run", "--data", str(data), "--model", "offline", "--mode", "code", "--out", str(run), "--unsafe-local-code"
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["code"]["unsafe_local_code"] is True and manifest["code"]["sandbox"]["kind"] == "none"
    assert _mcot("score", str(run)).returncode == 0
    report = (run / "report.md").read_text()
    assert "--unsafe-local-code" in report.split("\n\n")[1] or "--unsafe-local-code" in report[:1500]
    (score,) = read_jsonl(run / "scores.jsonl")
    assert score["correct"] is True  # the offline policy solved the maze with a cell


@needs_sandbox
def test_the_offline_policy_solves_a_dart_item_by_writing_code(tmp_path: Path) -> None:
    data = tmp_path / "dart"
    assert _mcot("gen", "games", "--task", "dart", "--n", "1", "--seed", "4", "--out", str(data)).returncode == 0
    run = tmp_path / "run"
    assert _mcot("run", "--data", str(data), "--model", "offline", "--mode", "code", "--out", str(run)).returncode == 0
    assert _mcot("score", str(run)).returncode == 0
    (score,) = read_jsonl(run / "scores.jsonl")
    assert score["correct"] is True
    trace = [json.loads(t) for t in next((run / "traces").glob("*.jsonl")).read_text().splitlines()]
    (cell,) = [t for t in trace if t["kind"] == "tool"]
    assert (
        cell["tool"] == "python" and "GRAVITY" in cell["arguments"]["code"] and cell["data"]["cell"]["outcome"] == "ok"
    )
