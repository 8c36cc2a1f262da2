"""Statistics for scores: intervals, paired tests, power, multiple comparisons, correlations.

Intervals: Wilson (a proportion), Clopper–Pearson (exact), a paired percentile bootstrap, and the exact
conditional interval of a paired difference with few discordant pairs (`exact_paired_interval`, consistent
with the exact McNemar test). Tests: the exact McNemar test, the paired sign-flip test (non-binary values).
Power of the paired McNemar design (Connor 1987): the smallest detectable difference and the items needed;
`mcnemar_power` computes the exact power for checking. Holm's step-down correction. PLCC and SRCC.
Clustered errors (items that share a cluster are not independent): the cluster-robust standard error of a mean
(inspect_ai's `stderr(cluster=...)`), its t interval, the clustered Wilson interval, the clustered interval of a
paired difference, the cluster bootstrap, the cluster-level sign-flip test, the design effect.
Pure functions of numbers: no scipy at run time (the tests compare with it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from mcot.eval.errors import EvalError


@dataclass(frozen=True)
class Interval:
    """A point estimate with a confidence interval [low, high] at `level`."""

    estimate: float
    low: float
    high: float
    level: float = 0.95


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, n_boot: int = 10_000, seed: int = 0, level: float = 0.95
) -> Interval:
    """Return mean(b) - mean(a) with a percentile bootstrap interval, resampling paired items (seeded)."""
    if len(a) != len(b):
        raise EvalError(f"paired samples differ in length ({len(a)} vs {len(b)})")
    if not a:
        raise EvalError("no paired items to resample")
    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    chunk = max(1, 2_000_000 // len(diffs))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        picks = rng.integers(0, len(diffs), size=(stop - start, len(diffs)))
        means[start:stop] = diffs[picks].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return Interval(float(diffs.mean()), float(low), float(high), level)


def mcnemar_exact(b: int, c: int) -> float:
    """Return the two-sided exact McNemar p-value for `b` and `c` discordant pairs (binomial, p = 1/2)."""
    if b < 0 or c < 0:
        raise EvalError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def wilson_interval(successes: int, n: int, level: float = 0.95) -> Interval:
    """Return the proportion successes/n with its Wilson score interval."""
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, level)
    z = _normal_quantile(1 - (1 - level) / 2)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), level)


def _normal_quantile(q: float) -> float:
    """Return the standard normal quantile (bisection on erf; exact enough for intervals)."""
    low, high = -10.0, 10.0
    for _ in range(80):
        mid = (low + high) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def plcc(x: Sequence[float], y: Sequence[float]) -> float:
    """Return Pearson's linear correlation coefficient of x and y (nan when either is constant or n < 2)."""
    if len(x) != len(y):
        raise EvalError(f"correlation needs paired values ({len(x)} vs {len(y)})")
    if len(x) < 2:
        return math.nan
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    dx, dy = xs - xs.mean(), ys - ys.mean()
    norm = math.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    if norm == 0:
        return math.nan
    return float((dx * dy).sum() / norm)


def rank_average(values: Sequence[float]) -> list[float]:
    """Return the 1-based ranks of `values`, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        stop = start
        while stop + 1 < len(order) and values[order[stop + 1]] == values[order[start]]:
            stop += 1
        for position in range(start, stop + 1):
            ranks[order[position]] = (start + stop) / 2 + 1
        start = stop + 1
    return ranks


def srcc(x: Sequence[float], y: Sequence[float]) -> float:
    """Return Spearman's rank correlation of x and y (Pearson on average ranks)."""
    if len(x) != len(y):
        raise EvalError(f"correlation needs paired values ({len(x)} vs {len(y)})")
    return plcc(rank_average(list(x)), rank_average(list(y)))


SMALL_DISCORDANCE = 20
"""Fewer discordant pairs than this: a paired difference gets the exact conditional interval, not a percentile
bootstrap (which can be zero-width, e.g. [+100, +100] from 12 pairs that all went one way). From this many on, a
bootstrap that still comes out zero-width is replaced by the exact interval too (`never_zero_width`)."""


def never_zero_width(bootstrap: tuple[float, float], exact: Interval) -> tuple[float, float, bool]:
    """Return (low, high, replaced): the bootstrap bounds, or the exact interval's when the bootstrap has zero width
    (every resample gave the same difference); only a comparison over no pair may have no width."""
    low, high = bootstrap
    if low == high:
        return exact.low, exact.high, True
    return low, high, False


