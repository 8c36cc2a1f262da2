"""A benchmark's headline metrics — the numbers its paper leads with — per arm and as differences from text.

A protocol module names its metrics under the fixed name `headline` (a tuple of `Metric`; without one a
benchmark's headline is `OVERALL`, accuracy over every item). A metric is either a proportion — the share of its
items that are `right` (RBench-V Overall and w/o Math, OmniPhys P_obj/P_open, accuracy) — or a composite `value`
of its items' scores (GePBench Avg, the mean of 12 cells; GOBench SPS Overall, a mean of means).

A proportion has a Wilson interval per arm and a paired difference from text with an exact McNemar p, its
interval exact from fewer than SMALL_DISCORDANCE discordant pairs (mcot.eval.compare.paired_difference). A
composite has seeded percentile bootstrap intervals (Wilson bounds of its value under MIN_BOOTSTRAP_ITEMS items) (over items; over paired items for the difference) and the
paired sign-flip test on the items' own scores; from fewer than SMALL_DISCORDANCE items whose scores differ, the
difference's interval is the exact conditional one on how they split (a bootstrap would be zero-width). Every (item, arm) of the metric is in n: run errors, unjudged items and judge errors count as not right.

Where items share a cluster (the scores' `cluster`, from the benchmark's key: GePBench's figure) they are not
independent, and every interval and test is over clusters: the clustered Wilson interval (inspect_ai's
`ci_wilson(cluster=...)`), the cluster bootstrap, the cluster-level sign-flip test, the clustered t interval where
the exact one would assume independent pairs. With every item its own cluster the figures are the item-level ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from mcot.eval.compare import paired_difference
from mcot.eval.stats import (
    SMALL_DISCORDANCE,
    cluster_groups,
    cluster_sign_flip_p,
    clustered_mean_interval,
    clustered_wilson,
    detectable_difference,
    effective_n,
    exact_paired_interval,
    is_clustered,
    resample_clusters,
    wilson_bounds,
    wilson_interval,
)
from mcot.eval.tables import tally

from mcot.core.rundir import Score

BOOTSTRAP_RESAMPLES = 1_000
MIN_BOOTSTRAP_ITEMS = 30
"""A composite metric over fewer items (or over items all scored alike) gets Wilson bounds, not a bootstrap."""


def every_item(score: Score) -> bool:
    """Return True: a metric over every item."""
    return True


def is_correct(score: Score) -> bool:
    """Return whether the score is right (run errors, unjudged items and judge errors are not)."""
    return score.method not in ("error", "judge_error") and bool(score.correct)


@dataclass(frozen=True)
class Metric:
    """One headline metric: its name, which scores it is over, and how it is computed from them.

    `right` decides an item of a proportion; `value`, when given, makes the metric a composite computed from all
    its scores (None when undefined).
    """

    name: str
    select: Callable[[Score], bool] = every_item
    right: Callable[[Score], bool] = is_correct
    value: Callable[[Sequence[Score]], float | None] | None = None

    def of(self, scores: Sequence[Score]) -> list[Score]:
        """Return the scores this metric is over."""
        return [score for score in scores if self.select(score)]

    def compute(self, scores: Sequence[Score]) -> float | None:
        """Return the metric of (already selected) scores: the composite value, or the share right."""
        if self.value is not None:
            return self.value(scores)
        return sum(1 for score in scores if self.right(score)) / len(scores) if scores else None


OVERALL = Metric("Overall")
"""A benchmark's headline when its protocol module names none: accuracy over every item."""


@dataclass(frozen=True)
class ArmFigure:
    """One arm's value of one metric with its 95 % interval, n and what in n was not decided."""

    metric: str
    arm: str
    n: int
    errors: int
    undecided: int
    value: float | None
    low: float | None
    high: float | None
    method: str
    clusters: int | None = None
    """How many clusters the items form, when some share one (None: every item is its own cluster)."""


@dataclass(frozen=True)
class Difference:
    """An arm's paired difference from a base arm in one metric, on the items both have."""

    metric: str
    base: str
    arm: str
    n: int
    value: float | None
    low: float | None
    high: float | None
    method: str
    p_value: float | None
    detectable: float | None
    discordant: int | None
    clusters: int | None = None
    """How many clusters the paired items form, when some share one (None: every item is its own cluster)."""


