"""`mcot gen gepbench|games --workers N`: the same bytes for a seed whatever the number of workers."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mcot.benchmarks.generators.gepbench.engine import BALANCE_BLOCK

from mcot.commands.gen_games import gen_games
from mcot.commands.gen_gepbench import gen_gepbench
from mcot.core.errors import UsageError


def hashes(root: Path) -> dict[str, str]:
    """Return the sha256 of every file under `root`, by relative path."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def items_of(root: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / "items.jsonl").read_text().splitlines()]


def test_gepbench_with_two_workers_writes_the_bytes_of_one(tmp_path: Path) -> None:
    n = 2 * BALANCE_BLOCK + 12  # both levels span two balancing blocks
    assert gen_gepbench(tmp_path / "one", n, 5, format="llava") == 0
    command = [sys.executable, "-m", "mcot", "gen", "gepbench", "--n", str(n), "--seed", "5", "--format", "llava"]
    done = subprocess.run(
        [*command, "--out", str(tmp_path / "two"), "--workers", "2"], capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    one, two = hashes(tmp_path / "one"), hashes(tmp_path / "two")
    assert len(one) == n + 4  # the images, items.jsonl, generation.json and the two LLaVA files
    assert two == one


def test_gepbench_native_files_with_three_workers_match_one(tmp_path: Path) -> None:
    gen_gepbench(tmp_path / "one", BALANCE_BLOCK + 6, 1, level="hard", format="native")
    gen_gepbench(tmp_path / "three", BALANCE_BLOCK + 6, 1, level="hard", format="native", workers=3)
    assert hashes(tmp_path / "three") == hashes(tmp_path / "one")


def test_a_figure_does_not_depend_on_how_many_figures_are_asked_for(tmp_path: Path) -> None:
    gen_gepbench(tmp_path / "few", BALANCE_BLOCK + 3, 9, level="easy")
    gen_gepbench(tmp_path / "more", 2 * BALANCE_BLOCK + 5, 9, level="easy", workers=2)
    few = items_of(tmp_path / "few")
    assert items_of(tmp_path / "more")[: len(few)] == few


def test_games_with_two_workers_write_the_bytes_of_one(tmp_path: Path) -> None:
    assert gen_games(tmp_path / "one", "all", 7, 3) == 0
    assert gen_games(tmp_path / "two", "all", 7, 3, workers=2) == 0
    one = hashes(tmp_path / "one")
    assert len(one) == 6 * 7 + 1 and hashes(tmp_path / "two") == one


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"workers": 0}, "--workers must be between 1 and"),
        ({"executor": "slurm"}, "unknown --executor 'slurm'"),
        ({"ray_address": "auto"}, "--ray-address goes with --executor ray"),
    ],
)
def test_bad_worker_options_are_refused_before_anything_is_written(
    options: dict[str, object], message: str, tmp_path: Path
) -> None:
    with pytest.raises(UsageError, match=message):
        gen_gepbench(tmp_path / "g", 4, 0, **options)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=message):
        gen_games(tmp_path / "m", "maze", 4, 0, **options)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_gen_on_a_dead_ray_address_exits_2_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = tmp_path / "games"
    command = [sys.executable, "-m", "mcot", "gen", "games", "--task", "maze", "--n", "3", "--out", str(out)]
    done = subprocess.run(
        [*command, "--executor", "ray", "--ray-address", f"127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and f"no Ray cluster answers at 127.0.0.1:{port}" in done.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []
