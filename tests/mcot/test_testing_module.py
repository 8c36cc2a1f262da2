"""`mcot.testing` is the public home of the test helpers: the fake provider's names, the tiny pipeline on demand."""

from __future__ import annotations

import subprocess
import sys

import mcot.testing
from mcot.testing import fake_provider, images


def test_it_re_exports_the_fake_provider_and_names_the_tiny_pipeline() -> None:
    for name in mcot.testing.__all__:
        if name not in ("build_tiny_pipeline", "has_red", "last_image"):
            assert getattr(mcot.testing, name) is getattr(fake_provider, name)
    assert (mcot.testing.has_red, mcot.testing.last_image) == (images.has_red, images.last_image)
    assert "build_tiny_pipeline" in mcot.testing.__all__


def test_importing_it_loads_no_image_generation_stack_and_no_sdk() -> None:
    code = "import sys, mcot.testing; print(sorted(m for m in ('torch', 'diffusers', 'openai') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr


def test_the_old_homes_are_gone() -> None:
    code = (
        "import importlib.util as u; "
        "print(u.find_spec('mcot.agents.fake_provider'), u.find_spec('mcot.agents.generators.tiny_pipeline'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "None None", done.stderr
