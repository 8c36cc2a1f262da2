"""The protocol choice: `score_run(protocol=...)` and `mcot score --protocol official|robust|both`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from handmade import MakeRun, failed, ok
from mcot.eval.errors import EvalError
from mcot.eval.judges import load_templates
from mcot.eval.scoring import ROBUST_SCORES, score_run
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.item import Item
from mcot.core.rundir import read_jsonl, read_scores

MCQ = "Which ray leaves last?\nA. red\nB. green\nC. blue\nD. none"
ITEMS = [
    Item(
        id="math-0", benchmark="rbench-v", category="math", question="x?", answer="\\frac{1}{2}", answer_type="number"
    ),
    Item(
        id="counting-0",
        benchmark="rbench-v",
        category="counting",
        question="How many?",
        answer="7",
        answer_type="number",
    ),
    Item(
        id="counting-1",
        benchmark="rbench-v",
        category="counting",
        question="How many?",
        answer="12",
        answer_type="number",
    ),
    Item(
        id="physics-0",
        benchmark="rbench-v",
        category="physics",
        question=MCQ,
        choices=["red", "green", "blue", "none"],
        answer="B",
        answer_type="choice",
    ),
    Item(id="game-0", benchmark="rbench-v", category="game", question="Which way?", answer="left", answer_type="text"),
]
RESULTS = [
    ok("math-0", "text", "So x = \\boxed{0.5}"),  # official: unjudged; robust: numeric, right
    ok("counting-0", "text", "There are \\boxed{7} triangles."),  # both right (one box, exact)
    ok("counting-1", "text", "About \\boxed{12.1} | on average"),  # official: unjudged; robust: wrong (not a count)
    ok("physics-0", "text", "\\boxed{B}"),  # both right
    failed("game-0", "text", "ConnectionError: refused"),  # a run error under both
]


@pytest.fixture
def run(make_run: MakeRun) -> Path:
    return make_run("run", ITEMS, ["text"], RESULTS)


def _titles(report: str) -> list[str]:
    return [line[4:] for line in report.splitlines() if line.startswith("### ")]


def test_official_is_the_default_and_every_title_names_it(run: Path) -> None:
    summary = score_run(run, figures=False)
    assert summary.protocol == "official" and summary.robust is None
    scores = {s.id: s for s in read_scores(run)}
    assert scores["math-0"].method == "none" and scores["math-0"].details["unjudged"].startswith("official")
    assert (scores["counting-0"].correct, scores["counting-0"].details["match"]) == (True, "exact-boxed")
    assert scores["counting-1"].method == "none"
    assert scores["game-0"].method == "error"
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["scoring"] == {"protocol": "official"} and manifest["judge"] is None
    report = (run / "report.md").read_text()
    titles = _titles(report)
    # scored without its judge, the RBench-V table says it is a lower bound and which judge gives the number
    bound = "RBench-V — official protocol, rules only: lower bound; `--judge openai:gpt-4o` gives the official number"
    assert bound in titles
    assert all(title.endswith("— official protocol") or title == bound for title in titles)
    assert "- **scoring**: official" in report
    # 2 of 5 right, 2 unjudged: the range [40.0, 80.0] is printed
    assert "[40.0, 80.0]" in report
    assert not (run / ROBUST_SCORES).exists()


def test_robust_reads_with_mcot_rules(run: Path) -> None:
    summary = score_run(run, figures=False, protocol="robust")
    assert summary.protocol == "robust"
    scores = {s.id: s for s in read_scores(run)}
    assert (scores["math-0"].correct, scores["math-0"].details["match"]) == (True, "numeric")
    assert (scores["counting-1"].correct, scores["counting-1"].details["match"]) == (False, "non-integer-count")
    assert json.loads((run / "manifest.json").read_text())["scoring"] == {"protocol": "robust"}
    assert "RBench-V — robust protocol" in _titles((run / "report.md").read_text())


def test_both_writes_two_score_files_and_the_differences(run: Path) -> None:
    summary = score_run(run, figures=False, protocol="both")
    assert summary.protocol == "official" and summary.robust is not None
    official = {s.id: s for s in read_scores(run)}
    robust = {row["id"]: row for row in read_jsonl(run / ROBUST_SCORES)}
    assert official["math-0"].method == "none" and robust["math-0"]["method"] == "rule"
    assert len(robust) == len(official) == len(ITEMS)
    assert robust["game-0"]["method"] == "error"  # the run error is the same pair under both
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["scoring"] == {
        "protocol": "both",
        "files": {"official": "scores.jsonl", "robust": ROBUST_SCORES},
    }
    report = (run / "report.md").read_text()
    titles = _titles(report)
    # without a judge the official table is a lower bound (its title says so); robust's rules settle every pair here
    official_at = next(i for i, t in enumerate(titles) if t.startswith("RBench-V — official protocol, rules only"))
    robust_at = titles.index("RBench-V — robust protocol")
    assert official_at < robust_at < titles.index("Where the protocols differ") == len(titles) - 1
    differences = report[report.index("### Where the protocols differ") :]
    rows = [line for line in differences.splitlines() if line.startswith("| rbench-v")]
    assert [row.split(" | ")[1] for row in rows] == ["math-0", "counting-1"]
    assert "So x = \\\\boxed{0.5}" in rows[0]  # the answer's backslash escaped: it renders as written
    assert "not extracted → unjudged" in rows[0] and "`0.5` → right" in rows[0]
    assert "¦ on average" in rows[1]  # a | in a response cannot break the table
    assert "rbench-v: 2 of 5" in differences
    # scoring again under one protocol removes the robust file, so files and manifest agree
    score_run(run, figures=False, report=False)
    assert not (run / ROBUST_SCORES).exists()


def test_an_unknown_protocol_is_refused(run: Path) -> None:
    with pytest.raises(EvalError, match="official, robust, both"):
        score_run(run, protocol="strict")
    result = CliRunner().invoke(app, ["score", str(run), "--protocol", "strict"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "mcot: unknown scoring protocol 'strict'; choose one of official, robust, both"
    ]


def test_the_cli_prints_both_sets_of_tables(run: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(run), "--protocol", "both"])
    assert result.exit_code == 0, result.output
    assert "### RBench-V — official protocol" in result.output
    assert "### RBench-V — robust protocol" in result.output
    assert "### Where the protocols differ" in result.output
    assert ROBUST_SCORES in result.output


class TemperatureJudge:
    """A judge whose `ask` takes a temperature: the verdict is unparsable until the third try."""

    spec = "scripted:temperature"

    def __init__(self) -> None:
        self.asked: list[tuple[str, float]] = []
        self.templates = load_templates()

    async def ask(self, prompt: str, images: Sequence[bytes] = (), temperature: float = 0.0) -> str:
        stage = "verdict" if "[Standard Answer] is the standard answer" in prompt else "extract"  # MathVerse's
        self.asked.append((stage, temperature))
        if stage == "extract":
            return "0.5"
        return "1" if temperature >= 1.0 else "yes, they agree"


def test_official_retries_at_rising_temperature_and_records_every_try(run: Path, tmp_path: Path) -> None:
    judge = TemperatureJudge()
    score_run(run, judge=judge, cache_dir=tmp_path / "cache", report=False)
    math = {s.id: s for s in read_scores(run)}["math-0"]
    assert (math.correct, math.method, math.extracted) == (True, "judge", "0.5")
    verdict = math.judge
    assert [a["temperature"] for a in verdict["attempts"]] == [0.0, 0.5, 1.0]
    assert [a["raw"] for a in verdict["attempts"]] == ["yes, they agree", "yes, they agree", "1"]
    assert [stage["template"] for stage in verdict["stages"]] == ["mathverse_extract", "mathverse_score"]
    asked = len(judge.asked)
    # re-scoring reads the settled replies from the cache: no call at all
    score_run(run, judge=judge, cache_dir=tmp_path / "cache", report=False)
    assert len(judge.asked) == asked
    assert {s.id: s for s in read_scores(run)}["math-0"].correct is True
