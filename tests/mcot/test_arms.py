"""Arms that mean what they say, every pair in the denominator, frozen runs: `mcot run` / `mcot score` end to end."""

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mcot.benchmarks.item import Item, write_items
from mcot.tools import canvas_tools, registry
from PIL import Image

from mcot.arms import parse_arms
from mcot.errors import UsageError
from mcot.runconfig import RunConfig
from mcot.rundir import read_jsonl
from mcot.runner import run_items
from mcot.testing.fake_provider import Fail, FakeProvider, Reply


def _png() -> bytes:
    from io import BytesIO

    buffer = BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    pairs = []
    for n in range(3):
        item = Item(
            id=f"q{n}",
            benchmark="gepbench",
            category="counting",
            question=f"How many circles are there? ({n})",
            images=[f"images/q{n}.png"],
            choices=["1", "2", "3", "4"],
            answer="ABC"[n],
            answer_type="choice",
            meta={"level": "easy"},
        )
        pairs.append((item, {f"images/q{n}.png": _png()}))
    out = tmp_path / "items"
    write_items(out, pairs)
    return out


def _mcot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcot", *args], capture_output=True, text=True, timeout=180)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_each_arm_offers_exactly_its_tools() -> None:
    text, canvas, tools = parse_arms("text,canvas,tools")
    assert text.tools == ()
    assert canvas.tools == canvas_tools() and len(canvas.tools) == 13
    assert "solve_maze" not in canvas.tools and "trace_light_ray" not in canvas.tools
    assert tools.tools == tuple(registry()) and set(canvas_tools()) < set(tools.tools)
    (custom,) = parse_arms("custom", "draw_line,zoom")
    assert custom.tools == ("draw_line", "zoom")
    assert [arm.name for arm in parse_arms("text", "draw_line")] == ["text", "custom"]
    with pytest.raises(UsageError, match="solve_maze"):
        parse_arms("custom", "draw_line,solve_mazes")
    with pytest.raises(UsageError, match="--mode"):
        parse_arms("text,pictures")
    with pytest.raises(UsageError, match="--tools"):
        parse_arms("custom")


