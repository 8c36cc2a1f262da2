"""Each arm's effect across the models of a study: per benchmark headline metric, arm − text pooled over models.

The strata are the models; each model's effect is its paired difference arm − text on the items both arms have
(mcot.eval.pooled: weights = items per model, a normal interval from the models' variances). For a proportion
the model's variance is mcot.eval.pooled.paired_stratum's over the items' clusters (Score.unit, the benchmark's
cluster key): CR1 over the clusters where items share one, the Agresti–Min paired variance where every item is
its own cluster or the CR1 value is degenerate; the row names the key and the cluster counts; for a composite metric (GePBench Avg,
GOBench SPS) it is the seeded paired bootstrap variance of the metric's own difference over the model's items
(whole clusters resampled where items share one),
never below a proportion's variance with no discordant pair. Holm's correction is over every pooled effect of
the study.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from mcot.core.clusters import describe_key
from mcot.core.rundir import Score, order_arms
from mcot.eval.cluster_notes import cluster_counts
from mcot.eval.headline import Metric
from mcot.eval.pooled import PooledEffect, StratumEffect, paired_stratum, paired_variance, pool
from mcot.eval.registry import scoring_spec
from mcot.eval.report import BASE_ARM, interval_text
from mcot.eval.stats import cluster_groups, holm, is_clustered, resample_clusters
from mcot.eval.tables import Table, by_mode

BOOTSTRAP_RESAMPLES = 1_000


@dataclass(frozen=True)
class ArmEffect:
    """One arm's effect (arm − text) in one benchmark metric, pooled over the models that ran both arms."""

    benchmark: str
    metric: str
    arm: str
    pooled: PooledEffect
    p_holm: float | None = None
    clusters: str = "the item"
    """The cluster key the models' variances used, with its counts ("the figure (meta.level + meta.image_id), 4
    clusters of 12 items")."""


def by_benchmark(scores: Mapping[str, Sequence[Score]]) -> dict[str, dict[str, list[Score]]]:
    """Return {benchmark: {model: its scores of that benchmark}}, benchmarks in name order, models as given."""
    grouped: dict[str, dict[str, list[Score]]] = {}
    for model, model_scores in scores.items():
        for score in model_scores:
            grouped.setdefault(score.benchmark, {}).setdefault(model, []).append(score)
    return {benchmark: grouped[benchmark] for benchmark in sorted(grouped)}


def model_effect(
    model: str, metric: Metric, base: Sequence[Score], arm: Sequence[Score], *, seed: int = 0
) -> StratumEffect | None:
    """Return one model's effect arm − base in `metric` on the items both have, with its variance (None: none)."""
    first = {score.id: score for score in metric.of(base)}
    second = {score.id: score for score in metric.of(arm)}
    ids = sorted(set(first) & set(second))
    if not ids:
        return None
    if metric.value is None:
        xs = [float(metric.right(first[i])) for i in ids]
        ys = [float(metric.right(second[i])) for i in ids]
        return paired_stratum(model, xs, ys, [first[i].unit for i in ids])
    left = metric.compute([first[i] for i in ids])
    right = metric.compute([second[i] for i in ids])
    if left is None or right is None:
        return None
    rng = np.random.default_rng(seed)
    units = [first[i].unit for i in ids]
    groups = cluster_groups(units) if is_clustered(units) else None
    resampled = []
    for _ in range(BOOTSTRAP_RESAMPLES):  # whole clusters are resampled where items share one
        picks = resample_clusters(groups, rng) if groups else rng.integers(0, len(ids), size=len(ids))
        a = metric.compute([first[ids[i]] for i in picks])
        b = metric.compute([second[ids[i]] for i in picks])
        if a is not None and b is not None:
            resampled.append(b - a)
    variance = float(np.var(resampled, ddof=1)) if len(resampled) > 1 else 0.0
    return StratumEffect(model, len(ids), right - left, max(variance, paired_variance(0, 0, len(ids))))


