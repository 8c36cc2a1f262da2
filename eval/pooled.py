"""An arm's effect pooled across models: a stratified paired estimate (strata = models) with its normal interval.

Per model k the effect Δ_k is the arm's difference from the baseline on the n_k items both arms have (for 0/1
outcomes, the mean of the paired per-item differences arm − text), with a variance v_k. The pooled effect is the
weighted mean Σ w_k Δ_k with weights w_k = n_k / Σ n (items per model), its variance Σ w_k² v_k, and its 95 %
interval the normal one from that variance; p is the two-sided normal test of a pooled effect of 0.

Why items and not inverse-variance weights: the models of a study answer the same items, so item weights give
each model an equal say and the pooled effect reads as "the effect on these items, averaged over the models";
inverse-variance weights would hand the pooled effect to the model whose arms agree most (a model that ignores
its tools has Δ = 0 with the smallest variance) — the very model the question is least about.

For 0/1 outcomes v_k is the variance of the paired difference with ½ added to each cell of the model's paired
2×2 table (Agresti & Min 2005, "Simple improved confidence intervals for comparing matched proportions"): a
model whose arms agree on every item still has a variance, so the pooled interval is never zero-width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mcot.eval.errors import EvalError
from mcot.eval.stats import normal_quantile


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
    total = n + 2
    p_up, p_down = (up + 0.5) / total, (down + 0.5) / total
    return (p_up + p_down - (p_up - p_down) ** 2) / total


def paired_stratum(stratum: str, xs: Sequence[float], ys: Sequence[float]) -> StratumEffect:
    """Return one model's effect of paired 0/1 outcomes (xs the baseline, ys the arm): mean(ys − xs) and its
    variance (`paired_variance`)."""
    up, down, n = paired_counts(xs, ys)
    if n == 0:
        raise EvalError(f"{stratum}: no paired items")
    return StratumEffect(stratum, n, (up - down) / n, paired_variance(up, down, n))


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