def test_manifest_records_each_arms_tools_and_schema_hashes(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_items(RunConfig(data=items_dir, model="offline", out=run, mode="text,canvas,tools"), quiet=True)
    manifest = json.loads((run / "manifest.json").read_text())
    arms = {arm["name"]: arm for arm in manifest["arms"]}
    assert manifest["modes"] == ["text", "canvas", "tools"]
    assert arms["text"]["tools"] == [] and arms["text"]["tool_schemas"] == {}
    assert arms["canvas"]["tools"] == list(canvas_tools())
    assert set(arms["canvas"]["tool_schemas"]) == set(canvas_tools())
    assert all(len(sha) == 64 for sha in arms["tools"]["tool_schemas"].values())
    assert arms["tools"]["tool_schemas"]["draw_line"] == arms["canvas"]["tool_schemas"]["draw_line"]
    assert manifest["config"]["temperature"] == 0.0 and manifest["config"]["seed"] is None
    assert manifest["solver"]["sampling"]


def test_canvas_arm_request_lists_exactly_the_canvas_tools(items_dir: Path, tmp_path: Path) -> None:
    with FakeProvider([], default=Reply("C")) as server:
        result = _mcot(
            "run",
            "--data",
            str(items_dir),
            "--model",
            "openai-compatible:local-vlm",
            "--base-url",
            server.openai_url,
            "--mode",
            "canvas",
            "--out",
            str(tmp_path / "run"),
            "--seed",
            "7",
        )
        requests = list(server.requests)
    assert result.returncode == 0, result.stderr
    assert len(requests) == 3
    for request in requests:
        assert [tool["function"]["name"] for tool in request.body["tools"]] == list(canvas_tools())
        assert request.body["seed"] == 7 and request.body["temperature"] == 0.0


def test_a_run_against_a_closed_port_is_refused_before_anything_is_written(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    result = _mcot(
        "run", "--data", str(items_dir), "--model", "openai-compatible:local-vlm", "--base-url", url,
        "--mode", "text,canvas", "--out", str(run), "--max-tries", "1",
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"cannot connect to {url}" in result.stderr and not run.exists()


def test_a_run_whose_every_call_fails_exits_3_and_counts_every_pair(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    with FakeProvider(default=Fail(500, message="the model crashed")) as server:
        result = _mcot(
            "run", "--data", str(items_dir), "--model", "openai-compatible:local-vlm", "--base-url",
            server.openai_url, "--mode", "text,canvas", "--out", str(run), "--max-tries", "1",
        )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "no pair succeeded" in result.stderr and "6 × " in result.stderr
    assert "HTTP 500" in result.stderr  # the cause
    scored = _mcot("score", str(run))
    assert scored.returncode == 0, scored.stderr
    scores = read_jsonl(run / "scores.jsonl")
    assert len(scores) == 6
    assert all(s["method"] == "error" and s["correct"] is False and s["score"] == 0.0 for s in scores)
    report = (run / "report.md").read_text()
    gepbench_table = report.split("### GePBench")[1]  # the detail table (the headline table leads the report)
    assert "judge" not in gepbench_table.split("errors")[0].lower()


def test_a_resume_with_other_settings_is_refused_and_changes_nothing(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    base = ["run", "--data", str(items_dir), "--model", "offline", "--mode", "canvas", "--out", str(run)]
    first = _mcot(*base, "--max-steps", "12")
    assert first.returncode == 0, first.stderr
    manifest = (run / "manifest.json").read_bytes()
    ledger = (run / "results.jsonl").read_bytes()
    refused = _mcot(*base, "--max-steps", "5")
    assert refused.returncode == 2
    assert "--max-steps: 12 in the run, 5 now" in refused.stderr and "new --out" in refused.stderr
    assert (run / "manifest.json").read_bytes() == manifest and (run / "results.jsonl").read_bytes() == ledger
    for other in (["--seed", "3"], ["--temperature", "0.7"], ["--mode", "tools"], ["--limit", "2"]):
        again = _mcot(*base, *other)
        assert again.returncode == 2, other
        assert (run / "manifest.json").read_bytes() == manifest
    resumed = _mcot(*base, "--max-steps", "12")
    assert resumed.returncode == 0 and "3 already done" in resumed.stdout
    after = json.loads((run / "manifest.json").read_text())
    before = json.loads(manifest)
    assert len(after["sessions"]) == 2
    assert {k: v for k, v in after.items() if k != "sessions"} == {k: v for k, v in before.items() if k != "sessions"}


def test_editing_the_source_after_a_run_changes_no_score(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"text": "A"}]))
    made = _mcot("run", "--data", str(items_dir), "--model", f"scripted:{script}", "--mode", "text", "--out", str(run))
    assert made.returncode == 0, made.stderr
    assert _mcot("score", str(run)).returncode == 0
    before = {s["id"]: s["correct"] for s in read_jsonl(run / "scores.jsonl")}
    assert before == {"q0": True, "q1": False, "q2": False}
    source = items_dir / "items.jsonl"
    source.write_text(
        source.read_text().replace('"answer":"A"', '"answer":"D"').replace('"answer": "A"', '"answer": "D"')
    )
    rescored = _mcot("score", str(run))
    assert rescored.returncode == 0, rescored.stderr
    assert "items.jsonl" in rescored.stdout + rescored.stderr
    assert {s["id"]: s["correct"] for s in read_jsonl(run / "scores.jsonl")} == before
    frozen = run / "items.jsonl"
    frozen.write_text(frozen.read_text().replace('"answer":"B"', '"answer":"D"'))
    broken = _mcot("score", str(run))
    assert broken.returncode == 2 and "items.jsonl" in broken.stderr
