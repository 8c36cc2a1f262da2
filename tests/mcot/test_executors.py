"""Executors solve the same pairs to the same records wherever they run: here, in worker processes, on Ray."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcot.agents.budget import Budget
from PIL import Image

from mcot.arms import parse_arms
from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.core.rundir import Result, trace_relpath
from mcot.executors import InProcessExecutor, PairExecutor, ProcessExecutor, SolveRecipe
from mcot.executors.records import failure_record
from mcot.testing.fake_provider import FakeProvider, Reply

pytestmark = pytest.mark.long_running

ARMS = parse_arms("text,canvas")
VARYING_KEYS = frozenset({"t", "latency_s", "id", "request_key", "request_parts"})
"""Fields that differ between two runs of the same pairs: wall-clock times, and the fake server's tool-call ids
(numbered in the order requests arrive), with the request hashes that include them."""


HANGS_ANSWERED: list[Any] = []
"""The "hang" questions the fake server has answered (after 60 s)."""


def answer(body: dict[str, Any]) -> Reply:
    """One draw_line in the canvas arm, then an answer; the text arm answers at once (order-independent)."""
    messages = body["messages"]
    question = next(m for m in messages if m["role"] == "user")
    text = json.dumps(question["content"])
    if "hang" in text:
        time.sleep(60)
        HANGS_ANSWERED.append(question)
    elif "slow" in text:
        time.sleep(1.5)
    drew = any(m["role"] == "assistant" for m in messages)
    if body.get("tools") and not drew:
        return Reply(tool_calls=[("draw_line", {"start": [1, 2], "end": [30, 20]})])
    return Reply("\\boxed{B}", usage=(50 + len(messages), 7))


def make_items(root: Path, counts: dict[str, int]) -> Path:
    """Write an items directory of choice items with one small image each ({word: count}); return it.

    The word goes into ids and questions: "slow" items take the fake server 1.5 s, "hang" items 60 s."""
    items = []
    for word, n in counts.items():
        for i in range(n):
            path = root / f"{word}{i}.png"
            Image.new("RGB", (48, 32), (40 * i % 255, 90, 160)).save(path)
            item = Item(
                id=f"{word}-{i}",
                benchmark="games",
                category="maze",
                question=f"{word} question {i}: which exit?",
                images=[f"images/{word}-{i}.png"],
                choices=["left", "right"],
                answer="B",
                answer_type="choice",
                meta={},
            )
            items.append((item, {item.images[0]: path.read_bytes()}))
    out = root / "items"
    write_items(out, items)
    return out


def recipe_for(url: str) -> SolveRecipe:
    return SolveRecipe(model="openai-compatible:fake", arms=ARMS, budget=Budget(max_steps=4), base_urls=(url,))


def without_timings(value: Any, keep: frozenset[str] = frozenset()) -> Any:
    """Return a JSON value without the fields that vary from run to run (VARYING_KEYS less `keep`)."""
    if isinstance(value, dict):
        return {k: without_timings(v, keep) for k, v in value.items() if k in keep or k not in VARYING_KEYS}
    if isinstance(value, list):
        return [without_timings(v, keep) for v in value]
    return value


def run_contents(run: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return what a run wrote, timings removed: records by pair, trace steps by file, blob names and hashes."""
    traces = {
        path.name: [without_timings(json.loads(line)) for line in path.read_text().splitlines()]
        for path in sorted((run / "traces").glob("*.jsonl"))
    }
    blobs = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted((run / "blobs").iterdir())}
    by_pair = {(r["id"], r["mode"]): without_timings(r, keep=frozenset({"id"})) for r in records}
    return {"records": by_pair, "traces": traces, "blobs": blobs}


async def solve_all(executor: PairExecutor, items: list[Item]) -> list[dict[str, Any]]:
    await executor.start()
    try:
        results = await asyncio.gather(*(executor.solve(item, arm.name) for item in items for arm in ARMS))
        return [result.to_json() for result in results]
    finally:
        await executor.close()


