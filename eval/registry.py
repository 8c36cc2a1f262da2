"""Each benchmark's scoring — its protocol, report tables and trace verifier — looked up from its declaration.

Nothing in eval switches on a benchmark's name: a benchmark is declared once (`mcot.declare_benchmark`; mcot's own
in `mcot/builtin.py`) naming its protocol module, whose fixed names are `official`, `robust`, `tables` and
`verifier` (MODULE_NAMES). `scoring_spec(benchmark)` returns them; an undeclared benchmark is scored by the
generic module (mcot.eval.protocols.generic: by answer type, one accuracy-per-category table titled with its
name, no verifier).

The registry sits below the scoring pass, the report and the verifiers, and above the protocols it falls back
to: no protocol module, table or Scorer imports it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcot.eval.protocol_names import OFFICIAL, PROTOCOLS, ROBUST

from mcot.registry import BENCHMARKS
from mcot.registry import PROTOCOLS as DECLARED_PROTOCOLS

if TYPE_CHECKING:
    from mcot.benchmarks.item import Item
    from mcot.eval.headline import Metric
    from mcot.eval.protocols.scorer import Scorer
    from mcot.eval.tables import Table
    from mcot.eval.verify import TraceVerdict

    from mcot.rundir import Result, Score

__all__ = [
    "MODULE_NAMES",
    "OFFICIAL",
    "PROTOCOLS",
    "ROBUST",
    "ProtocolFn",
    "ScoringSpec",
    "TablesFn",
    "VerifierFn",
    "scoring_spec",
]

ProtocolFn = Callable[["Scorer", "Item", str, "Result"], Awaitable["Score"]]
"""Returns the decided score (correct, score, method, extracted, details) of the item, the response text and the
typed result line (`mcot.eval.protocols.scorer.ScoringProtocol`)."""

TablesFn = Callable[[Sequence["Score"]], list["Table"]]
"""Returns the report tables of one benchmark's scores (all arms)."""

VerifierFn = Callable[["Item", Sequence[dict[str, Any]] | None], "TraceVerdict | None"]
"""Returns the verdict on an item's trace steps (None when the item has no verifier)."""

MODULE_NAMES = ("official", "robust", "tables", "verifier", "headline")
"""The fixed names of a benchmark's protocol module: the official protocol, the robust one (absent or None when
the benchmark has one protocol), the report tables, the trace verifier (absent or None when it has none), the
headline metrics the report and the study lead with (absent: accuracy over every item, mcot.eval.headline).
A module may also name `judge`, the judge model its official protocol names (RBench-V: `openai:gpt-4o`), which a
table scored without it cites (`ScoringSpec.judge`)."""


@dataclass(frozen=True)
class ScoringSpec:
    """How one benchmark is scored: its official protocol, report tables, optionally a verifier and a robust protocol.

    `robust` None means the benchmark has one protocol, which serves under both names.
    """

    protocol: ProtocolFn
    tables: TablesFn
    verifier: VerifierFn | None = None
    robust: ProtocolFn | None = None
    headline: tuple[Metric, ...] = ()
    judge: str | None = None
    """The judge model the official protocol names (RBench-V: GPT-4o), None where it names none."""
    module: Any = None
    """The protocol module (or object) the spec was read from: a plugin's protocol variants are its attributes."""

    @classmethod
    def from_module(cls, module: Any) -> ScoringSpec:
        """Return the spec of a protocol module (or any object holding the fixed names, MODULE_NAMES)."""
        from mcot.eval.headline import OVERALL

        return cls(
            module.official,
            module.tables,
            getattr(module, "verifier", None),
            getattr(module, "robust", None),
            tuple(getattr(module, "headline", None) or (OVERALL,)),
            getattr(module, "judge", None),
            module=module,
        )

    def protocol_for(self, name: str) -> ProtocolFn:
        """Return the protocol called `name`: "official", "robust" (the official one where there is none) or a
        name a plugin declared (`declare_protocol`), which is the protocol module's attribute of that name (dashes
        as underscores) and the official protocol for a benchmark whose module has none; raise ValueError for a
        name no one declared."""
        if name == OFFICIAL:
            return self.protocol
        if name == ROBUST:
            return self.robust or self.protocol
        if name not in DECLARED_PROTOCOLS:
            choices = ", ".join(DECLARED_PROTOCOLS.names())
            raise ValueError(f"unknown scoring protocol {name!r}; choose one of {choices}")
        attribute = DECLARED_PROTOCOLS.entry(name).name.replace("-", "_")
        found = getattr(self.module, attribute, None) if attribute not in MODULE_NAMES else None
        return found if callable(found) else self.protocol


_SPECS: dict[int, tuple[Any, ScoringSpec]] = {}
"""id(declaration) → (the declaration, its resolved spec): a benchmark declared again is resolved again."""


def scoring_spec(benchmark: str) -> ScoringSpec:
    """Return the scoring of a declared `benchmark` (its protocol module imported), else the generic one."""
    declared = BENCHMARKS.find(benchmark)
    if declared is None or declared.protocols is None:
        from mcot.eval.protocols import generic

        return ScoringSpec.from_module(generic)
    cached = _SPECS.get(id(declared))
    if cached is not None and cached[0] is declared:
        return cached[1]
    spec = ScoringSpec.from_module(declared.protocol_module())
    _SPECS[id(declared)] = (declared, spec)
    return spec
