"""A server command of mcot's (`mcot env serve`, `mcot mcp serve --http`) run for a test: started, waited for, stopped."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def serving(argv: list[str], port: int, *, stderr: int = subprocess.DEVNULL) -> Iterator[subprocess.Popen[bytes]]:
    """Start `argv`, wait (at most 120 s) until something listens on 127.0.0.1:`port`, yield the process, and
    stop it when the block ends; a server that exits first fails the test with its standard error if piped."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                if process.poll() is not None:
                    said = process.stderr.read().decode(errors="replace") if process.stderr else ""
                    raise AssertionError(f"{' '.join(argv[2:4])} exited ({process.returncode}): {said}") from None
                assert time.monotonic() < deadline, f"{' '.join(argv[2:4])} did not listen on port {port}"
                time.sleep(0.2)
        yield process
    finally:
        process.terminate()
        process.wait(30)


def env_client(base_url: str) -> Any:
    """Return openenv-core's own `GenericEnvClient` of the server at `base_url`, synchronous (imported here: the
    import of openenv-core is seconds of CPU, paid only by the worker that runs an OpenEnv test)."""
    from openenv.core.generic_client import GenericEnvClient

    return GenericEnvClient(base_url=base_url).sync()
