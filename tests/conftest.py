"""Rooms import as mcot.<room> while the tests run (a top-level `import tools` is refused)."""

import importlib.abc
import sys

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
