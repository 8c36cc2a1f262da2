"""`mcot probe`: ask a run's model again for the final answers of an arm, with its own observations changed.

For every finished (status ok) pair of the arm and every kind asked for, the pair's final request is rebuilt from
its trace (mcot.probes.conversation), the images after the model's first drawing are replaced (mcot.probes.kinds),
the request goes to the model the manifest names (its endpoints, sampling, retries, the response cache with
`cache`), and the answer is read by the benchmark's protocol, as `mcot score` reads it without a judge. Each
probe is a line of RUN/probes.jsonl (mcot.core.rundir.probes): a resume asks only for what has no line yet (or
whose line is an error), and `max_cost_usd` stops starting probes once what they cost reaches it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.agents.backends import load_model
from mcot.agents.backends.base import ModelBackend
from mcot.agents.cache import CachedBackend
from mcot.agents.retry import RetryPolicy
from mcot.breaker import CircuitBreaker
from mcot.core.errors import UsageError
from mcot.core.inputs import check_folder_or_absent
from mcot.core.rundir import Run, open_run
from mcot.core.rundir.probes import Probe, ProbeLedger
from mcot.probes.asker import Asker, ProbePlan, probe_cost
from mcot.spending import check_priced


@dataclass
class ProbeSummary:
    """What one `mcot probe` session did: lines written by outcome, lines kept from before, money spent."""

    asked: int = 0
    cached: int = 0
    no_drawing: int = 0
    errors: int = 0
    kept: int = 0
    spent_usd: float = 0.0
    stopped: str | None = None
    causes: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """Return the summary in one line."""
        parts = [f"{self.asked} asked ({self.cached} from the cache)", f"{self.no_drawing} without a drawing",
                 f"{self.errors} failed", f"{self.kept} kept from before"]  # fmt: skip
        if self.stopped:
            parts.append(f"stopped: {self.stopped}")
        return "probes: " + ", ".join(parts)


class CallBreaker(CircuitBreaker):
    """The run's circuit breaker as a retry observer: an endpoint that stops answering (or answers 401/403) stops
    the probes from starting, and the retries of those in flight (a `CircuitBreaker` is itself a retry observer)."""


def open_backend(run: Run, plan: ProbePlan, breaker: CallBreaker | None = None) -> ModelBackend:
    """Return the run's model as the manifest names it, with retries (heard by `breaker`) and (when asked) the
    response cache; raise UsageError for a run without a chat model or a spec that cannot load."""
    if plan.cache is not None:  # before any probe: a file there would fail every probe's cache write
        check_folder_or_absent(plan.cache, option="--cache", holds="the response cache lives in")
    spec = run.manifest.model_spec
    if not spec:
        raise UsageError(f"{run.root} names no chat model: only runs of `mcot run` can be probed")
    base_url = run.manifest.model.base_url if run.manifest.model is not None else None
    try:
        backend: Any = load_model(
            spec, base_url=base_url, retry=RetryPolicy(max_tries=plan.max_tries, observer=breaker)
        )
    except Exception as exc:  # an unknown spec or a missing key: the backend's message says what to fix
        raise UsageError(f"cannot use the run's model {spec!r}: {exc}") from exc
    check_priced(plan.max_cost_usd, backend.provider, backend.model, spec)
    if plan.cache is not None:
        backend = CachedBackend(backend, plan.cache)
    return backend


async def probe_run(
    root: Path, plan: ProbePlan, backend: ModelBackend, breaker: CircuitBreaker | None = None
) -> ProbeSummary:
    """Probe every finished pair of `plan.arm` in every kind of `plan.kinds` that has no finished line yet; return
    what was done. No probe starts once `plan.max_cost_usd` is spent or `breaker` is open (those left have no line:
    the next session asks them). The caller holds the run's lock."""
    run = open_run(Path(root))
    asker = Asker.for_run(run, plan, backend)
    requests = asker.requests
    ledger = ProbeLedger(run.root)
    before = ledger.latest()
    summary = ProbeSummary(spent_usd=sum(probe_cost(line) for line in ledger.records()))
    chosen = list(requests)[: plan.limit] if plan.limit is not None else list(requests)
    todo = [(item_id, kind) for item_id in chosen for kind in plan.kinds]
    summary.kept = sum(1 for item_id, kind in todo if (p := before.get((item_id, plan.arm, kind))) and p.done)
    todo = [(i, k) for i, k in todo if not ((p := before.get((i, plan.arm, k))) and p.done)]
    gate = asyncio.Semaphore(plan.concurrency)
    ledger.open()
    try:

        async def one(item_id: str, kind: str) -> None:
            async with gate:
                if plan.max_cost_usd is not None and summary.spent_usd >= plan.max_cost_usd:
                    summary.stopped = "budget"
                    return
                if breaker is not None and breaker.opened is not None:
                    summary.stopped = breaker.opened
                    return
                try:
                    probe = await asker.probe(item_id, kind)
                except Exception as exc:  # an unreadable image or blob: this probe's error line, never the session's
                    probe = Probe(id=item_id, arm=plan.arm, kind=kind, status="error",
                                  error=f"{type(exc).__name__}: {exc}"[:500])  # fmt: skip
                ledger.append(probe)
                summary.spent_usd += probe_cost(probe)
                if probe.status == "no_drawing":
                    summary.no_drawing += 1
                elif probe.status == "error":
                    summary.errors += 1
                    cause = (probe.error or "unknown")[:80]
                    summary.causes[cause] = summary.causes.get(cause, 0) + 1
                else:
                    summary.asked += 1
                    summary.cached += bool(probe.usage.get("cached"))

        await asyncio.gather(*(one(item_id, kind) for item_id, kind in todo))
    finally:
        ledger.close()
    return summary
