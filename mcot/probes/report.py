"""After `mcot probe`: the "Faithfulness probes" table of RUN/report.md rewritten from RUN/probes.jsonl, so that the
report `mcot score` wrote and the probes agree (a study reading the run sees the same figures).

Only report.md's probe table changes: the block from its heading to the next heading is replaced, or, in a report
written before the run was probed, inserted where `mcot score` puts it (after the tables of the details, before
the sections that follow them: judge and people, cost, figures). report.html is rewritten by the next
`mcot score`. A run without report.md is left alone.
"""

from __future__ import annotations

from pathlib import Path

from mcot.core.rundir import Run, write_text_atomic
from mcot.eval.probes import TITLE, run_probe_tables

REPORT = "report.md"
_LEADING = ("## The answer", "## Details", "## What to do")


def rewrite_probe_section(run: Run) -> Path | None:
    """Rewrite the probe table of RUN/report.md from the run's probes; return the report's path (None: no report)."""
    path = Path(run.root) / REPORT
    if not path.is_file():
        return None
    tables = run_probe_tables(run)
    block = [line for table in tables for line in table.markdown().split("\n")]  # each ends in a blank line
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    heading = f"### {TITLE}"
    start = next((i for i, line in enumerate(lines) if line == heading), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    else:
        details = next((i for i, line in enumerate(lines) if line == "## Details"), 0)
        start = next(
            (i for i in range(details + 1, len(lines)) if lines[i].startswith("## ") and lines[i] not in _LEADING),
            len(lines),
        )
        end = start
    new = "\n".join(lines[:start] + block + lines[end:])
    if new != text:
        write_text_atomic(path, new)
    return path
