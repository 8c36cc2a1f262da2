"""What to do about the scores that are not decided answers: advice that matches the cause.

A run error is fixed by running again, not by a judge; an unjudged item by a judge; a judge error by scoring
again. `advice` says which, with the causes counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from mcot.rundir import Score

CAUSE_WIDTH = 100
MISSING_STATUS = "missing"
# Parts of a reason that differ from item to item (durations, tries, request ids): taken out so causes group.
_VARYING = re.compile(r"\b(?:after|in) \d+(?:\.\d+)? ?(?:s|tries|attempts)\b|\bid=\S+")


def short_cause(reason: str, width: int = CAUSE_WIDTH) -> str:
    """Return the first line of a failure reason without its varying parts, cut to `width` with " …"."""
    line = " ".join((reason.strip().splitlines() or ["unknown cause"])[0].split())
    line = _VARYING.sub("…", line) or "unknown cause"
    return line if len(line) <= width else line[:width].rstrip() + " …"


def causes(scores: Sequence[Score]) -> Counter[str]:
    """Return the failure causes of the scores' run errors (method "error"), counted."""
    return Counter(short_cause(str(s.details.get("reason") or s.details.get("status") or "")) for s in scores)


def _counted(counter: Counter[str], limit: int = 3) -> str:
    shown = [f"{count} × {cause}" for cause, count in counter.most_common(limit)]
    rest = sum(counter.values()) - sum(count for _, count in counter.most_common(limit))
    return "; ".join(shown) + (f"; {rest} more" if rest else "")


def advice(scores: Sequence[Score], run: str = "RUN") -> list[str]:
    """Return one line per kind of undecided score (run errors, budget stops, unjudged, judge errors), or []."""
    failed = [s for s in scores if s.method == "error" and s.details.get("status") != "budget"]
    budget = [s for s in scores if s.method == "error" and s.details.get("status") == "budget"]
    unjudged = [s for s in scores if s.method == "none"]
    judge_errors = [s for s in scores if s.method == "judge_error"]
    lines: list[str] = []
    if scores and len(failed) + len(budget) == len(scores):
        lines.append(f"no (item, arm) pair of the run succeeded: all {len(scores)} count as wrong")
    if failed:
        lines.append(
            f"{len(failed)} (item, arm) pair(s) failed in the run and count as wrong ({_counted(causes(failed))}): "
            "re-run the same `mcot run` command to retry them (finished pairs are kept)"
        )
    if budget:
        lines.append(
            f"{len(budget)} (item, arm) pair(s) stopped on a budget and count as wrong ({_counted(causes(budget))}): "
            "a resume does not redo them; a larger budget takes a new run (another --out)"
        )
    if unjudged:
        lines.append(
            f"{len(unjudged)} (item, arm) pair(s) unjudged (rules could not decide) and counted as wrong: "
            f"`mcot score {run} --judge SPEC` decides them"
        )
    if judge_errors:
        lines.append(
            f"{len(judge_errors)} judge error(s) (failed or unparsable judge replies) counted as wrong: "
            f"re-run `mcot score {run} --judge SPEC` (cached replies are reused; only these are asked again)"
        )
    return lines
