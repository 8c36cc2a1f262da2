"""Each template's five authenticity questions and the answers known by construction (from templates/<name>.yaml).

A template file holds its category, the prompt keywords that select it, a description (the revised prompt), the
laws its broken twin may violate, and five yes/no questions, each naming the violations that make it false
(`breaks`). A correct scene answers every question "Yes"; a broken twin answers "No" exactly where it breaks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

Answer = str  # "Yes" or "No"


@dataclass(frozen=True)
class Question:
    """One authenticity question (a format string over the scene's fields) and the violations that make it false."""

    text: str
    breaks: tuple[str, ...]


@dataclass(frozen=True)
class TemplateSpec:
    """The data half of a scene template: category, keywords, description, violations and the five questions."""

    name: str
    category: str
    keywords: tuple[str, ...]
    description: str
    violations: dict[str, str]
    questions: tuple[Question, ...]


def _read(name: str) -> TemplateSpec:
    text = resources.files(__package__).joinpath("templates").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    questions = tuple(Question(q["text"].strip(), tuple(q.get("breaks") or ())) for q in data["questions"])
    violations = dict(data["violations"])
    if len(questions) != 5:
        raise ValueError(f"templates/{name}.yaml has {len(questions)} questions; a template needs exactly five")
    for q in questions:
        unknown = set(q.breaks) - set(violations)
        if unknown:
            raise ValueError(f"templates/{name}.yaml: a question breaks under unknown violations {sorted(unknown)}")
    for violation in violations:
        if not any(violation in q.breaks for q in questions):
            raise ValueError(f"templates/{name}.yaml: violation {violation!r} breaks none of the five questions")
    return TemplateSpec(
        name=data["name"],
        category=data["category"],
        keywords=tuple(str(k).lower() for k in data.get("keywords") or ()),
        description=" ".join(data["description"].split()),
        violations=violations,
        questions=questions,
    )


@cache
def template_spec(name: str) -> TemplateSpec:
    """Return the parsed templates/<name>.yaml (cached)."""
    return _read(name)


def questions_for(name: str, fields: dict[str, Any]) -> list[str]:
    """Return the template's five questions filled in with the scene's ``fields`` (medium, ratio, …)."""
    return [q.text.format_map(fields) for q in template_spec(name).questions]


def known_answers(name: str, violation: str | None) -> list[Answer]:
    """Return the five answers known by construction: "No" where ``violation`` breaks the question, else "Yes"."""
    return ["No" if violation is not None and violation in q.breaks else "Yes" for q in template_spec(name).questions]


def describe(name: str, fields: dict[str, Any]) -> str:
    """Return the scene's description in words (the generator's revised prompt)."""
    return template_spec(name).description.format_map(fields)


def violation_text(name: str, violation: str, factor: float | None) -> str:
    """Return what the broken twin gets wrong, in words."""
    return template_spec(name).violations[violation].format_map({"factor": factor if factor is not None else 1.0})
