"""A benchmark declared only here — prompt, answer form, protocol, tables — appears in run, score and report."""

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mcot.agents.prompts import PromptTemplate
from mcot.benchmarks.item import Item, write_items
from mcot.eval.tables import Table

from mcot import Benchmark, declare_answer_form, declare_benchmark
from mcot.commands.score import run_score
from mcot.registry import ANSWER_FORMS, BENCHMARKS
from mcot.runconfig import RunConfig
from mcot.rundir import Result, Score, read_jsonl
from mcot.runner import run_items
from mcot.testing.fake_provider import FakeProvider, Reply

TOY = "toy-tally"
TOY_TEMPLATE = "Tally task.\n$question\nWrite the count as <count>N</count>."


async def toy_protocol(scorer: Any, item: Item, text: str, result: Result) -> Score:
    """Right when the last <count> tag holds the answer."""
    score = scorer.score_for(item, result)
    found = re.findall(r"<count>\s*(\d+)\s*</count>", text)
    score.extracted = found[-1] if found else None
    score.correct = score.extracted == item.answer
    score.score = 1.0 if score.correct else 0.0
    score.method = "rule"
    score.details["tag"] = bool(found)
    return score


def toy_tables(scores: Sequence[Score]) -> list[Table]:
    """One row per arm: tallies right out of n."""
    table = Table("Toy tally — right answers", ["Arm", "right", "n"])
    for arm in sorted({s.mode for s in scores}):
        group = [s for s in scores if s.mode == arm]
        table.rows.append([arm, str(sum(1 for s in group if s.correct)), str(len(group))])
    return [table]


@pytest.fixture
def toy_benchmark() -> Iterator[Benchmark]:
    declare_answer_form("count-tag", lambda v: f"<count>{v}</count>", description="<count>N</count>")
    benchmark = declare_benchmark(
        TOY,
        description="a toy benchmark declared in a test",
        prompt=PromptTemplate.from_text("task.toy-tally.txt", TOY_TEMPLATE),
        answer="count-tag",
        protocols=SimpleNamespace(official=toy_protocol, tables=toy_tables),
    )
    yield benchmark
    BENCHMARKS.unregister(TOY)
    ANSWER_FORMS.unregister("count-tag")
    assert TOY not in BENCHMARKS.names()


def test_a_toy_benchmark_runs_scores_and_reports(toy_benchmark: Benchmark, tmp_path: Path) -> None:
    items = [
        Item(
            id=f"t{n}",
            benchmark=TOY,
            category="tally",
            question=f"Tally {n} strokes.",
            answer=str(n),
            answer_type="number",
        )
        for n in (2, 5)
    ]
    write_items(tmp_path / "items", [(item, {}) for item in items])
    run = tmp_path / "run"
    with FakeProvider([], default=Reply("I count them. <count>5</count>")) as server:
        config = RunConfig(
            data=tmp_path / "items",
            model="openai-compatible:toy",
            out=run,
            base_url=server.openai_url,
            mode="text",
            concurrency=1,
        )
        summary = run_items(config, quiet=True)
        prompts = [json.dumps(request.body["messages"]) for request in server.requests]
    assert summary.by_status == {"ok": 2}
    assert all("Tally task." in prompt and "<count>N</count>" in prompt for prompt in prompts)
    manifest = json.loads((run / "manifest.json").read_text())
    assert "task.toy-tally.txt" in manifest["prompts"]

    assert run_score(run_dir=run) == 0
    scores = {s["id"]: s for s in read_jsonl(run / "scores.jsonl")}
    assert scores["t5"]["correct"] is True and scores["t2"]["correct"] is False
    assert scores["t2"]["extracted"] == "5" and scores["t2"]["details"]["tag"] is True
    report = (run / "report.md").read_text()
    assert "Toy tally — right answers" in report
    assert "| text | 1 | 2 |" in report
