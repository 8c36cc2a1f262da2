"""Skipping a test module whose optional extras are absent, without importing them at collection.

`pytest.importorskip` at a module's top imports the extra in every xdist worker, since each worker collects the
whole suite: torch with diffusers, or openenv-core with its server, cost seconds of CPU each, three times over.
A module marked `pytestmark = needs(...)` imports its extras in its fixtures and tests instead, so only the worker
that runs the module (one: the scheduler keeps a module together, tests/conftest.py) pays for them.
"""

from __future__ import annotations

import importlib.util

import pytest


def needs(*modules: str, extra: str | None = None) -> pytest.MarkDecorator:
    """Return a mark that skips the tests when any of `modules` is not installed (looked up, not imported); the
    reason names the missing modules and, given, the extra that installs them."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    hint = f" (pip install 'mcot[{extra}]')" if extra else ""
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} is not installed{hint}")
