"""Agreement between raters: raw agreement, Cohen's κ (weighted for ordinal scales), Krippendorff's α, mean SPS.

Pure functions over paired values, with numpy only (scipy is not needed at run time). Each returns nan where the
figure is undefined (no pairs; κ or α when chance agreement is already perfect, e.g. both raters constant).

- raw agreement = pairs with equal values / pairs;
- Cohen's κ = 1 − Σ w·o / Σ w·e over the categories, o the observed joint proportions, e the product of the two
  raters' marginals; unweighted: w = 0 on the diagonal and 1 off it (nominal values); quadratic weights:
  w = ((x_i − x_j) / (max − min))² (ordinal values, read as numbers);
- Krippendorff's α = 1 − D_o / D_e from the coincidence matrix of the units with at least two values (any number
  of raters, missing values allowed), δ² = 0/1 (nominal) or (c − k)² (interval);
- mean SPS = the mean over items of GOBench's max(0, 1 − |s_model − s_human| / δ), δ = 0.5 (mcot.eval.proximity).

Quadratic-weighted κ and interval α agree with each other as Pearson-like measures do, so an ordinal dimension is
read with both; a nominal one with unweighted κ and nominal α.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np
from mcot.eval.errors import EvalError
from mcot.eval.proximity import SPS_DELTA, scaled_proximity_score

Weights = Literal["none", "quadratic"]
Metric = Literal["nominal", "interval"]


def _paired(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise EvalError(f"agreement needs paired values ({len(a)} vs {len(b)})")


def raw_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Return the share of pairs whose two values are equal (nan without pairs)."""
    _paired(a, b)
    if not a:
        return math.nan
    return sum(1 for x, y in zip(a, b, strict=True) if x == y) / len(a)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], *, weights: Weights = "none") -> float:
    """Return Cohen's κ of two raters' paired values: unweighted, or with quadratic weights (numeric values).

    nan without pairs or when the expected disagreement is 0 (both raters gave one and the same value throughout).
    """
    _paired(a, b)
    if not a:
        return math.nan
    categories = sorted(set(a) | set(b), key=lambda value: (str(type(value)), value))
    where = {value: index for index, value in enumerate(categories)}
    k = len(categories)
    observed = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        observed[where[x], where[y]] += 1
    observed /= len(a)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    if weights == "quadratic":
        numbers = np.asarray([float(value) for value in categories])  # type: ignore[arg-type]
        spread = float(numbers.max() - numbers.min()) if k > 1 else 0.0
        w = ((numbers[:, None] - numbers[None, :]) / (spread or 1.0)) ** 2
    else:
        w = 1.0 - np.eye(k)
    disagreement = float((w * expected).sum())
    if disagreement == 0:
        return math.nan
    return 1.0 - float((w * observed).sum()) / disagreement


def krippendorff_alpha(units: Sequence[Sequence[Hashable]], *, metric: Metric = "nominal") -> float:
    """Return Krippendorff's α of units (each the values its raters gave it; missing ones simply absent).

    Units with fewer than two values carry no pairs and are left out; nan when fewer than two values remain
    or the expected disagreement is 0 (a single value throughout).
    """
    coincidence: defaultdict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for values in units:
        m = len(values)
        if m < 2:
            continue
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    coincidence[(c, k)] += 1.0 / (m - 1)
    if not coincidence:
        return math.nan
    marginal: defaultdict[Hashable, float] = defaultdict(float)
    for (c, _), count in coincidence.items():
        marginal[c] += count
    n = sum(marginal.values())
    if n < 2:
        return math.nan

    def delta(c: Hashable, k: Hashable) -> float:
        if metric == "interval":
            return (float(c) - float(k)) ** 2  # type: ignore[arg-type]
        return 0.0 if c == k else 1.0

    observed = sum(count * delta(c, k) for (c, k), count in coincidence.items()) / n
    expected = sum(marginal[c] * marginal[k] * delta(c, k) for c in marginal for k in marginal) / (n * (n - 1))
    if expected == 0:
        return math.nan
    return 1.0 - observed / expected


def mean_sps(model: Sequence[float], human: Sequence[float], delta: float = SPS_DELTA) -> float:
    """Return the mean Scaled Proximity Score of paired model and human scores (GOBench's formula; nan if none)."""
    _paired(model, human)
    if not model:
        return math.nan
    return sum(scaled_proximity_score(m, h, delta) for m, h in zip(model, human, strict=True)) / len(model)
