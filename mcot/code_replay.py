"""Replay of the code arms' cells: each pair's cells re-run in a fresh session, their images' hashes compared.

As the trace verifiers replay canvas operations, `mcot score` re-runs, for every pair of a run whose trace ran
code, its cells in order in a fresh session (the item's images loaded, the run's sandbox and limits) and compares
what each cell showed with what the trace recorded: the same outcome and byte-identical images. Cells that were
refused (too long or empty) never ran and are not re-run. RUN/code_replay.jsonl gets one line per pair; the
report's "Code use" table says how many matched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot.core.item import prompt_view
from mcot.core.rundir import open_run
from mcot.core.rundir.jsonl import write_jsonl
from mcot.core.rundir.layout import CODE_REPLAY
from mcot.eval.caveats import ran_unsafe_code
from mcot.eval.code_use import PYTHON, cell_of
from mcot.tools.code.kernel import CodeSession
from mcot.tools.code.limits import DEFAULT_LIMITS, CodeLimits


@dataclass(frozen=True)
class CodeReplay:
    """How many pairs' cells were replayed, and how many gave the recorded outcomes and images again."""

    pairs: int
    matched: int

    def line(self) -> str:
        """Return the summary in one line, as `mcot score` prints it."""
        return f"code replay: {self.matched} of {self.pairs} pairs' cells showed the same images again"


def replay_code(run_dir: Path) -> CodeReplay:
    """Re-run every pair's cells in a fresh session, write RUN/code_replay.jsonl; return the counts."""
    run = open_run(Path(run_dir))
    code = run.manifest.code or {}
    limits = _limits(code.get("limits"))
    isolated = not ran_unsafe_code(run.manifest)
    lines: list[dict[str, Any]] = []
    for item_id, mode in sorted(run.results):
        if PYTHON not in (run.arm_tools(mode) or ()) or item_id not in run.items:
            continue
        cells = [c for c in (cell_of(step) for step in run.trace(item_id, mode) or []) if c is not None]
        cells = [cell for cell in cells if cell.get("outcome") != "refused"]
        if not cells:
            continue
        images = list(prompt_view(run.items[item_id], run.items_root).images)
        differ: list[int] = []
        with CodeSession(limits, isolated=isolated) as session:
            session.load_images(images)
            for index, cell in enumerate(cells):
                again = session.run(str(cell.get("source") or ""))
                if again.outcome != cell.get("outcome") or again.image_hashes() != list(cell.get("images") or []):
                    differ.append(index)
        lines.append({"id": item_id, "mode": mode, "cells": len(cells), "matched": not differ, "differ": differ})
    write_jsonl(run.root / CODE_REPLAY, lines)
    return CodeReplay(len(lines), sum(1 for line in lines if line["matched"]))


def _limits(recorded: Any) -> CodeLimits:
    """Return the limits a run's manifest recorded (its known fields), else the defaults."""
    if not isinstance(recorded, dict):
        return DEFAULT_LIMITS
    known = {key: value for key, value in recorded.items() if key in CodeLimits.__dataclass_fields__}
    return CodeLimits(**known)
