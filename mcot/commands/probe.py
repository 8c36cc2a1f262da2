"""`mcot probe RUN --arm ARM [--kinds blank,shuffle,perturb] [--limit N] [--seed S] [--shift PX | --mirror]
[--protocol P] [--cache DIR] [--max-cost USD]`: faithfulness probes of an arm's finished pairs into RUN/probes.jsonl."""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from mcot.breaker import check_endpoints_now, guarded
from mcot.command_options import ProbeOptions
from mcot.core.errors import UsageError
from mcot.core.options import validated
from mcot.core.rundir import open_run, run_lock
from mcot.core.rundir.probes import PROBES, read_probes
from mcot.eval.probes import probe_tables
from mcot.eval.scoring import BOTH, check_protocol
from mcot.probes.asker import ProbePlan
from mcot.probes.kinds import Perturbation, parse_kinds
from mcot.probes.report import rewrite_probe_section
from mcot.probes.run import CallBreaker, open_backend, probe_run

BUDGET_EXIT = 4
FAILED_EXIT = 3
INTERRUPTED_EXIT = 130


@validated(ProbeOptions)
def run_probe(
    run_dir: Path,
    arm: str,
    kinds: str = "blank,shuffle,perturb",
    limit: int | None = None,
    seed: int = 0,
    shift: float = 20.0,
    mirror: bool = False,
    protocol: str = "official",
    cache: Path | None = None,
    max_cost: float | None = None,
    concurrency: int = 4,
    max_tries: int = 6,
) -> int:
    """Probe the finished pairs of `arm`, print the figures; return 0, 3 when some probes failed, 4 when the
    `max_cost` budget stopped it (re-running the same command resumes)."""
    try:
        protocol = check_protocol(protocol)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if protocol == BOTH:
        raise UsageError("--protocol both is for `mcot score`; a probe reads its answers with one protocol")
    plan = ProbePlan(arm=arm, kinds=parse_kinds(kinds), seed=seed, perturbation=Perturbation(shift, mirror),
                     cache=cache, max_cost_usd=max_cost, concurrency=concurrency, max_tries=max_tries,
                     protocol=protocol, limit=limit)  # fmt: skip
    root = Path(run_dir)
    run = open_run(root)
    breaker = CallBreaker()
    backend = open_backend(run, plan, breaker)
    breaker.subject = guarded("model", run.manifest.model_spec or "", backend)
    check_endpoints_now(backend)  # a dead endpoint refuses the command before anything is written
    with run_lock(root, "mcot probe"):
        try:
            summary = asyncio.run(probe_run(root, plan, backend, breaker))
        except KeyboardInterrupt:  # the probes file holds every line finished so far: a rerun resumes
            typer.echo(f"mcot: interrupted; re-run the same command to resume ({root / PROBES})", err=True)
            return INTERRUPTED_EXIT
    typer.echo(summary.line())
    rewritten = rewrite_probe_section(open_run(root))  # the report `mcot score` wrote agrees with the probes
    if rewritten is not None:
        typer.echo(f"updated the probe table of {rewritten}")
    for cause, count in sorted(summary.causes.items(), key=lambda kv: -kv[1]):
        typer.echo(f"  {count} × {cause}")
    for table in probe_tables({run.manifest.model_spec or "model": read_probes(root)}):
        typer.echo(table.markdown())
    typer.echo(f"wrote {root / PROBES}; `mcot score {root}` puts the table in its report, `mcot view {root}` each "
               "trace's probes in the viewer")  # fmt: skip
    if summary.stopped == "budget":
        typer.echo("mcot: the --max-cost budget stopped the probes; re-run with a larger one to go on", err=True)
        return BUDGET_EXIT
    if summary.errors or summary.stopped:
        why = f"stopped: {summary.stopped}" if summary.stopped else "some probes failed (see above)"
        typer.echo(f"mcot: {why}; re-run the same command to ask them again", err=True)
        return FAILED_EXIT
    return 0
