"""Rooms import as mcot.<room> while the tests run (a top-level `import tools` is refused), compiled modules are
kept, and how pytest-xdist shares the tests among its workers (docs/testing.md)."""

import importlib.abc
import os
import sys
from typing import Any

import pytest

ROOMS = frozenset({"agents", "canvas", "tools", "benchmarks", "eval"})


class _RoomsOnlyUnderMcot(importlib.abc.MetaPathFinder):
    """Refuse a top-level `import tools` (or agents, canvas, benchmarks, eval) while the tests run.

    `python -m pytest` puts the repository root on sys.path, where the rooms' folders would import as top-level
    packages, a second copy beside mcot.<room> with registries of its own. Installed, they exist only as mcot.<room>.
    """

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if path is None and fullname.partition(".")[0] in ROOMS:
            raise ModuleNotFoundError(f"import mcot.{fullname}, not {fullname}: mcot installs its rooms as mcot.<room>")
        return None


sys.meta_path.insert(0, _RoomsOnlyUnderMcot())

# A machine that sets PYTHONDONTWRITEBYTECODE=1 would have each of the tests' ~150 `python -m mcot` processes (and
# each xdist worker) compile mcot's modules from source: about 0.6 s of CPU a start on a fresh clone. The compiled
# modules go to the checkout's __pycache__ folders (git ignores them), as they do for any installed package.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


LONG_RUNNING = "long_running"
"""The mark of a module whose tests take many seconds together (a soak, the demo, a local Ray cluster)."""


def pytest_configure(config: pytest.Config) -> None:
    """Register the `long_running` mark (docs/testing.md)."""
    config.addinivalue_line("markers", f"{LONG_RUNNING}: a module of many seconds, handed out before the others")


def _scope(item: pytest.Item) -> str:
    """Return what the scheduler hands out whole: the item's xdist_group, else its module."""
    group = item.get_closest_marker("xdist_group")
    if group is not None:
        return str(group.args[0] if group.args else group.kwargs.get("name", "default"))
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the scopes as the workers should take them: those marked `long_running` first, then by their number
    of tests, most first; a scope's tests stay together in file order.

    A worker takes one whole scope at a time, in this order (`--no-loadscope-reorder` in pyproject's addopts keeps
    it): started first, a long module runs beside the short ones; handed out last, it ran alone at the end (the
    demo and the soak ended the suite 40 s after the first worker ran out of work).
    """
    scopes: dict[str, list[pytest.Item]] = {}
    for item in items:
        scopes.setdefault(_scope(item), []).append(item)

    def rank(members: list[pytest.Item]) -> tuple[bool, int]:
        return (members[0].get_closest_marker(LONG_RUNNING) is None, -len(members))

    items[:] = [item for members in sorted(scopes.values(), key=rank) for item in members]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Return the scheduler of `--dist loadgroup` (pyproject's addopts): a whole module to one worker, and the tests
    marked `xdist_group(NAME)`, from any module, to one worker together; None (xdist's own) for other --dist modes.

    A module's tests then share its module-scoped fixtures (each set up once, not once per worker) and run in file
    order; a group keeps what must not run twice at once (one local Ray instance, say) on one worker.
    """
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling  # the dev extra's plugin: only its own hook calls this

    class ModulesAndGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.rfind("@") > nodeid.rfind("]"):  # loadgroup appends "@NAME" (a parameter may hold an @)
                return nodeid.rsplit("@", 1)[-1]
            return nodeid.split("::", 1)[0]

    return ModulesAndGroups(config, log)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Return the workers `-n auto` starts: one per core, and two more.

    About a fifth of the suite's wall time is spent waiting (on `mcot` subprocesses, local servers, back-off
    sleeps and time-outs under test), not computing: on 2 cores, once the heavy extras stopped being imported at
    collection and the long modules went first, the suite took 5 min 38–44 s with 3 workers and 5 min 21–31 s
    with 4 (docs/testing.md).
    """
    return (os.cpu_count() or 1) + 2
