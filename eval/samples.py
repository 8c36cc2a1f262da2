"""Repeated samples (`mcot run --samples K`): each (item, arm) answered K times, and what the repeats show.

Per benchmark and arm, over every item of sample 1 (an item an unfinished sample has no score for counts as wrong
in that sample, as a failed pair does):
- **mean accuracy**: the mean over items of each item's share of right samples, with the clustered t interval over
  the items' means (clusters: the benchmark's key; each item is one unit however many samples it has — the samples
  of an item are correlated, so they never count as independent items);
- **pass@k**: the unbiased estimator 1 − C(n−c, k)/C(n, k) per item (n samples, c right; Chen et al. 2021, the
  HumanEval estimator), averaged over items, for k = K (pass@1 is the mean accuracy);
- **majority vote**: per item the answer most samples extracted (ties: the answer given first), right when a
  sample that gave it is right; a sample with no extracted answer does not vote, and an item where none voted is
  wrong;
- **stability**: the share of items right in every sample, wrong in every sample, and mixed.

An arm's paired difference from a base arm uses the per-item means: mean(arm − base) over the items both arms
have, with the clustered t interval and the cluster-level sign-flip test (mcot.eval.stats).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcot.eval.headline import is_correct
from mcot.eval.pooled import StratumEffect, paired_means_stratum, pool
from mcot.eval.stats import cluster_sign_flip_p, clustered_mean_interval, is_clustered
from mcot.eval.tables import Table, pct

from mcot.core.rundir import SCORES, Score, order_arms, read_scores, sample_roots

SampleScores = Mapping[int, Sequence[Score]]
"""The scores of each sample of a run, by sample number (1 = the run itself)."""


@dataclass(frozen=True)
class ItemSamples:
    """One (item, arm) over the samples: the item's cluster, and per sample whether it was right and its answer."""

    id: str
    benchmark: str
    category: str
    unit: str
    rights: tuple[bool, ...]
    answers: tuple[str | None, ...]
    missing: int = 0
    """Samples with no score for this item (an unfinished sample), counted as wrong in `rights`."""

    @property
    def mean(self) -> float:
        """Return the share of this item's samples that are right."""
        return sum(self.rights) / len(self.rights)


@dataclass(frozen=True)
class SampleFigures:
    """One benchmark × arm over K samples: n items, mean accuracy with its interval, pass@K, majority, stability."""

    benchmark: str
    arm: str
    n: int
    samples: int
    mean: float
    low: float
    high: float
    pass_at_k: float
    majority: float
    always_right: float
    always_wrong: float
    mixed: float
    clusters: int | None
    missing: int
    """Sample scores absent (an unfinished sample): counted as wrong."""


@dataclass(frozen=True)
class SampleDifference:
    """An arm's paired difference from a base arm in per-item mean accuracy, with interval and p."""

    benchmark: str
    base: str
    arm: str
    n: int
    value: float
    low: float
    high: float
    p_value: float


def pass_at_k(n: int, c: int, k: int) -> float:
    """Return the unbiased pass@k of one item with `c` right among `n` samples: 1 − C(n−c, k)/C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 ≤ c ≤ n and 1 ≤ k ≤ n (got n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def majority_right(rights: Sequence[bool], answers: Sequence[str | None]) -> bool:
    """Return whether the majority answer of an item's samples is right (see the module's text for the rule)."""
    votes: Counter[str] = Counter()
    first: dict[str, int] = {}
    for index, answer in enumerate(answers):
        if answer is None or not answer.strip():
            continue
        key = answer.strip()
        votes[key] += 1
        first.setdefault(key, index)
    if not votes:
        return False
    winner = max(votes, key=lambda key: (votes[key], -first[key]))
    return any(right for right, answer in zip(rights, answers, strict=True) if (answer or "").strip() == winner)


def _voted(score: Score) -> str | None:
    if score.method in ("error", "judge_error"):
        return None
    return score.extracted


def gather(sample_scores: SampleScores) -> dict[tuple[str, str], list[ItemSamples]]:
    """Return the items of each (benchmark, arm) with their samples, in sample 1's order."""
    numbers = sorted(sample_scores)
    by_key = {k: {score.key: score for score in sample_scores[k]} for k in numbers}
    groups: dict[tuple[str, str], list[ItemSamples]] = {}
    for first in sample_scores[numbers[0]] if numbers else ():
        found = [by_key[k].get(first.key) for k in numbers]
        rights = tuple(score is not None and is_correct(score) for score in found)
        answers = tuple(_voted(score) if score is not None else None for score in found)
        missing = sum(1 for score in found if score is None)
        entry = ItemSamples(first.id, first.benchmark, first.category, first.unit, rights, answers, missing)
        groups.setdefault((first.benchmark, first.mode), []).append(entry)
    return groups