def test_a_recipe_splits_its_rate_limits_and_caches_in_front_of_the_limiter(tmp_path: Path) -> None:
    from mcot.agents.cache import CachedBackend
    from mcot.agents.limits import RateLimitedBackend, RateLimits

    recipe = SolveRecipe(
        model="offline", arms=ARMS, budget=Budget(), limits=RateLimits(max_rpm=120, max_tpm=9000), cache_dir=tmp_path
    )
    share = recipe.share(4)
    assert (share.limits.max_rpm, share.limits.max_tpm) == (30, 2250)  # type: ignore[union-attr]
    assert recipe.share(1) is recipe
    solvers = share.build_solvers()
    assert sorted(solvers) == ["canvas", "text"]
    backend = solvers["canvas"].backend  # type: ignore[attr-defined]
    assert backend is solvers["text"].backend  # type: ignore[attr-defined]
    assert isinstance(backend, CachedBackend) and isinstance(backend.inner, RateLimitedBackend)
    assert solvers["canvas"].tools == ARMS[1].tools  # type: ignore[attr-defined]


def test_messages_queued_in_one_turn_of_the_loop_go_out_as_one_frame() -> None:
    from mcot.executors.wire import Outbox, read_frame

    frames: list[bytes] = []

    async def scenario() -> list[Any]:
        outbox = Outbox(frames.append, extra=lambda: [("obs", [None])])
        for n in range(100):
            outbox.put(("solve", n, "{}", "text"))
        await asyncio.sleep(0)
        reader = asyncio.StreamReader()
        reader.feed_data(b"".join(frames))
        reader.feed_eof()
        return [await read_frame(reader), await read_frame(reader)]

    first, end = asyncio.run(scenario())
    assert len(frames) == 1 and end is None
    assert first == [("solve", n, "{}", "text") for n in range(100)] + [("obs", [None])]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProvider]:
    with FakeProvider(default=answer) as provider:
        yield provider


@pytest.fixture(scope="module")
def items_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_items(tmp_path_factory.mktemp("items"), {"plain": 3})


