"""Judge and people: how far the scoring's judge is from people's ratings, and the people's verdicts as a variant.

`people_section(run, scores, raters)` pairs every score with what the raters said of the same (item, arm)
(mcot.eval.ratings) and returns the tables of the report's "Judge and people" section, per rated group:

| group | units | values | κ | α | PLCC/SRCC, SPS |
|---|---|---|---|---|---|
| answer | (item, arm) | right / wrong (the judge: the scoring's verdict, rules or judge) | unweighted | nominal | — |
| authenticity answers | (item, arm, question) | Yes / No / Cannot be determined | unweighted | nominal | — |
| authenticity | (item, arm) | the sum of the answers (Yes 1, No 0, Cannot be determined 0.5) | quadratic | interval | both |
| aesthetics, fidelity | (item, arm) | 1–5 | quadratic | interval | both |
| diagram | (item, arm) | 1 / 0.5 / 0 | quadratic | interval | PLCC/SRCC |

A rater's authenticity sum is only formed where they answered every question of the image. Pairs the run failed
on (method "error") have nothing judged and are left out. SPS (GOBench's formula, the judge against the people's
mean) is given for GOBench's three rating dimensions.

The people's verdicts (`people_verdicts`) are a named variant, never the protocol's scores: a copy of the scores in
which every (item, arm) the people rated `answer` takes the majority's verdict (a tie keeps the protocol's) and
every rated `diagram` takes the people's mean grade, with method "human" and the protocol's own verdict kept in
`details.people.protocol`. `mcot score --human` writes it to RUN/scores.human.jsonl and tables it apart.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from urllib.parse import urlencode

from mcot.eval.agreement import Metric, cohen_kappa, krippendorff_alpha, mean_sps, raw_agreement
from mcot.eval.ratings import (
    ANSWER,
    AUTHENTICITY_WORDS,
    DIAGRAM,
    JUDGE,
    Form,
    Ratings,
    Scale,
    Value,
    authenticity,
    plain_value,
    question_number,
    rating_form,
)
from mcot.eval.tables import Table, correlation_cell, mean, num, outside_text, pct

from mcot.core.rundir import Run, Score

HUMAN_SCORES = "scores.human.jsonl"
"""The people's verdicts variant of RUN/scores.jsonl (`mcot score RUN --human FILE`)."""
VIEWER_PAGE = "index.html"
"""The viewer page the report links to, relative to the report (RUN/index.html, `mcot view RUN --rate`)."""
DIFFER_ROWS = 10
"""How many pairs "where they differ most" lists."""

Unit = tuple[str, ...]
"""(id, arm) or (id, arm, question number as text)."""


@dataclass(frozen=True)
class Group:
    """A dimension as the section compares it: its scale, whether SPS applies, and the span a gap is divided by."""

    name: str
    scale: Scale
    sps: bool = False
    span: float | None = None
    """The width of the scale (the most two values can differ); None: not listed among the pairs that differ most.
    The authenticity sum's span is its question count, found per pair."""


ANSWER_GROUP = Group("answer", "nominal", span=1.0)
ANSWERS_GROUP = Group("authenticity answers", "nominal")
AUTHENTICITY_GROUP = Group("authenticity", "ordinal", sps=True)
AESTHETICS_GROUP = Group("aesthetics", "ordinal", sps=True, span=4.0)
FIDELITY_GROUP = Group("fidelity", "ordinal", sps=True, span=4.0)
DIAGRAM_GROUP = Group("diagram", "ordinal", span=1.0)
GROUPS = (ANSWER_GROUP, ANSWERS_GROUP, AUTHENTICITY_GROUP, AESTHETICS_GROUP, FIDELITY_GROUP, DIAGRAM_GROUP)

Side = dict[str, dict[Unit, Value]]
"""One source's values (the judge's or a rater's): group name → unit → value."""


@dataclass
class Pairing:
    """The judge's and each rater's values by group and unit, the forms of the pairs, and what the raters named
    outside the run."""

    judge: Side
    people: dict[str, Side]
    forms: dict[tuple[str, str], Form]
    outside: Counter[str] = field(default_factory=Counter)
    """Per rater: ratings of (id, arm) pairs the run's scores do not hold."""

    def groups(self) -> list[Group]:
        """Return the groups some rater rated, in GROUPS order."""
        return [g for g in GROUPS if any(side.get(g.name) for side in self.people.values())]


