"""`mcot score RUN [--protocol official|robust|both] [--judge SPEC] [--judge-template FILE] [--base-url URL]
[--human FILE]...`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from mcot.breaker import check_endpoints_now
from mcot.command_options import ScoreOptions
from mcot.core.errors import UsageError
from mcot.core.options import validated
from mcot.core.rundir import RunDirError, open_run, read_manifest, run_lock, sample_roots
from mcot.eval.errors import EvalError
from mcot.judging import BackendJudge, judge_from_spec


@validated(ScoreOptions)
def run_score(
    run_dir: Path,
    judge: str | None = None,
    judge_template: Path | None = None,
    base_url: str | None = None,
    protocol: str = "official",
    human: Sequence[Path] = (),
) -> int:
    """Score RUN under `protocol`, print the tables and what to do next; return the exit code (0).

    `protocol` is "official" (each benchmark's published scoring, the default), "robust" (mcot's own) or
    "both" (official in scores.jsonl, robust in scores.robust.jsonl, and the pairs they read differently).
    `human` are ratings files saved by `mcot view RUN --rate`: "Judge and people" and the people's verdicts.
    """
    from mcot.eval.people import HUMAN_SCORES
    from mcot.eval.report import PEOPLE_TITLE, benchmark_tables, differences_table, method_table, people_tables
    from mcot.eval.scoring import ROBUST_SCORES, check_protocol, score_run
    from mcot.eval.tables import name_protocol

    try:
        check_protocol(protocol)
    except EvalError as exc:
        raise UsageError(str(exc)) from exc
    judge_model = None
    if judge is not None:

        try:
            judge_model = judge_from_spec(judge, base_url)
        except Exception as exc:  # an unknown or unusable spec: the backend's message says what to fix
            raise UsageError(f"cannot use judge {judge!r}: {exc}") from exc
        check_endpoints_now(judge_model)  # a dead judge endpoint refuses the command before anything is written
    try:
        with run_lock(run_dir, "mcot score"):
            for _, sample in sample_roots(Path(run_dir)):  # each of --samples is scored, the run itself last
                if read_manifest(sample).code:  # the code arms' cells re-run first: the report counts the matches
                    from mcot.code_replay import replay_code

                    typer.echo(replay_code(sample).line())
            summary = score_run(
                Path(run_dir), judge=judge_model, template=judge_template, protocol=protocol, human=list(human or ())
            )
    except (EvalError, RunDirError) as exc:
        raise UsageError(str(exc)) from exc
    if summary.source_changed:
        typer.echo(f"note: {summary.source_changed}")
    sets = [(summary.protocol, summary.scores)]
    if summary.robust is not None:
        sets.append(("robust", summary.robust))
    for name, scores in sets:
        for table in [*name_protocol([method_table(scores)], name), *benchmark_tables(scores, name)]:
            typer.echo(table.markdown())
    if summary.robust is not None:

        typer.echo(differences_table(open_run(Path(run_dir)), summary.scores, summary.robust).markdown())
    if summary.people is not None:
        typer.echo(f"## {PEOPLE_TITLE}\n")
        for table in people_tables(summary.people, summary.protocol):
            typer.echo(table.markdown())
    if summary.missing_items:
        typer.echo(
            f"{len(summary.missing_items)} result(s) name items not in RUN/items.jsonl (not scored): "
            f"{summary.missing_items[:5]}"
        )
    for line in summary.advice:
        typer.echo(f"to do: {line}")
    if judge_model is not None:
        typer.echo(f"judge {judge}: {summary.cache_hits} cached, {summary.cache_misses} asked")
    scores_files = "scores.jsonl" if summary.robust is None else f"scores.jsonl (official), {ROBUST_SCORES} (robust)"
    if summary.people is not None:
        scores_files += f", {HUMAN_SCORES} (the people's verdicts)"
    typer.echo(f"wrote {scores_files}, report.md and report.html in {Path(run_dir)}")
    stopped = judge_model.stopped() if isinstance(judge_model, BackendJudge) else None
    if stopped:
        typer.echo(f"mcot: {stopped}", err=True)
    missing = sum(1 for score in summary.scores if score.method == "judge_error")
    if missing:
        typer.echo(f"mcot: {missing} judgment(s) are missing (the judge failed or replied unparsably); "
                   "re-run the same command to ask again", err=True)  # fmt: skip
        return 3
    return 0
