"""mcot.rundir is on the ground floor: it imports only the standard library, pydantic and mcot.benchmarks.item."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mcot.rundir

PACKAGE = Path(mcot.rundir.__file__).parent
ALLOWED = {"pydantic", "mcot.benchmarks.item", "mcot.lazy"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_the_package_imports_only_the_standard_library_pydantic_and_the_item_type() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        for name in _imports(path):
            top = name.partition(".")[0]
            own = name == "mcot" or name.startswith("mcot.rundir")
            assert top in sys.stdlib_module_names or own or name in ALLOWED, f"{path.name} imports {name}"


def test_importing_it_loads_no_room_but_the_item_type() -> None:
    probe = (
        "import sys, mcot.rundir.run, mcot.rundir.lock, mcot.rundir.traces, mcot.rundir.schedule\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('mcot.'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    rooms = {name for name in done.stdout.split() if not name.startswith("mcot.rundir")}
    assert rooms <= {"mcot.benchmarks", "mcot.benchmarks.item", "mcot.benchmarks.inputs", "mcot.lazy"}, rooms
