"""Questions in the six GePBench aspects, with distractors, balanced answer letters and validator checks.

Templates live in templates.json. Every question carries the checks the pixel validator can run on it.
Questions whose answer would hinge on a near-threshold value are never emitted: a centroid within
EDGE_MARGIN of a border it is judged against, an area comparison within 25 %, a relation word that is arguably
true as well as the answer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from benchmarks.generators.gepbench.placement import Figure
from benchmarks.generators.gepbench.relations import IMPLIED, INVERSE, RELATION_WORDS
from benchmarks.generators.gepbench.shapes import OPEN_KINDS, POLYGON_KINDS, Shape
from benchmarks.generators.gepbench.vocabulary import (
    TERM_NAMES,
    TERMS,
    article,
    inclusion_note,
    members,
    plural,
    related_terms,
    unique_name,
    unique_term,
)

ASPECTS: tuple[str, ...] = ("existence", "counting", "size", "location", "reference", "relationship")
LETTERS = "ABCD"
EDGE_MARGIN = 0.03  # a centroid this close to a border it is judged against makes no question
SIZE_STEP = 0.15  # size choices are the truth and neighbours 0.15 apart
AREA_RATIO = 1.25  # area comparisons need at least this ratio
ANGLE_TOLERANCE = math.radians(10)
MIRROR_SIZE_RATIO = 1.2  # "symmetric" is a safe distractor only for shapes whose sizes differ at least this much
QUADRANTS = ("upper left", "upper right", "lower left", "lower right")
REGIONS = {
    "upper half": (None, True),
    "lower half": (None, False),
    "left half": (False, None),
    "right half": (True, None),
    "top left quarter": (False, True),
    "top right quarter": (True, True),
    "bottom left quarter": (False, False),
    "bottom right quarter": (True, False),
}


@cache
def templates() -> dict[str, Any]:
    """Return the question templates (templates.json next to this module)."""
    text = resources.files("benchmarks.generators.gepbench").joinpath("templates.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


@dataclass
class Question:
    """One four-choice question about a figure; `answer` is the index of the right choice."""

    aspect: str
    text: str
    choices: list[str]
    answer: int
    checks: list[dict[str, Any]] = field(default_factory=list)
    native_choices: list[Any] | None = None
    balance_key: str = ""

    @property
    def letter(self) -> str:
        """Return the answer letter A-D."""
        return LETTERS[self.answer]

    def native(self) -> tuple[list[Any], Any]:
        """Return (choices, answer value) as the public files store them (ints for counting)."""
        values = self.native_choices if self.native_choices is not None else self.choices
        return values, values[self.answer]


class LetterBalancer:
    """Keeps answer letters balanced per group (level and aspect): the least used letter that fits, ties at random."""

    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}

    def order(self, key: str, rng: np.random.Generator) -> list[int]:
        """Return the letter indices of group `key` from least to most used (ties in random order)."""
        counts = self.counts.setdefault(key, [0, 0, 0, 0])
        jitter = rng.permutation(4).tolist()
        return sorted(range(4), key=lambda i: (counts[i], jitter[i]))

    def pick(self, feasible: Sequence[int], rng: np.random.Generator, key: str = "") -> int:
        """Return the least used letter index of `feasible` in group `key`, and count it."""
        allowed = set(feasible)
        choice = next(i for i in self.order(key, rng) if i in allowed)
        self.take(key, choice)
        return choice

    def take(self, key: str, index: int) -> None:
        """Count one use of a letter in group `key`."""
        self.counts.setdefault(key, [0, 0, 0, 0])[index] += 1

    def release(self, key: str, index: int) -> None:
        """Forget one use of a letter (its question was dropped)."""
        self.counts[key][index] -= 1

    def totals(self) -> list[int]:
        """Return the letter counts summed over all groups."""
        return [sum(c[i] for c in self.counts.values()) for i in range(4)]


def _arrange(answer: str, distractors: Sequence[str], slot: int, rng: np.random.Generator) -> list[str]:
    others = [distractors[i] for i in rng.permutation(len(distractors))]
    return [*others[:slot], answer, *others[slot:]]


def _pick(items: Sequence[Any], rng: np.random.Generator) -> Any:
    return items[min(int(rng.random() * len(items)), len(items) - 1)]


class _Context:
    """What the templates need to know about one figure, computed once."""

    def __init__(self, fig: Figure, rng: np.random.Generator, balancer: LetterBalancer) -> None:
        self.fig = fig
        self.shapes: list[Shape] = fig.shapes
        self.rng = rng
        self.balancer = balancer
        self.t = templates()
        self.members = {t: members(t, self.shapes) for t in TERM_NAMES}
        self.counts = {t: len(m) for t, m in self.members.items()}
        self.present_kinds = sorted({s.kind for s in self.shapes} & set(TERM_NAMES))
        self.absent = [t for t in TERM_NAMES if self.counts[t] == 0]
        self.names = {i: unique_name(i, self.shapes) for i in range(len(self.shapes))}
        self.named = [i for i, n in self.names.items() if n is not None]
        # plain terms only: the 'which of the following' choices are shape terms
        self.terms = {i: unique_term(i, self.shapes) for i in range(len(self.shapes))}

    def which(
        self, truths: Sequence[str], falses: Sequence[str], aspect: str, text: str, checks: list[dict[str, Any]]
    ) -> Question | None:
        """Return a 'which of the following' question: one true term, three false ones, no two overlapping."""
        if not truths:
            return None
        answer = _pick(truths, self.rng)
        pool = [f for f in falses if not related_terms(f, answer)]
        chosen: list[str] = []
        for k in self.rng.permutation(len(pool)):
            term = pool[int(k)]
            if all(not related_terms(term, c) for c in chosen):
                chosen.append(term)
            if len(chosen) == 3:
                break
        if len(chosen) < 3:
            return None
        slot = self.pick(aspect, range(4))
        return self.question(aspect, text, _arrange(answer, chosen, slot, self.rng), slot, checks)

    def key(self, aspect: str) -> str:
        """Return the balancing group of an aspect in this figure's level."""
        return f"{self.fig.level}/{aspect}"

    def pick(self, aspect: str, feasible: Sequence[int]) -> int:
        """Return a balanced answer slot for `aspect` among `feasible`."""
        return self.balancer.pick(feasible, self.rng, self.key(aspect))

    def question(
        self, aspect: str, text: str, choices: list[str], slot: int, checks: list[dict[str, Any]], **kw: Any
    ) -> Question:
        """Return a Question tagged with its balancing group."""
        return Question(aspect, text, choices, slot, checks, balance_key=self.key(aspect), **kw)


