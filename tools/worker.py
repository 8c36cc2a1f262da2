"""Work under a hard time limit in child processes: a job that overruns is killed with its process.

A thread cannot be stopped, so a time limit enforced by a thread leaves the work running (and holding memory)
after the caller has given up. Here each job runs in a small child process (`python -m mcot.tools.worker`) that
answers JSON lines on its stdin/stdout; a job past its limit gets its process killed, and the next job starts a
fresh one. Idle workers are kept for the next call (starting one costs an interpreter and the job's imports).
No thread is started in the calling process. Jobs are named (`JOBS`): the child only runs our own functions,
with JSON arguments, never code it is sent.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from mcot.tools.errors import ToolError, ToolTimeout
from mcot.tools.errors import ToolError as Refused
from mcot.tools.errors import ToolTimeout as Overrun

from mcot.core.ref import Ref

JOBS: dict[str, str] = {"solve": "mcot.tools.algebra:solve_job"}
"""Job name -> "module:function" the child runs; the function takes the JSON payload and returns JSON data."""

WARM: dict[str, str] = {"solve": "mcot.tools.algebra:warm"}
"""Job name -> "module:function" the child runs once at start-up, outside any job's time limit."""

DOING: dict[str, str] = {"solve": "sympy"}
"""Job name -> what does the work, for messages ("sympy could not do it: ...")."""

START_SECONDS = 60.0
"""Longest wait for a new worker to be ready (interpreter start and imports)."""

MAX_IDLE = 4
"""Most idle workers kept for later calls."""

MEMORY_BYTES = 4 * 1024**3
"""Address-space limit of a worker process (a runaway job fails with MemoryError instead of swapping)."""

_idle: dict[str, list[_Worker]] = {}
_lock = threading.Lock()


class _Worker:
    """One child process serving jobs of one name, one at a time."""

    def __init__(self, job: str) -> None:
        self.job = job
        self._buffer = b""
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "mcot.tools.worker", job],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C in a terminal reaches the caller, which ends its workers
            )
        except OSError as exc:
            raise ToolError(f"the {job} worker process could not start ({exc.strerror or exc})") from None
        ready = self._read(START_SECONDS)
        if ready != {"ready": True}:
            self.kill()
            raise ToolError(f"the {job} worker process did not start properly; try the call again")

    def alive(self) -> bool:
        """Return True while the child process runs."""
        return self.proc.poll() is None

    def request(self, payload: Any, seconds: float) -> dict[str, Any]:
        """Return the child's reply to one job; ToolTimeout (the child killed) when it takes over `seconds`."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(payload).encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except OSError:
            self.kill()
            raise ToolError(f"the {self.job} worker process stopped; try the call again") from None
        reply = self._read(seconds)
        if reply is None:
            self.kill()
            raise ToolTimeout(
                f"{DOING.get(self.job, self.job)} did not finish within the {seconds:g} s time limit and was stopped; "
                "simplify the problem or give numbers"
            )
        return reply

    def _read(self, seconds: float) -> dict[str, Any] | None:
        """Return the next JSON line of the child, or None when none came within `seconds` (or it died)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + seconds
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            return None
        return reply if isinstance(reply, dict) else None

    def kill(self) -> None:
        """End the child process now and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def close(self) -> None:
        """Ask the child to finish (end of its input), then kill it if it lingers."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


def run_job(job: str, payload: Any, seconds: float) -> Any:
    """Return the result of job `job` on `payload` run in a worker process, killed after `seconds`.

    Raises ToolTimeout past the limit, ToolError with the job's own message when the job refused its input,
    and ToolError naming the exception when the job failed otherwise.
    """
    if job not in JOBS:
        raise ToolError(f"unknown worker job {job!r}; known: {', '.join(JOBS)}")
    with _lock:
        pool = _idle.setdefault(job, [])
        worker = pool.pop() if pool else None
    if worker is None or not worker.alive():
        worker = _Worker(job)
    reply = worker.request(payload, seconds)
    with _lock:
        pool = _idle.setdefault(job, [])
        keep = len(pool) < MAX_IDLE and worker.alive()
        if keep:
            pool.append(worker)
    if not keep:
        worker.close()
    if "ok" in reply:
        return reply["ok"]
    if reply.get("timeout"):
        raise ToolTimeout(str(reply.get("error")))
    if reply.get("refused"):
        raise ToolError(str(reply.get("error")))
    raise ToolError(f"{DOING.get(job, job)} could not do it: {reply.get('error')}")


def shutdown() -> None:
    """End every idle worker process; returns nothing (called at exit, and by tests)."""
    with _lock:
        workers = [w for pool in _idle.values() for w in pool]
        _idle.clear()
    for worker in workers:
        worker.close()


def worker_pids() -> list[int]:
    """Return the process ids of the idle workers (for tests)."""
    with _lock:
        return [w.proc.pid for pool in _idle.values() for w in pool]


atexit.register(shutdown)


def _resolve(spec: str) -> Any:
    return Ref(spec).resolve()


def _serve(job: str) -> None:
    """The child's loop: warm up, say ready, then answer one JSON line per request until input ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything a library prints goes to stderr, never into the replies
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    except (ImportError, ValueError, OSError):
        pass

    fn = _resolve(JOBS[job])
    if job in WARM:
        _resolve(WARM[job])()

    def send(reply: dict[str, Any]) -> None:
        out.write(json.dumps(reply).encode("utf-8") + b"\n")
        out.flush()

    send({"ready": True})
    for line in sys.stdin.buffer:
        try:
            reply: dict[str, Any] = {"ok": fn(json.loads(line))}
            json.dumps(reply)
        except Overrun as exc:
            reply = {"error": str(exc), "timeout": True}
        except Refused as exc:
            reply = {"error": str(exc), "refused": True}
        except MemoryError:
            reply = {"error": "it needed more memory than a tool call may use; simplify the problem", "refused": True}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
        send(reply)


if __name__ == "__main__":
    _serve(sys.argv[1])