def _judge_values(score: Score, form: Form) -> dict[str, dict[Unit, Value]]:
    """Return what the scoring said of one pair, by group (nothing for a pair the run failed on)."""
    if score.method == "error":
        return {}
    unit = (score.id, score.mode)
    found: dict[str, dict[Unit, Value]] = {}
    if form.kind == "answer" and score.correct is not None:
        found[ANSWER_GROUP.name] = {unit: "right" if score.correct else "wrong"}
    grade = score.details.get("grade")
    if form.kind == "diagram" and isinstance(grade, int | float) and float(grade) in DIAGRAM.values:
        found[DIAGRAM_GROUP.name] = {unit: float(grade)}
    ratings = score.details.get("judge_scores")
    if form.kind == "generation" and isinstance(ratings, dict):
        for group in (AUTHENTICITY_GROUP, AESTHETICS_GROUP, FIDELITY_GROUP):
            if isinstance(ratings.get(group.name), int | float):
                found[group.name] = {unit: float(ratings[group.name])}
        answers = score.details.get("answers")
        if isinstance(answers, list):
            found[ANSWERS_GROUP.name] = {
                (*unit, str(k)): AUTHENTICITY_WORDS[word]
                for k, word in enumerate(answers, start=1)
                if word in AUTHENTICITY_WORDS
            }
    return found


def _rater_values(ratings: Ratings, forms: Mapping[tuple[str, str], Form]) -> tuple[Side, int]:
    """Return one rater's values by group and unit, and how many of their ratings name pairs outside the run."""
    side: Side = {}
    outside = 0
    answered: dict[tuple[str, str], dict[int, float]] = {}
    for (item_id, mode, name), value in ratings.values.items():
        if (item_id, mode) not in forms:
            outside += 1
            continue
        unit = (item_id, mode)
        k = question_number(name)
        if k is not None:
            side.setdefault(ANSWERS_GROUP.name, {})[(*unit, str(k))] = value
            answered.setdefault(unit, {})[k] = authenticity(k).number(value)
        elif name == ANSWER.name:
            side.setdefault(ANSWER_GROUP.name, {})[unit] = value
        else:
            side.setdefault(name, {})[unit] = value
    for unit, numbers in answered.items():
        questions = sum(1 for d in forms[unit].dimensions if question_number(d.name) is not None)
        if questions and set(numbers) == set(range(1, questions + 1)):
            side.setdefault(AUTHENTICITY_GROUP.name, {})[unit] = sum(numbers.values())
    return side, outside


def pair_ratings(run: Run, scores: Sequence[Score], raters: Sequence[Ratings]) -> Pairing:
    """Return the judge's and the raters' values of the run's scored pairs, by group and unit."""
    forms: dict[tuple[str, str], Form] = {}
    judge: Side = {}
    for score in scores:
        item = run.items.get(score.id)
        if item is None:
            continue
        form = rating_form(item, score.details)
        forms[(score.id, score.mode)] = form
        for group, values in _judge_values(score, form).items():
            judge.setdefault(group, {}).update(values)
    people: dict[str, Side] = {}
    outside: Counter[str] = Counter()
    for ratings in raters:
        people[ratings.rater], outside[ratings.rater] = _rater_values(ratings, forms)
    return Pairing(judge, people, forms, outside)


# ------------------------------------------------------------------------------------------ figures


def _number(group: Group, value: Value) -> float:
    """Return a value's numeric reading (right 1, wrong 0; Yes 1, No 0, Cannot be determined 0.5; numbers as is)."""
    if isinstance(value, str):
        return ANSWER.number(value) if group is ANSWER_GROUP else authenticity(1).number(value)
    return float(value)


def _cell(value: float, digits: int = 2) -> str:
    return "—" if math.isnan(value) else num(value, digits)


@dataclass(frozen=True)
class Comparison:
    """Two sources' agreement on one group: n common units, raw agreement, κ, PLCC / SRCC."""

    n: int
    agreement: float
    kappa: float
    correlation: str


def compare_sources(group: Group, a: Mapping[Unit, Value], b: Mapping[Unit, Value]) -> Comparison:
    """Return the agreement of two sources on the units both rated (κ quadratic-weighted on ordinal groups)."""
    common = sorted(set(a) & set(b))
    xs, ys = [a[u] for u in common], [b[u] for u in common]
    ordinal = group.scale == "ordinal"
    kappa = cohen_kappa(xs, ys, weights="quadratic" if ordinal else "none")
    pairs = [(_number(group, x), _number(group, y)) for x, y in zip(xs, ys, strict=True)]
    return Comparison(len(common), raw_agreement(xs, ys), kappa, correlation_cell(pairs) if ordinal else "—")


