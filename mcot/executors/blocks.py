"""Ordered maps for `mcot gen`: a generator's blocks made here, in worker processes, or on a Ray cluster.

A generator splits its work into blocks that depend on their arguments alone (a seed and an index range) and
writes the results in block order, so the output is byte-identical whoever makes the blocks. At most
`2 × workers` blocks are in flight at once, so memory stays bounded on large runs.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from mcot.core.errors import UsageError
from mcot.executors.block_worker import read_frame_sync
from mcot.executors.ray_executor import LOCAL_CPUS, connect
from mcot.executors.wire import encode

R = TypeVar("R")
Mapper = Callable[[Callable[..., R], Sequence[tuple[Any, ...]]], Iterable[R]]
EXECUTORS = ("local", "ray")
MAX_WORKERS = 1024
WINDOW_PER_WORKER = 2
STOP_GRACE_S = 2.0


def check_workers(workers: int | None, executor: str, address: str | None = None) -> None:
    """Raise UsageError for an unknown --executor, a --workers count out of range, or an address without Ray."""
    if executor not in EXECUTORS:
        raise UsageError(f"unknown --executor {executor!r}; choose {' or '.join(EXECUTORS)}")
    if address is not None and executor != "ray":
        raise UsageError("--ray-address goes with --executor ray")
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be between 1 and {MAX_WORKERS}, got {workers}")


@contextlib.contextmanager
def block_mapper(workers: int | None = None, executor: str = "local", address: str | None = None) -> Iterator[Mapper]:
    """Yield an ordered map (function, argument tuples) → results in order, for the life of the context.

    executor "local": this process when `workers` is None or 1, else that many spawned processes; "ray": tasks
    on the Ray cluster at `address` (None: RAY_ADDRESS, else a local instance with `workers` CPUs), `workers`
    at a time (None: one per CPU of the cluster). Raise UsageError for bad options or an unreachable cluster.
    """
    check_workers(workers, executor, address)
    if executor == "ray":
        with _ray_mapper(workers, address) as mapper:
            yield mapper
    elif workers is None or workers == 1:
        yield _in_order
    else:
        with _process_mapper(workers) as mapper:
            yield mapper


def _in_order(function: Callable[..., R], arguments: Sequence[tuple[Any, ...]]) -> Iterator[R]:
    for args in arguments:
        yield function(*args)


@contextlib.contextmanager
def _process_mapper(workers: int) -> Iterator[Mapper]:
    """Yield a mapper over `workers` worker processes (`python -m mcot.executors.block_worker`).

    Block k goes to worker k mod N, so each worker's replies arrive in the order they are read; each worker
    has at most WINDOW_PER_WORKER blocks queued. The workers are stopped when the context ends.
    """
    processes: list[subprocess.Popen[bytes]] = []

    def spawn() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-m", "mcot.executors.block_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        processes.append(process)
        return process

    def mapper(function: Callable[..., R], arguments: Sequence[tuple[Any, ...]]) -> Iterator[R]:
        calls = [("call", function.__module__, function.__qualname__, args) for args in arguments]
        while len(processes) < min(workers, len(calls)):
            spawn()
        pool = processes[: max(1, min(workers, len(calls)))]
        sent = 0

        def send_up_to(limit: int) -> None:
            nonlocal sent
            while sent < min(limit, len(calls)):
                stdin = pool[sent % len(pool)].stdin
                assert stdin is not None
                stdin.write(encode([calls[sent]]))
                stdin.flush()
                sent += 1

        send_up_to(WINDOW_PER_WORKER * len(pool))
        for index in range(len(calls)):
            process = pool[index % len(pool)]
            assert process.stdout is not None
            frame = read_frame_sync(process.stdout)
            if frame is None:
                code = process.wait()
                raise RuntimeError(f"a worker process died (exit code {code}) while making block {index}")
            kind, value = frame[0]
            if kind == "error":
                raise value
            send_up_to(index + 1 + WINDOW_PER_WORKER * len(pool))
            yield value

    try:
        yield mapper
    except BaseException:  # an error or Ctrl-C: the blocks still queued are not wanted
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        raise
    finally:
        for process in processes:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
        for process in processes:
            try:
                process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()


@contextlib.contextmanager
def _ray_mapper(workers: int | None, address: str | None) -> Iterator[Mapper]:
    owns = connect(address, local_cpus=workers or LOCAL_CPUS)
    import ray

    try:
        width = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))

        def mapper(function: Callable[..., R], arguments: Sequence[tuple[Any, ...]]) -> Iterator[R]:
            remote = ray.remote(function)
            window: deque[Any] = deque()
            pending = iter(arguments)
            try:
                for args in pending:
                    window.append(remote.remote(*args))
                    if len(window) >= WINDOW_PER_WORKER * width:
                        break
                while window:
                    result = ray.get(window.popleft())
                    for args in pending:
                        window.append(remote.remote(*args))
                        break
                    yield result
            finally:
                for ref in window:
                    with contextlib.suppress(Exception):
                        ray.cancel(ref)

        yield mapper
    finally:
        if owns:
            ray.shutdown()
