"""A table computed without the judge its protocol needs says it is a lower bound and which judge gives the
official number, in the terminal and the report; with the judge it is the official table."""

from pathlib import Path

import pytest
from mcot.benchmarks.item import Item, write_items

from mcot.commands.score import run_score
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.testing import FakeProvider, Reply

BOUND = "RBench-V — official protocol, rules only: lower bound; `--judge openai:gpt-4o` gives the official number"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    items = [
        (Item(id=f"counting-{i}", benchmark="rbench-v", category="Counting", question=f"How many? ({i})", images=[],
              answer="7", answer_type="number"), {})
        for i in range(2)
    ]  # fmt: skip
    write_items(tmp_path / "items", items)
    out = tmp_path / "run"
    with FakeProvider([Reply("\\boxed{7}"), Reply("There are seven.")]) as server:
        config = RunConfig(data=tmp_path / "items", model="openai-compatible:m", out=out, mode="text",
                           base_url=server.openai_url, concurrency=1)  # fmt: skip
        run_items(config, quiet=True)
    return out


def test_rbench_v_without_a_judge_is_titled_a_lower_bound(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_score(run) == 0
    printed = capsys.readouterr().out
    assert f"### {BOUND}" in printed
    assert BOUND in (run / "report.md").read_text(encoding="utf-8")
    assert "pass --judge openai:gpt-4o" in (run / "scores.jsonl").read_text(encoding="utf-8")
    assert f"`mcot score {run} --judge openai:gpt-4o` decides them" in printed  # the message names the judge


def test_with_the_judge_the_table_is_the_official_one(
    run: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-not-real")
    monkeypatch.setenv("MCOT_JUDGE_CACHE", str(run.parent / "judge-cache"))
    with FakeProvider(default=Reply("7")) as server:
        assert run_score(run, judge="openai:gpt-4o", base_url=server.openai_url) == 0
    printed = capsys.readouterr().out
    assert "### RBench-V — official protocol\n" in printed and "lower bound" not in printed