def people_alpha(group: Group, people: Mapping[str, Side]) -> float:
    """Return Krippendorff's α among the raters on a group (interval on ordinal groups), nan with one rater."""
    sides = [side.get(group.name, {}) for side in people.values()]
    if len(sides) < 2:
        return math.nan
    units = sorted(set().union(*sides))
    metric: Metric = "interval" if group.scale == "ordinal" else "nominal"
    coded = [
        [_number(group, side[u]) if metric == "interval" else side[u] for side in sides if u in side] for u in units
    ]
    return krippendorff_alpha(coded, metric=metric)


def people_mean(group: Group, people: Mapping[str, Side]) -> dict[Unit, float]:
    """Return the people's mean numeric reading per unit of a group (over the raters who rated it)."""
    values: dict[Unit, list[float]] = {}
    for side in people.values():
        for unit, value in side.get(group.name, {}).items():
            values.setdefault(unit, []).append(_number(group, value))
    return {unit: sum(numbers) / len(numbers) for unit, numbers in values.items()}


# ------------------------------------------------------------------------------------------ tables


def _text(value: str) -> str:
    """Return a name or id on one line, safe inside a markdown table cell (escaped there: it came from a rater)."""
    return outside_text(" ".join(value.split()).replace("|", "¦"))


def _shown(value: Value | float) -> str:
    shown = plain_value(value)
    return str(shown) if not isinstance(shown, float) else num(shown)


def raters_table(raters: Sequence[Ratings], pairing: Pairing, run: Run) -> Table:
    """Return who rated: each rater's files, ratings, (item, arm) pairs rated and ratings outside the run."""
    table = Table("Judge and people — raters", ["Rater", "files", "ratings", "pairs rated", "not in the run"])
    notes = []
    for ratings in raters:
        pairs = {(i, m) for i, m, _ in ratings.values if (i, m) in pairing.forms}
        table.rows.append(
            [
                _text(ratings.rater),
                ", ".join(_text(path.name) for path in ratings.files),
                str(ratings.count),
                str(len(pairs)),
                str(pairing.outside[ratings.rater]),
            ]
        )
        if ratings.run and ratings.run != run.root.name:
            notes.append(f"{_text(ratings.rater)}'s file names the run '{_text(ratings.run)}', not {run.root.name!r}")
    table.notes = [
        "ratings: lines read (a later rating of the same pair and dimension replaces an earlier one); not in the "
        "run: ratings of (item, arm) pairs this run's scores do not hold (left out)",
        *notes,
    ]
    return table


def agreement_table(pairing: Pairing) -> Table:
    """Return, per rated group, the judge against each rater and every two raters: n, agreement, κ, PLCC / SRCC."""
    table = Table("Judge and people — agreement", ["Dimension", "Between", "n", "agreement (%)", "κ", "PLCC / SRCC"])
    names = list(pairing.people)
    for group in pairing.groups():
        judge = pairing.judge.get(group.name, {})
        sources = [(JUDGE, person, judge) for person in names]
        sources += [(a, b, pairing.people[a].get(group.name, {})) for a, b in combinations(names, 2)]
        for a, b, first in sources:
            found = compare_sources(group, first, pairing.people[b].get(group.name, {}))
            table.rows.append(
                [
                    group.name,
                    f"{_text(a)} – {_text(b)}",
                    str(found.n),
                    pct(found.agreement),
                    _cell(found.kappa),
                    found.correlation,
                ]
            )
    table.notes = [
        f"{JUDGE}: the scoring's side (for answers the protocol's verdict, by rules or by the judge model); n: the "
        "units both rated (an (item, arm) pair, or one authenticity question of it); agreement: equal values / n",
        "κ: Cohen's kappa, unweighted on nominal dimensions (answer, authenticity answers), quadratic-weighted on "
        "ordinal ones (authenticity sum, aesthetics, fidelity, diagram grade); PLCC / SRCC on ordinal dimensions "
        "with 3 or more units; — where undefined (a constant rater, too few units)",
    ]
    return table


