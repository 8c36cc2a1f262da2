"""First use from 16 threads at once: every lazy table (each registry, the plugins loader, the canvas op table)
is whole in every thread, in a fresh process each time (the table is cold), repeatedly."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcot.registry import ALL

THREADS = 16
ROUNDS = 2

_SCRIPT = f"""
import json, sys, threading

from mcot import registry

def first_use(target):
    if target == "canvas op table":
        from mcot.canvas import op_specs
        return sorted(spec.name for spec in op_specs())
    if target == "plugins loader":
        from mcot.plugins import loaded_plugins, plugin_errors
        loaded_plugins()
        return {{kind: sorted(e.name for e in t.entries(load=False)) for kind, t in registry.ALL.items()}}
    table = registry.ALL[target]
    return [sorted(table.names()), [table.get(name) is not None for name in table.names()[:3]]]

target = sys.argv[1]
barrier = threading.Barrier({THREADS})
seen, errors = [], []

def worker():
    barrier.wait()
    try:
        seen.append(first_use(target))
    except Exception as exc:
        errors.append(f"{{type(exc).__name__}}: {{exc}}")

threads = [threading.Thread(target=worker) for _ in range({THREADS})]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps({{"seen": seen, "errors": errors, "whole": first_use(target)}}))
"""

TARGETS = [*ALL, "canvas op table", "plugins loader"]
"""Every lazy table: each registry by its kind, and the two loaders beside them."""


@pytest.mark.parametrize("target", TARGETS)
def test_every_thread_sees_the_whole_table_at_first_use(target: str) -> None:
    for _ in range(ROUNDS):
        done = subprocess.run([sys.executable, "-c", _SCRIPT, target], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        out = json.loads(done.stdout.splitlines()[-1])
        assert out["errors"] == []
        assert len(out["seen"]) == THREADS
        assert all(seen == out["whole"] for seen in out["seen"]), target


def test_eight_threads_resolving_the_offline_backend_all_get_it() -> None:
    script = (
        "import threading\n"
        "from mcot.registry import BACKENDS\n"
        "barrier, got = threading.Barrier(8), []\n"
        "def work():\n"
        "    barrier.wait()\n"
        "    try:\n"
        "        got.append(BACKENDS.get('offline').__name__)\n"
        "    except Exception as exc:\n"
        "        got.append(str(exc))\n"
        "threads = [threading.Thread(target=work) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(sorted(set(got)))\n"
    )
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.stdout.strip() == "['offline']", done.stdout + done.stderr[-2000:]