def normal_quantile(q: float) -> float:
    """Return the standard normal quantile of `q` in (0, 1)."""
    if not 0 < q < 1:
        raise EvalError(f"a normal quantile needs 0 < q < 1, got {q}")
    return _normal_quantile(q)


def _log_pmf(k: int, n: int, p: float) -> float:
    if p <= 0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1:
        return 0.0 if k == n else -math.inf
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p) + (n - k) * math.log1p(-p)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """Return P(X ≤ k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return min(1.0, sum(math.exp(_log_pmf(i, n, p)) for i in range(k + 1)))


def clopper_pearson(successes: int, n: int, level: float = 0.95) -> Interval:
    """Return successes/n with its exact (Clopper–Pearson) interval: each bound leaves (1 − level)/2 in its tail."""
    if n <= 0 or not 0 <= successes <= n:
        raise EvalError(f"a proportion needs 0 ≤ successes ≤ n and n > 0 (got {successes} of {n})")
    tail = (1 - level) / 2

    def solve(upper_tail: bool) -> float:
        low, high = 0.0, 1.0
        for _ in range(60):
            mid = (low + high) / 2
            if upper_tail:  # lower bound: P(X ≥ successes | p) = tail
                too_low = 1 - binomial_cdf(successes - 1, n, mid) < tail
            else:  # upper bound: P(X ≤ successes | p) = tail
                too_low = binomial_cdf(successes, n, mid) > tail
            low, high = (mid, high) if too_low else (low, mid)
        return (low + high) / 2

    low = 0.0 if successes == 0 else solve(True)
    high = 1.0 if successes == n else solve(False)
    return Interval(successes / n, low, high, level)


def wilson_bounds(p: float, n: float, level: float = 0.95) -> Interval:
    """Return the proportion `p` with the Wilson score interval for a (possibly effective, non-integer) `n`."""
    if n <= 0:
        return Interval(math.nan, math.nan, math.nan, level)
    z = _normal_quantile(1 - (1 - level) / 2)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), level)


def exact_paired_interval(
    up: int, down: int, n: int, *, level: float = 0.95, share: float | None = None, estimate: float | None = None
) -> Interval:
    """Return the paired difference (up − down)/n with the exact conditional interval.

    Given the d = up + down discordant pairs, `up` is Binomial(d, π) and the difference is share × (2π − 1), with
    `share` the discordant pairs' part of the metric (d/n unless given, e.g. by weight). The interval maps the
    Clopper–Pearson interval of π, so it excludes 0 exactly when the exact McNemar test has p < 1 − level. With no
    discordant pair the difference is 0 and the interval is ±u, u the Clopper–Pearson upper bound of a discordant
    share of 0 in n pairs (no difference larger than the pairs that could differ).
    """
    if n <= 0 or up < 0 or down < 0 or up + down > n:
        raise EvalError(f"paired counts must satisfy 0 ≤ up + down ≤ n (got {up}, {down} of {n})")
    d = up + down
    if d == 0:
        bound = clopper_pearson(0, n, level).high
        return Interval(0.0 if estimate is None else estimate, -bound, bound, level)
    weight = d / n if share is None else share
    split = clopper_pearson(up, d, level)
    value = weight * (2 * up / d - 1) if estimate is None else estimate
    return Interval(value, weight * (2 * split.low - 1), weight * (2 * split.high - 1), level)


def holm(p_values: Sequence[float]) -> list[float]:
    """Return Holm's step-down adjusted p-values, in the order given (each at most 1, never below its raw value)."""
    order = sorted(range(len(p_values)), key=lambda index: p_values[index])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def sign_flip_p(differences: Sequence[float], *, n_resamples: int = 20_000, seed: int = 0) -> float:
    """Return the two-sided paired sign-flip (permutation) p-value of mean(differences) = 0.

    Exact over every sign assignment of the non-zero differences when there are at most 16, else estimated from
    `n_resamples` seeded assignments ((k + 1) / (N + 1)). For 0/1 outcomes this is the exact McNemar test.
    """
    nonzero = np.asarray([d for d in differences if d != 0], dtype=float)
    if nonzero.size == 0:
        return 1.0
    observed = abs(float(nonzero.sum())) - 1e-12 * max(1.0, float(np.abs(nonzero).sum()))
    if nonzero.size <= 16:
        signs = ((np.arange(2**nonzero.size)[:, None] >> np.arange(nonzero.size)) & 1) * 2 - 1
        sums = np.abs(signs @ nonzero)
        return float(np.mean(sums >= observed))
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(n_resamples, nonzero.size)) * 2 - 1
    sums = np.abs(signs @ nonzero)
    return float((np.sum(sums >= observed) + 1) / (n_resamples + 1))


