"""The scoring registry: each benchmark's protocol, report tables and trace verifier, looked up by name.

Nothing in eval switches on a benchmark's name: a benchmark is declared once (mcot/declarations.py for the
built-ins) and registers its `ScoringSpec` here. An unregistered benchmark is scored by the generic protocol
(by answer type) and reported in one accuracy-per-category table titled with its name, with no verifier.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, fields, replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcot.benchmarks.item import Item
    from mcot.eval.metrics import Table
    from mcot.eval.protocols import Scorer
    from mcot.eval.verify import TraceVerdict

    from mcot.rundir import Score

ProtocolFn = Callable[["Scorer", "Item", str, dict[str, Any], "Score"], Awaitable[None]]
"""Fills `score` (correct, score, method, extracted, details) from the item, the response text and the result."""

TablesFn = Callable[[Sequence["Score"]], list["Table"]]
"""Returns the report tables of one benchmark's scores (all arms)."""

VerifierFn = Callable[["Item", Sequence[dict[str, Any]] | None], "TraceVerdict | None"]
"""Returns the verdict on an item's trace steps (None when the item has no verifier)."""


OFFICIAL = "official"
ROBUST = "robust"
PROTOCOLS = (OFFICIAL, ROBUST)
"""The protocol names: `official` reproduces the benchmark's published scoring (the default); `robust` is
mcot's own extraction and matching, documented rule by rule in docs/scoring.md."""


@dataclass(frozen=True)
class ScoringSpec:
    """How one benchmark is scored: its official protocol, report tables, optionally a verifier and a robust protocol.

    `robust` None means the benchmark has one protocol, which serves under both names.
    """

    protocol: ProtocolFn
    tables: TablesFn
    verifier: VerifierFn | None = None
    robust: ProtocolFn | None = None

    def protocol_for(self, name: str) -> ProtocolFn:
        """Return the protocol called `name` ("official" or "robust"); raise ValueError for another name."""
        if name == OFFICIAL:
            return self.protocol
        if name == ROBUST:
            return self.robust or self.protocol
        raise ValueError(f"unknown scoring protocol {name!r}; choose one of {', '.join(PROTOCOLS)}")


@dataclass(frozen=True)
class Deferred:
    """A protocol, tables or verifier function named by module and attribute, imported when first looked up.

    A ScoringSpec may hold these instead of the functions, so that declaring a benchmark (as `mcot run` does)
    loads none of eval's scoring modules; `scoring_spec` hands out the real functions. Picklable.
    """

    module: str
    name: str

    def resolve(self) -> Callable[..., Any]:
        """Return the function this names (importing its module)."""
        return getattr(import_module(self.module), self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)


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
    if spec is not None:
        resolved = _resolved(spec)
        if resolved is not spec:
            _SPECS[benchmark] = resolved
        return resolved
    from mcot.eval.metrics import generic_tables
    from mcot.eval.protocols import generic_protocol

    return ScoringSpec(generic_protocol, generic_tables)
