"""What every question writer shares: the Question record, the letter balancer, thresholds, and one figure's
context (its words in the chosen style, templates, random generator and balancer)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
from mcot.benchmarks.generators.gepbench.placement import Figure
from mcot.benchmarks.generators.gepbench.shapes import Shape
from mcot.benchmarks.generators.gepbench.wording import DIRECT_DIRECTIONS, Words, words_for

LETTERS = "ABCD"
PER_ASPECT = 3  # questions per aspect and figure at most, as in the paper and the public engine
EDGE_MARGIN = 0.03  # a centroid this close to a border it is judged against makes no question
SIZE_STEP = 0.15  # size choices are the truth and neighbours 0.15 apart
AREA_RATIO = 1.25  # area comparisons need at least this ratio
DIRECT_ANGLE = math.radians(20)  # "directly to the left of": within this angle of the direction ...
DIRECT_DISTANCE = 0.1  # ... and at least this far along it;
DIRECT_FAR = math.radians(50)  # clearly not: at least this far off it and DIRECT_DISTANCE across, or behind
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
def templates(style: str = "mcot") -> dict[str, Any]:
    """Return the question templates of a style (templates.json next to this module)."""
    text = resources.files("mcot.benchmarks.generators.gepbench").joinpath("templates.json").read_text(encoding="utf-8")
    return dict(json.loads(text)[style])


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


def arrange(answer: Any, distractors: Sequence[Any], slot: int, rng: np.random.Generator) -> list[Any]:
    """Return the distractors in random order with the answer inserted at `slot`."""
    others = [distractors[i] for i in rng.permutation(len(distractors))]
    return [*others[:slot], answer, *others[slot:]]


def pick(items: Sequence[Any], rng: np.random.Generator) -> Any:
    """Return one item drawn uniformly."""
    return items[min(int(rng.random() * len(items)), len(items) - 1)]


def quadrant(dx: float, dy: float) -> str | None:
    """Return the quadrant ("upper left", ...) of an offset, or None within EDGE_MARGIN of an axis."""
    if abs(dx) < EDGE_MARGIN or abs(dy) < EDGE_MARGIN:
        return None
    return ("upper " if dy > 0 else "lower ") + ("right" if dx > 0 else "left")


def in_region(
    point: tuple[float, float], region: tuple[bool | None, bool | None], origin: tuple[float, float]
) -> bool | None:
    """Return True inside, False clearly outside, None within EDGE_MARGIN of a border that matters."""
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


def direction_holds(direction: str, point: tuple[float, float], origin: tuple[float, float]) -> bool | None:
    """Return whether `point` is `direction` ("to the upper left of", "directly to the left of") of `origin`:
    True, False, or None when it is arguable (near a border, or between "directly" and clearly not)."""
    dx, dy = point[0] - origin[0], point[1] - origin[1]
    if direction.startswith("directly to the "):
        ux, uy = DIRECT_DIRECTIONS[direction[len("directly to the ") : -len(" of")]]
        along, across = dx * ux + dy * uy, abs(dx * uy - dy * ux)
        angle = math.atan2(across, along)
        if along >= DIRECT_DISTANCE and angle <= DIRECT_ANGLE:
            return True
        if along <= -EDGE_MARGIN or (angle >= DIRECT_FAR and across >= DIRECT_DISTANCE):
            return False
        return None
    name = direction[len("to the ") : -len(" of")]
    return in_region(point, (name.endswith("right"), name.startswith("upper")), origin)


class Context:
    """What the question writers need to know about one figure, computed once."""

    def __init__(self, fig: Figure, rng: np.random.Generator, balancer: LetterBalancer, style: str = "public") -> None:
        self.fig = fig
        self.shapes: list[Shape] = fig.shapes
        self.rng = rng
        self.balancer = balancer
        self.style = style
        self.t = templates(style)
        self.words: Words = words_for(style, fig.shapes)
        self.names = {i: self.words.name(i) for i in range(len(self.shapes))}
        self.named = [i for i, n in self.names.items() if n is not None]

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

    def which(
        self,
        truths: Sequence[str],
        falses: Sequence[str],
        aspect: str,
        text: str,
        checks: list[dict[str, Any]] | Callable[[list[str], int], list[dict[str, Any]]],
    ) -> Question | None:
        """Return a 'which of the following' question: one true term, three false ones, no two overlapping.

        `checks` is a list, or a function of (the choices' terms, the answer index) that returns the list."""
        if not truths:
            return None
        words = self.words
        answer = pick(truths, self.rng)
        pool = [f for f in falses if not words.related(f, answer)]
        chosen: list[str] = []
        for k in self.rng.permutation(len(pool)):
            term = pool[int(k)]
            if all(not words.related(term, c) for c in chosen):
                chosen.append(term)
            if len(chosen) == 3:
                break
        if len(chosen) < 3:
            return None
        slot = self.pick(aspect, range(4))
        terms = arrange(answer, chosen, slot, self.rng)
        made = checks(terms, slot) if callable(checks) else checks
        return self.question(aspect, text, words.choice_labels(terms, aspect), slot, made)

    def split_terms(
        self, test: Callable[[Shape], bool | None], exclude: frozenset[int] = frozenset()
    ) -> tuple[list[str], list[str]]:
        """Return (true terms, false terms) for a shape predicate that may be unsure (None) near a threshold.

        A term is true when every shape it covers passes (and it may answer in this style), false when none
        does (absent terms included); a term covering an excluded shape is neither."""
        seen: list[bool | None] = [None if i in exclude else test(s) for i, s in enumerate(self.shapes)]
        members = self.words.members
        truths = [t for t in self.words.answer_terms() if all(seen[i] is True for i in members[t])]
        falses = []
        for term in self.words.terms:
            idx = members[term]
            if not idx:
                falses.append(term)
            elif all(seen[i] is False for i in idx):
                falses.append(term)
        return list(dict.fromkeys(truths)), falses