def independent_discordance(p_a: float, p_b: float) -> float:
    """Return the share of discordant pairs expected when two arms' outcomes are independent: pa(1−pb) + pb(1−pa)."""
    return p_a * (1 - p_b) + p_b * (1 - p_a)


def items_needed(discordance: float, effect: float, *, alpha: float = 0.05, power: float = 0.80) -> int:
    """Return the paired items a two-sided McNemar test needs to detect `effect` (Connor 1987).

    n = (z_{1−α/2} √ψ + z_{power} √(ψ − δ²))² / δ², ψ the share of discordant pairs and δ the difference; raise
    EvalError when δ is 0 or larger than ψ (no pairing can show a difference larger than the pairs that differ).
    """
    delta = abs(effect)
    if not 0 < delta <= discordance <= 1:
        raise EvalError(
            f"the effect {effect:g} must be non-zero and at most the discordant share {discordance:g} "
            "(a difference needs pairs that differ)"
        )
    z_alpha, z_power = _normal_quantile(1 - alpha / 2), _normal_quantile(power)
    n = (z_alpha * math.sqrt(discordance) + z_power * math.sqrt(discordance - delta * delta)) ** 2 / (delta * delta)
    return math.ceil(n - 1e-9)


def detectable_difference(n: float, discordance: float, *, alpha: float = 0.05, power: float = 0.80) -> float | None:
    """Return the smallest paired difference a two-sided McNemar test on `n` pairs detects with `power` (Connor).

    It solves Connor's formula (`items_needed`) for δ given n and the discordant share ψ; None when n is 0 or ψ
    is 0 (no pair differs: the data say nothing about the size of a difference).
    """
    if n <= 0 or discordance <= 0:
        return None
    z_alpha, z_power = _normal_quantile(1 - alpha / 2), _normal_quantile(power)

    def gap(delta: float) -> float:
        return math.sqrt(n) * delta - z_alpha * math.sqrt(discordance) - z_power * math.sqrt(discordance - delta**2)

    low, high = 0.0, discordance
    if gap(high) < 0:
        return discordance  # even every discordant pair one way would not reach the power: the largest possible
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if gap(mid) < 0 else (low, mid)
    return (low + high) / 2


def mcnemar_power(n: int, p_up: float, p_down: float, *, alpha: float = 0.05) -> float:
    """Return the exact power of the two-sided exact McNemar test on `n` pairs (each pair discordant "up" with
    probability p_up, "down" with p_down): the sum over d of P(d discordant) × P(reject | d)."""
    psi = p_up + p_down
    if n <= 0 or psi <= 0:
        return 0.0
    share = p_up / psi
    total = 0.0
    for d in range(1, n + 1):
        weight = math.exp(_log_pmf(d, n, psi))
        if weight < 1e-15:
            continue
        critical = _critical_count(d, alpha)
        if critical < 0:
            continue
        total += weight * (binomial_cdf(critical, d, share) + 1 - binomial_cdf(d - critical - 1, d, share))
    return total


