"""Start-up stays light: what `mcot run` loads before its first request, and what it leaves for later."""

from __future__ import annotations

import subprocess
import sys

import pytest

# loaded only when needed: scoring (numpy, every protocol), the canvas renderer (cairo's declaration parsing),
# physics (pymunk), the OpenAI SDK (an OpenAI-compatible server over http needs none of it)
HEAVY = ("numpy", "cairocffi", "pymunk", "openai", "anthropic", "mcot.eval.tables", "mcot.eval.protocols", "matplotlib")


def _loaded(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_the_run_path_declares_benchmarks_and_opens_a_blob_store_without_heavy_modules() -> None:
    loaded = _loaded(
        "import mcot.cli, mcot.runner, mcot.commands.run\n"
        "from mcot.registry import BENCHMARKS, TOOLSETS\n"
        "BENCHMARKS.names(), TOOLSETS.get('canvas').tools()\n"
        "from mcot.rundir import BlobStore\n"
        "from mcot.agents.backends import load_model\n"
        "load_model('openai-compatible:m', base_url='http://127.0.0.1:9/v1')\n"
        "from mcot.agents.prompts import render_task\n"
        "render_task('games', 'How many?', None, 'number')\n"
    )
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_help_loads_neither_the_solver_nor_the_sdks_nor_any_plugin() -> None:
    loaded = _loaded("import mcot.cli")
    heavy = {"langgraph", "mcot.agents.solver", "openai", "numpy", "cairocffi", "mcot.eval.tables", "pydantic"}
    assert not loaded & heavy, sorted(loaded & heavy)
    assert "mcot.builtin" not in loaded and "mcot.plugins" not in loaded


@pytest.mark.parametrize(
    ("name", "module"),
    [("games", "mcot.eval.protocols"), ("rbench-v", "mcot.eval.protocols"), ("omniphys", "mcot.eval.verify")],
)
def test_scoring_functions_are_the_real_ones_once_looked_up(name: str, module: str) -> None:
    from mcot.eval.registry import scoring_spec

    spec = scoring_spec(name)
    assert spec.protocol.__module__.startswith("mcot.eval.protocols")
    assert spec.tables.__module__.startswith("mcot.eval.protocols")
    if spec.verifier is not None:
        assert spec.verifier.__module__.startswith("mcot.eval.verify")
    assert module in sys.modules
