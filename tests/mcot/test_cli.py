import subprocess
import sys

DESIGN_COMMANDS = ["demo", "gen", "convert", "run", "score", "compare", "export", "view", "imagine", "tools"]


def test_help_lists_every_design_command() -> None:
    out = subprocess.run([sys.executable, "-m", "mcot", "--help"], capture_output=True, text=True, check=True)
    for command in DESIGN_COMMANDS:
        assert f" {command} " in out.stdout, command


def test_a_command_not_built_yet_says_so_and_exits_2() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mcot", "imagine", "--data", "x", "--generator", "y", "--out", "z"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "`imagine` is not built yet" in out.stderr
