"""A code session: one stateful Jupyter kernel (ipykernel, driven by jupyter-client) inside the sandbox.

The kernel is started with its own connection file and `ipc` sockets in a private session folder (the sandbox
has no network, so no TCP port can reach it), limits and a system-call filter are set by `_inside.py` before
ipykernel starts, and the parent bounds each cell's wall clock: past it the cell is interrupted (a message on
the control channel), and a kernel that does not stop, or that died (memory, CPU time), is started again.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mcot.tools.code.cell import RESTARTED, CellResult
from mcot.tools.code.limits import DEFAULT_LIMITS, CodeLimits
from mcot.tools.code.sandbox import kernel_environment, require_sandbox, sandbox_command

_HERE = Path(__file__).resolve().parent
_INSIDE, _PRELUDE = _HERE / "_inside.py", _HERE / "_prelude.py"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)


_LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcot-code-launcher")
"""Every kernel is started from this one long-lived thread: bubblewrap's --die-with-parent (PR_SET_PDEATHSIG) ends
a sandbox when the *thread* that started it ends, so a kernel started from a short-lived thread would die with it."""


class CodeSessionError(RuntimeError):
    """A code session could not start (the message says why in one line)."""


def _base_dir() -> Path:
    """Return the folder the session folders are made in (short: an ipc socket path is limited to ~100 bytes)."""
    base = Path(tempfile.gettempdir()) / f"mcot-code-{os.getuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    return base


class CodeSession:
    """One stateful Python session in the sandbox (or, `isolated` False, only under its limits).

    `start()` launches the kernel (with the prelude: numpy, PIL, matplotlib, …); `load_images(paths)` gives it
    an item's images; `run(code)` executes one cell and returns its bounded `CellResult`; `close()` ends it and
    removes its folder. A session is used by one thread at a time (a lock guards it).
    """

    def __init__(self, limits: CodeLimits = DEFAULT_LIMITS, *, isolated: bool = True, hidden: Iterable[Path] = ()):
        self.limits = limits
        self.isolated = isolated
        self.hidden = tuple(hidden)
        self.restarts = 0
        self.cells = 0
        self._lock = threading.RLock()
        self._dir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._client: Any = None
        self._images: tuple[Path, ...] = ()

    # --- life -------------------------------------------------------------------------------------------
    def start(self) -> CodeSession:
        """Start the kernel and wait until it answers; return the session; raise CodeSessionError on failure."""
        with self._lock:
            if self.isolated:
                require_sandbox()
            self._dir = Path(tempfile.mkdtemp(prefix="s", dir=_base_dir()))
            (self._dir / "in").mkdir()
            self._launch()
            return self

    def _launch(self) -> None:
        from jupyter_client.blocking.client import BlockingKernelClient
        from jupyter_client.connect import write_connection_file

        assert self._dir is not None
        connection_file = str(self._dir / "kernel.json")
        for stale in self._dir.glob("k-*"):
            stale.unlink(missing_ok=True)
        write_connection_file(
            connection_file, transport="ipc", ip=str(self._dir / "k"), key=os.urandom(16).hex().encode()
        )
        limits = json.dumps(self.limits.manifest_entry())
        inner = [
            sys.executable,
            "-I",
            str(_INSIDE),
            limits,
            connection_file,
            str(_PRELUDE),
        ]  # -I: not its folder on sys.path
        command = sandbox_command(inner, self._dir, self.limits, hidden=self.hidden) if self.isolated else inner
        environment = kernel_environment(self.limits)
        if not self.isolated:  # no sandbox: the scratch folder is the session folder itself
            scratch = self._dir / "scratch"
            scratch.mkdir(exist_ok=True)
            environment.update(HOME=str(scratch), TMPDIR=str(scratch))
        log = open(self._dir / "kernel.log", "ab")
        try:
            self._process = _LAUNCHER.submit(
                subprocess.Popen,
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=environment,
                cwd=str(self._dir / "scratch") if not self.isolated else None,
                start_new_session=True,
            ).result()
        finally:
            log.close()
        client = BlockingKernelClient(connection_file=connection_file)
        client.load_connection_file()
        client.start_channels()
        self._client = client
        deadline = time.monotonic() + self.limits.start_s
        while not _answers(client):
            if self._process.poll() is not None or time.monotonic() > deadline:
                why = self._log_tail() or f"exit status {self._process.poll()}"
                self._stop()
                raise CodeSessionError(f"the code session did not start: {why}")
        with contextlib.suppress(queue.Empty):  # the kernel's start-up status messages: not a cell's
            while True:
                client.iopub_channel.get_msg(timeout=0.2)

    def _log_tail(self) -> str:
        try:
            text = (self._dir / "kernel.log").read_text(errors="replace") if self._dir else ""
        except OSError:
            return ""
        lines = [line for line in text.strip().splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""

    def _stop(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.stop_channels()
            self._client = None
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)
            self._process = None

    def restart(self) -> None:
        """Start the kernel afresh (its variables are gone) and give it the item's images again."""
        with self._lock:
            self._stop()
            self.restarts += 1
            self._launch()
            if self._images:
                self._load(self._images)

    def close(self) -> None:
        """End the kernel and remove the session folder; returns nothing (safe to call twice)."""
        with self._lock:
            self._stop()
            if self._dir is not None:
                shutil.rmtree(self._dir, ignore_errors=True)
                self._dir = None

    def __enter__(self) -> CodeSession:
        return self.start() if self._client is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        """Return whether the kernel process is running."""
        return self._process is not None and self._process.poll() is None

    def memory_bytes(self) -> int:
        """Return the resident memory of the session's processes (bwrap and the kernel), in bytes."""
        if self._process is None:
            return 0
        total, pending = 0, [self._process.pid]
        while pending:
            pid = pending.pop()
            with contextlib.suppress(OSError):
                status = Path(f"/proc/{pid}/status").read_text()
                total += next(
                    (int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0
                )
            with contextlib.suppress(OSError):
                for task in Path(f"/proc/{pid}/task").iterdir():
                    children = (task / "children").read_text().split()
                    pending.extend(int(child) for child in children)
        return total

    # --- images -----------------------------------------------------------------------------------------
    def load_images(self, paths: Sequence[Path | str]) -> None:
        """Give the session an item's images as `image` (the first) and `images` (all), as PIL RGB images."""
        with self._lock:
            assert self._dir is not None, "start the session first"
            copies = []
            for index, path in enumerate(paths):
                copy = self._dir / "in" / f"{index}{Path(path).suffix or '.png'}"
                shutil.copyfile(path, copy)
                copies.append(copy)
            self._images = tuple(copies)
            self._load(self._images)

    def _load(self, copies: Sequence[Path]) -> None:
        result = self._execute(f"_mcot_load_images({[str(p) for p in copies]!r})", silent=True)
        if not result.ok:
            raise CodeSessionError(f"the item's images could not be loaded into the session: {result.message}")

    # --- cells ------------------------------------------------------------------------------------------
    def run(self, code: str) -> CellResult:
        """Run one cell and return its outcome; never raises for anything the cell does."""
        with self._lock:
            self.cells += 1
            if len(code) > self.limits.cell_chars:
                return _refused(
                    code,
                    f"the cell is {len(code):,} characters long; at most {self.limits.cell_chars:,} are run. Send shorter cells.",
                )
            if not code.strip():
                return _refused(code, "the cell is empty: send some Python code")
            if self._client is None or not self.alive:
                self.restart()
                result = self._execute(code)
                result.restarted = True
                return result
            return self._execute(code)

    def _execute(self, code: str, *, silent: bool = False) -> CellResult:
        started = time.perf_counter()
        collected = _Collector(code, self.limits)
        client = self._client
        msg_id = client.execute(code, silent=silent, store_history=False, allow_stdin=False, stop_on_error=False)
        deadline = time.monotonic() + self.limits.cell_s
        interrupted_at: float | None = None
        while True:
            now = time.monotonic()
            if interrupted_at is None and now > deadline:
                self._interrupt()
                interrupted_at = now
            elif interrupted_at is not None and now > interrupted_at + 2.0:
                collected.end_restart(
                    f"the cell ran past its limit of {self.limits.cell_s:g} s and did not stop; {RESTARTED}"
                )
                self.restart()
                break
            try:
                message = client.iopub_channel.get_msg(timeout=0.2)
            except Exception:  # queue.Empty: nothing yet; a dead kernel shows here too
                if not self.alive:
                    collected.end_restart(f"the session stopped ({self._death()}); {RESTARTED}")
                    self.restart()
                    break
                continue
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if collected.add(message):
                break
        if interrupted_at is not None and collected.outcome != "restart":
            collected.end_timeout(self.limits.cell_s)
        self._drain_shell()
        self._check_folder(collected)
        result = collected.result()
        result.duration_s = time.perf_counter() - started
        return result

    def _interrupt(self) -> None:
        client = self._client
        with contextlib.suppress(Exception):
            client.control_channel.send(client.session.msg("interrupt_request", {}))

    def _drain_shell(self) -> None:
        client = self._client
        with contextlib.suppress(Exception):
            while True:
                client.shell_channel.get_msg(timeout=0)

    def _death(self) -> str:
        code = self._process.poll() if self._process is not None else None
        log = self._log_tail()
        if "MemoryError" in log or code == 137 or code == -signal.SIGKILL:
            return f"out of memory (limit {self.limits.memory_mb} MB) or killed"
        if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU, 152) or "CPU" in log:
            return f"its CPU time of {self.limits.cpu_s} s is spent"
        number = -code if code is not None and code < 0 else (code - 128 if code is not None and code > 128 else 0)
        if number in signal.valid_signals():  # bwrap exits with 128 + the signal that ended the kernel
            return f"it was killed by {signal.Signals(number).name}"
        # the log's last line is ipykernel's connection banner (a host path) unless the kernel wrote an error
        return f"exit status {code}" + (f": {log}" if log and "--existing" not in log else "")

    def _check_folder(self, collected: _Collector) -> None:
        """Restart the session when its folder (sockets, images) grew past the scratch bound: it is writable."""
        if self._dir is None:
            return
        size = sum(f.stat().st_size for f in self._dir.rglob("*") if f.is_file() and not f.is_symlink())
        if size > self.limits.scratch_mb * 1024 * 1024:
            collected.end_restart(f"the session's folder grew past {self.limits.scratch_mb} MB; {RESTARTED}")
            for child in self._dir.iterdir():
                if child.name not in ("in", "kernel.json") and not child.name.startswith("k-"):
                    shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)
            self.restart()


