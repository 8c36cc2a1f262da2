"""Four of the six aspects: existence, counting, size and location, up to PER_ASPECT questions each."""

from __future__ import annotations

from typing import Any

from mcot.benchmarks.generators.gepbench.context import (
    PER_ASPECT,
    QUADRANTS,
    SIZE_STEP,
    Context,
    Question,
    arrange,
    pick,
    quadrant,
)
from mcot.benchmarks.generators.gepbench.shapes import OPEN_KINDS

PAIR_QUESTIONS = 2  # existence: two "is there an X and a Y" questions, then one "which is present/absent"
MEASURES = ("horizontal span", "vertical span", "area")


def existence(c: Context) -> list[Question]:
    """Return up to two pair questions (both / only one / neither) and a present-or-absent question."""
    out: list[Question] = []
    asked: set[frozenset[str]] = set()
    for _ in range(PAIR_QUESTIONS):
        q = _pair(c, asked)
        if q is not None:
            out.append(q)
    present, absent = c.words.kinds_present(), c.words.absent
    if c.rng.random() < 0.5 or len(present) < 3:
        q = c.which(present, absent, "existence", c.t["existence_present"], [{"check": "visible"}])
    else:
        q = c.which(absent, present, "existence", c.t["existence_absent"], [{"check": "visible"}])
    if q is not None:
        out.append(q)
    return out


def _pair(c: Context, asked: set[frozenset[str]]) -> Question | None:
    """Return one "is there an X and a Y" question on a pair not asked yet, its answer at a balanced letter."""
    words = c.words
    present, absent = words.present, words.absent
    feasible = {0: len(present) >= 2, 1: bool(present and absent), 2: bool(present and absent), 3: len(absent) >= 2}
    slot = c.pick("existence", [k for k, ok in feasible.items() if ok])
    for _ in range(20):
        x = pick(present if slot in (0, 1) else absent, c.rng)
        y = pick(present if slot in (0, 2) else absent, c.rng)
        if x != y and not words.related(x, y) and frozenset((x, y)) not in asked:
            break
    else:
        c.balancer.release(c.key("existence"), slot)
        return None
    asked.add(frozenset((x, y)))
    text = c.t["existence_pair"].format(a_x=words.indefinite(x), a_y=words.indefinite(y))
    choices = [s.format(x=words.definite(x), y=words.definite(y)) for s in c.t["existence_pair_choices"]]
    return c.question("existence", text, choices, slot, [{"check": "visible"}, {"check": "strokes"}])


def counting(c: Context) -> list[Question]:
    """Return up to three 'how many' questions (two on shapes present, one on a shape absent, as the public
    engine asks): four consecutive counts around the truth, shuffled to a balanced letter."""
    out: list[Question] = []
    words = c.words
    used: set[str] = set()
    for k in range(PER_ASPECT):
        source = words.absent if k == PER_ASPECT - 1 else words.present
        pool = [t for t in source if t not in used]
        if not pool:
            continue
        term = pick(pool, c.rng)
        used.add(term)
        truth = words.counts[term]
        offset = int(c.rng.integers(min(3, truth) + 1))  # where the truth sits in the run of four counts
        values = [truth - offset + k for k in range(4)]
        slot = c.pick("counting", range(4))
        shuffled = _shuffled(values, offset, slot, c)
        text = c.t["counting"].format(xs=words.counted(term))
        checks = [{"check": "visible"}, {"check": "strokes"}]
        out.append(c.question("counting", text, [str(v) for v in shuffled], slot, checks, native_choices=shuffled))
    return out


def _shuffled(values: list[Any], truth_index: int, slot: int, c: Context) -> list[Any]:
    """Return the values reordered so that values[truth_index] lands at `slot` (the public engine never shuffled)."""
    rest = [v for k, v in enumerate(values) if k != truth_index]
    return arrange(values[truth_index], rest, slot, c.rng)


def size_value(value: float, style: str) -> str:
    """Return a size choice as text: "0.30" (mcot) or the release's "0.3"."""
    return f"{value:.2f}" if style == "mcot" else str(round(value, 2))


def size(c: Context) -> list[Question]:
    """Return one question per measure (horizontal span, vertical span, area) on a named shape: values 0.15
    apart, all within [0.01, 1], shuffled to a balanced letter."""
    out: list[Question] = []
    for measure in MEASURES:
        options = [i for i in c.named if measure != "area" or c.shapes[i].kind not in OPEN_KINDS]
        if not options:
            continue
        i = pick(options, c.rng)
        shape = c.shapes[i]
        truth = shape.area if measure == "area" else shape.spans[0 if measure == "horizontal span" else 1]
        feasible = [p for p in range(4) if truth - p * SIZE_STEP >= 0.01 and truth + (3 - p) * SIZE_STEP <= 1.0]
        if not feasible:
            continue
        offset = feasible[int(c.rng.integers(len(feasible)))]
        values = [round(truth + (step - offset) * SIZE_STEP, 2) for step in range(4)]
        slot = c.pick("size", range(4))
        values = _shuffled(values, offset, slot, c)
        text = c.t["size"].format(measure=measure, x=c.names[i])
        check = {"check": "area" if measure == "area" else "span", "shape": i, "values": values}
        check["truth"] = round(truth, 4)
        if measure != "area":
            check["axis"] = 0 if measure == "horizontal span" else 1
        out.append(c.question("size", text, [size_value(v, c.style) for v in values], slot, [check]))
    return out


def location(c: Context) -> list[Question]:
    """Return up to two centroid-quadrant questions on different shapes and one relative to another shape."""
    out: list[Question] = []
    centroid = {i: c.shapes[i].centroid for i in c.named}
    candidates = [i for i in c.named if quadrant(centroid[i][0] - 0.5, centroid[i][1] - 0.5)]
    for k in c.rng.permutation(len(candidates))[: PER_ASPECT - 1]:
        i = candidates[int(k)]
        answer = str(quadrant(centroid[i][0] - 0.5, centroid[i][1] - 0.5))
        out.append(_quadrant_question(c, c.t["location"].format(x=c.names[i]), answer, i, None))
    pairs = [
        (i, j)
        for i in c.named
        for j in c.named
        if i != j and quadrant(centroid[i][0] - centroid[j][0], centroid[i][1] - centroid[j][1])
    ]
    if pairs:
        i, j = pick(pairs, c.rng)
        answer = str(quadrant(centroid[i][0] - centroid[j][0], centroid[i][1] - centroid[j][1]))
        text = c.t["location_relative"].format(x=c.names[i], y=c.names[j])
        out.append(_quadrant_question(c, text, answer, i, j))
    return out


def _quadrant_question(c: Context, text: str, answer: str, i: int, j: int | None) -> Question:
    slot = c.pick("location", range(4))
    choices = arrange(answer, [q for q in QUADRANTS if q != answer], slot, c.rng)
    return c.question("location", text, choices, slot, [{"check": "quadrant", "shape": i, "of": j, "expect": answer}])
