"""What every game task builds: a scene with its question, answer and exact solution geometry."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

from PIL import Image

AnswerKind = Literal["choice", "number"]
LETTERS = "ABCD"


class FragileScene(Exception):
    """A sampled scene is ambiguous (a near-grazing ray, touching balloons...); the generator samples again."""


class GameError(ValueError):
    """A game generator cannot do what was asked; the message says what to change."""


@dataclass(frozen=True)
class Scene:
    """One finished game item before it gets an id: the picture, the question and the exact answer."""

    image: Image.Image
    question: str
    answer: str
    answer_type: AnswerKind
    choices: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def place_choices(rng: random.Random, correct: str, distractors: list[str]) -> tuple[list[str], str]:
    """Return the four option texts in a random order and the letter of the correct one."""
    options = [correct, *distractors]
    if len(options) != len(LETTERS) or len(set(options)) != len(options):
        raise GameError(f"a choice question needs {len(LETTERS)} distinct options, got {options}")
    rng.shuffle(options)
    return options, LETTERS[options.index(correct)]


def require(condition: bool, reason: str) -> None:
    """Raise FragileScene with `reason` unless `condition` holds."""
    if not condition:
        raise FragileScene(reason)


def rounded(point: tuple[float, float], digits: int = 3) -> list[float]:
    """Return a point as a JSON-friendly [x, y] list rounded to `digits` decimals."""
    return [round(float(point[0]), digits), round(float(point[1]), digits)]