def _critical_count(d: int, alpha: float) -> int:
    """Return the largest k with mcnemar_exact(k, d − k) < alpha (k ≤ d/2), or −1 when none rejects."""
    k = -1
    tail = 0.0
    for candidate in range(d // 2 + 1):
        tail += math.comb(d, candidate) / 2**d
        if min(1.0, 2 * tail) < alpha:
            k = candidate
        else:
            break
    return k


# --- clustered errors ------------------------------------------------------------------------------------------
# Items that share a cluster (GePBench's questions on one figure) are not independent: the variance of a mean is the
# cluster-robust sandwich over per-cluster sums of deviations, with the G/(G−1) small-sample factor, as inspect_ai's
# `stderr(cluster=...)` computes it. Every function takes one value per item and one cluster per item (any labels).


def cluster_groups(clusters: Sequence[str]) -> list[list[int]]:
    """Return the item indices of each cluster, the clusters in the order their first item appears."""
    where: dict[str, list[int]] = {}
    for index, cluster in enumerate(clusters):
        where.setdefault(cluster, []).append(index)
    return list(where.values())


def is_clustered(clusters: Sequence[str]) -> bool:
    """Return whether some cluster holds more than one item (False: every item is its own cluster)."""
    return len(set(clusters)) < len(clusters)


def _checked(values: Sequence[float], clusters: Sequence[str]) -> np.ndarray:
    if len(values) != len(clusters):
        raise EvalError(f"one cluster per value is needed ({len(values)} values, {len(clusters)} clusters)")
    if not values:
        raise EvalError("no values to compute a clustered error from")
    return np.asarray(values, dtype=float)


def clustered_variance(values: Sequence[float], clusters: Sequence[str]) -> float:
    """Return the cluster-robust (CR1) variance of the mean of `values`: G/(G−1) · Σ_g (Σ_{i∈g} (x_i − x̄))² / n².

    G is the number of clusters and n of values; nan with fewer than two clusters (nothing to compare a cluster
    with). With every item its own cluster it is s²/n, the square of the ordinary standard error (s with n − 1).
    """
    xs = _checked(values, clusters)
    groups = cluster_groups(clusters)
    if len(groups) < 2:
        return math.nan
    deviations = xs - xs.mean()
    sums = np.asarray([deviations[group].sum() for group in groups])
    return float(len(groups) / (len(groups) - 1) * float((sums * sums).sum()) / (len(xs) * len(xs)))


def clustered_stderr(values: Sequence[float], clusters: Sequence[str]) -> float:
    """Return the cluster-robust standard error of the mean of `values` (the square root of clustered_variance)."""
    return math.sqrt(clustered_variance(values, clusters))


def design_effect(values: Sequence[float], clusters: Sequence[str]) -> float:
    """Return the clustered variance of the mean over the item-level one (the same sandwich, each item alone).

    1.0 when either is undefined or zero (all values alike, fewer than two clusters): nothing to correct by.
    """
    xs = _checked(values, clusters)
    items = clustered_variance(list(xs), [str(i) for i in range(len(xs))]) if len(xs) > 1 else math.nan
    grouped = clustered_variance(values, clusters)
    if not items > 0 or not grouped > 0:  # nan or zero
        return 1.0
    return grouped / items


def effective_n(values: Sequence[float], clusters: Sequence[str]) -> float:
    """Return n over the design effect, at most n (negative correlation within clusters never narrows an interval);
    with a single cluster, 1 (one independent unit, however many items it holds)."""
    if len(set(clusters)) < 2:
        return 1.0
    return min(float(len(values)), len(values) / design_effect(values, clusters))


def _t_cdf(t: float, df: float) -> float:
    """Return P(T ≤ t) for Student's t with `df` degrees of freedom (Simpson's rule on the density from 0 to |t|)."""
    x = np.linspace(0.0, abs(t), 4001)
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    density = np.exp(log_c - (df + 1) / 2 * np.log1p(x * x / df))
    h = abs(t) / 4000
    area = h / 3 * float(density[0] + density[-1] + 4 * density[1:-1:2].sum() + 2 * density[2:-1:2].sum())
    return 0.5 + area if t >= 0 else 0.5 - area


def t_quantile(q: float, df: float) -> float:
    """Return the quantile `q` in (0, 1) of Student's t with `df` ≥ 1 degrees of freedom."""
    if not 0 < q < 1 or df < 1:
        raise EvalError(f"a t quantile needs 0 < q < 1 and df ≥ 1, got q={q}, df={df}")
    if q < 0.5:
        return -t_quantile(1 - q, df)
    high = 1.0
    while _t_cdf(high, df) < q:
        high *= 2
    low = 0.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if _t_cdf(mid, df) < q else (low, mid)
    return (low + high) / 2


def clustered_mean_interval(
    values: Sequence[float],
    clusters: Sequence[str],
    *,
    level: float = 0.95,
    limits: tuple[float, float] = (-math.inf, math.inf),
) -> Interval:
    """Return the mean of `values` ± t_{G−1} × its clustered standard error, clipped to `limits`.

    This is inspect_ai's `ci(method="t", cluster=...)`. With fewer than two clusters the interval is `limits`
    (nothing estimates the variance between clusters).
    """
    xs = _checked(values, clusters)
    mean = float(xs.mean())
    groups = len(cluster_groups(clusters))
    if groups < 2:
        return Interval(mean, limits[0], limits[1], level)
    half = t_quantile(1 - (1 - level) / 2, groups - 1) * clustered_stderr(values, clusters)
    return Interval(mean, max(limits[0], mean - half), min(limits[1], mean + half), level)


def clustered_paired_interval(
    a: Sequence[float], b: Sequence[float], clusters: Sequence[str], *, level: float = 0.95
) -> Interval:
    """Return mean(b − a) with its clustered interval, for scores in [0, 1] (so clipped to [−1, 1]): the variance
    comes from the per-cluster sums of the paired differences' deviations."""
    if len(a) != len(b):
        raise EvalError(f"paired samples differ in length ({len(a)} vs {len(b)})")
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    return clustered_mean_interval(diffs, clusters, level=level, limits=(-1.0, 1.0))


def clustered_wilson(values: Sequence[float], clusters: Sequence[str], level: float = 0.95) -> Interval:
    """Return the mean of 0/1 (or [0, 1]) values with the clustered Wilson interval (inspect_ai's `ci_wilson`).

    The Korn–Graubard effective size p(1 − p)/v (v the clustered variance, capped at n; n itself where p is 0 or 1
    or v is 0) and a t critical value with G − 1 degrees of freedom take the place of n and z. With fewer than two
    clusters the interval is [0, 1].
    """
    xs = _checked(values, clusters)
    p = float(xs.mean())
    groups = len(cluster_groups(clusters))
    if groups < 2:
        return Interval(p, 0.0, 1.0, level)
    n = float(len(xs))
    variance, spread = clustered_variance(values, clusters), p * (1 - p)
    if spread > 0 and variance > 0:
        n = min(spread / variance, n)
    critical = t_quantile(1 - (1 - level) / 2, groups - 1)
    denominator = 1 + critical * critical / n
    centre = (p + critical * critical / (2 * n)) / denominator
    half = critical * math.sqrt(spread / n + critical * critical / (4 * n * n)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), level)


