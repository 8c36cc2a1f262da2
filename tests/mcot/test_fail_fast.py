"""A dead endpoint stops a run in seconds: the check before a run, the circuit breaker, several endpoints."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from hostile_servers import free_port, items_dir, mcot
from mcot.agents.retry import Failure

from mcot.breaker import BREAKER_THRESHOLD, CircuitBreaker
from mcot.core.rundir import read_jsonl
from mcot.testing import FakeProvider, Reply

COMPATIBLE = ("--model", "openai-compatible:m", "--mode", "text")


def test_a_base_url_nothing_listens_on_stops_the_run_in_seconds(tmp_path: Path) -> None:
    items = items_dir(tmp_path, 50)
    url = f"http://127.0.0.1:{free_port()}/v1"
    done = mcot("run", "--data", items, *COMPATIBLE, "--base-url", url, "--out", tmp_path / "run", "--limit", "50")
    assert done.code == 2, done.stderr  # refused by the check before the run: no request, no retry, no back-off
    assert f"cannot connect to {url} (Connection refused)" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()  # nothing written, nothing paid


def test_the_sdk_path_is_checked_too(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    done = mcot(
        "run", "--data", items_dir(tmp_path), "--model", "openai:gpt-4o", "--mode", "text", "--base-url", url,
        "--out", tmp_path / "run", env={"OPENAI_API_KEY": "sk-FAKE-key-for-tests-000"},
    )  # fmt: skip
    assert done.code == 2 and f"cannot connect to {url}" in done.stderr


class DiesAfter:
    """A script that answers `n` requests, then takes the server down: every later connection is refused."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.answered = 0
        self.lock = threading.Lock()
        self.server: FakeProvider | None = None

    def __call__(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            self.answered += 1
            alive = self.answered <= self.n
            if self.answered == self.n + 1 and self.server is not None:
                threading.Thread(target=self.server.stop, daemon=True).start()
        if not alive:
            raise ConnectionAbortedError("the server is going down")  # the connection closes without an answer
        return Reply("\\boxed{1}")


def test_the_circuit_breaker_stops_a_run_whose_endpoint_dies(tmp_path: Path) -> None:
    items = items_dir(tmp_path, 40)
    script = DiesAfter(4)
    with FakeProvider(default=script) as server:
        script.server = server
        done = mcot(
            "run", "--data", items, *COMPATIBLE, "--base-url", server.openai_url, "--out", tmp_path / "run",
            "--concurrency", "10", "--log-every", "0", "--max-tries", "20",
        )  # fmt: skip
    # 20 tries a call: whichever pair makes the 10th failure in a row still has tries left, so it is halted
    assert done.code == 3, done.stderr
    records = list(read_jsonl(tmp_path / "run" / "results.jsonl"))
    assert len(records) == 40  # every pair has its line: nothing is lost
    assert sum(r["status"] == "ok" for r in records) == 4
    endpoint = f"the model {COMPATIBLE[1]} at {server.openai_url} accepts no connection"  # the model and URL named
    not_started = [r for r in records if str(r["error"]).startswith(f"not started: {endpoint}")]
    assert len(not_started) >= 25
    assert "re-run the same command once it answers" in done.stderr
    halted = [r for r in records if f"not retried: {endpoint}" in str(r["error"])]
    assert halted  # the pairs in flight stopped retrying when the breaker opened
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["sessions"][-1]["stopped"] == "breaker"


def test_a_run_with_one_dead_endpoint_of_two_goes_on_with_the_other(tmp_path: Path) -> None:
    items = items_dir(tmp_path, 12)
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with FakeProvider(default=Reply("\\boxed{1}")) as server:
        done = mcot(
            "run", "--data", items, *COMPATIBLE, "--base-url", server.openai_url, "--base-url", dead,
            "--out", tmp_path / "run", "--concurrency", "4",
        )  # fmt: skip
    assert done.code == 0, done.stderr
    assert f"no connection to {dead} (Connection refused); the run goes on with the other endpoints" in done.stderr
    assert all(r["status"] == "ok" for r in read_jsonl(tmp_path / "run" / "results.jsonl"))


def test_the_breaker_counts_only_failed_connections_in_a_row() -> None:
    breaker = CircuitBreaker()
    refused = Failure(True, "connection error (POST http://h/v1): refused", unreachable=True, cannot_connect=True)
    for _ in range(BREAKER_THRESHOLD - 1):
        breaker.record(refused)
    breaker.record(None)  # an answer closes the streak
    breaker.record(Failure(True, "request timed out", unreachable=True))  # so does a time-out
    for _ in range(BREAKER_THRESHOLD - 1):
        breaker.record(refused)
    assert breaker.opened is None and breaker.halt_reason() is None
    breaker.record(refused)
    assert breaker.halt_reason() == (
        f"the model endpoint accepts no connection ({BREAKER_THRESHOLD} attempts in a row failed to connect)"
    )
    breaker.record(None)
    assert breaker.opened is not None  # open for the rest of the session
    assert breaker.cause().endswith("(the last: connection error (POST http://h/v1): refused)")


def test_the_judges_breaker_stops_scoring_when_its_endpoint_dies(tmp_path: Path) -> None:
    items = items_dir(tmp_path, 40)
    assert mcot("run", "--data", items, *("--model", "offline", "--mode", "text"), "--out", tmp_path / "run").code == 0
    script = DiesAfter(4)
    with FakeProvider(default=script) as server:
        script.server = server
        done = mcot("score", tmp_path / "run", "--judge", "openai-compatible:j", "--base-url", server.openai_url,
                    env={"OPENAI_API_KEY": "sk-FAKE-key-for-tests-000"})  # fmt: skip
    assert done.code == 3, done.stderr  # judgments are missing: never 0
    assert f"mcot: the judge openai-compatible:j at {server.openai_url} accepts no connection " \
           f"({BREAKER_THRESHOLD} attempts in a row failed to connect)" in done.stderr.splitlines()  # fmt: skip
    assert "judgment(s) are missing" in done.stderr
