"""`Ref`: the one way mcot turns a "module:attribute" string into the object it names.

Declarations name functions by string so that declaring imports nothing; the CLI names its command modules,
the workers the functions a parent sends them, the prompt templates the functions that fill them. Each resolves
through `Ref`, which imports only the standard library (the `mcot --help` path may use it).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any


@dataclass(frozen=True)
class Ref:
    """A value named by `module:attribute` (or a bare `module`), imported when it is first looked up; picklable."""

    target: str

    def resolve(self) -> Any:
        """Return the object this names, importing its module."""
        module, _, attribute = self.target.partition(":")
        value: Any = import_module(module)
        for part in filter(None, attribute.split(".")):
            value = getattr(value, part)
        return value

    @classmethod
    def of(cls, value: Any) -> Any:
        """Return `value`, or a Ref when it is a "module:attribute" string (a declaration naming a function)."""
        return cls(value) if isinstance(value, str) and ":" in value else value
