"""The `mcp`, `openenv` and `inspect` extras load only in the commands that use them: not for `mcot --help`, not
on the run path without `--mcp`, not when mcot.env's TRL environment is used."""

from __future__ import annotations

import subprocess
import sys

EXTRAS = {"mcp", "mcp_types", "openenv", "inspect_ai", "uvicorn", "gradio", "fastmcp"}


def _loaded(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n' + ' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {name.split(".")[0] for name in done.stdout.strip().splitlines()[-1].split()}


def test_help_and_the_run_path_load_no_extra() -> None:
    loaded = _loaded(
        "from mcot.cli import app\n"
        "try:\n    app(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "import mcot.commands.run, mcot.runner\n"
        "from mcot.runconfig import RunConfig\n"
        "RunConfig(data='d', model='offline', out='o', mode='text,canvas,tools').arms\n"
        "from mcot.env import CanvasEnv\nCanvasEnv()\n"
    )
    assert not loaded & EXTRAS, sorted(loaded & EXTRAS)
