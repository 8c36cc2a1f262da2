"""How the code arms used their Python session: cells per pair, failures by exception type, time-outs,
restarts, refusals, and how many pairs' cells replayed to the same images (RUN/code_replay.jsonl).

A cell is a `python` tool step; its `data.cell` says how it ended (`ok`, `exception` with its type, `timeout`,
`restart`, `refused`).
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mcot.eval.tables import Table, pct

from mcot.core.rundir.jsonl import iter_jsonl
from mcot.core.rundir.layout import CODE_REPLAY
from mcot.core.rundir.run import Run

PYTHON = "python"


@dataclass
class ArmCodeUse:
    """The cells of one arm: per pair counts, outcomes, exception types, and the replay verdicts."""

    arm: str
    cells: list[int] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    exceptions: Counter[str] = field(default_factory=Counter)
    replayed: int = 0
    replay_matched: int = 0

    @property
    def total(self) -> int:
        """Return the number of cells the arm ran."""
        return sum(self.cells)


def code_use(run: Run) -> list[ArmCodeUse]:
    """Return the code use of every arm of the run that offers `python` (in the run's arm order)."""
    arms: dict[str, ArmCodeUse] = {}
    for (item_id, mode), _ in sorted(run.results.items()):
        if PYTHON not in (run.arm_tools(mode) or ()):
            continue
        use = arms.setdefault(mode, ArmCodeUse(mode))
        found = [cell_of(step) for step in run.trace(item_id, mode) or []]
        cells = [cell for cell in found if cell is not None]
        use.cells.append(len(cells))
        for cell in cells:
            outcome = str(cell.get("outcome") or "ok")
            use.outcomes[outcome] += 1
            if outcome == "exception":
                use.exceptions[str(cell.get("exception") or "Exception")] += 1
    replay = run.root / CODE_REPLAY
    if replay.is_file():
        for line in iter_jsonl(replay):
            replayed = arms.get(str(line.get("mode"))) if isinstance(line, dict) else None
            if replayed is not None:
                replayed.replayed += 1
                replayed.replay_matched += bool(line.get("matched"))
    return [arms[arm] for arm in run.arms if arm in arms]


def cell_of(step: dict[str, Any]) -> dict[str, Any] | None:
    """Return the code cell a trace step records (a `python` tool step's `data.cell`), else None."""
    if step.get("kind") != "tool" or step.get("tool") != PYTHON:
        return None
    cell = (step.get("data") or {}).get("cell")
    return cell if isinstance(cell, dict) else None


def code_use_tables(uses: list[ArmCodeUse]) -> list[Table]:
    """Return the "Code use" table (one row per code arm), or [] when no arm offers `python`."""
    if not uses:
        return []
    table = Table(
        "Code use",
        ["Arm", "pairs", "with a cell", "cells", "cells/pair median", "failed", "by exception type", "time-outs",
         "restarts", "refused", "replays matched"],
    )  # fmt: skip
    for use in uses:
        total = use.total
        failed = total - use.outcomes["ok"]
        types = ", ".join(f"{name} {pct(n / total)}" for name, n in use.exceptions.most_common(3)) if total else "—"
        replay = f"{use.replay_matched} of {use.replayed}" if use.replayed else "—"
        table.rows.append([
            use.arm, str(len(use.cells)), str(sum(1 for n in use.cells if n)), str(total),
            f"{statistics.median(use.cells):g}" if use.cells else "—", pct(failed / total) if total else "—",
            types or "—", str(use.outcomes["timeout"]), str(use.outcomes["restart"]), str(use.outcomes["refused"]),
            replay,
        ])  # fmt: skip
    table.notes.append(
        "a cell is one `python` call; failed: did not end ok (raised, ran past its wall clock, took the session down, "
        "or was refused); by exception type: share of all cells; restarts: the session had to start again (its "
        "variables gone); replays matched: pairs whose cells, re-run by `mcot score` in a fresh session, showed "
        "byte-identical images"
    )
    return [table]
