"""Metrics per benchmark, as tables under each benchmark's own labels (accuracies in percent, one decimal).

Accuracies count only decided items (`correct` True or False); unjudged items (method "none") and judge
errors are counted in their own columns, never as wrong.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from eval.rundir import Score
from eval.stats import plcc, srcc

RBENCH_CATEGORIES = ("math", "physics", "counting", "game")
GEPBENCH_ASPECTS = ("existence", "counting", "size", "location", "reference", "relationship")
GEPBENCH_LEVELS = ("easy", "hard")
GOBENCH_DIMENSIONS = ("authenticity", "aesthetics", "fidelity")
SPS_DELTA = 0.5


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
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        lines += [""] + [f"_{note}_" for note in self.notes]
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


@dataclass(frozen=True)
class Tally:
    """Counts of a group of scores: correct, decided (correct or wrong), unjudged, judge errors."""

    correct: int
    decided: int
    unjudged: int
    errors: int

    @property
    def accuracy(self) -> float | None:
        """Return correct / decided, or None when nothing was decided."""
        return self.correct / self.decided if self.decided else None


def tally(scores: Iterable[Score]) -> Tally:
    """Return the counts of a group of scores."""
    correct = decided = unjudged = errors = 0
    for score in scores:
        if score.method == "judge_error":
            errors += 1
        elif score.correct is None:
            unjudged += 1
        else:
            decided += 1
            correct += int(bool(score.correct))
    return Tally(correct, decided, unjudged, errors)


def by_mode(scores: Iterable[Score]) -> dict[str, list[Score]]:
    """Return scores grouped by mode, text first, then canvas, then others in name order."""
    groups: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        groups[score.mode].append(score)
    order = sorted(groups, key=lambda mode: ({"text": 0, "canvas": 1}.get(mode, 2), mode))
    return {mode: groups[mode] for mode in order}


def micro_mean(per_category: Mapping[str, tuple[float, int]]) -> float:
    """Return the item-weighted mean of per-category accuracies given as (accuracy, item count)."""
    total = sum(count for _, count in per_category.values())
    if total == 0:
        return math.nan
    return sum(accuracy * count for accuracy, count in per_category.values()) / total


def _counts_note(scores: Sequence[Score]) -> list[str]:
    t = tally(scores)
    notes = []
    if t.unjudged:
        notes.append(f"{t.unjudged} item(s) unjudged (rules could not decide; run `mcot score RUN --judge SPEC`)")
    if t.errors:
        notes.append(f"{t.errors} judge error(s) (failed or unparsable judge replies; see scores.jsonl)")
    if notes:
        notes.append("accuracies are over decided items only; unjudged items and judge errors are not counted wrong")
    return notes


def rbench_table(scores: Sequence[Score]) -> Table:
    """Return RBench-V accuracy per mode: Overall and w/o Math (micro means), then each category."""
    table = Table("RBench-V", ["Mode", "Overall", "w/o Math", "Math", "Physics", "Counting", "Game", "n", "undecided"])
    for mode, group in by_mode(scores).items():
        cats = {cat: tally(s for s in group if s.category.lower() == cat) for cat in RBENCH_CATEGORIES}
        overall = tally(group)
        without = tally(s for s in group if s.category.lower() != "math")
        table.rows.append(
            [mode, pct(overall.accuracy), pct(without.accuracy)]
            + [pct(cats[cat].accuracy) for cat in RBENCH_CATEGORIES]
            + [str(overall.decided), str(overall.unjudged + overall.errors)]
        )
    table.notes = ["Overall and w/o Math are micro means over items (as in the paper)", *_counts_note(scores)]
    return table


def gepbench_table(scores: Sequence[Score]) -> Table:
    """Return GePBench accuracy per aspect × level per mode, and Avg = the mean of the 12 cells."""
    columns = ["Mode", "Avg"] + [f"{a.capitalize()} ({lvl})" for lvl in GEPBENCH_LEVELS for a in GEPBENCH_ASPECTS]
    table = Table("GePBench", columns)
    for mode, group in by_mode(scores).items():
        cells: list[float | None] = []
        for level in GEPBENCH_LEVELS:
            for aspect in GEPBENCH_ASPECTS:
                cell = [s for s in group if s.category == aspect and str(s.details.get("level", "easy")) == level]
                cells.append(tally(cell).accuracy)
        present = [cell for cell in cells if cell is not None]
        avg = sum(present) / len(present) if present else None
        table.rows.append([mode, pct(avg)] + [pct(cell) for cell in cells])
        if len(present) < len(cells):
            table.notes.append(f"{mode}: Avg over the {len(present)} non-empty cells of {len(cells)}")
    table.notes = ["Avg is the mean of the aspect × level cells (as in the paper)", *table.notes]
    return table


def scaled_proximity_score(model: float, human: float, delta: float = SPS_DELTA) -> float:
    """Return GOBench's Scaled Proximity Score max(0, 1 - |model - human| / delta)."""
    return max(0.0, 1.0 - abs(model - human) / delta)


