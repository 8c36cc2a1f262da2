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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from mcot.eval.compare import paired_difference
from mcot.eval.stats import (
    SMALL_DISCORDANCE,
    detectable_difference,
    exact_paired_interval,
    never_zero_width,
    sign_flip_p,
    wilson_bounds,
    wilson_interval,
)
from mcot.eval.tables import tally

from mcot.rundir import Score

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


def arm_figure(metric: Metric, arm: str, scores: Sequence[Score], *, seed: int = 0) -> ArmFigure:
    """Return `metric` of one arm's scores (those the metric is over are picked here) with its interval."""
    chosen = metric.of(scores)
    counts = tally(chosen)
    undecided = counts.unjudged + counts.judge_errors
    value = metric.compute(chosen)
    if not chosen or value is None:
        return ArmFigure(metric.name, arm, len(chosen), counts.errors, undecided, None, None, None, "—")
    if metric.value is None:
        right = sum(1 for score in chosen if metric.right(score))
        interval = wilson_interval(right, len(chosen))
        return ArmFigure(
            metric.name, arm, len(chosen), counts.errors, undecided, value, interval.low, interval.high, "Wilson"
        )
    if len(chosen) < MIN_BOOTSTRAP_ITEMS or len({_item_value(score) for score in chosen}) == 1:
        # a bootstrap of so few (or identical) items can be zero-width: the Wilson bounds of the value with n items
        bounds = wilson_bounds(min(1.0, max(0.0, value)), len(chosen))
        return ArmFigure(
            metric.name, arm, len(chosen), counts.errors, undecided, value, bounds.low, bounds.high, "Wilson"
        )
    low, high = _bootstrap(lambda picks: metric.compute([chosen[i] for i in picks]), len(chosen), seed)
    return ArmFigure(metric.name, arm, len(chosen), counts.errors, undecided, value, low, high, "bootstrap")


def difference(
    metric: Metric, base: str, base_scores: Sequence[Score], arm: str, arm_scores: Sequence[Score], *, seed: int = 0
) -> Difference | None:
    """Return arm − base in `metric` on the items both arms have (None when they share none)."""
    first = {score.id: score for score in metric.of(base_scores)}
    second = {score.id: score for score in metric.of(arm_scores)}
    ids = sorted(set(first) & set(second))
    if not ids:
        return None
    if metric.value is None:
        xs = [float(metric.right(first[i])) for i in ids]
        ys = [float(metric.right(second[i])) for i in ids]
        found = paired_difference(ids, xs, ys, seed=seed)
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
        )
    a_value = metric.compute([first[i] for i in ids])
    b_value = metric.compute([second[i] for i in ids])
    value = None if a_value is None or b_value is None else b_value - a_value
    deltas = [_item_value(second[i]) - _item_value(first[i]) for i in ids]
    up, down = sum(1 for d in deltas if d > 0), sum(1 for d in deltas if d < 0)
    p_value = sign_flip_p(deltas)
    detectable = detectable_difference(len(ids), (up + down) / len(ids))
    if up + down < SMALL_DISCORDANCE:  # a bootstrap over so few differing items can be zero-width
        exact = exact_paired_interval(up, down, len(ids), estimate=value)
        return Difference(
            metric.name, base, arm, len(ids), value, exact.low, exact.high, "exact", p_value, detectable, up + down
        )

    def paired(picks: np.ndarray) -> float | None:
        left = metric.compute([first[ids[i]] for i in picks])
        right = metric.compute([second[ids[i]] for i in picks])
        return None if left is None or right is None else right - left

    low, high = _bootstrap(paired, len(ids), seed)
    if low is not None and high is not None:
        low, high, replaced = never_zero_width((low, high), exact_paired_interval(up, down, len(ids), estimate=value))
        method = "exact" if replaced else "bootstrap"
    else:
        method = "bootstrap"
    return Difference(metric.name, base, arm, len(ids), value, low, high, method, p_value, detectable, up + down)


def _item_value(score: Score) -> float:
    """Return an item's own value in a composite metric: its score (0 for a run error or an undecided item)."""
    if score.method in ("error", "judge_error") or score.score is None:
        return 0.0
    return float(score.score)


def _bootstrap(statistic: Callable[[np.ndarray], float | None], n: int, seed: int) -> tuple[float | None, float | None]:
    """Return the 95 % percentile interval of `statistic` over seeded resamples of n indices (None: undefined)."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        value = statistic(rng.integers(0, n, size=n))
        if value is not None and not math.isnan(value):
            values.append(value)
    if not values:
        return None, None
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)
