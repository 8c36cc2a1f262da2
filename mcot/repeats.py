"""Repeated samples (`mcot run --samples K`, `samples = K` in STUDY.toml): each (item, arm) asked K times.

Sample 1 is the run directory itself and sample k ≥ 2 the run directory RUN/samples/<k> (mcot.core.rundir.samples):
each an ordinary run of the same items, arms and settings — resumable pair by pair, with its own manifest
(`config.sample_index` = k), results, traces and scores — so that every tool that reads a run reads a sample. Sample k
is sent the seed `--seed` + k − 1 (none without --seed) and runs its pairs in an order drawn from that seed; the
items are drawn once, from `--seed`, for all samples. The samples run one after the other; a `--max-cost` budget
is shared by all of them, and an interrupt, a budget stop or a dead endpoint ends the whole call.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from mcot.core.rundir import sample_root
from mcot.failures import FailureSummary
from mcot.runconfig import RunConfig
from mcot.runner import RunSummary, run_items


def sample_configs(config: RunConfig) -> list[RunConfig]:
    """Return the configuration of each of the `config.samples` samples, sample 1 (`config` itself) first."""
    return [
        dataclasses.replace(config, out=sample_root(Path(config.out), k), sample_index=k)
        for k in range(1, config.samples + 1)
    ]


def run_samples(config: RunConfig, *, quiet: bool = False) -> RunSummary:
    """Run every sample of `config` in turn (finished pairs are never redone); return their summaries combined
    (`RunSummary.samples` holds each sample's own)."""
    summaries: list[RunSummary] = []
    spent = 0.0
    for sample in sample_configs(config):
        if config.max_cost is not None:
            sample = dataclasses.replace(sample, max_cost=max(0.0, config.max_cost - spent))
        summary = run_items(sample, quiet=quiet)
        summaries.append(summary)
        spent += summary.spent_usd
        if summary.stopped is not None:
            break
    return combined(Path(config.out), summaries, config.max_cost)


def combined(root: Path, summaries: Sequence[RunSummary], max_cost: float | None) -> RunSummary:
    """Return one summary of several samples' sessions: counts added, the first stop, the money spent by all."""
    if len(summaries) == 1:
        return summaries[0]
    by_status: Counter[str] = Counter()
    failures = FailureSummary()
    for summary in summaries:
        by_status.update(summary.by_status)
        failures.failed += summary.failures.failed
        failures.by_status.update(summary.failures.by_status)
        failures.causes.update(summary.failures.causes)
    stops = [summary.stopped for summary in summaries if summary.stopped is not None]
    return RunSummary(
        run_dir=root,
        total=sum(s.total for s in summaries),
        skipped_done=sum(s.skipped_done for s in summaries),
        by_status=dict(by_status),
        wall_s=sum(s.wall_s for s in summaries),
        failures=failures,
        succeeded=sum(s.succeeded for s in summaries),
        stopped=stops[0] if stops else None,
        not_started=sum(s.not_started for s in summaries),
        cancelled=sum(s.cancelled for s in summaries),
        spent_usd=sum(s.spent_usd for s in summaries),
        max_cost_usd=max_cost,
        samples=list(summaries),
    )
