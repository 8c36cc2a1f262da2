"""Metrics per benchmark, as tables under each benchmark's own labels (accuracies in percent, one decimal).

Every (item, arm) of the run is in the denominator: an accuracy is correct / n, where n counts run errors
(method "error": failed, budget-stopped or missing pairs), unjudged items (method "none") and judge errors as
wrong. The tables show `n`, `errors`, `unjudged` and `judge errors` beside the accuracies, and when items are
unjudged a note gives the range the accuracy could reach once they are judged.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from mcot.eval.calibration import calibrate, has_known_answers
from mcot.eval.stats import plcc, srcc

from mcot.rundir import Score, order_arms

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


def rbench_table(scores: Sequence[Score]) -> Table:
    """Return RBench-V accuracy per arm: Overall and w/o Math (micro means), each category, and the counts."""
    table = Table("RBench-V", ["Mode", "Overall", "w/o Math", "Math", "Physics", "Counting", "Game", *COUNT_COLUMNS])
    for mode, group in by_mode(scores).items():
        cats = {cat: tally(s for s in group if s.category.lower() == cat) for cat in RBENCH_CATEGORIES}
        overall = tally(group)
        without = tally(s for s in group if s.category.lower() != "math")
        table.rows.append(
            [mode, pct(overall.accuracy), pct(without.accuracy)]
            + [pct(cats[cat].accuracy) for cat in RBENCH_CATEGORIES]
            + overall.counts()
        )
    table.notes = ["Overall and w/o Math are micro means over items (as in the paper)", *counts_notes(scores)]
    return table


def gepbench_table(scores: Sequence[Score]) -> Table:
    """Return GePBench accuracy per aspect × level per arm, Avg = the mean of the 12 cells, and the counts."""
    columns = ["Mode", "Avg"] + [f"{a.capitalize()} ({lvl})" for lvl in GEPBENCH_LEVELS for a in GEPBENCH_ASPECTS]
    table = Table("GePBench", [*columns, *COUNT_COLUMNS])
    notes: list[str] = []
    for mode, group in by_mode(scores).items():
        cells: list[float | None] = []
        for level in GEPBENCH_LEVELS:
            for aspect in GEPBENCH_ASPECTS:
                cell = [s for s in group if s.category == aspect and str(s.details.get("level", "easy")) == level]
                cells.append(tally(cell).accuracy)
        present = [cell for cell in cells if cell is not None]
        avg = sum(present) / len(present) if present else None
        table.rows.append([mode, pct(avg)] + [pct(cell) for cell in cells] + tally(group).counts())
        if len(present) < len(cells):
            notes.append(f"{mode}: Avg over the {len(present)} non-empty cells of {len(cells)}")
    table.notes = ["Avg is the mean of the aspect × level cells (as in the paper)", *notes, *counts_notes(scores)]
    return table


def scaled_proximity_score(model: float, human: float, delta: float = SPS_DELTA) -> float:
    """Return GOBench's Scaled Proximity Score max(0, 1 - |model - human| / delta)."""
    return max(0.0, 1.0 - abs(model - human) / delta)


GOBENCH_SPS_COUNTS = ["n", "errors", "unparsable", "no human scores", "averaged (auth. / aest. / fid.)"]
"""The count columns of the SPS table: all pairs, run failures, replies with a dimension that could not be read,
items without human scores, and how many items each dimension's mean is over."""