def pooled_effects(scores: Mapping[str, Sequence[Score]], *, seed: int = 0) -> list[ArmEffect]:
    """Return every benchmark metric's pooled effect of each arm against text (models as strata), Holm over all."""
    found: list[ArmEffect] = []
    for benchmark, models in by_benchmark(scores).items():
        arms_by_model = {model: by_mode(model_scores) for model, model_scores in models.items()}
        arms = order_arms({arm for groups in arms_by_model.values() for arm in groups})
        key_text = clusters_text(benchmark, [score for model_scores in models.values() for score in model_scores])
        for metric in scoring_spec(benchmark).headline:
            for arm in arms:
                if arm == BASE_ARM:
                    continue
                strata = [
                    effect
                    for model, groups in arms_by_model.items()
                    if BASE_ARM in groups and arm in groups
                    and (effect := model_effect(model, metric, groups[BASE_ARM], groups[arm], seed=seed)) is not None
                ]  # fmt: skip
                if strata:
                    found.append(ArmEffect(benchmark, metric.name, arm, pool(strata), clusters=key_text))
    adjusted = holm([effect.pooled.p_value for effect in found])
    return [replace(effect, p_holm=p) for effect, p in zip(found, adjusted, strict=True)]


def clusters_text(benchmark: str, scores: Sequence[Score]) -> str:
    """Return the cluster key of a benchmark's pooled row in words, with its clusters and items counted."""
    key = describe_key(benchmark)
    clusters, items = cluster_counts(scores).get(benchmark, (0, 0))
    if clusters == items:
        return f"{key} ({items} items, each its own cluster)" if key == "the item" else f"{key}, each item alone"
    return f"{key}, {clusters} clusters of {items} items"


def points(value: float) -> str:
    """Return a difference in points with its sign and one decimal."""
    return f"{100 * value:+.1f}"


def pooled_tables(effects: Sequence[ArmEffect], models: Sequence[str]) -> dict[tuple[str, str], Table]:
    """Return one table per (benchmark, metric): a row per arm with its pooled effect and each model's own effect
    (the first table's note says how they were pooled)."""
    tables: dict[tuple[str, str], Table] = {}
    for benchmark, metric in dict.fromkeys((e.benchmark, e.metric) for e in effects):
        table = Table(
            f"{benchmark} — {metric}: each arm − text, pooled over the models",
            ["Arm", "pooled Δ (pp)", "95% CI (pp)", "p", "Holm p", "models", "items", "clusters",
             *(f"{model} Δ (pp)" for model in models)],
        )  # fmt: skip
        for effect in effects:
            if (effect.benchmark, effect.metric) != (benchmark, metric):
                continue
            pooled = effect.pooled
            own = {stratum.stratum: stratum for stratum in pooled.strata}
            table.rows.append(
                [
                    effect.arm,
                    points(pooled.estimate),
                    interval_text(pooled.low, pooled.high, signed=True),
                    f"{pooled.p_value:.3g}",
                    "—" if effect.p_holm is None else f"{effect.p_holm:.3g}",
                    str(len(pooled.strata)),
                    str(pooled.n),
                    effect.clusters,
                    *(f"{points(own[m].effect)} (n {own[m].n})" if m in own else "—" for m in models),
                ]
            )
        tables[(benchmark, metric)] = table
    for table in list(tables.values())[:1]:
        table.notes.append(POOLED_NOTE)
    return tables


POOLED_NOTE = (
    "pooled Δ: the item-weighted mean of the models' own paired differences arm − text (each model's n items its "
    "weight: the models answer the same items, so each has an equal say; inverse-variance weights would favour the "
    "model whose arms agree most); 95% CI: normal, from the models' variances (a proportion: the cluster-robust "
    "CR1 variance of the mean paired difference over the clusters the row names, or, where every item is its own "
    "cluster or that variance is 0, the paired variance with ½ added to each cell of the model's 2×2 table, "
    "Agresti–Min, never zero; a composite: the paired bootstrap "
    "variance of the model's difference); p: two-sided normal test; Holm over every pooled effect of the study"
)
