"""Small samples: an interval from fewer than 20 discordant pairs is exact, and no interval has zero width unless
it is over no pair (issue 28: `mcot compare` printed [+100.0, +100.0] at n = 12, all pairs one way)."""

import pytest
from mcot.eval.compare import paired_difference
from mcot.eval.stats import SMALL_DISCORDANCE, clopper_pearson


def test_twelve_pairs_all_one_way_get_the_exact_interval() -> None:
    ids = [f"q{i}" for i in range(12)]
    found = paired_difference(ids, [0.0] * 12, [1.0] * 12, n_boot=500)
    assert SMALL_DISCORDANCE == 20
    assert found.interval_method == "exact"
    assert found.difference == 1.0 and found.high == pytest.approx(1.0)
    # 12 of 12 one way: π's Clopper–Pearson lower bound is 0.025^(1/12), the difference's 2π − 1
    assert found.low == pytest.approx(2 * clopper_pearson(12, 12).low - 1)
    assert found.low < 0.6 < found.high


def test_nineteen_discordant_pairs_are_still_exact_and_twenty_bootstrap() -> None:
    ids = [f"q{i}" for i in range(40)]
    a = [0.0] * 10 + [1.0] * 9 + [1.0] * 21  # 10 up, 9 down: 19 discordant
    b = [1.0] * 10 + [0.0] * 9 + [1.0] * 21
    assert paired_difference(ids, a, b, n_boot=500).interval_method == "exact"
    a = [0.0] * 12 + [1.0] * 8 + [1.0] * 20  # 12 up, 8 down: 20 discordant
    b = [1.0] * 12 + [0.0] * 8 + [1.0] * 20
    assert paired_difference(ids, a, b, n_boot=500).interval_method == "bootstrap"


def test_a_zero_width_bootstrap_is_replaced_by_the_exact_interval() -> None:
    ids = [f"q{i}" for i in range(25)]
    found = paired_difference(ids, [0.0] * 25, [1.0] * 25, n_boot=500)  # every resample gives +1
    assert found.interval_method == "exact" and found.low < found.high