def arm_figure(metric: Metric, arm: str, scores: Sequence[Score], *, seed: int = 0) -> ArmFigure:
    """Return `metric` of one arm's scores (those the metric is over are picked here) with its interval.

    Where items share clusters (the scores' `cluster`), a proportion gets the clustered Wilson interval and a
    composite a cluster bootstrap (Wilson bounds on n over the design effect under MIN_BOOTSTRAP_ITEMS clusters).
    """
    chosen = metric.of(scores)
    counts = tally(chosen)
    undecided = counts.unjudged + counts.judge_errors
    value = metric.compute(chosen)
    if not chosen or value is None:
        return ArmFigure(metric.name, arm, len(chosen), counts.errors, undecided, None, None, None, "—")
    units = [score.unit for score in chosen]
    groups = cluster_groups(units)
    clusters = len(groups) if is_clustered(units) else None

    def figure(low: float | None, high: float | None, method: str) -> ArmFigure:
        return ArmFigure(metric.name, arm, len(chosen), counts.errors, undecided, value, low, high, method, clusters)

    if metric.value is None:
        rights = [float(metric.right(score)) for score in chosen]
        if clusters is not None:
            interval = clustered_wilson(rights, units)
            return figure(interval.low, interval.high, "clustered Wilson")
        interval = wilson_interval(int(sum(rights)), len(chosen))
        return figure(interval.low, interval.high, "Wilson")
    own = [_item_value(score) for score in chosen]
    if len(groups) < MIN_BOOTSTRAP_ITEMS or len(set(own)) == 1:
        # a bootstrap of so few (or identical) items can be zero-width: the Wilson bounds of the value with n items
        # (n over the design effect where items share clusters)
        size = effective_n(own, units) if clusters is not None else len(chosen)
        bounds = wilson_bounds(min(1.0, max(0.0, value)), size)
        return figure(bounds.low, bounds.high, "Wilson")
    low, high = _bootstrap(lambda picks: metric.compute([chosen[i] for i in picks]), groups, seed)
    return figure(low, high, "bootstrap" if clusters is None else "cluster bootstrap")


def difference(
    metric: Metric, base: str, base_scores: Sequence[Score], arm: str, arm_scores: Sequence[Score], *, seed: int = 0
) -> Difference | None:
    """Return arm − base in `metric` on the items both arms have (None when they share none).

    Where items share clusters: the cluster-level sign-flip test, a cluster bootstrap, the clustered t interval
    from fewer than SMALL_DISCORDANCE clusters whose items differ, power on n over the design effect.
    """
    first = {score.id: score for score in metric.of(base_scores)}
    second = {score.id: score for score in metric.of(arm_scores)}
    ids = sorted(set(first) & set(second))
    if not ids:
        return None
    units = [first[i].unit for i in ids]
    groups = cluster_groups(units)
    clusters = len(groups) if is_clustered(units) else None
    if metric.value is None:
        xs = [float(metric.right(first[i])) for i in ids]
        ys = [float(metric.right(second[i])) for i in ids]
        found = paired_difference(ids, xs, ys, seed=seed, clusters=units)
        return Difference(
            metric.name,
            base,
            arm,
            len(ids),
            found.difference,
            found.low,
            found.high,
            found.interval_method,
            found.p_value,
            found.detectable,
            found.discordant,
            clusters,
        )
    a_value = metric.compute([first[i] for i in ids])
    b_value = metric.compute([second[i] for i in ids])
    value = None if a_value is None or b_value is None else b_value - a_value
    deltas = [_item_value(second[i]) - _item_value(first[i]) for i in ids]
    up, down = sum(1 for d in deltas if d > 0), sum(1 for d in deltas if d < 0)
    p_value = cluster_sign_flip_p(deltas, units)  # every item its own cluster: the item-level sign-flip test
    size = effective_n(deltas, units) if clusters is not None else len(ids)
    detectable = detectable_difference(size, (up + down) / len(ids))
    differing = sum(1 for group in groups if any(deltas[i] != 0 for i in group))

    def made(low: float | None, high: float | None, method: str) -> Difference:
        return Difference(
            metric.name, base, arm, len(ids), value, low, high, method, p_value, detectable, up + down, clusters
        )

    def fallback() -> tuple[float, float, str]:
        """The interval where a bootstrap cannot serve: exact on independent items, else the clustered t one."""
        if clusters is None or up + down == 0:
            exact = exact_paired_interval(up, down, len(ids) if clusters is None else len(groups), estimate=value)
            return exact.low, exact.high, "exact"
        spread = clustered_mean_interval(deltas, units, limits=(-1.0, 1.0))
        centre = spread.estimate if value is None else value
        low, high = centre - (spread.estimate - spread.low), centre + (spread.high - spread.estimate)
        return max(-1.0, low), min(1.0, high), "clustered"

    if differing < SMALL_DISCORDANCE:  # a bootstrap over so few differing items (clusters) can be zero-width
        return made(*fallback())

    def paired(picks: np.ndarray) -> float | None:
        left = metric.compute([first[ids[i]] for i in picks])
        right = metric.compute([second[ids[i]] for i in picks])
        return None if left is None or right is None else right - left

    low, high = _bootstrap(paired, groups, seed)
    if low is None or high is None:
        return made(low, high, "bootstrap" if clusters is None else "cluster bootstrap")
    if low == high:
        return made(*fallback())
    return made(low, high, "bootstrap" if clusters is None else "cluster bootstrap")


def _item_value(score: Score) -> float:
    """Return an item's own value in a composite metric: its score (0 for a run error or an undecided item)."""
    if score.method in ("error", "judge_error") or score.score is None:
        return 0.0
    return float(score.score)


def _bootstrap(
    statistic: Callable[[np.ndarray], float | None], groups: Sequence[Sequence[int]], seed: int
) -> tuple[float | None, float | None]:
    """Return the 95 % percentile interval of `statistic` over seeded resamples of whole clusters (`groups` of item
    indices; every item alone: the item bootstrap), None when undefined."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        value = statistic(resample_clusters(groups, rng))
        if value is not None and not math.isnan(value):
            values.append(value)
    if not values:
        return None, None
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)
