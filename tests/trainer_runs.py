"""Real offline runs and items directories for the training tests: GePBench and maze items, each run in the text,
canvas and tools arms by the offline policy and scored, as `mcot run` and `mcot score` leave them."""

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from mcot.cli import app

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # datasets must never reach the hub
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def mcot(*args: str | Path, check: bool = True) -> Result:
    """Run `mcot ARGS` in this process (Typer's runner: the real command line)."""
    done = CliRunner().invoke(app, [str(arg) for arg in args], prog_name="mcot")
    if check and done.exit_code not in (0, 3):
        raise AssertionError(
            f"mcot {' '.join(map(str, args))} exited {done.exit_code}: {done.stderr}"
        ) from done.exception
    return done


def make_runs(root: Path) -> dict[str, Path]:
    """Return items directories (gepbench: one easy figure; maze: two mazes) and their scored offline runs."""
    paths = {"gep": root / "gep", "maze": root / "maze", "gep_run": root / "gep-run", "maze_run": root / "maze-run"}
    mcot("gen", "gepbench", "--n", "1", "--level", "easy", "--seed", "2", "--out", paths["gep"])
    mcot("gen", "games", "--task", "maze", "--n", "2", "--seed", "1", "--out", paths["maze"])
    for data, run in (("gep", "gep_run"), ("maze", "maze_run")):
        mcot("run", "--data", paths[data], "--model", "offline", "--mode", "text,canvas,tools", "--out", paths[run])
        mcot("score", paths[run])
    return paths


_RUNS: dict[str, dict[str, Path]] = {}


def shared_runs(factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Return the runs of `make_runs`, made once per test session (every training test module reads them)."""
    if "runs" not in _RUNS:
        _RUNS["runs"] = make_runs(factory.mktemp("training"))
    return _RUNS["runs"]