def _quadrant(dx: float, dy: float) -> str | None:
    if abs(dx) < EDGE_MARGIN or abs(dy) < EDGE_MARGIN:
        return None
    return ("upper " if dy > 0 else "lower ") + ("right" if dx > 0 else "left")


def existence(c: _Context) -> list[Question]:
    """Return a pair question (both / only one / neither) and a present-or-absent question."""
    out: list[Question] = []
    present = [t for t in TERM_NAMES if c.counts[t] > 0]
    pairs_ok = {
        0: len(present) >= 2,
        1: bool(present) and bool(c.absent),
        2: bool(present) and bool(c.absent),
        3: len(c.absent) >= 2,
    }
    slot_options = [k for k, ok in pairs_ok.items() if ok]
    slot = c.pick("existence", slot_options)
    for _ in range(20):
        xs = present if slot in (0, 1) else c.absent
        ys = present if slot in (0, 2) else c.absent
        x, y = _pick(xs, c.rng), _pick(ys, c.rng)
        if x != y and not related_terms(x, y):
            break
    else:
        c.balancer.release(c.key("existence"), slot)
        x = y = ""
    if x:
        note_x, note_y = inclusion_note(x, c.shapes), inclusion_note(y, c.shapes)
        text = c.t["existence_pair"].format(a_x=article(x) + note_x, a_y=article(y) + note_y)
        choices = [s.format(x=x, y=y) for s in c.t["existence_pair_choices"]]
        out.append(c.question("existence", text, choices, slot, [{"check": "visible"}, {"check": "strokes"}]))
    if c.rng.random() < 0.5 or len(c.present_kinds) < 3:
        q = c.which(c.present_kinds, c.absent, "existence", c.t["existence_present"], [{"check": "visible"}])
    else:
        q = c.which(c.absent, c.present_kinds, "existence", c.t["existence_absent"], [{"check": "visible"}])
    if q is not None:
        out.append(q)
    return out


