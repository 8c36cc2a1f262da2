"""Which pairs an export keeps (`--mode`, `--benchmark`, `--only-correct`), and how many records each cluster
holds among them: the sizes a split (`--split`) is planned from, counted from the items and the score ledger
without reading a trace."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from mcot.core.clusters import benchmark_cluster
from mcot.core.item import Item, iter_items
from mcot.export.output import ExportError
from mcot.export.records import RunSource


def names(values: Sequence[str] | None) -> tuple[str, ...] | None:
    """Return the names of a repeated, comma-separated option (`--mode text,canvas --mode tools`) in order, each
    once; None when none is given."""
    if not values:
        return None
    found = [name.strip() for value in values for name in value.split(",") if name.strip()]
    return tuple(dict.fromkeys(found)) or None


@dataclass(frozen=True)
class Filters:
    """The arms and benchmarks an export keeps (None: all of them), and whether only pairs scored correct."""

    modes: tuple[str, ...] | None = None
    benchmarks: tuple[str, ...] | None = None
    only_correct: bool = False

    def keeps(self, item: Item, arm: str) -> bool:
        """Return whether the pair of `item` and `arm` passes the arm and benchmark filters."""
        return (self.modes is None or arm in self.modes) and (
            self.benchmarks is None or item.benchmark in self.benchmarks
        )

    def words(self) -> str:
        """Return the filters as the command line gives them ("every pair" when there is none)."""
        given = []
        if self.modes is not None:
            given.append(f"--mode {','.join(self.modes)}")
        if self.benchmarks is not None:
            given.append(f"--benchmark {','.join(self.benchmarks)}")
        if self.only_correct:
            given.append("--only-correct")
        return " ".join(given) or "every pair"


@dataclass
class Plan:
    """The records an export will write, by cluster (benchmark_cluster of the item), and the benchmarks seen."""

    sizes: Counter[str] = field(default_factory=Counter)
    benchmarks: set[str] = field(default_factory=set)

    @property
    def total(self) -> int:
        """Return the number of records the export will write."""
        return sum(self.sizes.values())

    def see(self, item: Item, arms: Iterable[str], filters: Filters, correct: set[tuple[str, str]] | None) -> None:
        """Count the records of `item` under `arms` that the filters keep (`correct`: the run's correct pairs)."""
        self.benchmarks.add(item.benchmark)
        for arm in arms:
            if filters.keeps(item, arm) and (not filters.only_correct or (item.id, arm) in (correct or set())):
                self.sizes[benchmark_cluster(item)] += 1


def plan_runs(sources: Sequence[RunSource], filters: Filters) -> Plan:
    """Return the plan of an export of `sources`; raise ExportError for a `--mode` or `--benchmark` that no run
    has, or when the filters keep nothing."""
    arms = list(dict.fromkeys(arm for source in sources for arm in source.arms()))
    unknown = [mode for mode in filters.modes or () if mode not in arms]
    if unknown:
        raise ExportError(f"--mode {','.join(unknown)}: not an arm of the run (its arms: {', '.join(arms)})")
    plan = Plan()
    for source in sources:
        correct = source.scores.correct if source.scores is not None else None
        for item in iter_items(source.items_path.parent):
            plan.see(item, source.arms(), filters, correct)
    check_plan(plan, filters, ", ".join(str(source.run.root) for source in sources))
    return plan


def plan_items(directory: str, items: Iterable[Item], arm: str, filters: Filters) -> Plan:
    """Return the plan of an export of an items directory's prompts for the arm `arm`; raise ExportError as
    plan_runs does."""
    plan = Plan()
    for item in items:
        plan.see(item, (arm,), filters, None)
    check_plan(plan, filters, directory)
    return plan


def check_plan(plan: Plan, filters: Filters, where: str) -> None:
    """Raise ExportError for a `--benchmark` no item has, or for a plan with no record."""
    unknown = [name for name in filters.benchmarks or () if name not in plan.benchmarks]
    if unknown:
        raise ExportError(
            f"--benchmark {','.join(unknown)}: no item of {where} is of it (its benchmarks: "
            f"{', '.join(sorted(plan.benchmarks))})"
        )
    if not plan.total:
        if filters == Filters(only_correct=True):
            why = "no pair is scored correct"
        elif filters == Filters():
            why = "the run has no item"
        else:
            why = f"no pair passes {filters.words()}"
        raise ExportError(f"nothing to export from {where}: {why}; nothing was written")