def _answers(client: Any) -> bool:
    """Ask the kernel for its info once; return whether it replied on the shell channel within a second and its
    iopub channel carried a message within 0.2 s after (so a cell's outputs will not be missed).

    The channels' own `get_msg` is called, not the client's `get_*_msg`: those run a coroutine on an event loop
    jupyter-core keeps in a context variable, which threads started with a copied context (asyncio.to_thread)
    share, so two sessions driven from two such threads at once failed with "This event loop is already
    running" — and each failure was a turn of a busy loop."""
    asked = client.kernel_info()
    try:
        while True:
            reply = client.shell_channel.get_msg(timeout=1)
            if reply.get("parent_header", {}).get("msg_id") == asked:
                break
        client.iopub_channel.get_msg(timeout=0.2)
    except queue.Empty:
        return False
    return True


def _refused(code: str, message: str) -> CellResult:
    return CellResult(source=code[:200] + ("…" if len(code) > 200 else ""), outcome="refused", message=message)


class _Collector:
    """Gathers a cell's iopub messages into a CellResult, keeping within the limits and noting what was cut."""

    def __init__(self, code: str, limits: CodeLimits):
        self.limits = limits
        self.cell = CellResult(source=code)
        self.outcome = "ok"
        self._chars = {"stdout": 0, "stderr": 0}
        self._cut_chars = {"stdout": 0, "stderr": 0}
        self._cut_images = 0
        self._big_images: list[str] = []

    def add(self, message: dict[str, Any]) -> bool:
        """Take one iopub message; return True when the cell is done (the kernel went idle)."""
        kind, content = message.get("msg_type"), message.get("content", {})
        if kind == "stream":
            self._stream(content.get("name", "stdout"), content.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            self._display(content.get("data", {}), value=kind == "execute_result")
        elif kind == "error":
            self._error(content)
        elif kind == "status" and content.get("execution_state") == "idle":
            return True
        return False

    def _stream(self, name: str, text: str) -> None:
        name = "stderr" if name == "stderr" else "stdout"
        room = self.limits.output_chars - self._chars["stdout"] - self._chars["stderr"]
        kept = text[: max(0, room)]
        self._chars[name] += len(kept)
        self._cut_chars[name] += len(text) - len(kept)
        setattr(self.cell, name, getattr(self.cell, name) + kept)

    def _display(self, data: dict[str, Any], *, value: bool) -> None:
        png = data.get("image/png")
        if isinstance(png, str):
            self._image(png)
        elif value and "text/plain" in data:
            text = str(data["text/plain"])
            limit = self.limits.output_chars
            if len(text) > limit:
                self.cell.cut.append(f"the value's text was {len(text):,} characters; the first {limit:,} are shown")
                text = text[:limit]
            self.cell.value = text

    def _image(self, encoded: str) -> None:
        if len(self.cell.images) >= self.limits.images_per_cell:
            self._cut_images += 1
            return
        try:
            data = base64.b64decode(encoded, validate=False)
        except ValueError:
            return
        if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
            return
        width, height = struct.unpack(">II", data[16:24])  # the header, read before anything is decoded
        if width * height > self.limits.image_max_pixels or max(width, height) > self.limits.image_max_side:
            self._big_images.append(f"{width} × {height}")
            return
        self.cell.images.append(data)

    def _error(self, content: dict[str, Any]) -> None:
        name, value = str(content.get("ename", "Error")), str(content.get("evalue", ""))
        self.outcome = "exception"
        self.cell.outcome = "exception"
        self.cell.exception = name
        if name == "KeyboardInterrupt":
            return  # an interrupt of ours: end_timeout says what happened
        self.cell.message = f"{name}: {value}"[:500]
        lines = [_ANSI.sub("", line) for line in content.get("traceback", [])]
        text = "\n".join(lines)
        self.cell.traceback = text[-1500:] if len(text) > 1500 else text

    def end_timeout(self, seconds: float) -> None:
        """Mark the cell as stopped at its wall-clock limit (the session kept its variables)."""
        self.outcome = "timeout"
        self.cell.outcome = "timeout"
        self.cell.exception = None
        self.cell.traceback = ""
        self.cell.message = (
            f"the cell ran past its limit of {seconds:g} s and was interrupted; the session kept its variables"
        )

    def end_restart(self, message: str) -> None:
        """Mark the cell as having taken the session down (it was restarted)."""
        self.outcome = "restart"
        self.cell.outcome = "restart"
        self.cell.restarted = True
        self.cell.message = message

    def result(self) -> CellResult:
        """Return the CellResult, with a note for each output that was cut."""
        for name in ("stdout", "stderr"):
            if self._cut_chars[name]:
                self.cell.cut.append(
                    f"{self._cut_chars[name]:,} characters of {name} were left out (at most {self.limits.output_chars:,} are shown)"
                )
        if self._cut_images:
            self.cell.cut.append(
                f"{self._cut_images} more image(s) were not shown (at most {self.limits.images_per_cell} per cell)"
            )
        for size in self._big_images:
            self.cell.cut.append(
                f"an image of {size} pixels was not shown (at most {self.limits.image_max_side} pixels a side, {self.limits.image_max_pixels:,} in all)"
            )
        return self.cell


def secret_names(environment: dict[str, str] | None = None) -> list[str]:
    """Return the names of the variables of an environment (the calling process's by default) that name a key,
    token or secret: none of them ever reaches a session."""
    return sorted(name for name in (os.environ if environment is None else environment) if _SECRET.search(name))
