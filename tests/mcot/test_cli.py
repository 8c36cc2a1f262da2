import subprocess
import sys

DESIGN_COMMANDS = ["demo", "gen", "convert", "run", "score", "compare", "export", "view", "imagine", "tools"]


def test_help_lists_every_design_command() -> None:
    out = subprocess.run([sys.executable, "-m", "mcot", "--help"], capture_output=True, text=True, check=True)
    for command in DESIGN_COMMANDS:
        assert f" {command} " in out.stdout, command
