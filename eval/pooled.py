"""An arm's effect pooled across models: a stratified paired estimate (strata = models) with its normal interval.

Per model k the effect Δ_k is the arm's difference from the baseline on the n_k items both arms have (for 0/1
outcomes, the mean of the paired per-item differences arm − text), with a variance v_k. The pooled effect is the
weighted mean Σ w_k Δ_k with weights w_k = n_k / Σ n (items per model), its variance Σ w_k² v_k, and its 95 %
interval the normal one from that variance; p is the two-sided normal test of a pooled effect of 0.

Why items and not inverse-variance weights: the models of a study answer the same items, so item weights give
each model an equal say and the pooled effect reads as "the effect on these items, averaged over the models";
inverse-variance weights would hand the pooled effect to the model whose arms agree most (a model that ignores
its tools has Δ = 0 with the smallest variance) — the very model the question is least about.

Each model's variance v_k, for the per-item differences d_i = y_i − x_i (arm − baseline) and the items' clusters
(Score.unit: the benchmark's cluster key, mcot.core.clusters):

- 0/1 outcomes (`paired_stratum`). When some cluster holds more than one item (GePBench's questions on one figure),
  v_k is the cluster-robust CR1 variance of the mean difference, G/(G−1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / n²
  (mcot.eval.stats.clustered_variance, as inspect_ai's clustered stderr): items of a cluster share their errors,
  so treating them as independent would make the interval too narrow. When every item is its own cluster (or no
  clusters are given), v_k is the variance of the paired difference with ½ added to each cell of the model's
  paired 2×2 table (Agresti & Min 2005, "Simple improved confidence intervals for comparing matched
  proportions"): with n' = n + 2, p₁ = (up + ½)/n', p₂ = (down + ½)/n', v = (p₁ + p₂ − (p₁ − p₂)²)/n'.
- per-item means in [0, 1] (`paired_means_stratum`, repeated samples): v_k is the CR1 variance of the mean
  difference over the clusters (with every item its own cluster that is s²/n, the ordinary squared standard error).
- The floor, both paths: where the CR1 variance is degenerate — not above 0 (every difference alike, e.g. the arms
  agree on every item) or undefined (fewer than two clusters) — v_k is the Agresti–Min variance instead, with
  up = Σ max(d_i, 0) and down = Σ max(−d_i, 0) (the discordant counts for 0/1 outcomes), so that the interval
  is never zero-width. The floor replaces the CR1 value only in that case; it is not a lower bound on it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mcot.eval.errors import EvalError
from mcot.eval.stats import clustered_variance, is_clustered, normal_quantile


@dataclass(frozen=True)
class StratumEffect:
    """One model's effect: its name, the items it is over, the effect and the effect's variance."""

    stratum: str
    n: int
    effect: float
    variance: float


@dataclass(frozen=True)
class PooledEffect:
    """The pooled effect over strata: estimate, 95 % normal interval, standard error, p, and each stratum's weight."""

    estimate: float
    low: float
    high: float
    se: float
    p_value: float
    n: int
    strata: tuple[StratumEffect, ...]
    weights: tuple[float, ...]
    level: float = 0.95


def paired_counts(xs: Sequence[float], ys: Sequence[float]) -> tuple[int, int, int]:
    """Return (up, down, n) of paired 0/1 outcomes: pairs wrong in xs and right in ys, right then wrong, all pairs."""
    if len(xs) != len(ys):
        raise EvalError(f"paired outcomes differ in length ({len(xs)} vs {len(ys)})")
    up = sum(1 for x, y in zip(xs, ys, strict=True) if not x and y)
    down = sum(1 for x, y in zip(xs, ys, strict=True) if x and not y)
    return up, down, len(xs)


def paired_variance(up: int, down: int, n: int) -> float:
    """Return the variance of a paired difference (up − down)/n, with ½ added to each cell of the 2×2 table.

    With n' = n + 2, p₁ = (up + ½)/n' and p₂ = (down + ½)/n': (p₁ + p₂ − (p₁ − p₂)²) / n'.
    """
    if n <= 0 or up < 0 or down < 0 or up + down > n:
        raise EvalError(f"paired counts must satisfy 0 ≤ up + down ≤ n and n > 0 (got {up}, {down} of {n})")
    return _agresti_min(up, down, n)


