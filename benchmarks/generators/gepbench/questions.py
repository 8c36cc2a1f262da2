"""Questions in the six GePBench aspects, with distractors, balanced answer letters and validator checks.

Up to three questions per aspect and figure, as in the paper and the public engine; an aspect yields fewer
when the figure has no valid distractors for it or its answer would hinge on a near-threshold value (a
centroid within EDGE_MARGIN of a border it is judged against, an area comparison within 25 %, a relation word
that is arguably true as well as the answer). Templates live in templates.json, one set per style
(wording.py): "public", the released benchmark's phrasing (the default), and "mcot". Every question carries
the checks the pixel validator can run on it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mcot.benchmarks.generators.gepbench.aspects import counting, existence, location, size
from mcot.benchmarks.generators.gepbench.context import (
    EDGE_MARGIN,
    LETTERS,
    PER_ASPECT,
    QUADRANTS,
    REGIONS,
    SIZE_STEP,
    Context,
    LetterBalancer,
    Question,
    templates,
)
from mcot.benchmarks.generators.gepbench.placement import Figure
from mcot.benchmarks.generators.gepbench.reference import reference
from mcot.benchmarks.generators.gepbench.relationship import relationship, surely_false
from mcot.benchmarks.generators.gepbench.wording import WORDINGS

ASPECTS: tuple[str, ...] = ("existence", "counting", "size", "location", "reference", "relationship")
GENERATORS: dict[str, Callable[[Context], list[Question]]] = {
    "existence": existence,
    "counting": counting,
    "size": size,
    "location": location,
    "reference": reference,
    "relationship": relationship,
}

__all__ = [
    "ASPECTS",
    "EDGE_MARGIN",
    "GENERATORS",
    "LETTERS",
    "PER_ASPECT",
    "QUADRANTS",
    "REGIONS",
    "SIZE_STEP",
    "WORDINGS",
    "LetterBalancer",
    "Question",
    "make_questions",
    "surely_false",
    "templates",
]


def make_questions(
    fig: Figure, rng: np.random.Generator, balancer: LetterBalancer, style: str = "public"
) -> list[Question]:
    """Return every aspect's questions for one figure (up to PER_ASPECT each), in aspect order."""
    context = Context(fig, rng, balancer, style)
    questions: list[Question] = []
    for aspect in ASPECTS:
        questions.extend(GENERATORS[aspect](context))
    return questions
