"""`mcot run` at scale, end to end against the local server: interrupts, budgets, progress lines, many
endpoints, the response cache, replay and the recorded order."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.testing.fake_provider import FakeProvider, Reply

pytestmark = pytest.mark.long_running

N_ITEMS = 6


def _png() -> bytes:
    from io import BytesIO

    buffer = BytesIO()
    Image.new("RGB", (48, 32), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def _write_items(out: Path, n: int, offset: int = 0) -> Path:
    pairs = []
    for k in range(offset, offset + n):
        item = Item(
            id=f"q{k}",
            benchmark="rbench-v",
            category="game",
            question=f"How many dots? ({k})",
            images=[f"images/q{k}.png"],
            answer=str(k),
            answer_type="number",
        )
        pairs.append((item, {f"images/q{k}.png": _png()}))
    write_items(out, pairs)
    return out


@pytest.fixture
def items(tmp_path: Path) -> Path:
    return _write_items(tmp_path / "items", N_ITEMS)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "OPENAI_BASE_URL"}
    env.update(extra)
    return env


def _mcot(*args: object, env: dict[str, str] | None = None) -> list[str]:
    return [sys.executable, "-m", "mcot", *map(str, args)]


def _run(*args: object, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(_mcot(*args), capture_output=True, text=True, env=env or _env(), timeout=timeout)


def _ok_pairs(run: Path) -> Counter:
    return Counter((r["id"], r["mode"]) for r in read_jsonl(run / "results.jsonl") if r["status"] == "ok")


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_ctrl_c_keeps_what_finished_says_so_and_a_rerun_finishes(items: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    with FakeProvider(default=Reply("\\boxed{1}"), latency_s=1.0) as server:
        args = (
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.openai_url,
            "--mode",
            "text",
            "--concurrency",
            "2",
            "--out",
            run,
        )
        process = subprocess.Popen(_mcot(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
        deadline = time.monotonic() + 60
        while len(read_jsonl(run / "results.jsonl")) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 130, err
        kept = _ok_pairs(run)
        assert 2 <= sum(kept.values()) < N_ITEMS and set(kept.values()) == {1}
        assert f"interrupted: {sum(kept.values())} of {N_ITEMS} pairs done" in err
        assert "re-run the same command to resume" in err
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["sessions"][-1]["stopped"] == "interrupt"
        done = _run(*args)
        assert done.returncode == 0, done.stderr
    assert _ok_pairs(run) == Counter({(f"q{k}", "text"): 1 for k in range(N_ITEMS)})


def test_a_second_ctrl_c_exits_at_once_with_the_ledger_consistent(items: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    with FakeProvider(default=Reply("\\boxed{1}"), latency_s=600.0) as server:  # no answer comes while the test runs
        args = (
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.openai_url,
            "--mode",
            "text",
            "--out",
            run,
        )
        process = subprocess.Popen(_mcot(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
        deadline = time.monotonic() + 60
        while len(server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)  # a run that waited for its answers would wait 10 minutes
    assert process.returncode == 130, err
    assert read_jsonl(run / "results.jsonl") == []
    assert json.loads((run / "manifest.json").read_text())["sessions"][-1]["finished"]


def test_max_cost_stops_new_pairs_and_a_larger_budget_resumes(items: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    env = _env(OPENAI_API_KEY="sk-test-budget0123456789")
    # gpt-4o: $2.50 / $10 per million tokens; 100 in + 20 out per call = $0.00045 a pair
    with FakeProvider(default=Reply("\\boxed{1}", usage=(100, 20))) as server:
        args = [
            "run",
            "--data",
            items,
            "--model",
            "openai:gpt-4o",
            "--base-url",
            server.openai_url,
            "--mode",
            "text",
            "--concurrency",
            "1",
            "--out",
            run,
        ]
        first = _run(*args, "--max-cost", "0.001", env=env)
        assert first.returncode == 4, first.stderr
        assert "--max-cost reached: $0.00 spent of $0.00" not in first.stderr
        assert "3 pairs not started" in first.stderr and "re-run with a larger --max-cost" in first.stderr
        assert sum(_ok_pairs(run).values()) == 3
        second = _run(*args, "--max-cost", "1", env=env)
        assert second.returncode == 0, second.stderr
    assert sum(_ok_pairs(run).values()) == N_ITEMS
    manifest = json.loads((run / "manifest.json").read_text())
    assert [s["stopped"] for s in manifest["sessions"]] == ["budget", None]
    assert manifest["sessions"][-1]["cost_usd"] == pytest.approx(6 * 0.00045)


def test_max_cost_for_a_model_without_a_price_is_refused_before_anything_is_written(
    items: Path, tmp_path: Path
) -> None:
    done = _run(
        "run",
        "--data",
        items,
        "--model",
        "openai-compatible:m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--max-cost",
        "5",
        "--out",
        tmp_path / "run",
    )
    assert done.returncode == 2
    assert "openai-compatible:m" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


def test_off_a_terminal_a_progress_line_comes_every_log_every_seconds(items: Path, tmp_path: Path) -> None:
    with FakeProvider(default=Reply("\\boxed{1}"), latency_s=0.6) as server:
        done = _run(
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.openai_url,
            "--mode",
            "text",
            "--concurrency",
            "1",
            "--log-every",
            "1",
            "--out",
            tmp_path / "run",
        )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if " done (" in line]
    assert len(lines) >= 2
    assert "pairs/min" in lines[-1] and "concurrency 1" in lines[-1] and "ETA" in lines[-1]


def test_a_dead_endpoint_among_several_is_rested_and_the_run_completes(items: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    dead = f"http://127.0.0.1:{_dead_port()}/v1"
    with FakeProvider(default=Reply("\\boxed{1}")) as server:
        done = _run(
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            dead,
            "--base-url",
            server.openai_url,
            "--mode",
            "text",
            "--out",
            run,
        )
    assert done.returncode == 0, done.stderr
    assert sum(_ok_pairs(run).values()) == N_ITEMS
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["model"]["base_url"] == [dead, server.openai_url]
    counts = manifest["sessions"][-1]["endpoints"]
    assert counts[server.openai_url]["ok"] == N_ITEMS
    assert counts[dead]["ok"] == 0 and counts[dead]["failed"] >= 1


def test_the_cache_answers_a_second_run_without_a_request(items: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with FakeProvider(default=Reply("\\boxed{1}")) as server:
        for out in ("first", "second"):
            done = _run(
                "run",
                "--data",
                items,
                "--model",
                "openai-compatible:m",
                "--base-url",
                server.openai_url,
                "--mode",
                "text",
                "--cache",
                cache,
                "--out",
                tmp_path / out,
            )
            assert done.returncode == 0, done.stderr
        assert len(server.requests) == N_ITEMS
    first = {(r["id"], r["mode"]): r["prediction"] for r in read_jsonl(tmp_path / "first" / "results.jsonl")}
    second = {(r["id"], r["mode"]): r["prediction"] for r in read_jsonl(tmp_path / "second" / "results.jsonl")}
    assert first == second
    refused = _run(
        "run",
        "--data",
        items,
        "--model",
        "openai-compatible:m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--temperature",
        "0.7",
        "--cache",
        cache,
        "--out",
        tmp_path / "warm",
    )
    assert refused.returncode == 2 and "temperature 0 only" in refused.stderr


def test_replay_reproduces_a_run_without_a_server_and_refuses_other_items(items: Path, tmp_path: Path) -> None:
    with FakeProvider(default=Reply("\\boxed{2}")) as server:
        done = _run(
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.openai_url,
            "--mode",
            "text",
            "--out",
            tmp_path / "original",
        )
        assert done.returncode == 0, done.stderr
    replayed = _run(
        "run",
        "--data",
        items,
        "--model",
        f"replay:{tmp_path / 'original'}",
        "--mode",
        "text",
        "--out",
        tmp_path / "replayed",
    )
    assert replayed.returncode == 0, replayed.stderr

    def predictions(run: Path) -> dict:
        return {(r["id"], r["mode"]): r["prediction"] for r in read_jsonl(run / "results.jsonl")}

    assert predictions(tmp_path / "replayed") == predictions(tmp_path / "original")
    other = _write_items(tmp_path / "other", 3, offset=10)
    refused = _run(
        "run",
        "--data",
        other,
        "--model",
        f"replay:{tmp_path / 'original'}",
        "--mode",
        "text",
        "--out",
        tmp_path / "other-run",
    )
    assert refused.returncode == 2, refused.stderr
    assert "other items" in refused.stderr and not (tmp_path / "other-run" / "manifest.json").exists()


def test_the_order_is_seeded_shuffled_and_recorded(items: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = _run("run", "--data", items, "--model", "offline", "--mode", "text,canvas", "--seed", "3", "--out", run)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["schedule"]["seed"] == 3 and manifest["schedule"]["pairs"] == 2 * N_ITEMS
    order = [(r["id"], r["mode"]) for r in read_jsonl(run / "schedule.jsonl")]
    assert len(order) == 2 * N_ITEMS
    assert [i for i, _ in order[::2]] != [f"q{k}" for k in range(N_ITEMS)]
    assert all(order[k][0] == order[k + 1][0] for k in range(0, len(order), 2))


def test_a_ray_address_nothing_listens_on_is_one_line_and_writes_nothing(items: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    done = _run(
        "run",
        "--data",
        items,
        "--model",
        "offline",
        "--executor",
        "ray",
        "--ray-address",
        f"127.0.0.1:{_dead_port()}",
        "--out",
        tmp_path / "run",
        timeout=180,
    )
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


def test_a_burst_of_429s_lowers_the_concurrency_and_the_run_completes(items: Path, tmp_path: Path) -> None:
    from mcot.testing.fake_provider import Fail

    run = tmp_path / "run"
    burst = [Fail(429, headers={"Retry-After": "0"}) for _ in range(8)]
    with FakeProvider(burst, default=Reply("\\boxed{1}")) as server:
        done = _run(
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.openai_url,
            "--mode",
            "text",
            "--concurrency",
            "8",
            "--max-tries",
            "10",
            "--out",
            run,
        )
    assert done.returncode == 0, done.stderr
    session = json.loads((run / "manifest.json").read_text())["sessions"][-1]
    assert session["overload_answers"] == 8
    assert session["concurrency_final"] < 8
    assert sum(_ok_pairs(run).values()) == N_ITEMS


@pytest.mark.parametrize("executor", ["processes", "ray"])
def test_workers_share_one_ledger_and_a_rerun_redoes_nothing(executor: str, items: Path, tmp_path: Path) -> None:
    if executor == "ray":
        pytest.importorskip("ray")
    run = tmp_path / "run"
    cache = tmp_path / "cache"
    flags = ["--workers", "2"] + (["--executor", "ray"] if executor == "ray" else [])
    with FakeProvider(default=Reply("\\boxed{1}")) as server:
        args = (
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.openai_url,
            "--mode",
            "text,canvas",
            "--cache",
            cache,
            *flags,
            "--out",
            run,
        )
        done = _run(*args, timeout=300)
        assert done.returncode == 0, done.stderr
        paid = len(server.requests)
        again = _run(*args, timeout=300)
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == paid  # nothing redone, nothing re-asked
    assert _ok_pairs(run) == Counter({(f"q{k}", arm): 1 for k in range(N_ITEMS) for arm in ("text", "canvas")})
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["sessions"][0]["executor"]["kind"] == executor
    assert manifest["sessions"][0]["executor"]["workers"] == 2
    for record in read_jsonl(run / "results.jsonl"):
        assert (run / record["trace"]).is_file()


def test_an_item_time_out_is_an_error_that_a_resume_retries(items: Path, tmp_path: Path) -> None:
    """Found by perf/crash_resume.py's helper: a time-out was recorded as `budget`, which a resume skips."""
    run = tmp_path / "run"
    common = ("run", "--data", items, "--model", "openai-compatible:m", "--mode", "text", "--limit", "2", "--out", run)
    with FakeProvider(default=Reply("\\boxed{1}"), latency_s=5.0) as slow:
        first = _run(*common, "--base-url", slow.openai_url, "--item-timeout", "1", "--request-timeout", "30")
    assert first.returncode == 3, first.stderr
    errors = [r["error"] for r in read_jsonl(run / "results.jsonl")]
    assert all(r["status"] == "error" for r in read_jsonl(run / "results.jsonl"))
    assert all("item time-out" in error for error in errors)
    with FakeProvider(default=Reply("\\boxed{1}")) as fast:
        second = _run(*common, "--base-url", fast.openai_url)
        assert second.returncode == 0, second.stderr
        assert len(fast.requests) == 2


def test_a_request_time_out_is_retried_within_the_pair(items: Path, tmp_path: Path) -> None:
    """A server that accepts a request and never answers costs --request-timeout, not 180 s, per try."""
    run = tmp_path / "run"
    with FakeProvider(default=Reply("\\boxed{1}"), latency_s=3.0) as slow:
        done = _run(
            "run",
            "--data",
            items,
            "--model",
            "openai-compatible:m",
            "--base-url",
            slow.openai_url,
            "--mode",
            "text",
            "--limit",
            "1",
            "--request-timeout",
            "0.5",
            "--max-tries",
            "2",
            "--out",
            run,
        )
        assert len(slow.requests) == 2  # both tries gave up before the answer came (it would have been correct)
    assert done.returncode == 3
    assert "timed out" in read_jsonl(run / "results.jsonl")[0]["error"]
