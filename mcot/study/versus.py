"""Model against model within each arm: paired differences on the same items, Holm over the study's family.

For each benchmark headline metric and arm, every pair of models (in the study's order, the later minus the
earlier) is compared on the items both answered in that arm with mcot.eval.headline.difference — the exact
McNemar p and the paired interval of a proportion (exact from few discordant pairs), the paired sign-flip test
and bootstrap of a composite metric. Holm's correction is over every model-vs-model difference of the study.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from mcot.core.rundir import Score, order_arms
from mcot.eval.headline import Difference, difference
from mcot.eval.registry import scoring_spec
from mcot.eval.report import difference_cells
from mcot.eval.stats import holm
from mcot.eval.tables import Table, by_mode
from mcot.study.pooled import by_benchmark


@dataclass(frozen=True)
class ModelDifference:
    """`second` − `first` in one benchmark metric and arm, on the items both models answered in that arm."""

    benchmark: str
    metric: str
    arm: str
    first: str
    second: str
    difference: Difference
    p_holm: float | None = None


def model_differences(scores: Mapping[str, Sequence[Score]], *, seed: int = 0) -> list[ModelDifference]:
    """Return every pair of models' paired difference per benchmark metric and arm, Holm over all of them."""
    found: list[ModelDifference] = []
    for benchmark, models in by_benchmark(scores).items():
        arms_by_model = {model: by_mode(model_scores) for model, model_scores in models.items()}
        arms = order_arms({arm for groups in arms_by_model.values() for arm in groups})
        for metric in scoring_spec(benchmark).headline:
            for arm in arms:
                having = [model for model, groups in arms_by_model.items() if arm in groups]
                for first, second in combinations(having, 2):
                    compared = difference(
                        metric, first, arms_by_model[first][arm], second, arms_by_model[second][arm], seed=seed
                    )
                    if compared is not None and compared.value is not None:
                        found.append(ModelDifference(benchmark, metric.name, arm, first, second, compared))
    tested = [(i, p) for i, entry in enumerate(found) if (p := entry.difference.p_value) is not None]
    for (i, _), adjusted in zip(tested, holm([p for _, p in tested]), strict=True):
        found[i] = replace(found[i], p_holm=adjusted)
    return found


def versus_tables(found: Sequence[ModelDifference], benchmark: str) -> list[Table]:
    """Return the benchmark's model-vs-model tables, one per headline metric ([] with fewer than two models)."""
    tables: list[Table] = []
    for metric in dict.fromkeys(entry.metric for entry in found if entry.benchmark == benchmark):
        table = Table(
            f"{benchmark} — {metric}: model against model in each arm",
            ["Arm", "Models", "n", "Δ (pp)", "95% CI (pp)", "p", "Holm p", "detectable (pp)"],
        )
        for entry in found:
            if (entry.benchmark, entry.metric) == (benchmark, metric):
                delta, interval, p, holm_p, detectable = difference_cells(entry.difference, entry.p_holm)
                table.rows.append(
                    [entry.arm, f"{entry.second} − {entry.first}", str(entry.difference.n), delta, interval, p, holm_p,
                     detectable]
                )  # fmt: skip
        table.notes.append(
            "Δ: the later model − the earlier on the items both answered in the arm, paired: exact McNemar p (a "
            "composite metric: the paired sign-flip test), interval exact from few discordant pairs; Holm's "
            f"correction over all {sum(1 for e in found if e.p_holm is not None)} model-vs-model differences of "
            "the study"
        )
        tables.append(table)
    return tables
