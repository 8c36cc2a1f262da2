"""Time-limited sympy work runs in a worker process: a time-out kills it, and no thread is left running."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from mcot.canvas import Canvas
from mcot.tools import algebra, call, worker

HARD = {"equations": ["sin(x)^x = x^sin(x) + cos(x)^(x^2)"]}
"""An equation sympy works on for a long time before giving up."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_sympy_time_out_leaves_no_thread_and_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    canvas = Canvas(size=(10, 10))
    assert call("solve", {"expression": "1 + 1"}, canvas).ok  # a worker is started and kept
    pids = worker.worker_pids()
    threads = threading.active_count()
    monkeypatch.setattr(algebra, "SECONDS", 0.2)
    result = call("solve", HARD, canvas)
    assert not result.ok and "0.2 s time limit" in result.text and "solve" in result.text
    assert threading.active_count() == threads  # the old thread-based limit left a daemon thread computing
    assert pids and not any(_alive(pid) for pid in pids if pid not in worker.worker_pids())
    monkeypatch.setattr(algebra, "SECONDS", 4.0)
    again = call("solve", {"equations": ["x^2 - 4 = 0"]}, canvas)  # a fresh worker takes over
    assert again.ok and again.data["count"] == 2


def test_the_worker_answers_errors_as_tool_errors() -> None:
    canvas = Canvas(size=(10, 10))
    refused = call("solve", {"expression": "factorial(10^9)"}, canvas)
    assert not refused.ok and "too large" in refused.text
    nothing = call("solve", {"equations": ["x = x"]}, canvas)
    assert not nothing.ok and "always true" in nothing.text


def test_calls_from_several_threads_each_get_their_answer() -> None:
    canvas = Canvas(size=(10, 10))
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda n: call("solve", {"equations": [f"x - {n} = 0"]}, canvas), range(6)))
    assert [r.data["solutions"][0]["x"]["exact"] for r in results] == [str(n) for n in range(6)]
    assert len(worker.worker_pids()) <= worker.MAX_IDLE


def test_shutdown_ends_every_idle_worker() -> None:
    assert call("solve", {"expression": "2 + 2"}, Canvas(size=(10, 10))).ok
    pids = worker.worker_pids()
    worker.shutdown()
    assert pids and worker.worker_pids() == []
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)


def test_an_unknown_job_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown worker job"):
        worker.run_job("shell", {}, 1.0)