def figures(benchmark: str, arm: str, items: Sequence[ItemSamples]) -> SampleFigures:
    """Return the repeated-sample figures of one benchmark × arm (see the module's text)."""
    means = [item.mean for item in items]
    units = [item.unit for item in items]
    interval = clustered_mean_interval(means, units, limits=(0.0, 1.0))
    k = min(len(item.rights) for item in items)
    n = len(items)
    return SampleFigures(
        benchmark=benchmark,
        arm=arm,
        n=n,
        samples=k,
        mean=interval.estimate,
        low=interval.low,
        high=interval.high,
        pass_at_k=sum(pass_at_k(len(i.rights), sum(i.rights), k) for i in items) / n,
        majority=sum(majority_right(i.rights, i.answers) for i in items) / n,
        always_right=sum(all(i.rights) for i in items) / n,
        always_wrong=sum(not any(i.rights) for i in items) / n,
        mixed=sum(any(i.rights) and not all(i.rights) for i in items) / n,
        clusters=len(set(units)) if is_clustered(units) else None,
        missing=sum(item.missing for item in items),
    )


def difference(
    benchmark: str,
    names: tuple[str, str],
    base: Sequence[ItemSamples],
    arm: Sequence[ItemSamples],
    *,
    seed: int = 0,
) -> SampleDifference | None:
    """Return arm `names[1]`'s paired difference from base arm `names[0]` in per-item mean accuracy, over the items
    both have (None: none in common)."""
    base_by_id = {item.id: item for item in base}
    pairs = [(base_by_id[item.id], item) for item in arm if item.id in base_by_id]
    if not pairs:
        return None
    diffs = [b.mean - a.mean for a, b in pairs]
    units = [a.unit for a, _ in pairs]
    interval = clustered_mean_interval(diffs, units, limits=(-1.0, 1.0))
    return SampleDifference(
        benchmark=benchmark,
        base=names[0],
        arm=names[1],
        n=len(pairs),
        value=interval.estimate,
        low=interval.low,
        high=interval.high,
        p_value=cluster_sign_flip_p(diffs, units, seed=seed),
    )


def sample_figures(sample_scores: SampleScores) -> list[SampleFigures]:
    """Return the figures of every benchmark × arm (benchmarks sorted, arms in the report's order)."""
    groups = gather(sample_scores)
    rows = []
    for benchmark in sorted({b for b, _ in groups}):
        arms = order_arms([arm for b, arm in groups if b == benchmark])
        rows += [figures(benchmark, arm, groups[(benchmark, arm)]) for arm in arms]
    return rows


def sample_differences(sample_scores: SampleScores, base: str = "text", *, seed: int = 0) -> list[SampleDifference]:
    """Return each arm's paired difference from `base` per benchmark (benchmarks without `base` give none)."""
    groups = gather(sample_scores)
    found = []
    for benchmark in sorted({b for b, _ in groups}):
        if (benchmark, base) not in groups:
            continue
        for arm in order_arms([a for b, a in groups if b == benchmark and a != base]):
            diff = difference(benchmark, (base, arm), groups[(benchmark, base)], groups[(benchmark, arm)], seed=seed)
            if diff is not None:
                found.append(diff)
    return found


def _interval(low: float, high: float, signed: bool = False) -> str:
    def show(value: float) -> str:
        return f"{value * 100:+.1f}" if signed else f"{value * 100:.1f}"

    return f"[{show(low)}, {show(high)}]"