def paired_stratum(
    stratum: str, xs: Sequence[float], ys: Sequence[float], units: Sequence[str] | None = None
) -> StratumEffect:
    """Return one model's effect of paired 0/1 outcomes (xs the baseline, ys the arm): mean(ys − xs) and its
    variance — CR1 over `units` (one cluster per item) when some cluster holds several items, else (and as the
    degenerate case's floor) `paired_variance` (see the module's text)."""
    up, down, n = paired_counts(xs, ys)
    if n == 0:
        raise EvalError(f"{stratum}: no paired items")
    floor = paired_variance(up, down, n)
    if units is None or not is_clustered(_units(stratum, units, n)):
        return StratumEffect(stratum, n, (up - down) / n, floor)
    diffs = [float(y) - float(x) for x, y in zip(xs, ys, strict=True)]
    return StratumEffect(stratum, n, (up - down) / n, _clustered_or_floor(diffs, units, floor))


def paired_means_stratum(stratum: str, xs: Sequence[float], ys: Sequence[float], units: Sequence[str]) -> StratumEffect:
    """Return one model's effect of paired per-item means in [0, 1] (xs the baseline, ys the arm, e.g. the share
    of an item's repeated samples that are right): mean(ys − xs) and its CR1 variance over `units`, the
    Agresti–Min floor where that is degenerate (see the module's text)."""
    if len(xs) != len(ys):
        raise EvalError(f"paired outcomes differ in length ({len(xs)} vs {len(ys)})")
    n = len(xs)
    if n == 0:
        raise EvalError(f"{stratum}: no paired items")
    if any(not 0.0 <= float(v) <= 1.0 for v in (*xs, *ys)):
        raise EvalError(f"{stratum}: per-item means must lie in [0, 1]")
    _units(stratum, units, n)
    diffs = [float(y) - float(x) for x, y in zip(xs, ys, strict=True)]
    up, down = sum(max(d, 0.0) for d in diffs), sum(max(-d, 0.0) for d in diffs)
    floor = _agresti_min(up, down, n)
    return StratumEffect(stratum, n, sum(diffs) / n, _clustered_or_floor(diffs, units, floor))


def _units(stratum: str, units: Sequence[str], n: int) -> Sequence[str]:
    if len(units) != n:
        raise EvalError(f"{stratum}: one cluster per paired item is needed ({n} items, {len(units)} clusters)")
    return units


def _agresti_min(up: float, down: float, n: int) -> float:
    total = n + 2
    p_up, p_down = (up + 0.5) / total, (down + 0.5) / total
    return (p_up + p_down - (p_up - p_down) ** 2) / total


def _clustered_or_floor(diffs: Sequence[float], units: Sequence[str], floor: float) -> float:
    """Return the CR1 variance of mean(diffs) over `units`, or `floor` where it is not above 0 or undefined."""
    variance = clustered_variance(diffs, units)
    return variance if variance > 0 else floor  # nan (one cluster) compares False: the floor


def pool(strata: Sequence[StratumEffect], *, level: float = 0.95) -> PooledEffect:
    """Return the item-weighted mean of the strata's effects with its normal interval (see the module's text)."""
    chosen = [s for s in strata if s.n > 0]
    if not chosen:
        raise EvalError("no stratum has paired items: nothing to pool")
    total = sum(s.n for s in chosen)
    weights = tuple(s.n / total for s in chosen)
    estimate = sum(w * s.effect for w, s in zip(weights, chosen, strict=True))
    se = math.sqrt(sum(w * w * s.variance for w, s in zip(weights, chosen, strict=True)))
    z = normal_quantile(1 - (1 - level) / 2)
    p_value = 1.0 if se == 0 else math.erfc(abs(estimate) / se / math.sqrt(2))
    return PooledEffect(
        estimate,
        max(-1.0, estimate - z * se),
        min(1.0, estimate + z * se),
        se,
        p_value,
        total,
        tuple(chosen),
        weights,
        level,
    )
