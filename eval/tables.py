"""Table primitives every benchmark's report tables are built from (accuracies in percent, one decimal).

Every (item, arm) of the run is in the denominator: an accuracy is correct / n, where n counts run errors
(method "error": failed, budget-stopped or missing pairs), unjudged items (method "none") and judge errors as
wrong. The tables show `n`, `errors`, `unjudged` and `judge errors` beside the accuracies (`COUNT_COLUMNS`,
`Tally.counts`), and when items are unjudged a note gives the range the accuracy could reach once they are
judged (`counts_notes`). A benchmark's own tables live with its protocol (mcot.eval.protocols.<benchmark>.tables).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from mcot.eval.stats import plcc, srcc

from mcot.core.rundir import Score, order_arms

_OPEN, _CLOSE = "\ue000", "\ue001"
_MARKED = re.compile("\ue000([^\ue000\ue001]*)\ue001")
_SIGNIFICANT = re.compile(r"([\\`*_\[\]<>!|~&])")
"""The characters that start Markdown or HTML markup inside a line (CommonMark lets a backslash escape each); those
that matter only at a line's start (`#`, `-`, `1.`) cannot start a table cell or a note."""


def outside_text(text: str) -> str:
    """Return `text` (a model's answer, a rater's name or note) marked as text from outside: `Table.markdown` writes
    it with every Markdown/HTML-significant character escaped, the HTML report escapes it as all its text."""
    return _OPEN + text.replace(_OPEN, "").replace(_CLOSE, "") + _CLOSE


def markdown_text(text: str) -> str:
    """Return `text` for report.md: the outside text in it (`outside_text`) with its significant characters escaped."""
    return _MARKED.sub(lambda found: _SIGNIFICANT.sub(r"\\\1", found.group(1)), text)


def plain_text(text: str) -> str:
    """Return `text` with the marks of outside text removed (for the HTML report, which escapes everything)."""
    return text.replace(_OPEN, "").replace(_CLOSE, "")


@dataclass
class Table:
    """A titled table of strings, with notes printed under it."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        """Return the table as GitHub markdown (title as a level-3 heading)."""
        lines = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |"]
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        lines += ["| " + " | ".join(markdown_text(cell) for cell in row) + " |" for row in self.rows]
        lines += [""] + [f"_{markdown_text(note)}_" for note in self.notes]
        return "\n".join(lines).rstrip() + "\n"


def pct(value: float | None) -> str:
    """Return a fraction as a percentage with one decimal ("—" when undefined)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{100 * value:.1f}"


def num(value: float | None, digits: int = 2) -> str:
    """Return a number with `digits` decimals ("—" when undefined)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.{digits}f}"


def mean(values: Sequence[float]) -> float | None:
    """Return the mean of `values`, None when there are none."""
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class Tally:
    """Counts of a group of scores: all of them (n), correct, run errors, unjudged, judge errors."""

    n: int
    correct: int
    errors: int
    unjudged: int
    judge_errors: int

    @property
    def accuracy(self) -> float | None:
        """Return correct / n (run errors, unjudged items and judge errors count as wrong), None when n is 0."""
        return self.correct / self.n if self.n else None

    @property
    def upper(self) -> float | None:
        """Return (correct + unjudged) / n: the accuracy if every unjudged item turned out right."""
        return (self.correct + self.unjudged) / self.n if self.n else None

    def counts(self) -> list[str]:
        """Return the cells of the COUNT_COLUMNS: n, errors, unjudged, judge errors."""
        return [str(self.n), str(self.errors), str(self.unjudged), str(self.judge_errors)]


COUNT_COLUMNS = ["n", "errors", "unjudged", "judge errors"]


def tally(scores: Iterable[Score]) -> Tally:
    """Return the counts of a group of scores."""
    n = correct = errors = unjudged = judge_errors = 0
    for score in scores:
        n += 1
        if score.method == "error":
            errors += 1
        elif score.method == "judge_error":
            judge_errors += 1
        elif score.correct is None:
            unjudged += 1
        else:
            correct += int(bool(score.correct))
    return Tally(n, correct, errors, unjudged, judge_errors)


def by_mode(scores: Iterable[Score]) -> dict[str, list[Score]]:
    """Return scores grouped by arm (their `mode`): text first, then canvas, tools, others in name order."""
    groups: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        groups[score.mode].append(score)
    order = order_arms(groups)
    return {mode: groups[mode] for mode in order}


ALL_ARMS = "all arms"
"""The row of a table that pools every arm (shown when there are several)."""


def with_all_arms(scores: Sequence[Score]) -> list[tuple[str, list[Score]]]:
    """Return the scores grouped by arm, then all of them under ALL_ARMS when there are several arms."""
    groups = list(by_mode(scores).items())
    return [*groups, (ALL_ARMS, list(scores))] if len(groups) > 1 else groups


def micro_mean(per_category: Mapping[str, tuple[float, int]]) -> float:
    """Return the item-weighted mean of per-category accuracies given as (accuracy, item count)."""
    total = sum(count for _, count in per_category.values())
    if total == 0:
        return math.nan
    return sum(accuracy * count for accuracy, count in per_category.values()) / total


def counts_notes(scores: Sequence[Score]) -> list[str]:
    """Return the notes under an accuracy table: what n counts and, per arm with unjudged items, the range."""
    notes = [
        "accuracy = correct / n over every (item, arm) of the run: run errors, unjudged items and judge errors count as wrong"
    ]
    for mode, group in by_mode(scores).items():
        t = tally(group)
        if t.unjudged:
            notes.append(
                f"{mode}: {t.unjudged} unjudged item(s) (rules could not decide): accuracy range "
                f"[{pct(t.accuracy)}, {pct(t.upper)}] = [correct/n, (correct+unjudged)/n]"
            )
    return notes


def category_table(title: str, scores: Sequence[Score], label: str = "Overall") -> Table:
    """Return accuracy per category per arm, with an item-weighted `label` column first and the counts last."""
    categories = sorted({s.category for s in scores})
    table = Table(title, ["Mode", label, *categories, *COUNT_COLUMNS])
    for mode, group in by_mode(scores).items():
        overall = tally(group)
        table.rows.append(
            [mode, pct(overall.accuracy)]
            + [pct(tally(s for s in group if s.category == cat).accuracy) for cat in categories]
            + overall.counts()
        )
    table.notes = counts_notes(scores)
    return table


def correlation_cell(pairs: Sequence[tuple[float, float]]) -> str:
    """Return "PLCC / SRCC" of (x, y) pairs with two decimals, "—" with fewer than 3 pairs."""
    if len(pairs) < 3:
        return "—"
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    return f"{num(plcc(xs, ys))} / {num(srcc(xs, ys))}"


def protocol_title(title: str, protocol: str | None) -> str:
    """Return `title` naming the scoring protocol ("RBench-V — official protocol"); unchanged for None."""
    return title if not protocol else f"{title} — {protocol} protocol"


def name_protocol(tables: Iterable[Table], protocol: str | None) -> list[Table]:
    """Return `tables` with each title naming the scoring protocol (titles changed in place)."""
    named = list(tables)
    for table in named:
        table.title = protocol_title(table.title, protocol)
    return named