@pytest.fixture(scope="module")
def reference(server: FakeProvider, items_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the in-process executor writes for the items in both arms."""
    from mcot.core.item import read_items

    run = tmp_path_factory.mktemp("in-process") / "run"
    executor = InProcessExecutor(run, items_dir, recipe_for(server.openai_url).build_solvers())
    records = asyncio.run(solve_all(executor, read_items(items_dir)))
    assert executor.describe() == {"kind": "local", "workers": 1}
    return run_contents(run, records)


def test_the_reference_run_answered_every_pair_with_a_trace_and_canvas_images(reference: dict[str, Any]) -> None:
    records = reference["records"]
    assert len(records) == 6
    assert {r["status"] for r in records.values()} == {"ok"}
    assert {r["prediction"] for r in records.values()} == {"\\boxed{B}"}
    assert records[("plain-0", "canvas")]["steps"] == 2 and records[("plain-0", "text")]["steps"] == 1
    assert records[("plain-1", "canvas")]["trace"] == trace_relpath("plain-1", "canvas")
    assert len(reference["traces"]) == 6 and len(reference["blobs"]) >= 6


def test_worker_processes_write_what_the_in_process_executor_writes(
    server: FakeProvider, items_dir: Path, reference: dict[str, Any], tmp_path: Path
) -> None:
    from mcot.core.item import read_items

    events: list[Any] = []
    run = tmp_path / "run"
    executor = ProcessExecutor(run, items_dir, recipe_for(server.openai_url), workers=2, observer=events.append)
    records = asyncio.run(solve_all(executor, read_items(items_dir)))
    assert run_contents(run, records) == reference
    assert events == [None] * 9  # 3 text calls and 6 canvas calls, each relayed from its worker
    assert executor.describe() == {"kind": "processes", "workers": 2, "restarts": 0}
    assert not (run / "results.jsonl").exists()  # the ledger is the driver's to write


def test_a_killed_worker_fails_its_pairs_and_the_rest_complete(server: FakeProvider, tmp_path: Path) -> None:
    from mcot.core.item import read_items

    items = read_items(make_items(tmp_path, {"slow": 4, "hang": 2, "plain": 2}))
    slow, hanging, plain = items[:4], items[4:6], items[6:]
    executor = ProcessExecutor(tmp_path / "run", tmp_path / "items", recipe_for(server.openai_url), workers=2)

    async def scenario() -> tuple[list[Result], list[Result], list[int]]:
        await executor.start()
        victim = executor.pids()[0]
        first = [asyncio.create_task(executor.solve(item, "text")) for item in slow]
        await asyncio.sleep(0.8)  # every pair is in flight at the server (1.5 s each)
        os.kill(victim, signal.SIGKILL)
        killed = await asyncio.gather(*first)
        after = await asyncio.gather(*(executor.solve(item, "text") for item in plain))
        stuck = [asyncio.create_task(executor.solve(item, "text")) for item in hanging]
        await asyncio.sleep(0.5)
        for task in stuck:
            task.cancel()
        pids = executor.pids()
        await executor.close()
        return killed, after, pids

    killed, after, pids = asyncio.run(scenario())
    assert not HANGS_ANSWERED  # close() left the cancelled pairs' answers behind, it did not wait for them
    statuses = sorted(r.status for r in killed)
    assert statuses == ["error", "error", "ok", "ok"]  # two pairs per worker
    died = [r for r in killed if r.status == "error"]
    assert {r.error for r in died} == {"worker process died (exit code -9)"}
    item = next(i for i in slow if i.id == died[0].id)
    assert died[0] == failure_record(item, "text", "worker process died (exit code -9)", died[0].latency_s or 0.0)
    assert [r.status for r in after] == ["ok", "ok"]
    assert executor.describe()["restarts"] == 1
    for pid in pids:  # no worker outlives close(), none is left a zombie
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_worker_that_cannot_build_its_solvers_fails_start_in_one_line(tmp_path: Path) -> None:
    from mcot.executors import ExecutorError

    recipe = SolveRecipe(model="no-such-provider:x", arms=ARMS, budget=Budget())
    executor = ProcessExecutor(tmp_path / "run", tmp_path, recipe, workers=1)
    with pytest.raises(ExecutorError, match="could not start: ModelSpecError"):
        asyncio.run(executor.start())
    assert not (tmp_path / "run").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_a_ray_address_nothing_listens_on_is_a_usage_error_before_ray_connects(scheme: str, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    from mcot.executors import RayExecutor

    address = f"{scheme}127.0.0.1:{_free_port()}"
    executor = RayExecutor(tmp_path / "run", tmp_path, recipe_for("http://127.0.0.1:9/v1"), address=address)
    # the words are the TCP probe's, which runs before ray.init: Ray's own connect would fail after its retries
    # with "cannot start or reach the Ray cluster"
    with pytest.raises(UsageError, match=f"no Ray cluster answers at {address}"):
        asyncio.run(executor.start())
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray instance (2 CPUs) for this module's Ray tests; start-up costs seconds."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    try:
        yield None
    finally:
        ray.shutdown()


def test_ray_actors_write_what_the_in_process_executor_writes(
    local_ray: None, server: FakeProvider, items_dir: Path, reference: dict[str, Any], tmp_path: Path
) -> None:
    from mcot.core.item import read_items
    from mcot.executors import RayExecutor

    events: list[Any] = []
    run = tmp_path / "run"
    executor = RayExecutor(run, items_dir, recipe_for(server.openai_url), workers=2, observer=events.append)
    records = asyncio.run(solve_all(executor, read_items(items_dir)))
    assert run_contents(run, records) == reference
    assert events == [None] * 9
    assert executor.describe() == {"kind": "ray", "workers": 2, "address": None}


def test_gen_on_ray_writes_the_bytes_of_one_process(local_ray: None, tmp_path: Path) -> None:
    from mcot.commands.gen_games import gen_games
    from mcot.commands.gen_gepbench import gen_gepbench

    gen_gepbench(tmp_path / "one", 70, 4, level="easy", format="native")
    gen_gepbench(tmp_path / "ray", 70, 4, level="easy", format="native", executor="ray")
    assert _hashes(tmp_path / "ray") == _hashes(tmp_path / "one")
    gen_games(tmp_path / "games-one", "maze", 40, 2)
    gen_games(tmp_path / "games-ray", "maze", 40, 2, workers=2, executor="ray")
    assert _hashes(tmp_path / "games-ray") == _hashes(tmp_path / "games-one")


def _hashes(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