def gobench_understanding_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the SPS table (Overall and per dimension, with the counts behind each mean) per arm, PLCC/SRCC
    against human scores, and PLCC/SRCC between dimensions.

    Each dimension's mean is over the items whose score for it entered the mean (`details["sps"]`): the protocol
    decides which (official: an item with any dimension unreadable leaves all three means; robust: only that
    dimension's). A pair the run failed on (errors) leaves all three means, as VLMEvalKit treats a failed call;
    it is counted. Overall is the mean of the three dimension means.
    """
    items = [s for s in scores if s.method == "error" or "model_scores" in s.details]
    sps = Table(
        "GOBench understanding — Scaled Proximity Score (δ = 0.5, ×100)",
        ["Mode", "Overall", *(dim.capitalize() for dim in GOBENCH_DIMENSIONS), *GOBENCH_SPS_COUNTS],
    )
    corr = Table("GOBench understanding — correlation with human scores (PLCC / SRCC)", ["Mode", *GOBENCH_DIMENSIONS])
    for mode, group in by_mode(items).items():
        read = [s for s in group if s.method != "error"]
        entered = {
            dim: [s.details["sps"][dim] for s in read if dim in (s.details.get("sps") or {})]
            for dim in GOBENCH_DIMENSIONS
        }
        means = [_mean(values) for values in entered.values()]
        overall = None if None in means else sum(m for m in means if m is not None) / len(means)
        human = [s for s in read if s.details.get("human_scores")]
        counts = [
            len(group),
            len(group) - len(read),
            sum(1 for s in human if s.details.get("unparsable")),
            len(read) - len(human),
        ]
        averaged = " / ".join(str(len(values)) for values in entered.values())
        sps.rows.append([mode, pct(overall), *(pct(m) for m in means), *(str(c) for c in counts), averaged])
        corr.rows.append([mode, *(_corr_cell(_human_pairs(read, dim)) for dim in GOBENCH_DIMENSIONS)])
    sps.notes = _gobench_sps_notes(items)
    kept = [s for s in items if s.method != "error" and not s.details.get("left_out")]
    between = _between_dimensions(
        "GOBench understanding — between dimensions, model scores (PLCC / SRCC)", kept, "model_scores"
    )
    tables = [sps, corr, between]
    human_items = [s for s in items if s.details.get("human_scores")]
    if human_items:
        tables.append(
            _between_dimensions("GOBench — between dimensions, human scores (PLCC / SRCC)", human_items, "human_scores")
        )
    return tables


def _human_pairs(scores: Sequence[Score], dim: str) -> list[tuple[float, float]]:
    """Return (model, human) scores of `dim` for the items whose score entered that dimension's mean."""
    return [
        (s.details["model_scores"][dim], s.details["human_scores"][dim])
        for s in scores
        if dim in (s.details.get("sps") or {})
    ]


def _gobench_sps_notes(scores: Sequence[Score]) -> list[str]:
    protocols = {s.details.get("protocol") for s in scores if s.method != "error"}
    notes = []
    if "official" in protocols:
        notes.append(
            "official (VLMEvalKit): authenticity is the number on the reply's own `Total Score:` line, the ratings "
            "the first number after `Aesthetics Rating` / `Instruction Consistency Rating`; a reply with any of "
            "the three unreadable leaves all three means (counted in unparsable)"
        )
    if "robust" in protocols:
        notes.append(
            "robust: authenticity is the sum of the five answers (Yes 1, No 0, Cannot be determined 0.5); a "
            "dimension that cannot be read leaves that dimension's mean only (counted in unparsable)"
        )
    notes.append(
        "a pair the run failed on (errors) leaves all three means, as VLMEvalKit treats a failed call; "
        "Overall = the mean of the three dimension means; averaged = the items each mean is over"
    )
    without = sum(1 for s in scores if s.method != "error" and not s.details.get("human_scores"))
    if without:
        notes.append(f"{without} item(s) have no human scores (convert with --scores) and have no SPS")
    return notes


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


GOBENCH_CATEGORY_LABELS = {
    "direct_light_images": "direct light",
    "reflect_light_images": "reflection",
    "refracted_light_images": "refraction",
}
"""GOBench's three categories (the items' `category`) under the paper's names."""
ALL_ARMS = "all arms"
"""The row of a generation or calibration table that pools every arm (shown when there are several)."""
GENERATION_COUNTS = ["unrated", "run errors", "unjudged", "judge errors"]
"""The count columns of the generation tables: images without judge scores, and why (they sum to unrated)."""
DIMENSION_PAIRS = (("aesthetics", "authenticity"), ("authenticity", "fidelity"), ("aesthetics", "fidelity"))
"""The pairs of GOBench's Table 2 (correlations between dimensions)."""


def gobench_category(category: str) -> str:
    """Return the label of a GOBench category (direct light, reflection, refraction), else the category as is."""
    return GOBENCH_CATEGORY_LABELS.get(category, category)


def generation_counts(scores: Sequence[Score]) -> list[str]:
    """Return the GENERATION_COUNTS cells: unrated images, then run errors, unjudged and judge errors among them."""
    errors = sum(1 for s in scores if s.method == "error")
    judge_errors = sum(1 for s in scores if s.method == "judge_error")
    unrated = sum(1 for s in scores if "judge_scores" not in s.details)
    return [str(unrated), str(errors), str(unrated - errors - judge_errors), str(judge_errors)]


def generation_means(scores: Sequence[Score]) -> list[float | None]:
    """Return the mean judge score per dimension (authenticity, aesthetics, fidelity) over the rated images."""
    rated = [s.details["judge_scores"] for s in scores if "judge_scores" in s.details]
    return [_mean([float(ratings[dim]) for ratings in rated]) for dim in GOBENCH_DIMENSIONS]


def _generators(scores: Sequence[Score]) -> str:
    names = sorted({str(s.details["generator"]) for s in scores if s.details.get("generator")})
    return ", ".join(names) or "—"


def _with_all_arms(scores: Sequence[Score]) -> list[tuple[str, list[Score]]]:
    groups = list(by_mode(scores).items())
    return [*groups, (ALL_ARMS, list(scores))] if len(groups) > 1 else groups


def generation_generator_table(scores: Sequence[Score]) -> Table:
    """Return GOBench Table 1's form: per generator (arm), n images and the mean of each dimension, with the
    unrated images counted (run errors, unjudged, judge errors)."""
    table = Table(
        "GOBench generation — per generator",
        ["Arm", "Generator", "n", "Authenticity (0–5)", "Aesthetics (1–5)", "Fidelity (1–5)", *GENERATION_COUNTS],
    )
    for mode, group in by_mode(scores).items():
        means = generation_means(group)
        table.rows.append(
            [mode, _generators(group), str(len(group)), *(num(m) for m in means), *generation_counts(group)]
        )
    table.notes = [
        "means over the images the judge rated; n = every (item, arm) pair of the arm; unrated = run errors (no "
        "image) + unjudged (no judge, no image or no questions) + judge errors (failed or unparsable replies)",
        "authenticity = the sum of the answers to the image's five questions (Yes 1, No 0, Cannot be determined "
        "0.5); aesthetics and fidelity are the judge's 1–5 ratings (GOBench Table 1 reports human ratings)",
    ]
    return table


def generation_category_table(scores: Sequence[Score]) -> Table:
    """Return the mean of each dimension per generator (arm) and GOBench category (direct light, reflection,
    refraction; other categories by name), with n and the unrated count."""
    table = Table(
        "GOBench generation — per category",
        ["Arm", "Category", "n", "Authenticity (0–5)", "Aesthetics (1–5)", "Fidelity (1–5)", "unrated"],
    )
    order = list(GOBENCH_CATEGORY_LABELS.values())
    for mode, group in by_mode(scores).items():
        cells: dict[str, list[Score]] = defaultdict(list)
        for score in group:
            cells[gobench_category(score.category)].append(score)
        for label in sorted(cells, key=lambda name: (order.index(name) if name in order else len(order), name)):
            cell = cells[label]
            means = generation_means(cell)
            table.rows.append([mode, label, str(len(cell)), *(num(m) for m in means), generation_counts(cell)[0]])
    table.notes = ["means over the rated images of each cell; unrated as in the per-generator table"]
    return table


def generation_correlation_table(scores: Sequence[Score]) -> Table:
    """Return GOBench Table 2's form: PLCC / SRCC between the judge's dimensions per generator (arm), and over
    all arms when there are several; "—" with fewer than 3 rated images."""
    table = Table(
        "GOBench generation — between dimensions (PLCC / SRCC)",
        ["Arm", "n rated", *(f"{a}–{b}" for a, b in DIMENSION_PAIRS)],
    )
    for label, group in _with_all_arms(scores):
        rated = [s.details["judge_scores"] for s in group if "judge_scores" in s.details]
        cells = [_corr_cell([(float(r[a]), float(r[b])) for r in rated]) for a, b in DIMENSION_PAIRS]
        table.rows.append([label, str(len(rated)), *cells])
    table.notes = ["over the rated images; — with fewer than 3 (or a constant dimension)"]
    return table


def judge_calibration_table(scores: Sequence[Score]) -> Table | None:
    """Return the judge's agreement with known answers per arm (and over all arms), or None when no image of
    the scores carries known answers (mcot.eval.calibration defines the figures)."""
    known = [s for s in scores if has_known_answers(s)]
    if not known:
        return None
    table = Table(
        "Judge calibration",
        [
            "Arm",
            "n images",
            "n questions",
            "agreement",
            "false-Yes",
            "false-No",
            "Cannot be determined",
            "known Yes",
            "known No",
            "unrated",
        ],
    )
    for label, group in _with_all_arms(known):
        c = calibrate(group)
        table.rows.append(
            [
                label,
                str(c.images),
                str(c.questions),
                pct(c.agreement),
                pct(c.false_yes_rate),
                pct(c.false_no_rate),
                pct(c.cannot_rate),
                str(c.known_yes),
                str(c.known_no),
                str(c.unrated),
            ]
        )
    table.notes = [
        "over the rated images whose answers are known by construction (procedural scenes and their broken "
        "twins), one per question: agreement = questions answered as known / n questions; false-Yes = judge Yes "
        "where the known answer is No / known No; false-No = judge No where the known answer is Yes / known Yes; "
        "Cannot be determined = those answers / n questions (never an agreement, never a false Yes or No)",
        "unrated: images with known answers the judge did not rate (judge errors, no judge); not in the figures",
    ]
    return table


def gobench_generation_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the generation tables: per generator (Table 1's form), per category, between dimensions (Table 2's
    form) and, when images carry known answers, the judge calibration."""
    tables = [
        generation_generator_table(scores),
        generation_category_table(scores),
        generation_correlation_table(scores),
    ]
    calibration = judge_calibration_table(scores)
    if calibration is not None:
        tables.append(calibration)
    return tables


OMNIPHYS_OBJECTIVE = ("single", "multi", "tf", "fill")


def omniphys_table(scores: Sequence[Score]) -> Table:
    """Return OmniPhys S1, S2, S3, P_obj and P_open (percent) with the judge failures beside each P, the diagram
    mean, and the counts per arm.

    P_obj = objective items with S1 = S2 = 1 over all objective items; P_open = open items with S3 = 1 over all
    open items. An item whose judge failed, that has no process score (no judge, no reference solution) or that
    the run failed on is in the denominator and not mastered. A pair the run failed on scores 0 in every mean of
    its task kind (S1 and S2 for objective items, S3 for open ones, the grade for diagrams).
    """
    columns = ["Mode", "S1", "S2", "S3", "P_obj", "P_obj judge errors", "P_open", "P_open judge errors", "Diagram"]
    table = Table("OmniPhys", [*columns, *COUNT_COLUMNS])
    notes: list[str] = []
    for mode, group in by_mode(scores).items():

        def values(key: str, kinds: tuple[str, ...], group: list[Score] = group) -> list[float]:
            kept = [s for s in group if s.details.get("task") in kinds]
            return [
                0.0 if s.method == "error" else s.details[key]
                for s in kept
                if s.method == "error" or s.details.get(key) is not None
            ]

        objective = omniphys_mastery(group, OMNIPHYS_OBJECTIVE)
        open_ended = omniphys_mastery(group, ("open",))
        table.rows.append(
            [
                mode,
                pct(_mean(values("s1", OMNIPHYS_OBJECTIVE))),
                pct(_mean(values("s2", OMNIPHYS_OBJECTIVE))),
                pct(_mean(values("s3", ("open",)))),
                pct(objective.share),
                str(objective.judge_errors),
                pct(open_ended.share),
                str(open_ended.judge_errors),
                num(_mean(values("grade", ("diagram",)))),
                *tally(group).counts(),
            ]
        )
        for name, mastery in (("objective", objective), ("open", open_ended)):
            if mastery.unscored:
                notes.append(
                    f"{mode}: {mastery.unscored} {name} item(s) have no process score (no judge or no reference "
                    "solution) and count as not mastered"
                )
    table.notes = [
        "S1 result score (objective), S2 process score n/m (objective), S3 process score (open); "
        "P_obj = objective items with S1 = S2 = 1 / all objective items, P_open = open items with S3 = 1 / all "
        "open items: an item whose judge failed (judge errors, beside each P) or that the run failed on counts as "
        "not mastered; Diagram = mean grade (1 / 0.5 / 0); a pair the run failed on scores 0 in the means of its "
        "task kind",
        *notes,
        *counts_notes(scores),
    ]
    return table


@dataclass(frozen=True)
class Mastery:
    """Strict mastery of one task group: items, mastered ones, judge failures, items without a process score."""

    n: int
    mastered: int
    judge_errors: int
    unscored: int

    @property
    def share(self) -> float | None:
        """Return mastered / n (every item of the group in the denominator), None when the group is empty."""
        return self.mastered / self.n if self.n else None


def omniphys_mastery(scores: Sequence[Score], kinds: tuple[str, ...]) -> Mastery:
    """Return the strict mastery of the OmniPhys scores of task `kinds` (objective: S1 = S2 = 1; open: S3 = 1).

    Judge errors: items whose result or process judge failed (method "judge_error", or `s2_error` recorded).
    Unscored: items, neither failed in the run nor by a judge, that have no process score.
    """
    group = [s for s in scores if s.details.get("task") in kinds]
    key = "s3" if kinds == ("open",) else "s2"
    mastered = judge_errors = unscored = 0
    for s in group:
        if s.method == "error":
            continue
        if s.method == "judge_error" or "s2_error" in s.details:
            judge_errors += 1
        elif s.details.get(key) is None:
            unscored += 1
        elif s.details[key] == 1 and (key == "s3" or s.details.get("s1") == 1):
            mastered += 1
    return Mastery(len(group), mastered, judge_errors, unscored)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


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


TRACE_VERDICTS = ("valid", "invalid", "absent")
TRACE_TITLE = "Trace verifiers — answer × drawing"


def verifier_coverage(scores: Sequence[Score]) -> tuple[list[tuple[str, str]], dict[str, list[str] | None]]:
    """Return the (benchmark, task) pairs that have a trace verifier, and what has none.

    A task is an item category. Verified: every task the benchmark's verifier declares (mcot.eval.verify.VERIFIED_TASKS,
    listed even when the run has no trace of it) and every category a verdict came from. Unverified: {benchmark:
    its categories without a verifier}, None for a benchmark with no verifier at all.
    """
    from mcot.eval.registry import scoring_spec
    from mcot.eval.verify import verifier_tasks

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


def rbench_v_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the RBench-V tables of RBench-V scores."""
    return [rbench_table(scores)]


