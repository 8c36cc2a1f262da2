"""mcot.core.rundir is on the ground floor: it imports only the standard library, pydantic and the ground floor."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mcot.core.rundir

PACKAGE = Path(mcot.core.rundir.__file__).parent
ALLOWED = {"pydantic", "mcot.core.item", "mcot.core.lazy", "mcot.core.ref", "mcot.core.inputs"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_the_package_imports_only_the_standard_library_pydantic_and_the_ground_floor() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        for name in _imports(path):
            top = name.partition(".")[0]
            own = name == "mcot" or name.startswith("mcot.core.rundir")
            assert top in sys.stdlib_module_names or own or name in ALLOWED, f"{path.name} imports {name}"


def test_importing_it_loads_nothing_but_the_ground_floor() -> None:
    probe = (
        "import sys, mcot.core.rundir.run, mcot.core.rundir.lock, mcot.core.rundir.traces, mcot.core.rundir.schedule\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('mcot.'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(done.stdout.split())
    assert loaded and all(name == "mcot.core" or name.startswith("mcot.core.") for name in loaded), loaded