def dimension_table(pairing: Pairing) -> Table:
    """Return, per rated group: units the people rated, raters, α among them, the judge's SPS and lean."""
    table = Table(
        "Judge and people — per dimension",
        ["Dimension", "scale", "units rated", "raters", "α (people)", "SPS (judge vs people's mean)", "judge − people"],
    )
    for group in pairing.groups():
        means = people_mean(group, pairing.people)
        judge = {u: _number(group, v) for u, v in pairing.judge.get(group.name, {}).items() if u in means}
        units = sorted(judge)
        sps = mean_sps([judge[u] for u in units], [means[u] for u in units]) if group.sps else math.nan
        lean = mean([judge[u] - means[u] for u in units])
        raters = sum(1 for side in pairing.people.values() if side.get(group.name))
        table.rows.append(
            [
                group.name,
                group.scale,
                str(len(means)),
                str(raters),
                _cell(people_alpha(group, pairing.people)),
                _cell(sps),
                "—" if lean is None else f"{lean:+.2f}",
            ]
        )
    table.notes = [
        "α: Krippendorff's alpha among the people (nominal, or interval on ordinal dimensions; — with one rater); "
        "SPS: GOBench's Scaled Proximity Score max(0, 1 − |judge − people's mean| / 0.5), averaged over the units "
        "the judge and someone rated, for GOBench's rating dimensions",
        "judge − people: the mean of the judge's value minus the people's mean over those units, read as numbers "
        "(right 1, wrong 0; Yes 1, No 0, Cannot be determined 0.5): above 0, the judge is more lenient",
    ]
    return table


CONFUSION_GROUPS = (ANSWERS_GROUP, ANSWER_GROUP, DIAGRAM_GROUP)


def confusion_tables(pairing: Pairing) -> list[Table]:
    """Return the judge × people counts of the yes/no-like groups (authenticity answers, answers, diagram grades)."""
    tables = []
    for group in CONFUSION_GROUPS:
        if group not in pairing.groups():
            continue
        values = _group_values(group)
        judge = pairing.judge.get(group.name, {})
        counts: Counter[tuple[Value | None, Value]] = Counter()
        for side in pairing.people.values():
            for unit, value in side.get(group.name, {}).items():
                counts[(judge.get(unit), value)] += 1
        label = {v: name for v, name in zip(values, _group_names(group), strict=True)}
        table = Table(
            f"Judge and people — {group.name} (judge × people)",
            ["Judge \\ people", *(label[v] for v in values), "total"],
        )
        for row in [*values, None]:
            cells = [counts[(row, v)] for v in values]
            if row is None and not any(cells):
                continue
            table.rows.append(["no verdict" if row is None else label[row], *map(str, cells), str(sum(cells))])
        table.notes = [
            "every rating counts once (several raters of a unit: several counts); no verdict: the "
            "judge did not decide the unit (unjudged, judge error)"
        ]
        tables.append(table)
    return tables


def _group_values(group: Group) -> tuple[Value, ...]:
    return (
        ANSWER.values if group is ANSWER_GROUP else DIAGRAM.values if group is DIAGRAM_GROUP else authenticity(1).values
    )


def _group_names(group: Group) -> tuple[str, ...]:
    return ANSWER.names if group is ANSWER_GROUP else DIAGRAM.names if group is DIAGRAM_GROUP else authenticity(1).names


def viewer_link(item_id: str, mode: str) -> str:
    """Return a markdown link that opens the pair in the viewer (RUN/index.html), relative to the report."""
    return f"[open]({VIEWER_PAGE}#{urlencode([('id', item_id), ('mode', mode)])})"


def differ_table(pairing: Pairing, limit: int = DIFFER_ROWS) -> Table:
    """Return the (item, arm, dimension)s where the judge and the people's mean are furthest apart, with links."""
    found: list[tuple[float, Unit, Group]] = []
    for group in pairing.groups():
        if group is AUTHENTICITY_GROUP:
            spans = {
                unit: float(sum(1 for d in form.dimensions if question_number(d.name) is not None))
                for unit, form in pairing.forms.items()
            }
        elif group.span is None:
            continue
        means = people_mean(group, pairing.people)
        for unit, value in pairing.judge.get(group.name, {}).items():
            if unit not in means:
                continue
            span = spans[(unit[0], unit[1])] if group is AUTHENTICITY_GROUP else group.span
            gap = abs(_number(group, value) - means[unit]) / (span or 1.0)
            if gap > 0:
                found.append((gap, unit, group))
    found.sort(key=lambda entry: (-entry[0], entry[1], entry[2].name))
    table = Table(
        "Judge and people — where they differ most",
        ["Id", "Arm", "Dimension", "Judge", "People", "gap", "Viewer"],
    )
    for gap, unit, group in found[:limit]:
        people = [
            f"{_text(name)} {_shown(side[group.name][unit])}"
            for name, side in pairing.people.items()
            if unit in side.get(group.name, {})
        ]
        table.rows.append(
            [
                _text(unit[0]),
                _text(unit[1]),
                group.name,
                _shown(pairing.judge[group.name][unit]),
                " · ".join(people),
                num(gap),
                viewer_link(unit[0], unit[1]),
            ]
        )
    table.notes = [
        f"gap = |judge − people's mean| / the width of the scale (answers and grades 1, authenticity its question "
        f"count, 1–5 scales 4); the {limit} largest, ties by id; "
        "Viewer opens the pair in RUN/index.html (write it with `mcot view RUN --rate`)",
    ]
    if not found:
        table.notes.insert(0, "the judge and the people's mean agree on every unit both rated")
    return table


