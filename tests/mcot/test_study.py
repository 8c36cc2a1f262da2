"""`mcot study`: two local models × three arms × two benchmarks, killed mid-run and resumed, then extended by a
third model without re-running the first two; the study table is the runs' headline numbers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_models import Agent, FakeProvider, Reply, RequestInfo
from mcot.eval.report import headline_rows
from mcot.eval.tool_use import tool_use

from mcot.commands.compare import run_compare
from mcot.commands.study import run_study_command
from mcot.core.errors import UsageError
from mcot.core.rundir import ResultsLedger, open_run, read_jsonl, read_scores
from mcot.study.config import read_study

ROOT = Path(__file__).resolve().parents[2]
ARMS = ("text", "canvas", "tools")
PER_DATA = 3


class Drawer(Agent):
    """Draws one line on its first turn when tools are offered, then answers B; answers C without tools."""

    def answer(self, request: RequestInfo) -> Reply:
        """Return a draw_line call on the first turn of an arm with tools, else the answer."""
        if request.body.get("tools") and request.turn == 0:
            return Reply("Let me mark it.", tool_calls=[("draw_line", {"start": [0, 0], "end": [40, 40]})])
        return Reply("The answer is \\boxed{B}." if request.body.get("tools") else "\\boxed{C}")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated games and GePBench items, in two folders."""
    from mcot.commands.gen_games import gen_games
    from mcot.commands.gen_gepbench import gen_gepbench

    root = tmp_path_factory.mktemp("study-data")
    gen_games(out=root / "games", task="all", n=1, seed=3)
    gen_gepbench(out=root / "gep", n=1, seed=3, level="both", native=False)
    return root


@pytest.fixture()
def servers() -> Iterator[tuple[FakeProvider, FakeProvider]]:
    """Two local models answering differently: one always A without tools, one drawing then answering B."""
    with FakeProvider(default=Reply("\\boxed{A}")) as first, FakeProvider(default=Drawer()) as second:
        yield first, second


def study_file(root: Path, data: Path, urls: list[str], offline: bool = False) -> Path:
    """Write a STUDY.toml over the two data folders with a model per URL (and the offline policy)."""
    models = "".join(
        f'\n[[model]]\nspec = "openai-compatible:local-{i}"\nname = "local-{i}"\nbase_url = "{url}"\n'
        f'key_env = "STUDY_TEST_KEY"\nconcurrency = 2\n'
        for i, url in enumerate(urls)
    )
    if offline:
        models += '\n[[model]]\nspec = "offline"\n'
    text = (
        f'data = ["{data / "games"}", "{data / "gep"}"]\narms = {json.dumps(list(ARMS))}\nseed = 0\n'
        f"limit = {PER_DATA}\nmax_steps = 3\n{models}"
    )
    path = root / "STUDY.toml"
    path.write_text(text)
    return path


def pairs_done(run: Path) -> int:
    """Return the (item, arm) pairs of a run with an answer."""
    return sum(1 for row in ResultsLedger(run).latest().values() if row.ok)


