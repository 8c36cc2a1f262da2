"""Type-check mcot as it is installed: `mcot` with its rooms as mcot.agents, mcot.canvas, … (exit status: mypy's).

mypy reads packages from folders and knows nothing of setup.py's package-dir mapping, so this builds, in
`build/typecheck/` (the same folder each time, so that mypy's cache in `.mypy_cache/` stays valid), the tree the wheel holds (`mcot/` with `agents/`, `canvas/`, `tools/`, `benchmarks/`, `eval/`
inside it) out of symbolic links to the repository, and runs mypy over the package `mcot` there with the
settings of pyproject.toml's [tool.mypy].

    python scripts/typecheck.py                       # the whole package
    python scripts/typecheck.py --help                # mypy's own options go after the script's name
    python scripts/typecheck.py --tree DIR --cache-dir CACHE   # the tree and mypy's cache elsewhere (the test's)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("agents", "canvas", "tools", "benchmarks", "eval")


def build_tree(target: Path) -> Path:
    """Return `target/mcot`, made afresh and filled with links to mcot/'s entries and to the rooms' folders."""
    package = target / "mcot"
    shutil.rmtree(target, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in sorted((ROOT / "mcot").iterdir()):
        if entry.name != "__pycache__" and entry.name not in ROOMS:
            (package / entry.name).symlink_to(entry)
    for room in ROOMS:
        (package / room).symlink_to(ROOT / room, target_is_directory=True)
    return package


def main(argv: list[str]) -> int:
    """Run mypy over the installed layout (built in `--tree DIR`, default build/typecheck); return its exit status."""
    tree = ROOT / "build" / "typecheck"
    if argv[:1] == ["--tree"] and len(argv) > 1:
        tree, argv = Path(argv[1]).resolve(), argv[2:]
    build_tree(tree)
    command = [
        sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
        "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "mcot", *argv,  # a --cache-dir in argv comes last, and wins
    ]  # fmt: skip
    done = subprocess.run(command, cwd=tree, env={**os.environ, "MYPYPATH": str(tree)}, check=False)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
