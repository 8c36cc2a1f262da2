"""Why items of a run failed: the causes counted, for the summary `mcot run` prints."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from mcot.eval.advice import MISSING_STATUS, short_cause

CAUSE_WIDTH = 240


@dataclass
class FailureSummary:
    """The pairs of a run that did not end with an answer, by status, and their causes counted."""

    failed: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    causes: Counter[str] = field(default_factory=Counter)

    def lines(self, limit: int = 5) -> list[str]:
        """Return the causes, most frequent first, as `N × cause` lines (at most `limit`, then a count)."""
        common = self.causes.most_common()
        lines = [f"{count} × {cause}" for cause, count in common[:limit]]
        if len(common) > limit:
            lines.append(f"… and {sum(n for _, n in common[limit:])} more with {len(common) - limit} other causes")
        return lines


class Ended(Protocol):
    """How a pair ended: a `Result`, or the `Unfinished` status and error `PairOutcomes` keeps of one."""

    @property
    def status(self) -> str:
        """Return the pair's status: ok, error, budget."""
        ...

    @property
    def error(self) -> str | None:
        """Return why the pair did not finish, or None."""
        ...


def cause_of(record: Ended | None) -> str:
    """Return a result's failure cause, with the parts that vary from item to item taken out."""
    if record is None:
        return "not run (the run stopped before this pair; re-run the same command to resume)"
    return short_cause(str(record.error or f"status {record.status}"), CAUSE_WIDTH)


def summarize_failures(records: Iterable[Ended | None]) -> FailureSummary:
    """Return the failures among the latest results of a run's (item, arm) pairs (None: a pair never run).

    Ok results may be left out: only the others are counted (`PairOutcomes.not_ok` yields just those).
    """
    summary = FailureSummary()
    for record in records:
        status = MISSING_STATUS if record is None else record.status
        if status == "ok":
            continue
        summary.failed += 1
        summary.by_status[status] += 1
        summary.causes[cause_of(record)] += 1
    return summary
