"""Tool arguments kept in traces are capped like answer text: a model's huge tool argument is kept once per step
as its beginning and its end (the middle noted), never whole twice; the model step says how much was cut."""

from __future__ import annotations

import json
from pathlib import Path

from hostile_servers import items_dir
from typer.testing import CliRunner

from mcot.cli import app
from mcot.testing import FakeProvider, Reply

HUGE = 1_300_000
KEPT = 1_000_000  # Budget.max_answer_chars


def test_a_huge_tool_argument_is_kept_capped_in_the_trace(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-FAKE-key-for-tests-000")
    argument = '{"start": [0, 0], "end": "' + "x" * HUGE + '"}'
    script = [Reply("drawing", tool_calls=[("draw_line", argument)]), Reply("\\boxed{1}")]
    with FakeProvider(script=script) as server:
        result = CliRunner().invoke(app, [
            "run", "--data", str(items_dir(tmp_path, 1)), "--model", "openai-compatible:m", "--mode", "canvas",
            "--base-url", server.openai_url, "--out", str(tmp_path / "run"), "--max-steps", "3",
        ])  # fmt: skip
    assert result.exit_code == 0, result.output
    (trace,) = (tmp_path / "run" / "traces").glob("*.jsonl")
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    model = next(step for step in steps if step["kind"] == "model" and step.get("tool_calls"))
    call = model["tool_calls"][0]
    assert call["cut_chars"] == len(argument) - KEPT
    assert call["arguments"].startswith(argument[:1000]) and call["arguments"].endswith(argument[-1000:])
    assert "characters of the arguments left out" in call["arguments"]
    tool = next(step for step in steps if step["kind"] == "tool")
    assert len(tool["arguments"]) < KEPT + 200
    assert trace.stat().st_size < 2 * KEPT + 200_000  # two capped copies at most, never two whole ones