# ------------------------------------------------------------------------------------------ the people's verdicts


@dataclass
class Verdicts:
    """The people's verdicts variant: the scores with the people's answers, and what changed."""

    scores: list[Score]
    rated: int = 0
    """Pairs with a people's verdict (answer or diagram grade)."""
    changed: int = 0
    """Pairs whose verdict or grade differs from the protocol's."""
    ties: int = 0
    """Pairs the raters split evenly on right / wrong: the protocol's verdict kept."""
    failed: int = 0
    """Rated pairs the run failed on: nothing to override, left as run errors."""
    benchmarks: list[str] = field(default_factory=list)


def people_verdicts(scores: Sequence[Score], raters: Sequence[Ratings]) -> Verdicts:
    """Return the scores with the people's verdicts where they rated `answer` (majority; a tie keeps the protocol's)
    or `diagram` (the mean grade; correct when it is 1), method "human" and the protocol's verdict in details."""
    votes: dict[tuple[str, str], list[Value]] = {}
    grades: dict[tuple[str, str], list[float]] = {}
    for ratings in raters:
        for (item_id, mode, name), value in ratings.values.items():
            if name == ANSWER.name:
                votes.setdefault((item_id, mode), []).append(value)
            elif name == DIAGRAM.name:
                grades.setdefault((item_id, mode), []).append(float(value))
    verdicts = Verdicts([])
    benchmarks: set[str] = set()
    for score in scores:
        key = (score.id, score.mode)
        if key not in votes and key not in grades:
            verdicts.scores.append(score)
            continue
        if score.method == "error":
            verdicts.failed += 1
            verdicts.scores.append(score)
            continue
        changed = copy.deepcopy(score)
        protocol = {"correct": score.correct, "score": score.score, "method": score.method}
        if key in grades:
            grade = sum(grades[key]) / len(grades[key])
            changed.score, changed.correct = grade, grade == 1.0
            changed.details["grade"] = grade
            changed.details["people"] = {"grades": grades[key], "protocol": protocol}
        else:
            right, wrong = votes[key].count("right"), votes[key].count("wrong")
            changed.details["people"] = {"right": right, "wrong": wrong, "protocol": protocol}
            if right == wrong:
                verdicts.ties += 1
                verdicts.scores.append(score)
                continue
            changed.correct = right > wrong
            changed.score = 1.0 if changed.correct else 0.0
        changed.method = "human"
        verdicts.rated += 1
        verdicts.changed += int((changed.correct, changed.score) != (score.correct, score.score))
        benchmarks.add(score.benchmark)
        verdicts.scores.append(changed)
    verdicts.benchmarks = sorted(benchmarks)
    return verdicts


def verdicts_note(verdicts: Verdicts) -> str:
    """Return the line under the people's-verdicts tables: what they hold and how many pairs changed."""
    return (
        f"the protocol's scores with the people's verdicts where they rated ({verdicts.rated} pairs, "
        f"{verdicts.changed} of them differing from the protocol; {verdicts.ties} evenly split, protocol kept; "
        f"{verdicts.failed} the run failed on, left as errors): answers by majority, diagrams by the mean grade; "
        f"RUN/{HUMAN_SCORES}; RUN/scores.jsonl keeps the protocol's"
    )


@dataclass
class PeopleSection:
    """The report's "Judge and people" section: its tables and the people's verdicts variant."""

    tables: list[Table]
    verdicts: Verdicts


def people_section(run: Run, scores: Sequence[Score], raters: Sequence[Ratings]) -> PeopleSection:
    """Return the "Judge and people" tables of a run's scores against the raters, and the people's verdicts."""
    pairing = pair_ratings(run, scores, raters)
    tables = [raters_table(raters, pairing, run)]
    if pairing.groups():
        tables += [
            agreement_table(pairing),
            dimension_table(pairing),
            *confusion_tables(pairing),
            differ_table(pairing),
        ]
    else:
        tables[0].notes.insert(0, "no rating names a pair of this run's scores: nothing to compare")
    return PeopleSection(tables, people_verdicts(scores, raters))
