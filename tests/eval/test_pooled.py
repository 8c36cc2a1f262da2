"""The pooled effect across models (mcot.eval.pooled) against a hand computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mcot.eval.errors import EvalError
from mcot.eval.pooled import (
    StratumEffect,
    paired_counts,
    paired_means_stratum,
    paired_stratum,
    paired_variance,
    pool,
)
from scipy import stats as scipy_stats

from mcot.core.rundir import Score
from mcot.study.pooled import clusters_text, pooled_effects, pooled_tables


def outcomes(up: int, down: int, same_right: int, same_wrong: int) -> tuple[list[float], list[float]]:
    """Return paired 0/1 outcomes (text, arm) with the given cells of the paired 2×2 table."""
    xs = [0.0] * up + [1.0] * down + [1.0] * same_right + [0.0] * same_wrong
    ys = [1.0] * up + [0.0] * down + [1.0] * same_right + [0.0] * same_wrong
    return xs, ys


def test_the_paired_variance_adds_a_half_to_each_cell() -> None:
    # up 2, down 0 of 6: n' = 8, p_up = 2.5/8, p_down = 0.5/8, (0.3125 + 0.0625 − 0.25²) / 8
    assert paired_variance(2, 0, 6) == pytest.approx((0.3125 + 0.0625 - 0.0625) / 8)
    # no discordant pair: still a variance, 1/(n+2)²
    assert paired_variance(0, 0, 6) == pytest.approx(1 / 64)
    assert paired_variance(3, 1, 6) == pytest.approx((0.4375 + 0.1875 - 0.25**2) / 8)
    with pytest.raises(EvalError, match="0 ≤ up"):
        paired_variance(4, 3, 6)


def test_four_models_pool_to_their_item_weighted_mean_with_the_hand_computed_interval() -> None:
    tables = {"m0": (2, 0, 3, 1), "m1": (3, 1, 1, 1), "m2": (0, 0, 4, 2), "m3": (0, 2, 2, 2)}
    strata = [paired_stratum(name, *outcomes(*cells)) for name, cells in tables.items()]
    assert [(s.n, round(s.effect, 6)) for s in strata] == [(6, 0.333333), (6, 0.333333), (6, 0.0), (6, -0.333333)]
    found = pool(strata)
    # equal n: each weight 1/4; Δ = (1/3 + 1/3 + 0 − 1/3) / 4 = 1/12
    assert found.weights == (0.25, 0.25, 0.25, 0.25)
    assert found.estimate == pytest.approx(1 / 12)
    variances = [0.3125 / 8, 0.5625 / 8, 0.125 / 8, 0.3125 / 8]
    se = math.sqrt(sum(v / 16 for v in variances))
    assert found.se == pytest.approx(se)
    z = 1.959963984540054
    assert (found.low, found.high) == (pytest.approx(1 / 12 - z * se), pytest.approx(1 / 12 + z * se))
    assert found.p_value == pytest.approx(2 * scipy_stats.norm.sf((1 / 12) / se))
    assert found.n == 24


def test_unequal_models_are_weighted_by_their_items() -> None:
    strata = [StratumEffect("a", 10, 0.2, 0.01), StratumEffect("b", 30, -0.1, 0.004)]
    found = pool(strata)
    assert found.weights == (0.25, 0.75)
    assert found.estimate == pytest.approx(0.25 * 0.2 + 0.75 * -0.1)
    assert found.se == pytest.approx(math.sqrt(0.0625 * 0.01 + 0.5625 * 0.004))


def test_the_interval_stays_inside_minus_one_to_one_and_nothing_to_pool_is_an_error() -> None:
    found = pool([paired_stratum("all-up", [0.0, 0.0], [1.0, 1.0])])
    assert found.estimate == 1.0 and found.high == 1.0 and found.low < 1.0
    with pytest.raises(EvalError, match="nothing to pool"):
        pool([])
    assert paired_counts([1, 0, 1], [1, 1, 0]) == (1, 1, 3)


def test_with_many_items_the_normal_interval_agrees_with_a_stratified_paired_bootstrap() -> None:
    # four models × 400 items; resampling items within each model and pooling gives nearly the same interval
    rng = np.random.default_rng(5)
    tables = {"a": (60, 20), "b": (30, 30), "c": (90, 10), "d": (15, 45)}
    strata, differences = [], []
    for name, (up, down) in tables.items():
        xs, ys = outcomes(up, down, 150, 400 - up - down - 150)
        strata.append(paired_stratum(name, xs, ys))
        differences.append(np.asarray(ys) - np.asarray(xs))
    found = pool(strata)
    resampled = sum(0.25 * d[rng.integers(0, len(d), size=(4_000, len(d)))].mean(axis=1) for d in differences)
    low, high = np.quantile(resampled, [0.025, 0.975])
    assert found.estimate == pytest.approx(float(np.mean([d.mean() for d in differences])))
    assert (found.low, found.high) == (pytest.approx(low, abs=0.003), pytest.approx(high, abs=0.003))


# Two clusters of two items and one of one: A = {0, 1}, B = {2, 3}, C = {4}.
UNITS = ["A", "A", "B", "B", "C"]


def test_a_clustered_stratum_has_the_hand_computed_cr1_variance() -> None:
    xs, ys = [0.0, 0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0, 0.0]
    # d = (1, 0, 1, 0, −1), d̄ = 0.2; deviations (.8, −.2, .8, −.2, −1.2); cluster sums .6, .6, −1.2
    # CR1: G/(G−1) · Σ sums² / n² = 1.5 · 2.16 / 25
    effect = paired_stratum("m", xs, ys, UNITS)
    assert (effect.n, effect.effect) == (5, pytest.approx(0.2))
    assert effect.variance == pytest.approx(1.5 * 2.16 / 25)


def test_every_item_its_own_cluster_keeps_the_agresti_min_variance() -> None:
    xs, ys = [0.0, 0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0, 0.0]
    # up 2, down 1 of 5: n' = 7, p₁ = 2.5/7, p₂ = 1.5/7 → (4/7 − (1/7)²)/7 = 27/343
    for units in (None, ["a", "b", "c", "d", "e"]):
        assert paired_stratum("m", xs, ys, units).variance == pytest.approx(27 / 343)


def test_a_degenerate_clustered_stratum_falls_back_to_the_agresti_min_floor() -> None:
    same = [1.0, 0.0, 1.0, 0.0, 1.0]
    # every difference 0: CR1 is 0, the floor (0.5 + 0.5)/7 / 7 = 1/49
    assert paired_stratum("m", same, same, UNITS).variance == pytest.approx(1 / 49)
    # one cluster: CR1 undefined; up 2, down 1 of 5 → 27/343
    xs, ys = [0.0, 0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0, 0.0]
    assert paired_stratum("m", xs, ys, ["g"] * 5).variance == pytest.approx(27 / 343)
    # every difference +1 in two clusters: CR1 0 again, the floor up 4 of 4 → (4.5/6 + .5/6 − (4/6)²)/6
    assert paired_stratum("m", [0.0] * 4, [1.0] * 4, ["A", "A", "B", "B"]).variance == pytest.approx(
        (5 / 6 - (4 / 6) ** 2) / 6
    )


def test_paired_means_have_the_hand_computed_cr1_variance_and_the_same_floor() -> None:
    xs, ys = [0.5, 0.0, 1.0, 0.25, 1.0], [1.0, 0.5, 1.0, 0.75, 0.5]
    # d = (.5, .5, 0, .5, −.5), d̄ = 0.2; deviations (.3, .3, −.2, .3, −.7); cluster sums .6, .1, −.7
    effect = paired_means_stratum("m", xs, ys, UNITS)
    assert effect.effect == pytest.approx(0.2) and effect.variance == pytest.approx(1.5 * 0.86 / 25)
    # every item its own cluster: s²/n (s with n − 1)
    alone = paired_means_stratum("m", xs, ys, list("abcde"))
    diffs = np.asarray(ys) - np.asarray(xs)
    assert alone.variance == pytest.approx(diffs.var(ddof=1) / 5)
    # 0/1 means in several clusters are the 0/1 path's CR1
    zeros, ones = [0.0, 0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0, 0.0]
    assert paired_means_stratum("m", zeros, ones, UNITS).variance == pytest.approx(
        paired_stratum("m", zeros, ones, UNITS).variance
    )
    # degenerate: every difference 0.25 → the floor with up = Σ d⁺ = 1.25, down 0: n' = 7
    flat = paired_means_stratum("m", [0.5] * 5, [0.75] * 5, UNITS)
    p_up, p_down = 1.75 / 7, 0.5 / 7
    assert flat.variance == pytest.approx((p_up + p_down - (p_up - p_down) ** 2) / 7)


def test_paired_means_refuse_values_outside_the_unit_interval_and_a_missing_cluster() -> None:
    with pytest.raises(EvalError, match=r"in \[0, 1\]"):
        paired_means_stratum("m", [0.5, 1.5], [0.5, 0.5], ["a", "b"])
    with pytest.raises(EvalError, match="one cluster per paired item"):
        paired_means_stratum("m", [0.5, 0.5], [0.5, 0.5], ["a"])


def _score(item: str, arm: str, right: bool, cluster: str | None, benchmark: str = "rbench-v") -> Score:
    return Score(id=item, mode=arm, benchmark=benchmark, category="physics", score=float(right), correct=right,
                 method="rule", cluster=cluster)  # fmt: skip


def test_the_studys_pooled_effect_passes_the_scores_clusters() -> None:
    """A GePBench-like cluster of items (several questions on one figure) reaches the model's CR1 variance."""
    text = [False, False, False, True, True]
    canvas = [True, False, True, True, False]
    figures = ["fig-1", "fig-1", "fig-2", "fig-2", None]  # the last item stands alone (its id)
    scores = [_score(f"q{i}", "text", text[i], figures[i]) for i in range(5)]
    scores += [_score(f"q{i}", "canvas", canvas[i], figures[i]) for i in range(5)]
    effect = pooled_effects({"m": scores})[0]
    (stratum,) = effect.pooled.strata
    assert stratum.variance == pytest.approx(1.5 * 2.16 / 25)  # the CR1 of the first test, same numbers
    assert effect.clusters == "the item, 3 clusters of 5 items"
    table = pooled_tables([effect], ["m"])[("rbench-v", effect.metric)]
    assert "clusters" in table.columns and table.rows[0][table.columns.index("clusters")] == effect.clusters
    alone = [s.model_copy(update={"cluster": None}) for s in scores]
    unclustered = pooled_effects({"m": alone})[0]
    assert unclustered.pooled.strata[0].variance == pytest.approx(27 / 343)
    assert unclustered.clusters == "the item (5 items, each its own cluster)"


def test_a_gepbench_pooled_row_names_the_figure_key() -> None:
    assert clusters_text("gepbench", [_score("a", "text", True, "f", "gepbench"),
                                      _score("b", "text", True, "f", "gepbench")]) == (
        "the figure (meta.level + meta.image_id), 1 clusters of 2 items"
    )  # fmt: skip
