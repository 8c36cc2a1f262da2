"""The relationship aspect: how one named shape relates to another, up to PER_ASPECT questions on different
pairs, "none of the above" (always D) asked only when D is the least used letter, distractors clearly false."""

from __future__ import annotations

import math

import numpy as np
from mcot.benchmarks.generators.gepbench.context import PER_ASPECT, Context, Question, arrange, pick
from mcot.benchmarks.generators.gepbench.placement import Figure
from mcot.benchmarks.generators.gepbench.relations import IMPLIED, INVERSE
from mcot.benchmarks.generators.gepbench.shapes import OPEN_KINDS, POLYGON_KINDS, Shape

ANGLE_TOLERANCE = math.radians(10)
MIRROR_SIZE_RATIO = 1.2  # "symmetric" is a safe distractor only for shapes whose sizes differ at least this much


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


def _size(shape: Shape) -> float:
    return shape.area if shape.closed else float(np.hypot(*np.diff(shape.array, axis=0).T).sum())


def surely_false(word: str, i: int, j: int, fig: Figure) -> bool:
    """Return True when relation `word` from shape i to shape j is clearly false (a safe distractor)."""
    a, b = fig.shapes[i], fig.shapes[j]
    touching = fig.contacts.get((min(i, j), max(i, j))) == "touch"
    if word in ("tangent", "shared edge", "inscribed", "circumscribed"):
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


def relationship(c: Context) -> list[Question]:
    """Return up to three questions on different pairs of shapes."""
    out: list[Question] = []
    asked: set[frozenset[int]] = set()
    for _ in range(PER_ASPECT):
        q = _one(c, asked)
        if q is None:
            break
        out.append(q)
    return out


def _one(c: Context, asked: set[frozenset[int]]) -> Question | None:
    """Return one relationship question on a pair not in `asked` (and add the pair), or None."""
    vocabulary = set(c.words.relation_words)
    fresh = [(i, j, w) for i, j, w in c.fig.relations if frozenset((i, j)) not in asked]
    related = [(i, j, w) for i, j, w in fresh if w in vocabulary and c.names[i] and c.names[j]]
    # a mirrored pair has no names of its own (same kind, same size): asked about as "the two triangles"
    related += [(i, j, w) for i, j, w in fresh if w == "symmetric" and w in vocabulary and c.words.pair_name(i, j)]
    unrelated = [
        (i, j)
        for i in c.named
        for j in c.named
        if i < j and frozenset((i, j)) not in asked and not c.fig.words(i, j) and not c.fig.words(j, i)
    ]
    order = c.balancer.order(c.key("relationship"), c.rng)
    for slot in order:
        if slot == 3 and order[0] != 3:
            continue  # "none of the above" only when D is the least used letter: it is always D
        if slot == 3 and unrelated:
            i, j = pick(unrelated, c.rng)
            i, j, w = (j, i, c.t["none_of_the_above"]) if c.rng.random() < 0.5 else (i, j, c.t["none_of_the_above"])
        elif slot < 3 and related:
            i, j, w = pick(related, c.rng)
            if INVERSE[w] is not None and INVERSE[w] in vocabulary and c.rng.random() < 0.5:
                i, j, w = j, i, str(INVERSE[w])
        else:
            continue
        q = _question(c, i, j, w, slot)
        if q is not None:
            c.balancer.take(c.key("relationship"), slot)
            asked.add(frozenset((i, j)))
            return q
    return None


def _question(c: Context, i: int, j: int, word: str, slot: int) -> Question | None:
    none = c.t["none_of_the_above"]
    true_words = c.fig.words(i, j) | c.fig.words(j, i) if word == "symmetric" else c.fig.words(i, j)
    banned = set(true_words) | {w2 for w in true_words for w2 in IMPLIED.get(w, frozenset())}
    vocabulary = c.words.relation_words
    if c.names[i] and c.names[j]:
        text = c.t["relationship"].format(x=c.names[i], y=c.names[j])
        pool = [w for w in vocabulary if w not in banned and surely_false(w, i, j, c.fig)]
    else:  # an unordered pair: a distractor must be false both ways
        pair = c.words.pair_name(i, j)
        if pair is None or word != "symmetric":
            return None
        text = c.t["relationship_pair"].format(xs=pair)
        pool = [
            w for w in vocabulary if w not in banned and surely_false(w, i, j, c.fig) and surely_false(w, j, i, c.fig)
        ]
    if len(pool) < 3:
        return None
    distractors = [pool[int(k)] for k in c.rng.permutation(len(pool))[:3]]
    if word == none:
        return c.question("relationship", text, [*distractors, none], 3, [])
    choices = [*arrange(word, distractors[:2], slot, c.rng), none]
    return c.question("relationship", text, choices, slot, [])
