"""`mcot demo` end to end: three arms, an honest caveat, and a canvas arm that offers only the canvas."""

import subprocess
import sys
from pathlib import Path

import pytest
from mcot.tools import canvas_tools

from mcot.core.rundir import read_jsonl

pytestmark = pytest.mark.long_running


def test_demo_runs_its_arms_and_says_what_the_offline_policy_is(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = subprocess.run(
        [sys.executable, "-m", "mcot", "demo", "--out", str(out)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    comparison = (out / "comparison.md").read_text()
    for text in (result.stdout, comparison):
        assert "scripted tool user" in text
        assert "canvas: 13 tools: draw_line" in text and "text: no tools" in text
    assert "### canvas vs text" in comparison and "### tools vs text" in comparison
    results = read_jsonl(out / "run" / "results.jsonl")
    from mcot.tools.code.sandbox import sandbox_problem

    code = sandbox_problem() is None  # the demo's code arm runs where the sandbox starts
    assert {r["mode"] for r in results} == {"text", "canvas", "tools", *(["code"] if code else [])}
    assert all(r["status"] == "ok" for r in results)
    canvas_games = [r for r in results if r["mode"] == "canvas" and r["benchmark"] == "games"]
    assert len(canvas_games) == 24
    for record in canvas_games:
        steps = read_jsonl(out / "run" / record["trace"])
        assert all(s["tool"] in canvas_tools() for s in steps if s["kind"] == "tool")
        assert "cannot solve it with the tools offered here" in record["prediction"]
    scores = read_jsonl(out / "run" / "scores.jsonl")
    tools_games = [s for s in scores if s["mode"] == "tools" and s["benchmark"] == "games"]
    assert len(tools_games) == 24 and all(s["correct"] for s in tools_games)
    if code:  # the offline policy writes Python for the maze and dart items
        assert "### code vs text" in comparison
        solved = {s["category"] for s in scores if s["mode"] == "code" and s["benchmark"] == "games" and s["correct"]}
        assert {"maze", "dart"} <= solved
