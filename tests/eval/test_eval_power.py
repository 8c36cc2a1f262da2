"""Power, small-sample intervals and Holm: checked against closed forms and scipy's exact distributions."""

from __future__ import annotations

import math

import pytest
from mcot.eval.stats import (
    SMALL_DISCORDANCE,
    clopper_pearson,
    detectable_difference,
    exact_paired_interval,
    holm,
    independent_discordance,
    items_needed,
    mcnemar_exact,
    mcnemar_power,
    normal_quantile,
)
from scipy import stats as scipy_stats

from mcot.commands.plan import run_plan


def connor(psi: float, delta: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Connor (1987), written out: n = (z_{1-α/2} √ψ + z_{power} √(ψ − δ²))² / δ²."""
    z_a, z_b = scipy_stats.norm.ppf(1 - alpha / 2), scipy_stats.norm.ppf(power)
    return (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - delta**2)) ** 2 / delta**2


@pytest.mark.parametrize(("psi", "delta"), [(0.3, 0.05), (0.2, 0.1), (0.5, 0.02), (0.1, 0.1)])
def test_items_needed_is_connors_closed_form_rounded_up(psi: float, delta: float) -> None:
    assert items_needed(psi, delta) == math.ceil(connor(psi, delta))


def test_the_detectable_difference_inverts_the_items_needed() -> None:
    for n, psi in [(50, 0.3), (200, 0.2), (1000, 0.4), (24, 0.5)]:
        delta = detectable_difference(n, psi)
        assert delta is not None
        assert connor(psi, delta) == pytest.approx(n, rel=1e-6)
    assert detectable_difference(10, 0.0) is None
    assert detectable_difference(0, 0.3) is None
    assert detectable_difference(3, 0.2) == 0.2  # not even every discordant pair one way reaches 80 %


def test_at_the_planned_n_the_exact_mcnemar_test_has_about_80_percent_power() -> None:
    # 30 % vs 35 %, independent arms: the exact test's power at Connor's n is close to the nominal 80 %
    psi = independent_discordance(0.30, 0.35)
    assert psi == pytest.approx(0.30 * 0.65 + 0.35 * 0.70)
    n = items_needed(psi, 0.05)
    p_up, p_down = (psi + 0.05) / 2, (psi - 0.05) / 2
    assert mcnemar_power(n, p_up, p_down) == pytest.approx(0.80, abs=0.02)


def test_mcot_plan_prints_the_items_needed(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_plan(baseline=0.30, effect=0.05) == 0
    out = capsys.readouterr().out
    n = math.ceil(connor(independent_discordance(0.30, 0.35), 0.05))
    assert out.startswith(f"{n} paired items detect 30.0% → 35.0% (+5.0 pp) with 80% power")
    assert run_plan(baseline=0.30, effect=0.05, discordance=0.10) == 0
    assert capsys.readouterr().out.startswith(f"{math.ceil(connor(0.10, 0.05))} paired items")


def test_clopper_pearson_matches_the_beta_quantiles() -> None:
    for k, n in [(0, 10), (3, 10), (10, 10), (17, 40)]:
        found = clopper_pearson(k, n)
        low = 0.0 if k == 0 else scipy_stats.beta.ppf(0.025, k, n - k + 1)
        high = 1.0 if k == n else scipy_stats.beta.ppf(0.975, k + 1, n - k)
        assert (found.low, found.high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))


def test_four_pairs_all_one_way_get_an_interval_that_is_not_zero_width() -> None:
    # the demo's bounce row: 4 pairs, all wrong→right; a bootstrap says [+100, +100]
    interval = exact_paired_interval(4, 0, 4)
    assert interval.estimate == 1.0 and interval.high == pytest.approx(1.0)
    assert interval.low == pytest.approx(2 * scipy_stats.beta.ppf(0.025, 4, 1) - 1)
    assert interval.low < 0 < interval.high  # and it includes 0, as McNemar's p = 0.125 says
    assert mcnemar_exact(4, 0) == 0.125
    assert 4 < SMALL_DISCORDANCE


def test_the_exact_interval_excludes_zero_exactly_when_mcnemar_rejects() -> None:
    for up in range(0, 13):
        for down in range(0, 13 - up):
            if up + down == 0:
                continue
            interval = exact_paired_interval(up, down, 40)
            assert (interval.low > 0 or interval.high < 0) == (mcnemar_exact(up, down) < 0.05), (up, down)


def test_no_discordant_pair_bounds_the_difference_by_the_pairs_that_could_differ() -> None:
    interval = exact_paired_interval(0, 0, 30)
    assert interval.estimate == 0 and interval.high == pytest.approx(1 - 0.025 ** (1 / 30))
    assert interval.low == -interval.high


def test_holm_step_down() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []


def test_normal_quantile() -> None:
    assert normal_quantile(0.975) == pytest.approx(scipy_stats.norm.ppf(0.975), abs=1e-9)
