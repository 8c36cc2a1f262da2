"""Shared by the hostile-reply and fail-fast tests: small items directories, `mcot` run as a user runs it, and a
port nothing listens on."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from mcot.core.item import Item, write_items


def png(color: str = "white") -> bytes:
    """Return a small PNG."""
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), color).save(buffer, format="PNG")
    return buffer.getvalue()


def items_dir(root: Path, n: int = 3) -> Path:
    """Write `n` numeric RBench-V items with an image into root/items; return the folder."""
    image = png()
    pairs = [
        (
            Item(
                id=f"q{i}",
                benchmark="rbench-v",
                category="counting",
                question=f"How many squares? ({i})",
                images=["images/q.png"],
                answer="1",
                answer_type="number",
            ),
            {"images/q.png": image},
        )
        for i in range(n)
    ]
    write_items(root / "items", pairs)
    return root / "items"


def free_port() -> int:
    """Return a port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Done:
    """A finished `mcot` command: exit code, outputs, wall seconds."""

    code: int
    stdout: str
    stderr: str
    wall_s: float


def mcot(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 180) -> Done:
    """Run `python -m mcot ARGS` in a child process with the given extra environment (keys, limits)."""
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    clean.update(env or {})
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mcot", *map(str, args)],
        capture_output=True,
        text=True,
        env=clean,
        cwd=cwd,
        timeout=timeout,
    )
    return Done(done.returncode, done.stdout, done.stderr, time.monotonic() - began)
