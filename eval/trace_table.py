"""The trace verifiers' table: answer right or wrong × what the drawing was judged (valid, invalid, absent).

It spans benchmarks (every benchmark whose registered verifier checked a trace), so it is not any one
benchmark's table: the report adds it after theirs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from mcot.eval.registry import scoring_spec
from mcot.eval.tables import Table
from mcot.eval.verify import verifier_tasks

from mcot.core.rundir import Score, order_arms

TRACE_VERDICTS = ("valid", "invalid", "absent")
TRACE_TITLE = "Trace verifiers — answer × drawing"


def verifier_coverage(scores: Sequence[Score]) -> tuple[list[tuple[str, str]], dict[str, list[str] | None]]:
    """Return the (benchmark, task) pairs that have a trace verifier, and what has none.

    A task is an item category. Verified: every task the benchmark's verifier declares (mcot.eval.verify.VERIFIED_TASKS,
    listed even when the run has no trace of it) and every category a verdict came from. Unverified: {benchmark:
    its categories without a verifier}, None for a benchmark with no verifier at all.
    """
    categories: dict[str, set[str]] = defaultdict(set)
    seen: dict[str, set[str]] = defaultdict(set)
    for score in scores:
        categories[score.benchmark].add(score.category)
        if isinstance(score.details.get("trace"), dict):
            seen[score.benchmark].add(score.category)
    verified: list[tuple[str, str]] = []
    unverified: dict[str, list[str] | None] = {}
    for benchmark in sorted(categories):
        verifier = scoring_spec(benchmark).verifier
        if verifier is None and not seen[benchmark]:
            unverified[benchmark] = None
            continue
        declared = list(verifier_tasks(verifier))
        tasks = declared + sorted(seen[benchmark] - set(declared))
        verified += [(benchmark, task) for task in tasks]
        rest = sorted(categories[benchmark] - set(tasks))
        if rest:
            unverified[benchmark] = rest
    return verified, unverified


def trace_crosstab(scores: Sequence[Score]) -> Table | None:
    """Return answer-correct × trace verdict counts per arm and task, or None when no trace was verified.

    Every task with a verifier gets a row in every verified arm, even with no trace (`verified` 0); a note names
    the tasks and benchmarks without one. Verdicts are on what the model drew; traces where a tool drew geometry
    are counted apart ("drawn by a tool").
    """
    verified = [s for s in scores if isinstance(s.details.get("trace"), dict)]
    if not verified:
        return None
    tasks, unverified = verifier_coverage(scores)
    several = len({benchmark for benchmark, _ in tasks}) > 1
    columns = ["Mode", "Task", "verified"]
    columns += [f"{answer} & {verdict}" for answer in ("right", "wrong") for verdict in TRACE_VERDICTS]
    columns += ["right & drawn by a tool", "wrong & drawn by a tool"]
    table = Table(TRACE_TITLE, columns)
    groups: dict[tuple[str, str, str], list[Score]] = defaultdict(list)
    for score in verified:
        groups[(score.mode, score.benchmark, score.category)].append(score)
    for mode in order_arms({score.mode for score in verified}):
        for benchmark, task in tasks:
            group = groups.get((mode, benchmark, task), [])
            row = [mode, f"{benchmark}/{task}" if several else task, str(len(group))]
            for right in (True, False):
                answered = [s.details["trace"] for s in group if bool(s.correct) == right]
                row += [str(sum(1 for trace in answered if trace["verdict"] == verdict)) for verdict in TRACE_VERDICTS]
            for right in (True, False):
                answered = [s.details["trace"] for s in group if bool(s.correct) == right]
                row.append(str(sum(1 for trace in answered if trace.get("tool_drawn", 0) > 0)))
            table.rows.append(row)
    table.notes.append(
        "verified: the arm's pairs of the task whose trace was checked (every task with a verifier is listed, "
        "0 where the run has none of it; the text arm offers no canvas and is not verified)"
    )
    if unverified:
        parts = [
            f"{benchmark} (no verifier)" if rest is None else f"{benchmark}: {', '.join(rest)}"
            for benchmark, rest in unverified.items()
        ]
        table.notes.append("no trace verifier, answers only: " + "; ".join(parts))
    table.notes.append("right & invalid: a right answer from a wrong drawing (a shortcut worth looking at)")
    table.notes.append(
        "verdicts judge only what the model drew; drawn by a tool: traces where a tool (e.g. solve_maze with "
        "draw=true) drew geometry, not credited to the model (a trace where only a tool drew is absent)"
    )
    return table