@pytest.mark.timeout(240)
def test_a_study_resumes_after_a_kill_and_a_new_model_runs_alone(
    tmp_path: Path,
    data: Path,
    servers: tuple[FakeProvider, FakeProvider],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = servers
    monkeypatch.setenv("STUDY_TEST_KEY", "sk-local-test")
    study = study_file(tmp_path, data, [first.openai_url, second.openai_url])
    out = tmp_path / "study"
    total = 2 * PER_DATA * len(ARMS)
    first.latency_s = 0.2
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcot", "study", str(study), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 90
    while pairs_done(out / "runs" / "local-0") < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-2000:]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    killed_at = pairs_done(out / "runs" / "local-0")
    assert 2 <= killed_at < total
    assert not (out / "study.md").exists()
    first.latency_s = 0.0
    asked_before = len(first.requests)

    assert run_study_command(study, out) == 0
    for name in ("local-0", "local-1"):
        assert pairs_done(out / "runs" / name) == total
    # the resume asked only for the pairs not finished before the kill (and any the kill cut off in flight)
    assert len(first.requests) - asked_before <= total - killed_at + 2
    assert all(
        {k.lower(): v for k, v in r.headers.items()}["authorization"] == "Bearer sk-local-test"
        for r in first.requests[-3:]
    )

    table = (out / "study.md").read_text()
    assert "| local-0 |" in table and "| local-1 |" in table and "scripted tool user" not in table
    for benchmark, metric in (("games", "Overall"), ("gepbench", "Avg")):
        assert f"### {benchmark} — {metric}" in table
    # the study's numbers are each run's headline numbers
    rows = headline_rows(read_scores(out / "runs" / "local-1"))
    canvas = next(r for r in rows if (r.benchmark, r.figure.arm) == ("games", "canvas"))
    assert f"| local-1 | games | Overall | canvas | {100 * canvas.figure.value:.1f} |" in table
    assert "## Tool use" in table and "Tool use — local-1" in table
    # its tool-use numbers are what its traces hold: the drawing model called draw_line once per pair with tools
    run = out / "runs" / "local-1"
    uses = {use.arm: use for use in tool_use(open_run(run), read_scores(run))}
    results = ResultsLedger(run).latest()
    for arm in ("canvas", "tools"):
        counted = [
            sum(1 for step in read_jsonl(run / str(row.trace)) if step["kind"] == "tool")
            for (_, mode), row in sorted(results.items())
            if mode == arm
        ]
        assert uses[arm].calls == counted and set(counted) == {1}
        assert uses[arm].by_tool == {"draw_line": len(counted)} and uses[arm].failed == 0
        assert uses[arm].accuracy(True)[1] == len(counted)
    assert set(uses) == {"canvas", "tools"}

    counts = (len(first.requests), len(second.requests))
    extended = study_file(tmp_path, data, [first.openai_url, second.openai_url], offline=True)
    assert run_study_command(extended, out) == 0
    assert (len(first.requests), len(second.requests)) == counts  # the first two models were not asked again
    assert pairs_done(out / "runs" / "offline") == total
    table = (out / "study.md").read_text()
    assert "| offline |" in table
    # the offline policy is no model: it has its rows, but the pooled effects are over the two models only
    pooled = table[table.index("### games — Overall: each arm − text, pooled over the models, rules only") :]
    assert "| local-1 Δ (pp) |" in pooled.splitlines()[2] and "offline" not in pooled.splitlines()[2]
    assert "left out of the pooled effects: offline" in pooled
    assert table.index("scripted tool user") < table.index("## The answer")
    assert (out / "study.html").read_text().count("<table>") >= 3
    assert (out / "figures" / "study.png").stat().st_size > 1000
    # mcot compare over the three runs: each run's arms against its text arm, labelled by model, Holm over all
    capsys.readouterr()
    assert run_compare(out / "runs" / "local-0", out / "runs" / "local-1", more=[out / "runs" / "offline"]) == 0
    compared = capsys.readouterr().out
    assert compared.count("vs text on the same items") == 6
    assert "canvas vs text on the same items — openai-compatible:local-1" in compared and "Holm p" in compared
    assert compared.startswith("> **Note: the `offline` model is not a model")
    (tmp_path / "study-table.md").write_text(table)  # kept for the closing note (see test output with -s)
    with capsys.disabled():
        print(table[table.index("### games") : table.index("### Details")])


def test_a_study_file_is_checked_before_anything_runs(tmp_path: Path, data: Path) -> None:
    study = study_file(tmp_path, data, ["http://127.0.0.1:9/v1"])
    text = study.read_text()
    study.write_text(text.replace('arms = ["text", "canvas", "tools"]', 'arms = ["text", "paint"]'))
    with pytest.raises(UsageError, match=r"unknown arm.*paint.*the toolsets are text, canvas, tools"):
        read_study(study)
    study.write_text(text.replace("concurrency = 2", "concurrency = 0"))
    with pytest.raises(UsageError, match=r"local-0.*--concurrency must be between 1 and 1024"):
        run_study_command(study, tmp_path / "out")
    study.write_text(text.replace("concurrency = 2", "colour = 2"))
    with pytest.raises(UsageError, match=r"unknown key.*colour"):
        read_study(study)
    study.write_text(text)
    with pytest.raises(UsageError, match="key_env STUDY_TEST_KEY is not set"):
        os.environ.pop("STUDY_TEST_KEY", None)
        run_study_command(study, tmp_path / "out2")