def gobench_understanding_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the SPS table per dimension per mode, and PLCC/SRCC against human scores and between dimensions."""
    items = [s for s in scores if "model_scores" in s.details]
    sps = Table("GOBench understanding — Scaled Proximity Score (δ = 0.5, ×100)", ["Mode"])
    sps.columns += [dim.capitalize() for dim in GOBENCH_DIMENSIONS] + [
        f"unparsable {d[:5]}." for d in GOBENCH_DIMENSIONS
    ]
    corr = Table("GOBench understanding — correlation with human scores (PLCC / SRCC)", ["Mode", *GOBENCH_DIMENSIONS])
    for mode, group in by_mode(items).items():
        row_sps, row_bad, row_corr = [mode], [], [mode]
        for dim in GOBENCH_DIMENSIONS:
            values = [s.details["sps"][dim] for s in group if dim in s.details.get("sps", {})]
            row_sps.append(pct(sum(values) / len(values)) if values else "—")
            row_bad.append(str(sum(1 for s in group if dim in s.details.get("unparsable", []))))
            pairs = [
                (s.details["model_scores"][dim], s.details["human_scores"][dim])
                for s in group
                if s.details["model_scores"].get(dim) is not None
                and (s.details.get("human_scores") or {}).get(dim) is not None
            ]
            row_corr.append(_corr_cell(pairs))
        sps.rows.append(row_sps + row_bad)
        corr.rows.append(row_corr)
    sps.notes.append("an item whose answer for a dimension cannot be parsed is left out of that mean and counted")
    without = sum(1 for s in items if not s.details.get("human_scores"))
    if without:
        sps.notes.append(f"{without} item(s) have no human scores (convert with --scores) and have no SPS")
    between = _between_dimensions(
        "GOBench understanding — between dimensions, model scores (PLCC / SRCC)", items, "model_scores"
    )
    tables = [sps, corr, between]
    human_items = [s for s in items if s.details.get("human_scores")]
    if human_items:
        tables.append(
            _between_dimensions("GOBench — between dimensions, human scores (PLCC / SRCC)", human_items, "human_scores")
        )
    return tables


def _corr_cell(pairs: Sequence[tuple[float, float]]) -> str:
    if len(pairs) < 3:
        return "—"
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    return f"{num(plcc(xs, ys))} / {num(srcc(xs, ys))}"


def _between_dimensions(title: str, scores: Sequence[Score], key: str) -> Table:
    pairs = [("aesthetics", "authenticity"), ("authenticity", "fidelity"), ("aesthetics", "fidelity")]
    table = Table(title, ["Mode"] + [f"{a}–{b}" for a, b in pairs])
    for mode, group in by_mode(scores).items():
        row = [mode]
        for a, b in pairs:
            values = [
                (s.details[key][a], s.details[key][b])
                for s in group
                if (s.details.get(key) or {}).get(a) is not None and (s.details.get(key) or {}).get(b) is not None
            ]
            row.append(_corr_cell(values))
        table.rows.append(row)
    return table


def gobench_generation_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the generation table (mean judge score per generator per dimension) and the dimension correlations."""
    rated = [s for s in scores if "judge_scores" in s.details]
    table = Table("GOBench generation — mean judge score (1–5; authenticity 0–5)", ["Generator", "n"])
    table.columns += [dim.capitalize() for dim in GOBENCH_DIMENSIONS]
    generators: dict[str, list[Score]] = defaultdict(list)
    for score in rated:
        generators[str(score.details.get("generator") or score.mode)].append(score)
    for name, group in sorted(generators.items()):
        means = [sum(s.details["judge_scores"][dim] for s in group) / len(group) for dim in GOBENCH_DIMENSIONS]
        table.rows.append([name, str(len(group))] + [num(value) for value in means])
    unrated = [s for s in scores if "judge_scores" not in s.details]
    if unrated:
        table.notes.append(f"{len(unrated)} image(s) not rated (judge errors or no judge; see scores.jsonl)")
    between = _between_dimensions("GOBench generation — between dimensions (PLCC / SRCC)", rated, "judge_scores")
    return [table, between]


