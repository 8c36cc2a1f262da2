"""Lazy package exports: a package's public names imported from their modules on first use (PEP 562).

Every package of mcot re-exports its public names this way, so that importing a package costs nothing until a
name is used; the package keeps its `TYPE_CHECKING` imports for type checkers and its `__all__`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcot.core.ref import Ref


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the package's module-level `__getattr__` and `__dir__`: a name of `exports` ({name: module}) is
    imported from its module on first use and kept in the package's `namespace`; any other name is an
    AttributeError naming the package."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = Ref(f"{module}:{name}").resolve()
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *exports])

    return __getattr__, __dir__
