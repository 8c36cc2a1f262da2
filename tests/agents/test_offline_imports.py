"""mcot.agents.offline's modules import one way: no module imports another that (directly or not) imports it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mcot.agents.offline
import pytest

PACKAGE = Path(mcot.agents.offline.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def imports_of(module: str) -> set[str]:
    """Return the mcot.agents.offline modules that `module` imports anywhere in its source (top level or not)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "mcot.agents.offline":
            found.update(alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mcot.agents.offline."):
            found.add(node.module.split(".")[3])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[3] for a in node.names if a.name.startswith("mcot.agents.offline."))
    assert "__init__" not in found
    return found - {module}


def test_no_import_cycle_among_the_offline_modules():
    graph = {module: imports_of(module) for module in MODULES}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, (*path, module))
        done.add(module)

    for module in MODULES:
        visit(module, ())
    assert "policy" not in set().union(*(graph[m] for m in MODULES if m != "policy")), "only the package uses policy"


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_first_in_a_fresh_interpreter(module: str):
    done = subprocess.run(
        [sys.executable, "-c", f"import mcot.agents.offline.{module}"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
