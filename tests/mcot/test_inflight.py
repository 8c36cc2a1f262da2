"""The pair tasks in flight: they leave as they finish, a wait wakes on each, and a task's error reaches it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcot.inflight import InFlight


async def _gated(gate: asyncio.Event, log: list[str], name: str) -> None:
    await gate.wait()
    log.append(name)


def test_a_finished_task_leaves_the_set_and_wakes_the_waiter() -> None:
    async def scenario() -> tuple[int, int, list[str]]:
        tasks = InFlight()
        gates = [asyncio.Event() for _ in range(3)]
        log: list[str] = []
        for n, gate in enumerate(gates):
            tasks.start(_gated(gate, log, f"t{n}"))
        before = len(tasks)
        gates[1].set()
        await tasks.changed()
        after = len(tasks)
        for gate in gates:
            gate.set()
        while len(tasks):
            await tasks.changed()
        return before, after, log

    before, after, log = asyncio.run(scenario())
    assert (before, after) == (3, 2)
    assert log[0] == "t1" and sorted(log) == ["t0", "t1", "t2"]


def test_the_error_of_a_task_is_raised_to_the_waiter_and_never_reported_as_lost() -> None:
    reported: list[dict[str, Any]] = []

    async def failing() -> None:
        raise OSError("the ledger cannot be written")

    async def scenario() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: reported.append(context))
        tasks = InFlight()
        tasks.start(failing())
        await tasks.changed()

    with pytest.raises(OSError, match="the ledger cannot be written"):
        asyncio.run(scenario())
    assert reported == []


def test_the_error_of_a_task_that_finished_unwatched_is_raised_by_check() -> None:
    async def failing() -> None:
        raise ValueError("bad record")

    async def scenario() -> InFlight:
        tasks = InFlight()
        tasks.start(failing())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return tasks

    tasks = asyncio.run(scenario())
    assert len(tasks) == 0
    with pytest.raises(ValueError, match="bad record"):
        tasks.check()


def test_wake_ends_a_wait_with_every_task_still_in_flight() -> None:
    async def scenario() -> int:
        tasks = InFlight()
        gate = asyncio.Event()
        tasks.start(_gated(gate, [], "t"))
        asyncio.get_running_loop().call_soon(tasks.wake)
        await tasks.changed()
        in_flight = len(tasks)
        gate.set()
        await tasks.changed()
        return in_flight

    assert asyncio.run(scenario()) == 1


def test_a_cancelled_task_leaves_without_an_error() -> None:
    async def scenario() -> int:
        tasks = InFlight()
        task = tasks.start(_gated(asyncio.Event(), [], "t"))
        task.cancel()
        await tasks.changed()
        tasks.check()
        return len(tasks)

    assert asyncio.run(scenario()) == 0