def _shuffled_numbers(values: list[float], truth_index: int, slot: int, rng: np.random.Generator) -> list[Any]:
    """Return the values reordered so that values[truth_index] lands at `slot` (the public engine never shuffled)."""
    rest = [v for k, v in enumerate(values) if k != truth_index]
    return _arrange(values[truth_index], rest, slot, rng)  # type: ignore[arg-type]


def counting(c: _Context) -> list[Question]:
    """Return two 'how many' questions: four consecutive counts around the truth, shuffled to a balanced letter."""
    out: list[Question] = []
    present = [t for t in TERM_NAMES if c.counts[t] > 0]
    used: set[str] = set()
    for _ in range(2):
        pool = [t for t in (present if c.rng.random() < 0.8 else c.absent) if t not in used]
        if not pool:
            continue
        term = _pick(pool, c.rng)
        used.add(term)
        truth = c.counts[term]
        offset = int(c.rng.integers(min(3, truth) + 1))  # where the truth sits in the run of four counts
        values = [truth - offset + k for k in range(4)]
        slot = c.pick("counting", range(4))
        shuffled = _shuffled_numbers(values, offset, slot, c.rng)
        text = c.t["counting"].format(xs=plural(term), note=inclusion_note(term, c.shapes))
        checks = [{"check": "visible"}, {"check": "strokes"}]
        out.append(c.question("counting", text, [str(v) for v in shuffled], slot, checks, native_choices=shuffled))
    return out


def size(c: _Context) -> list[Question]:
    """Return two questions on a named shape's span or area: values 0.15 apart, shuffled to a balanced letter."""
    out: list[Question] = []
    options = []
    for i in c.named:
        shape = c.shapes[i]
        options += [(i, "horizontal span", shape.spans[0]), (i, "vertical span", shape.spans[1])]
        if shape.kind not in OPEN_KINDS:
            options.append((i, "area", shape.area))
    for k in c.rng.permutation(len(options))[:2]:
        i, measure, truth = options[int(k)]
        feasible = [p for p in range(4) if truth - p * SIZE_STEP >= 0.01]
        if not feasible:
            continue
        offset = feasible[int(c.rng.integers(len(feasible)))]
        values = [round(truth + (step - offset) * SIZE_STEP, 2) for step in range(4)]
        slot = c.pick("size", range(4))
        values = _shuffled_numbers(values, offset, slot, c.rng)
        choices = [f"{v:.2f}" for v in values]
        text = c.t["size"].format(measure=measure, x=c.names[i])
        check = {
            "check": "area" if measure == "area" else "span",
            "shape": i,
            "values": values,
            "truth": round(truth, 4),
        }
        if measure != "area":
            check["axis"] = 0 if measure == "horizontal span" else 1
        out.append(c.question("size", text, choices, slot, [check]))
    return out


def location(c: _Context) -> list[Question]:
    """Return a centroid-quadrant question and one relative to another named shape."""
    out: list[Question] = []
    candidates = [i for i in c.named if _quadrant(c.shapes[i].centroid[0] - 0.5, c.shapes[i].centroid[1] - 0.5)]
    if candidates:
        i = _pick(candidates, c.rng)
        cx, cy = c.shapes[i].centroid
        answer = _quadrant(cx - 0.5, cy - 0.5)
        assert answer is not None
        slot = c.pick("location", range(4))
        choices = _arrange(answer, [q for q in QUADRANTS if q != answer], slot, c.rng)
        text = c.t["location"].format(x=c.names[i])
        out.append(
            c.question(
                "location", text, choices, slot, [{"check": "quadrant", "shape": i, "of": None, "expect": answer}]
            )
        )
    pairs = []
    for i in c.named:
        for j in c.named:
            if i != j:
                (ax, ay), (bx, by) = c.shapes[i].centroid, c.shapes[j].centroid
                if _quadrant(ax - bx, ay - by):
                    pairs.append((i, j))
    if pairs:
        i, j = _pick(pairs, c.rng)
        (ax, ay), (bx, by) = c.shapes[i].centroid, c.shapes[j].centroid
        answer = _quadrant(ax - bx, ay - by)
        assert answer is not None
        slot = c.pick("location", range(4))
        choices = _arrange(answer, [q for q in QUADRANTS if q != answer], slot, c.rng)
        text = c.t["location_relative"].format(x=c.names[i], y=c.names[j])
        out.append(
            c.question("location", text, choices, slot, [{"check": "quadrant", "shape": i, "of": j, "expect": answer}])
        )
    return out


