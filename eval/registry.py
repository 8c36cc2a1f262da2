"""The scoring registry: each benchmark's protocol, report tables and trace verifier, looked up by name.

Nothing in eval switches on a benchmark's name: a benchmark is declared once (mcot/declarations.py for the
built-ins) and registers its `ScoringSpec` here, usually `ScoringSpec.from_module(...)` naming its protocol
module, whose fixed names are `official`, `robust`, `tables` and `verifier` (MODULE_NAMES). An unregistered
benchmark is scored by the generic module (mcot.eval.protocols.generic: by answer type, one accuracy-per-category
table titled with its name, no verifier).

The registry sits below the scoring pass, the report and the verifiers, and above the protocols it falls back
to: no protocol module, table or Scorer imports it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

from mcot.eval.protocol_names import OFFICIAL, PROTOCOLS, ROBUST

if TYPE_CHECKING:
    from mcot.benchmarks.item import Item
    from mcot.eval.protocols.scorer import Scorer
    from mcot.eval.rundir import Score
    from mcot.eval.tables import Table
    from mcot.eval.verify import TraceVerdict

__all__ = [
    "MODULE_NAMES",
    "OFFICIAL",
    "PROTOCOLS",
    "ROBUST",
    "Deferred",
    "ProtocolFn",
    "ScoringSpec",
    "TablesFn",
    "VerifierFn",
    "register_scoring",
    "scoring_spec",
    "unregister_scoring",
]

ProtocolFn = Callable[["Scorer", "Item", str, dict[str, Any], "Score"], Awaitable[None]]
"""Fills `score` (correct, score, method, extracted, details) from the item, the response text and the result."""

TablesFn = Callable[[Sequence["Score"]], list["Table"]]
"""Returns the report tables of one benchmark's scores (all arms)."""

VerifierFn = Callable[["Item", Sequence[dict[str, Any]] | None], "TraceVerdict | None"]
"""Returns the verdict on an item's trace steps (None when the item has no verifier)."""

MODULE_NAMES = ("official", "robust", "tables", "verifier")
"""The fixed names of a benchmark's protocol module: the official protocol, the robust one (absent or None when
the benchmark has one protocol), the report tables, the trace verifier (absent or None when it has none)."""


@dataclass(frozen=True)
class Deferred:
    """A protocol, tables or verifier function named by module and attribute, imported when first looked up.

    A ScoringSpec may hold these instead of the functions, so that declaring a benchmark (as `mcot run` does)
    loads none of eval's scoring modules; `scoring_spec` hands out the real functions. `optional`: an absent
    attribute stands for None (a protocol module without `robust` or `verifier`). Picklable.
    """

    module: str
    name: str
    optional: bool = False

    def resolve(self) -> Any:
        """Return the object this names (importing its module); None for an absent optional name."""
        found = import_module(self.module)
        return getattr(found, self.name, None) if self.optional else getattr(found, self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)


@dataclass(frozen=True)
class ScoringSpec:
    """How one benchmark is scored: its official protocol, report tables, optionally a verifier and a robust protocol.

    `robust` None means the benchmark has one protocol, which serves under both names.
    """

    protocol: ProtocolFn
    tables: TablesFn
    verifier: VerifierFn | None = None
    robust: ProtocolFn | None = None

    @classmethod
    def from_module(cls, module: str) -> ScoringSpec:
        """Return the spec named by a protocol module's fixed names (MODULE_NAMES), imported when first looked up."""
        return cls(
            Deferred(module, "official"),
            Deferred(module, "tables"),
            Deferred(module, "verifier", optional=True),
            Deferred(module, "robust", optional=True),
        )

    def protocol_for(self, name: str) -> ProtocolFn:
        """Return the protocol called `name` ("official" or "robust"); raise ValueError for another name."""
        if name == OFFICIAL:
            return self.protocol
        if name == ROBUST:
            return self.robust or self.protocol
        raise ValueError(f"unknown scoring protocol {name!r}; choose one of {', '.join(PROTOCOLS)}")


def _resolved(spec: ScoringSpec) -> ScoringSpec:
    """Return `spec` with each Deferred function replaced by the function it names (`spec` itself when none)."""
    deferred = {f.name: getattr(spec, f.name) for f in fields(spec) if isinstance(getattr(spec, f.name), Deferred)}
    return replace(spec, **{name: d.resolve() for name, d in deferred.items()}) if deferred else spec


_SPECS: dict[str, ScoringSpec] = {}


def register_scoring(benchmark: str, spec: ScoringSpec) -> None:
    """Register (or replace) the scoring of `benchmark`; returns nothing."""
    _SPECS[benchmark] = spec


def unregister_scoring(benchmark: str) -> None:
    """Forget the scoring of `benchmark` (no error when it was not registered); returns nothing."""
    _SPECS.pop(benchmark, None)


def scoring_spec(benchmark: str) -> ScoringSpec:
    """Return the scoring of `benchmark`: the registered one, else the generic protocol and tables, no verifier."""
    spec = _SPECS.get(benchmark)
    if spec is None:
        return _generic()
    resolved = _resolved(spec)
    if resolved is not spec:
        _SPECS[benchmark] = resolved
    return resolved


@cache
def _generic() -> ScoringSpec:
    """Return the generic module's scoring (the fallback for unregistered benchmarks)."""
    from mcot.eval.protocols import generic

    return ScoringSpec(generic.official, generic.tables, generic.verifier, generic.robust)