def samples_table(sample_scores: SampleScores, *, seed: int = 0) -> Table | None:
    """Return the "Repeated samples" table of a run with two or more samples (None with fewer)."""
    if len(sample_scores) < 2:
        return None
    rows = sample_figures(sample_scores)
    if not rows:
        return None
    k = len(sample_scores)
    table = Table(
        f"Repeated samples ({k} per item and arm)",
        ["benchmark", "arm", "n", "mean acc", "95% CI", f"pass@{k}", "majority", "always right", "always wrong",
         "mixed"],
    )
    for row in rows:
        table.rows.append([row.benchmark, row.arm, str(row.n), pct(row.mean), _interval(row.low, row.high),
                           pct(row.pass_at_k), pct(row.majority), pct(row.always_right), pct(row.always_wrong),
                           pct(row.mixed)])  # fmt: skip
    for diff in sample_differences(sample_scores, seed=seed):
        table.notes.append(
            f"{diff.benchmark} {diff.arm} − {diff.base} (per-item means, n={diff.n}): {diff.value * 100:+.1f} "
            f"{_interval(diff.low, diff.high, signed=True)}, sign-flip p={diff.p_value:.3g}"
        )
    clustered = [f"{row.benchmark} {row.clusters} clusters" for row in rows if row.clusters is not None]
    table.notes.append(
        "mean acc: the mean of each item's share of right samples, its 95 % interval the clustered t one over items "
        + (f"(clusters by the benchmark's key: {', '.join(dict.fromkeys(clustered))})" if clustered else "(each item "
           "its own cluster)")
        + f"; pass@{k}: the unbiased estimator; majority: the answer most samples extracted; always right/wrong, "
        "mixed: shares of items."
    )
    missing = sum(row.missing for row in rows)
    if missing:
        table.notes.append(f"{missing} sample score(s) absent (a sample not run or not scored yet): counted wrong.")
    return table


def read_sample_scores(root: Path) -> dict[int, list[Score]]:
    """Return the scores of every scored sample of the run at `root` (sample 1: the run's own scores.jsonl); a
    sample without scores.jsonl is left out."""
    found = {}
    for k, sample in sample_roots(root):
        if (sample / SCORES).is_file():
            found[k] = read_scores(sample)
    return found


def pooled_sample_effects(per_model: Mapping[str, SampleScores], base: str = "text") -> Table | None:
    """Return each arm's effect over `base` on per-item mean accuracy, pooled across models per benchmark (an
    item-weighted stratified paired estimate, strata = models, each model's variance CR1 over the benchmark's
    clusters: mcot.eval.pooled), with the models' own effects; None when no model has two or more samples."""
    strata: dict[tuple[str, str], list[StratumEffect]] = {}
    for model, scores in per_model.items():
        if len(scores) < 2:
            continue
        groups = gather(scores)
        for benchmark, arm in groups:
            if arm == base or (benchmark, base) not in groups:
                continue
            by_id = {item.id: item for item in groups[(benchmark, base)]}
            pairs = [(by_id[item.id], item) for item in groups[(benchmark, arm)] if item.id in by_id]
            if pairs:
                xs, ys = [a.mean for a, _ in pairs], [b.mean for _, b in pairs]
                effect = paired_means_stratum(model, xs, ys, [a.unit for a, _ in pairs])
                strata.setdefault((benchmark, arm), []).append(effect)
    if not strata:
        return None
    table = Table(
        f"Repeated samples: each arm − {base} on per-item mean accuracy, pooled across models",
        ["benchmark", "arm", "models", "items", "pooled Δ", "95% CI", "p", "per model Δ"],
    )
    for (benchmark, arm), effects in sorted(strata.items(), key=lambda kv: (kv[0][0], order_arms([kv[0][1]]))):
        found = pool(effects)
        own = "; ".join(f"{s.stratum} {s.effect * 100:+.1f}" for s in found.strata)
        table.rows.append([benchmark, arm, str(len(found.strata)), str(found.n), f"{found.estimate * 100:+.1f}",
                           _interval(found.low, found.high, signed=True), f"{found.p_value:.3g}", own])  # fmt: skip
    table.notes.append(
        "Per model the effect is the mean over items of (arm − base) in each item's share of right samples; models "
        "weighted by their items; each model's variance clustered by the benchmark's key (mcot.eval.pooled)."
    )
    return table
