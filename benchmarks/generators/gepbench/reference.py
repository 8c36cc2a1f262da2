"""The reference aspect: 'which of the following' by region of the image, place relative to a shape, frequency
or area, up to PER_ASPECT different questions a figure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcot.benchmarks.generators.gepbench.context import (
    AREA_RATIO,
    PER_ASPECT,
    REGIONS,
    Context,
    Question,
    direction_holds,
    in_region,
    pick,
)
from mcot.benchmarks.generators.gepbench.shapes import OPEN_KINDS, Shape

KINDS = ("region", "relative", "frequency", "area")
ATTEMPTS = 4  # kinds tried for each question before the figure gives fewer


def reference(c: Context) -> list[Question]:
    """Return up to three different 'which of the following' questions."""
    out: list[Question] = []
    texts: set[str] = set()
    for _ in range(PER_ASPECT):
        for _attempt in range(ATTEMPTS):
            q = WRITERS[pick(KINDS, c.rng)](c)
            if q is None:
                continue
            if q.text in texts:  # the same question twice: take its letter back and try again
                c.balancer.release(q.balance_key, q.answer)
                continue
            texts.add(q.text)
            out.append(q)
            break
    return out


def _checks(c: Context, make: Callable[[int], dict[str, Any]]) -> Callable[[list[str], int], list[dict[str, Any]]]:
    """Return a check builder: the answer's shapes must pass, every present distractor's shapes must fail."""

    def build(terms: list[str], answer: int) -> list[dict[str, Any]]:
        checks = []
        for k, term in enumerate(terms):
            for i in c.words.members.get(term, []):
                check = make(i)
                check["expect"] = k == answer
                checks.append(check)
        return checks

    return build


def by_region(c: Context) -> Question | None:
    """Return "which of the following is in the upper half of the image" (halves and quarters)."""
    name = pick(list(REGIONS), c.rng)
    region = REGIONS[name]
    truths, falses = c.split_terms(lambda s: in_region(s.centroid, region, (0.5, 0.5)))
    text = c.t["reference_region"].format(region=name)
    return c.which(truths, falses, "reference", text, _checks(c, lambda i: _region(i, name, None)))


def _region(i: int, name: str, of: int | None) -> dict[str, Any]:
    return {"check": "region", "shape": i, "region": name, "of": of}


def by_relative_place(c: Context) -> Question | None:
    """Return "which of the following is to the upper left of the X" (and, public style, "directly to the left of")."""
    if len(c.named) < 2:
        return None
    j = pick(c.named, c.rng)
    direction = pick(c.words.directions, c.rng)
    origin = c.shapes[j].centroid
    truths, falses = c.split_terms(lambda s: direction_holds(direction, s.centroid, origin), frozenset({j}))
    text = c.t["reference_relative"].format(direction=direction, y=c.names[j])
    if direction.startswith("directly"):
        make = _checks(c, lambda i: {"check": "direction", "shape": i, "of": j, "direction": direction})
    else:
        make = _checks(c, lambda i: _region(i, direction[len("to the ") : -len(" of")], j))
    return c.which(truths, falses, "reference", text, make)


def by_frequency(c: Context) -> Question | None:
    """Return "which of the following is present and appears more (less) frequently than X"."""
    words = c.words
    if not words.present:
        return None
    base = pick(words.present, c.rng)
    more = bool(c.rng.random() < 0.5)
    others = words.frequency_terms(base)
    n = words.counts[base]

    def holds(term: str) -> bool:
        k = words.counts[term]
        return k > 0 and (k > n if more else k < n)

    truths = [t for t in others if holds(t)]
    falses = [t for t in others if not holds(t)]
    text = c.t["reference_frequency"].format(more_less="more" if more else "less", ys=words.frequency_anchor(base))
    return c.which(truths, falses, "reference", text, [{"check": "visible"}, {"check": "strokes"}])


def by_area(c: Context) -> Question | None:
    """Return "which of the following is present and has a larger (smaller) area than the X" (or "all the Xs")."""
    anchors = c.words.area_anchors()
    if not anchors:
        return None
    label, idx = pick(anchors, c.rng)
    larger = bool(c.rng.random() < 0.5)
    areas = {i: c.shapes[i].area for i in idx}
    j = max(areas, key=areas.__getitem__) if larger else min(areas, key=areas.__getitem__)
    ref = areas[j]

    def test(s: Shape) -> bool | None:
        if s.kind in OPEN_KINDS:
            return None
        ratio = s.area / ref
        if ratio >= AREA_RATIO:
            return larger
        if ratio <= 1 / AREA_RATIO:
            return not larger
        return None

    truths, falses = c.split_terms(test, frozenset(idx))
    falses = [t for t in falses if t not in ("line", "spiral")]
    text = c.t["reference_area"].format(larger_smaller="larger" if larger else "smaller", y=label)
    make = _checks(c, lambda i: {"check": "area_order", "shape": i, "of": j, "larger": larger})
    return c.which(truths, falses, "reference", text, make)


WRITERS: dict[str, Callable[[Context], Question | None]] = {
    "region": by_region,
    "relative": by_relative_place,
    "frequency": by_frequency,
    "area": by_area,
}