def omniphys_table(scores: Sequence[Score]) -> Table:
    """Return OmniPhys S1, S2, S3, P_obj, P_open (percent) and the diagram mean per mode."""
    table = Table("OmniPhys", ["Mode", "S1", "S2", "S3", "P_obj", "P_open", "Diagram", "undecided"])
    for mode, group in by_mode(scores).items():
        objective = [s for s in group if s.details.get("task") in ("single", "multi", "tf", "fill")]
        s1 = [s.details["s1"] for s in objective if s.details.get("s1") is not None]
        s2 = [s.details["s2"] for s in objective if s.details.get("s2") is not None]
        s3 = [s.details["s3"] for s in group if s.details.get("s3") is not None]
        both = [s for s in objective if s.details.get("s1") is not None and s.details.get("s2") is not None]
        p_obj = sum(1 for s in both if s.details["s1"] == 1 and s.details["s2"] == 1) / len(both) if both else None
        p_open = sum(1 for value in s3 if value == 1) / len(s3) if s3 else None
        grades = [s.details["grade"] for s in group if s.details.get("grade") is not None]
        undecided = sum(1 for s in group if s.score is None)
        table.rows.append(
            [
                mode,
                pct(_mean(s1)),
                pct(_mean(s2)),
                pct(_mean(s3)),
                pct(p_obj),
                pct(p_open),
                num(_mean(grades)),
                str(undecided),
            ]
        )
    table.notes = [
        "S1 result score (objective), S2 process score n/m (objective), S3 process score (open); "
        "P_obj = share of objective items with S1 = S2 = 1, P_open = share of open items with S3 = 1; "
        "Diagram = mean grade (1 / 0.5 / 0)",
        *_counts_note(scores),
    ]
    return table


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def category_table(title: str, scores: Sequence[Score], label: str = "Overall") -> Table:
    """Return accuracy per category per mode, with an item-weighted `label` column first."""
    categories = sorted({s.category for s in scores})
    table = Table(title, ["Mode", label, *categories, "n", "undecided"])
    for mode, group in by_mode(scores).items():
        overall = tally(group)
        table.rows.append(
            [mode, pct(overall.accuracy)]
            + [pct(tally(s for s in group if s.category == cat).accuracy) for cat in categories]
            + [str(overall.decided), str(overall.unjudged + overall.errors)]
        )
    table.notes = _counts_note(scores)
    return table


TRACE_VERDICTS = ("valid", "invalid", "absent")


def trace_crosstab(scores: Sequence[Score]) -> Table | None:
    """Return answer-correct × trace verdict counts per mode and task, or None when no trace was verified."""
    verified = [s for s in scores if isinstance(s.details.get("trace"), dict)]
    if not verified:
        return None
    table = Table(
        "Trace verifiers — answer × drawing",
        [
            "Mode",
            "Task",
            "right & valid",
            "right & invalid",
            "right & absent",
            "wrong & valid",
            "wrong & invalid",
            "wrong & absent",
        ],
    )
    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for score in verified:
        groups[(score.mode, score.category)].append(score)
    for (mode, task), group in sorted(groups.items()):
        row = [mode, task]
        for right in (True, False):
            for verdict in TRACE_VERDICTS:
                row.append(
                    str(sum(1 for s in group if bool(s.correct) == right and s.details["trace"]["verdict"] == verdict))
                )
        table.rows.append(row)
    table.notes.append("right & invalid: a right answer from a wrong drawing (a shortcut worth looking at)")
    return table


def benchmark_tables(scores: Sequence[Score]) -> list[Table]:
    """Return every table that applies to the scores, one benchmark after another."""
    grouped: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        grouped[score.benchmark].append(score)
    tables: list[Table] = []
    for benchmark in sorted(grouped):
        group = grouped[benchmark]
        if benchmark == "rbench-v":
            tables.append(rbench_table(group))
        elif benchmark == "gepbench":
            tables.append(gepbench_table(group))
        elif benchmark == "gobench":
            understanding = [s for s in group if "model_scores" in s.details]
            generation = [s for s in group if "model_scores" not in s.details]
            if understanding:
                tables += gobench_understanding_tables(understanding)
            if generation:
                tables += gobench_generation_tables(generation)
        elif benchmark == "omniphys":
            tables.append(omniphys_table(group))
        elif benchmark == "games":
            tables.append(category_table("Games (generated) — accuracy per task", group))
        else:
            tables.append(category_table(benchmark, group))
    crosstab = trace_crosstab(scores)
    if crosstab is not None:
        tables.append(crosstab)
    return tables