def resample_clusters(groups: Sequence[Sequence[int]], rng: np.random.Generator) -> np.ndarray:
    """Return the item indices of one cluster-bootstrap resample: G clusters drawn with replacement, all their items.

    With every item its own cluster (in item order) this is the item bootstrap's draw, number for number.
    """
    picks = rng.integers(0, len(groups), size=len(groups))
    if all(len(group) == 1 for group in groups):
        return np.asarray([groups[j][0] for j in picks], dtype=int)
    return np.concatenate([np.asarray(groups[j], dtype=int) for j in picks])


def cluster_paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[str],
    *,
    n_boot: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """Return mean(b) − mean(a) with a percentile cluster bootstrap: whole clusters resampled (seeded).

    Every item its own cluster: `paired_bootstrap` itself, the same resamples.
    """
    if not is_clustered(clusters):
        return paired_bootstrap(a, b, n_boot=n_boot, seed=seed, level=level)
    diffs = _checked([y - x for x, y in zip(a, b, strict=True)], clusters)
    groups = cluster_groups(clusters)
    sums = np.asarray([diffs[group].sum() for group in groups])
    sizes = np.asarray([len(group) for group in groups], dtype=float)
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    chunk = max(1, 2_000_000 // len(groups))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        picks = rng.integers(0, len(groups), size=(stop - start, len(groups)))
        means[start:stop] = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return Interval(float(diffs.mean()), float(low), float(high), level)


def cluster_sums(values: Sequence[float], clusters: Sequence[str]) -> list[float]:
    """Return the sum of `values` per cluster, the clusters in the order their first item appears."""
    xs = _checked(values, clusters)
    return [float(xs[group].sum()) for group in cluster_groups(clusters)]


def cluster_sign_flip_p(
    differences: Sequence[float], clusters: Sequence[str], *, n_resamples: int = 20_000, seed: int = 0
) -> float:
    """Return the two-sided sign-flip p-value of mean(differences) = 0 with one sign per cluster.

    Swapping the two arms of a whole cluster is what the null hypothesis allows when items of a cluster are
    correlated; the test flips the per-cluster sums (`sign_flip_p`). Every item its own cluster: sign_flip_p.
    """
    return sign_flip_p(cluster_sums(differences, clusters), n_resamples=n_resamples, seed=seed)


def share_interval(rights: Sequence[float], clusters: Sequence[str], level: float = 0.95) -> Interval:
    """Return the share of 0/1 `rights` with its Wilson interval, the clustered Wilson one where items share a
    cluster (nan without items)."""
    if not rights:
        return Interval(math.nan, math.nan, math.nan, level)
    if is_clustered(clusters):
        return clustered_wilson(rights, clusters, level)
    return wilson_interval(int(sum(rights)), len(rights), level)
