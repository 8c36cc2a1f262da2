"""The plugin API's types are public: `mcot.Scorer`, `mcot.Tally`, `mcot.Context`, … one object each, loaded lazily."""

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import mcot
import mcot.declare

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(mcot.declare.PLUGIN_TYPES))
def test_each_plugin_type_is_one_object_in_mcot_and_mcot_declare(name: str) -> None:
    home = getattr(import_module(mcot.declare.PLUGIN_TYPES[name]), name)
    assert getattr(mcot, name) is home and getattr(mcot.declare, name) is home
    assert name in mcot.__all__ and name in mcot.declare.__all__


def test_declaring_loads_no_room_until_a_type_is_used() -> None:
    code = (
        "import sys, mcot.declare; rooms = ('mcot.eval', 'mcot.tools.registry', 'mcot.agents.offline');"
        "print(sorted(m for m in sys.modules if m.startswith(rooms)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_example_plugin_imports_no_private_module() -> None:
    private = []
    for path in sorted((ROOT / "examples").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import | ast.ImportFrom) else []
            private += [
                f"{path.name}: {name}"
                for name in names
                if name != "__future__" and any(p.startswith("_") for p in name.split("."))
            ]
    assert private == []
