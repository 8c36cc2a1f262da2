"""`mcot score --judge SPEC`: a real backend judges what rules cannot settle, recorded, cached, re-runnable."""

import json
from pathlib import Path
from typing import Any

import pytest
from mcot.benchmarks.item import Item, write_items

from mcot.commands.score import run_score
from mcot.runconfig import RunConfig
from mcot.rundir import read_jsonl
from mcot.runner import run_items
from mcot.testing.fake_provider import FakeProvider, Raw, Reply

PREDICTIONS = {
    "physics-0000": "The ball goes up, then it falls. \\boxed{a parabola}",  # the judge says consistent
    "physics-0001": "\\boxed{0.5\\,m}",  # rules: 0.5 m = 50 cm
    "physics-0002": "\\boxed{it moves left}",  # the judge replies garbage
}


@pytest.fixture
def judged_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    answers = {"physics-0000": "parabolic path", "physics-0001": "50 cm", "physics-0002": "to the right"}
    pairs = [
        (
            Item(
                id=i, benchmark="rbench-v", category="physics", question=f"Question {i}?", answer=a, answer_type="text"
            ),
            {},
        )
        for i, a in answers.items()
    ]
    write_items(tmp_path / "items", pairs)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-not-real")

    def solver(body: dict[str, Any]) -> Reply:
        prompt = json.dumps(body["messages"])
        return Reply(next(text for item_id, text in PREDICTIONS.items() if f"Question {item_id}?" in prompt))

    run = tmp_path / "run"
    with FakeProvider(default=solver) as server:
        config = RunConfig(
            data=tmp_path / "items", model="openai:gpt-4o", out=run, mode="text", base_url=server.openai_url
        )
        assert run_items(config, quiet=True).by_status == {"ok": 3}
    monkeypatch.setenv("MCOT_JUDGE_CACHE", str(tmp_path / "judge-cache"))
    return run


def _verdict(body: dict[str, Any]) -> Reply | Raw:
    prompt = json.dumps(body["messages"])
    if "it moves left" in prompt:
        return Reply("I cannot decide, the question is ambiguous.")
    return Reply("1")


def test_judge_decides_what_rules_cannot_and_is_cached(judged_run: Path) -> None:
    with FakeProvider(default=_verdict) as server:
        assert (
            run_score(
                judged_run, judge="openai:gpt-4o", judge_template=None, base_url=server.openai_url, protocol="robust"
            )
            == 3  # one judgment is missing (the ambiguous reply): the command says so and exits 3, never 0
        )
        sent = [r.body for r in server.requests]
    scores = {s["id"]: s for s in read_jsonl(judged_run / "scores.jsonl")}
    assert scores["physics-0001"]["method"] == "rule" and scores["physics-0001"]["correct"] is True
    assert scores["physics-0000"]["method"] == "judge" and scores["physics-0000"]["correct"] is True
    assert scores["physics-0000"]["judge"]["spec"] == "openai:gpt-4o"
    assert scores["physics-0000"]["judge"]["raw"]
    assert scores["physics-0002"]["method"] == "judge_error" and scores["physics-0002"]["correct"] is None
    assert sent and all(body.get("temperature") == 0 for body in sent)
    assert all(body["model"] == "gpt-4o" for body in sent)
    manifest = json.loads((judged_run / "manifest.json").read_text())
    assert manifest["judge"]["spec"] == "openai:gpt-4o"
    assert "sk-test-judge-key-not-real" not in (judged_run / "scores.jsonl").read_text()

    # Re-judging reads the cache for settled verdicts; only the judge error is asked again.
    with FakeProvider(default=_verdict) as server:
        run_score(judged_run, judge="openai:gpt-4o", judge_template=None, base_url=server.openai_url, protocol="robust")
        again = [r.body for r in server.requests]
    assert 0 < len(again) < len(sent)
    assert all("it moves left" in json.dumps(body["messages"]) for body in again)
