"""The study's faithfulness probes: the `[probes]` arms of one model's scored run, asked as `mcot probe` asks them.

Each arm is one `mcot.probes.run.probe_run` session over the run (its plan from the study's `[probes]` table,
its protocol the study's, concurrency, retries and response cache the run's), holding the run's lock. Probes are
lines of RUN/probes.jsonl, so a re-run of the study asks only what has no finished line yet. `max_cost` bounds
what each model's probes cost in all (the probes file's earlier lines count). The caller sets the model's key.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from mcot.core.rundir import open_run, run_lock
from mcot.probes.asker import ProbePlan
from mcot.probes.kinds import Perturbation
from mcot.probes.run import CallBreaker, ProbeSummary, open_backend, probe_run
from mcot.runconfig import RunConfig
from mcot.study.config import StudyProbes


@dataclass
class ModelProbes:
    """What one model's probes did this time: the summary per arm, the failed probes, whether a budget stopped."""

    summaries: dict[str, ProbeSummary] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        """Return the probes that ended as errors this time (asked again by the next call)."""
        return sum(summary.errors for summary in self.summaries.values())

    @property
    def budget(self) -> bool:
        """Return whether `max_cost` stopped some probes from starting."""
        return any(summary.stopped == "budget" for summary in self.summaries.values())

    @property
    def stopped(self) -> str | None:
        """Return why probes stopped other than the budget (an endpoint the circuit breaker gave up on), or None."""
        return next((s.stopped for s in self.summaries.values() if s.stopped and s.stopped != "budget"), None)


def probe_plan(probes: StudyProbes, arm: str, run_config: RunConfig, protocol: str) -> ProbePlan:
    """Return the plan of one arm's probes: the `[probes]` table's kinds, seed, limit and budget, the run's
    concurrency, retries and cache, the study's protocol."""
    return ProbePlan(arm=arm, kinds=probes.kinds, seed=probes.seed, perturbation=Perturbation(),
                     cache=run_config.cache, max_cost_usd=probes.max_cost, concurrency=run_config.concurrency,
                     max_tries=run_config.max_tries, protocol=protocol, limit=probes.limit)  # fmt: skip


def probe_model(run_config: RunConfig, probes: StudyProbes, protocol: str) -> ModelProbes:
    """Probe the `[probes]` arms of one model's run (resuming its probes file); return what was done."""
    root = Path(run_config.out)
    done = ModelProbes()
    with run_lock(root, "mcot study"):
        run = open_run(root)
        for arm in probes.arms:
            plan = probe_plan(probes, arm, run_config, protocol)
            breaker = CallBreaker()
            backend = open_backend(run, plan, breaker)
            done.summaries[arm] = asyncio.run(probe_run(root, plan, backend, breaker))
    return done