def gepbench_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the GePBench tables of GePBench scores."""
    return [gepbench_table(scores)]


def gobench_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the GOBench understanding tables and/or generation tables, by which kinds of items were scored."""
    understanding: list[Score] = []
    generation: list[Score] = []
    for score in scores:
        task = score.details.get("task") or ("generation" if "judge_scores" in score.details else "understanding")
        (generation if task == "generation" else understanding).append(score)
    tables: list[Table] = []
    if understanding:
        tables += gobench_understanding_tables(understanding)
    if generation:
        tables += gobench_generation_tables(generation)
    return tables


def omniphys_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the OmniPhys table of OmniPhys scores."""
    return [omniphys_table(scores)]


def games_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the generated games' accuracy-per-task table."""
    return [category_table("Games (generated) — accuracy per task", scores)]


def generic_tables(scores: Sequence[Score]) -> list[Table]:
    """Return one accuracy-per-category table titled with the scores' benchmark name(s)."""
    names = sorted({s.benchmark for s in scores}) or ["scores"]
    return [category_table(", ".join(names), scores)]


def protocol_title(title: str, protocol: str | None) -> str:
    """Return `title` naming the scoring protocol ("RBench-V — official protocol"); unchanged for None."""
    return title if not protocol else f"{title} — {protocol} protocol"


def name_protocol(tables: Iterable[Table], protocol: str | None) -> list[Table]:
    """Return `tables` with each title naming the scoring protocol (titles changed in place)."""
    named = list(tables)
    for table in named:
        table.title = protocol_title(table.title, protocol)
    return named


def benchmark_tables(scores: Sequence[Score], protocol: str | None = None) -> list[Table]:
    """Return every table that applies to the scores: each benchmark's registered tables, then the trace crosstab.

    With `protocol` ("official" or "robust", the protocol that made the scores) every title names it.
    """
    from mcot.eval.registry import scoring_spec

    grouped: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        grouped[score.benchmark].append(score)
    tables: list[Table] = []
    for benchmark in sorted(grouped):
        tables += scoring_spec(benchmark).tables(grouped[benchmark])
    crosstab = trace_crosstab(scores)
    if crosstab is not None:
        tables.append(crosstab)
    return name_protocol(tables, protocol)
