"""`mcot imagine` fails fast when its generator endpoint dies mid-run (issue 29 part 2 and 7): the generator's
retries tell the run's circuit breaker, so the command stops after a bounded number of failed connections, records
the prompts it did not start as failed (saying how to resume) and exits 3, instead of retrying every prompt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcot.breaker import BREAKER_THRESHOLD
from mcot.core.rundir import read_jsonl
from mcot.testing.fake_provider import FakeProvider, ImageReply, solid_png

PROMPTS = 40
ANSWERED = 2


def _prompts(root: Path) -> Path:
    folder = root / "items"
    folder.mkdir()
    rows = [
        {"id": f"p{k}", "benchmark": "gobench", "category": "generation", "question": f"Draw scene {k}.",
         "answer": "", "answer_type": "image"}
        for k in range(PROMPTS)
    ]  # fmt: skip
    (folder / "items.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


def _going_down(server: FakeProvider) -> Callable[[dict[str, Any]], ImageReply]:
    """Return the server's answer once its script is spent: it stops the server (from then on every connection
    is refused) and closes this request's connection without an answer, so that no later prompt is answered
    however fast the command asks."""
    lock = threading.Lock()
    stopping: list[threading.Thread] = []

    def answer(body: dict[str, Any]) -> ImageReply:
        with lock:
            if not stopping:
                stopping.append(threading.Thread(target=server.stop, daemon=True))
                stopping[0].start()
        raise ConnectionAbortedError("the server is going down")

    return answer


def test_a_generator_endpoint_that_dies_mid_run_stops_the_command(tmp_path: Path) -> None:
    items, run = _prompts(tmp_path), tmp_path / "run"
    server = FakeProvider([ImageReply(images=[solid_png(n)]) for n in range(ANSWERED)])
    server.default = _going_down(server)
    server.start()
    command = [sys.executable, "-m", "mcot", "imagine", "--data", str(items), "--generator", "openai-image:gpt-image-1",
               "--base-url", server.openai_url, "--out", str(run), "--concurrency", "1", "--max-tries", "3"]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": "sk-FAKE-key-for-tests-000"}
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        _, err = child.communicate(timeout=300)
    finally:
        server.stop()
    assert child.returncode == 3, err
    results = read_jsonl(run / "results.jsonl")
    assert len(results) == PROMPTS  # every prompt is in the ledger, generated, failed or not started
    not_started = [r for r in results if str(r.get("error") or "").startswith("not started: ")]
    # the breaker opens after BREAKER_THRESHOLD refused connections (3 tries a prompt: a handful of prompts fail by
    # refusal); prompts the live server answered with errors before it died are not refusals and do not count
    refused = [r for r in results if r not in not_started and "connect" in str(r.get("error") or "").lower()]
    assert 1 <= len(refused) <= BREAKER_THRESHOLD + 1, (len(refused), err)
    assert len(not_started) >= PROMPTS - ANSWERED - 2 * BREAKER_THRESHOLD, (len(not_started), err)
    assert "accepts no connection" in not_started[0]["error"] and "re-run the same command" in not_started[0]["error"]