def _in_region(
    point: tuple[float, float], region: tuple[bool | None, bool | None], origin: tuple[float, float]
) -> bool | None:
    """True inside, False clearly outside, None when within EDGE_MARGIN of a border that matters."""
    right, upper = region
    dx, dy = point[0] - origin[0], point[1] - origin[1]
    inside = True
    for want, d in ((right, dx), (upper, dy)):
        if want is None:
            continue
        if abs(d) < EDGE_MARGIN:
            return None
        inside = inside and ((d > 0) == want)
    return inside


def _split_terms(
    c: _Context,
    test: Callable[[Shape], bool | None],
    exclude: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[list[str], list[str]]:
    """Return (true terms, false terms) for a shape predicate that may be unsure (None) near a threshold."""
    # each shape is tested once, not once for every term it answers to
    seen: list[bool | None] = [None if i in exclude else test(s) for i, s in enumerate(c.shapes)]
    truths, falses = [], list(c.absent)
    for i, term in c.terms.items():
        if term is not None and seen[i] is True:
            truths.append(term)
    for term in TERM_NAMES:
        idx = c.members[term]
        if term in c.absent or not idx or any(i in exclude for i in idx):
            continue
        if all(seen[i] is False for i in idx):
            falses.append(term)
    return truths, falses


def reference(c: _Context) -> list[Question]:
    """Return two 'which of the following' questions: by region, relative place, frequency or area."""
    out: list[Question] = []
    kinds = ["region", "relative", "frequency", "area"]
    for _ in range(2):
        for _attempt in range(4):
            q = _reference_one(c, _pick(kinds, c.rng))
            if q is not None:
                out.append(q)
                break
    return out


def _reference_one(c: _Context, kind: str) -> Question | None:
    if kind == "region":
        name = _pick(list(REGIONS), c.rng)
        region = REGIONS[name]
        truths, falses = _split_terms(c, lambda s: _in_region(s.centroid, region, (0.5, 0.5)))
        q = c.which(truths, falses, "reference", c.t["reference_region"].format(region=name), [])
        if q is not None:
            q.checks = _place_checks(c, q, lambda i: {"check": "region", "shape": i, "region": name, "of": None})
        return q
    if kind == "relative" and len(c.named) >= 2:
        j = _pick(c.named, c.rng)
        quadrant = _pick(QUADRANTS, c.rng)
        region = (quadrant.endswith("right"), quadrant.startswith("upper"))
        origin = c.shapes[j].centroid
        truths, falses = _split_terms(c, lambda s: _in_region(s.centroid, region, origin), exclude={j})
        text = c.t["reference_relative"].format(quadrant=quadrant, y=c.names[j])
        q = c.which(truths, falses, "reference", text, [])
        if q is not None:
            q.checks = _place_checks(c, q, lambda i: {"check": "region", "shape": i, "region": quadrant, "of": j})
        return q
    if kind == "frequency":
        present = [t for t in TERM_NAMES if c.counts[t] > 0]
        base = _pick(present, c.rng)
        more = bool(c.rng.random() < 0.5)
        # choices only of terms whose shapes are all of that very kind, so "how many pentagons" is not in doubt
        others = [
            t for t in TERM_NAMES if not related_terms(t, base) and all(c.shapes[i].kind == t for i in c.members[t])
        ]
        cmp = (lambda n: n > c.counts[base]) if more else (lambda n: 0 < n < c.counts[base])
        truths = [t for t in others if c.counts[t] > 0 and cmp(c.counts[t])]
        falses = [t for t in others if not (c.counts[t] > 0 and cmp(c.counts[t]))]
        text = c.t["reference_frequency"].format(
            more_less="more" if more else "less", ys=plural(base), note=inclusion_note(base, c.shapes)
        )
        return c.which(truths, falses, "reference", text, [{"check": "visible"}, {"check": "strokes"}])
    if kind == "area":
        closed = [i for i in c.named if c.shapes[i].kind not in OPEN_KINDS]
        if len(closed) < 2:
            return None
        j = _pick(closed, c.rng)
        larger = bool(c.rng.random() < 0.5)
        ref = c.shapes[j].area

        def test(s: Shape) -> bool | None:
            if s.kind in OPEN_KINDS:
                return None
            ratio = s.area / ref
            if ratio >= AREA_RATIO:
                return larger
            if ratio <= 1 / AREA_RATIO:
                return not larger
            return None

        truths, falses = _split_terms(c, test, exclude={j})
        falses = [t for t in falses if t not in ("line", "spiral")]
        text = c.t["reference_area"].format(larger_smaller="larger" if larger else "smaller", y=c.names[j])
        q = c.which(truths, falses, "reference", text, [])
        if q is not None:
            q.checks = _place_checks(c, q, lambda i: {"check": "area_order", "shape": i, "of": j, "larger": larger})
        return q
    return None


def _place_checks(c: _Context, q: Question, make: Callable[[int], dict[str, Any]]) -> list[dict[str, Any]]:
    """Checks for a which-question: the answer's members must pass, every present distractor member must fail."""
    checks = []
    for k, term in enumerate(q.choices):
        for i in c.members.get(term, []):
            check = make(i)
            check["expect"] = k == q.answer
            checks.append(check)
    return checks


def _edges(shape: Shape) -> list[float]:
    if shape.kind in ("ellipse", "circle", "spiral"):
        return []
    pts = shape.array
    if shape.kind == "sector":
        pts = np.vstack([shape.array[1], shape.array[0], shape.array[-1]])
        seq = [(pts[0], pts[1]), (pts[1], pts[2])]
    elif shape.closed:
        seq = [(pts[k], pts[(k + 1) % len(pts)]) for k in range(len(pts))]
    else:
        seq = [(pts[0], pts[-1])]
    return [math.atan2(q[1] - p[1], q[0] - p[0]) % math.pi for p, q in seq]


def _angle_near(a: float, b: float, target: float) -> bool:
    diff = abs(a - b) % math.pi
    diff = min(diff, math.pi - diff)
    return abs(diff - target) < ANGLE_TOLERANCE


def _signature(shape: Shape) -> tuple[str, int]:
    if shape.kind in ("ellipse", "circle"):
        return ("round", 0)
    if shape.kind in OPEN_KINDS or shape.kind == "sector":
        return (shape.kind, 0)
    return ("polygon", len(shape.outline))


def surely_false(word: str, i: int, j: int, fig: Figure) -> bool:
    """Return True when relation `word` from shape i to shape j is clearly false (a safe distractor)."""
    a, b = fig.shapes[i], fig.shapes[j]
    touching = fig.contacts.get((min(i, j), max(i, j))) == "touch"
    if word in ("tangent", "shared edge"):
        return not touching
    if word in ("inscribed", "circumscribed"):
        return not touching
    if word in ("diameter", "major axis", "minor axis", "diagonal"):
        fits = {"diameter": b.kind == "circle", "major axis": b.kind == "ellipse", "minor axis": b.kind == "ellipse"}
        fits["diagonal"] = b.kind in POLYGON_KINDS and len(b.outline) >= 4
        return a.kind != "line" or not touching or not fits[word]
    if word in ("parallel", "perpendicular"):
        target = 0.0 if word == "parallel" else math.pi / 2
        return not any(_angle_near(x, y, target) for x in _edges(a) for y in _edges(b))
    if word == "concentric":
        return math.dist(a.centroid, b.centroid) > 0.05
    if word == "similar":
        return _signature(a) != _signature(b)
    if word == "symmetric":  # mirror images are congruent: clearly false when the kinds or the sizes differ
        small, big = sorted((_size(a), _size(b)))
        return _signature(a) != _signature(b) or big >= MIRROR_SIZE_RATIO * small
    return False


def _size(shape: Shape) -> float:
    return shape.area if shape.closed else float(np.hypot(*np.diff(shape.array, axis=0).T).sum())


def pair_term(c: _Context, i: int, j: int) -> str | None:
    """Return the most specific term whose shapes in the figure are exactly i and j ("the two triangles")."""
    terms = [t for t in TERM_NAMES if sorted(c.members[t]) == sorted((i, j))]
    return min(terms, key=lambda t: len(TERMS[t])) if terms else None


def relationship(c: _Context) -> list[Question]:
    """Return one question on how a named shape relates to another: 'none of the above' (D) about a quarter of the time."""
    none = c.t["none_of_the_above"]
    related = [(i, j, w) for i, j, w in c.fig.relations if c.names[i] and c.names[j]]
    # a mirrored pair has no names of its own (same kind, same size): asked about as "the two triangles"
    related += [(i, j, w) for i, j, w in c.fig.relations if w == "symmetric" and pair_term(c, i, j)]
    unrelated = [(i, j) for i in c.named for j in c.named if i < j and not c.fig.words(i, j) and not c.fig.words(j, i)]
    order = c.balancer.order(c.key("relationship"), c.rng)
    for slot in order:
        q: Question | None = None
        if slot == 3 and order[0] != 3:
            continue  # "none of the above" only when D is the least used letter: it is always D
        if slot == 3 and unrelated:
            i, j = _pick(unrelated, c.rng)
            if c.rng.random() < 0.5:
                i, j = j, i
            q = _relation_question(c, i, j, none, slot)
        elif slot < 3 and related:
            i, j, w = _pick(related, c.rng)
            if INVERSE[w] is not None and c.rng.random() < 0.5:
                i, j, w = j, i, str(INVERSE[w])
            q = _relation_question(c, i, j, w, slot)
        if q is not None:
            c.balancer.take(c.key("relationship"), slot)
            return [q]
    return []


def _relation_question(c: _Context, i: int, j: int, word: str, slot: int) -> Question | None:
    none = c.t["none_of_the_above"]
    true_words = c.fig.words(i, j) | c.fig.words(j, i) if word == "symmetric" else c.fig.words(i, j)
    banned = set(true_words) | {w2 for w in true_words for w2 in IMPLIED.get(w, frozenset())}
    if c.names[i] and c.names[j]:
        text = c.t["relationship"].format(x=c.names[i], y=c.names[j])
        pool = [w for w in RELATION_WORDS if w not in banned and surely_false(w, i, j, c.fig)]
    else:  # an unordered pair: a distractor must be false both ways
        term = pair_term(c, i, j)
        if term is None or word != "symmetric":
            return None
        text = c.t["relationship_pair"].format(xs=plural(term))
        pool = [
            w
            for w in RELATION_WORDS
            if w not in banned and surely_false(w, i, j, c.fig) and surely_false(w, j, i, c.fig)
        ]
    if len(pool) < 3:
        return None
    distractors = [pool[int(k)] for k in c.rng.permutation(len(pool))[:3]]
    if word == none:
        return c.question("relationship", text, [*distractors, none], 3, [])
    choices = [*_arrange(word, distractors[:2], slot, c.rng), none]
    return c.question("relationship", text, choices, slot, [])


GENERATORS: dict[str, Callable[[_Context], list[Question]]] = {
    "existence": existence,
    "counting": counting,
    "size": size,
    "location": location,
    "reference": reference,
    "relationship": relationship,
}


def make_questions(fig: Figure, rng: np.random.Generator, balancer: LetterBalancer) -> list[Question]:
    """Return every aspect's questions for one figure, in aspect order."""
    context = _Context(fig, rng, balancer)
    questions: list[Question] = []
    for aspect in ASPECTS:
        questions.extend(GENERATORS[aspect](context))
    return questions
