"""One writer per run directory (issue 21 part 3): a second writer refuses at once, and nothing is paid twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mcot.benchmarks.item import Item, write_items
from typer.testing import CliRunner

from mcot.cli import app
from mcot.rundir import LOCK, RunInUseError, read_jsonl, read_manifest, run_lock
from mcot.testing.fake_provider import FakeProvider, Reply

HOLD = """
import sys, time
from pathlib import Path
from mcot.rundir import run_lock
with run_lock(Path(sys.argv[1]), "mcot run"):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture
def holder(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Start another process that holds RUN's lock (as a running `mcot run` does); yield RUN and the process."""
    run = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(run)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    yield run, process
    process.kill()
    process.wait(timeout=30)


def test_a_second_writer_is_refused_at_once_naming_the_holder(holder) -> None:  # type: ignore[no-untyped-def]
    run, process = holder
    with pytest.raises(RunInUseError) as refused:  # a lock that waited would get the run once the holder let go
        with run_lock(run, "mcot score"):
            pass
    assert process.poll() is None  # refused while the holder still holds the run, not after it let go
    message = str(refused.value)
    assert message.startswith(f"{run} is in use by another mcot process (pid {process.pid}, mcot run since ")
    assert "\n" not in message


def test_commands_that_write_the_run_refuse_with_one_line_and_exit_2(holder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run, process = holder
    (tmp_path / "items").mkdir()
    for argv in (
        ["run", "--data", str(tmp_path / "items"), "--model", "offline", "--mode", "text", "--out", str(run)],
        ["score", str(run)],
        ["view", str(run)],
        ["export", str(run), "--format", "jsonl", "--out", str(tmp_path / "e"), "--score"],
        ["imagine", "--data", str(tmp_path / "items"), "--generator", "procedural", "--out", str(run)],
    ):
        result = CliRunner().invoke(app, argv)
        assert result.exit_code == 2, (argv, result.output)
        assert f"is in use by another mcot process (pid {process.pid}, mcot run since" in result.output
    assert sorted(path.name for path in run.iterdir()) == [LOCK]  # nothing else was written


def test_the_lock_is_released_on_any_exit_and_a_killed_holder_leaves_no_stale_lock(holder) -> None:  # type: ignore[no-untyped-def]
    run, process = holder
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert (run / LOCK).exists()  # the file stays; the kernel let the lock go with the process
    with run_lock(run, "mcot score"):
        with run_lock(run, "mcot view"):  # re-entrant within one process (`mcot demo` runs, scores, views)
            pass
        assert json.loads((run / LOCK).read_text())["pid"] == os.getpid()
    assert not (run / LOCK).exists() and run.is_dir()  # the holder made RUN: it stays
    fresh = run.parent / "never-run" / "run"
    with run_lock(fresh, "mcot run"):
        assert fresh.is_dir()
    assert not fresh.parent.exists()  # made by the lock and left empty (a refused spec): nothing is left
    with pytest.raises(RuntimeError):
        with run_lock(run, "mcot run"):
            raise RuntimeError("the command failed")
    with run_lock(run, "mcot run"):  # released after the failure
        pass


def test_two_runs_started_at_once_on_one_out_pay_each_turn_once(tmp_path: Path) -> None:
    items = [
        (
            Item(
                id=f"q{n}", benchmark="rbench-v", category="physics", question=f"Q{n}?", answer="1", answer_type="text"
            ),
            {},
        )
        for n in range(6)
    ]
    write_items(tmp_path / "items", items)
    run = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    with FakeProvider(default=Reply("\\boxed{1}"), latency_s=0.4) as server:
        argv = [
            sys.executable,
            "-m",
            "mcot",
            "run",
            "--data",
            str(tmp_path / "items"),
            "--model",
            "openai-compatible:m",
        ]
        argv += ["--base-url", server.openai_url, "--mode", "text,canvas", "--out", str(run), "--concurrency", "1"]
        argv += ["--log-every", "0"]
        both = [
            subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in "ab"
        ]
        outcomes = [(process.wait(timeout=300), process.stderr.read() if process.stderr else "") for process in both]
        asked = len(server.requests)
    assert asked == 12  # 6 items x 2 arms, one turn each: never twice
    assert sorted(code for code, _ in outcomes) in ([0, 2], [0, 0])
    refused = [err for code, err in outcomes if code == 2]
    assert all("is in use by another mcot process (pid " in err and err.count("\n") == 1 for err in refused)
    lines = read_jsonl(run / "results.jsonl")
    assert len(lines) == 12 and len({(line["id"], line["mode"]) for line in lines}) == 12
    manifest = read_manifest(run)
    assert manifest.sessions and manifest.sessions[0].finished and manifest.sessions[0].pairs_started == 12
    assert len(manifest.sessions) == (1 if refused else 2)  # both exit 0 only when the second came after the first
    assert not (run / LOCK).exists()
