"""Statistics for scores: paired bootstrap intervals, the exact McNemar test, Wilson intervals, PLCC and SRCC."""

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
