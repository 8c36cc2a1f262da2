"""The pooled effect across models (mcot.eval.pooled) against a hand computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mcot.eval.errors import EvalError
from mcot.eval.pooled import StratumEffect, paired_counts, paired_stratum, paired_variance, pool
from scipy import stats as scipy_stats


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
