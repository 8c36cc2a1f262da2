"""One installed name: the wheel holds `mcot` alone, and a regular install works beside a user's own
`eval/`, `tools/`, `agents/`, `canvas/` and `benchmarks/` packages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOMS = ("agents", "canvas", "tools", "benchmarks", "eval")


SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "mcot", *ROOMS)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    for name in SOURCES:  # a copy, so that the build leaves nothing in the repository
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / name, source / name)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--wheel-dir", str(out), str(source)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = out.glob("mcot-*.whl")
    return built


def test_the_wheel_holds_one_top_level_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/", 1)[0] for name in names if not name.split("/", 1)[0].endswith((".dist-info", ".data"))}
    assert top == {"mcot"}
    for room in ROOMS:
        assert f"mcot/{room}/__init__.py" in names
    assert "mcot/agents/prompts/task.gepbench.txt" in names
    assert "mcot/agents/generators/procedural/templates/plane_mirror.yaml" in names
    assert "mcot/templates/viewer.html" in names
    # every module of the checkout is in the wheel (a folder without __init__.py is left out by find_packages)
    sources = {f"mcot/{path.relative_to(REPO).as_posix()}" for room in ROOMS for path in (REPO / room).rglob("*.py")}
    sources |= {path.relative_to(REPO).as_posix() for path in (REPO / "mcot").rglob("*.py")}
    assert sorted(sources - set(names)) == []


USER_SCRIPT = """
import eval, tools, agents, canvas, benchmarks            # the user's own packages
assert eval.OWN and tools.OWN and agents.OWN and canvas.OWN and benchmarks.OWN
import mcot.tools, mcot.eval, mcot.canvas
from mcot.canvas import Canvas
result = mcot.tools.call("solve_maze", {"grid": ["S.#", ".#E", "..."]}, Canvas(size=(64, 64)))
assert result.ok, result.text
assert mcot.tools.__file__.startswith(SITE), mcot.tools.__file__
print("both", len(result.data["path"]))
"""


def test_a_regular_install_imports_beside_a_users_own_packages(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(site),
         str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    project = tmp_path / "research"
    for room in ROOMS:
        (project / room).mkdir(parents=True)
        (project / room / "__init__.py").write_text("OWN = True\n")
    (project / "script.py").write_text(f"SITE = {str(site)!r}\n" + USER_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(site)}  # the installed copy, ahead of the editable one
    ran = subprocess.run([sys.executable, "script.py"], capture_output=True, text=True, cwd=project, env=env,
                         timeout=120)  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.startswith("both ")
    cli = subprocess.run([sys.executable, "-m", "mcot", "tools", "--json"], capture_output=True, text=True,
                         cwd=project, env=env, timeout=120)  # fmt: skip
    assert cli.returncode == 0 and '"solve_maze"' in cli.stdout
