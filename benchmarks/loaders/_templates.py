"""Question templates of the loaders, stored as text files beside this module and loaded by name."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from string import Template


@cache
def template_text(name: str) -> str:
    """Return the text of the template `templates/<name>.txt`."""
    return resources.files("mcot.benchmarks.loaders").joinpath("templates", f"{name}.txt").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    """Return the template `name` with its `$placeholders` filled (every one must be given)."""
    return Template(template_text(name)).substitute(values).strip()


def template_sha256(name: str) -> str:
    """Return the sha256 of a template's text (for manifests)."""
    return hashlib.sha256(template_text(name).encode("utf-8")).hexdigest()
