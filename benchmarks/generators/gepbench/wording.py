"""How questions name shapes, in two styles.

- "public" (the default): the public engine's and the released benchmark's words. Every shape has exactly one
  type (its most specific kind; pentagrams and hexagrams are "star"), so "quadrilateral" means a quadrilateral
  that is not a rectangle or a square. When a figure holds a sub-type, the parent is qualified the way the
  release writes it: "ellipse (not circle)", "ellipses (excluding circles)", "ellipse (circles excluded)"; a line
  says that polygon and sector edges are not lines. One addition keeps the words unambiguous: the release counts
  equilateral triangles apart from triangles without saying so; here "triangle (not equilateral triangle)" says
  it, in the release's own pattern. Articles are the release's ("a ellipse").
- "mcot": the geometric hierarchy (a square is a rectangle and a quadrilateral, a circle an ellipse), inclusion
  notes ("rectangles (squares included)"), "larger/smaller X" names, "an ellipse".

`words_for(style, shapes)` returns the figure's words; the question writers only talk to that object.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcot.benchmarks.generators.gepbench.relations import RELATION_WORDS
from mcot.benchmarks.generators.gepbench.shapes import OPEN_KINDS, Shape
from mcot.benchmarks.generators.gepbench.vocabulary import (
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

WORDINGS: tuple[str, ...] = ("public", "mcot")
QUADRANT_DIRECTIONS: tuple[str, ...] = ("upper left", "upper right", "lower left", "lower right")
DIRECT_DIRECTIONS: dict[str, tuple[float, float]] = {
    "top": (0.0, 1.0),
    "bottom": (0.0, -1.0),
    "left": (-1.0, 0.0),
    "right": (1.0, 0.0),
}

# the public engine's types, in its order, plus the equilateral triangle it also uses
PUBLIC_TERMS: tuple[str, ...] = (
    "line",
    "ellipse",
    "circle",
    "triangle",
    "equilateral triangle",
    "quadrilateral",
    "pentagon",
    "hexagon",
    "rectangle",
    "square",
    "regular pentagon",
    "regular hexagon",
    "spiral",
    "star",
    "sector",
)
PUBLIC_TYPE = {"pentagram": "star", "hexagram": "star"}
_EDGED: tuple[str, ...] = ("triangle", "equilateral triangle", "quadrilateral", "pentagon", "hexagon", "rectangle", "square")
_EDGED += ("regular pentagon", "regular hexagon", "star")
# parent type -> (sub-type, how a qualifier names it)
SUBTYPES: dict[str, tuple[tuple[str, str], ...]] = {
    "ellipse": (("circle", "circle"),),
    "rectangle": (("square", "square"),),
    "quadrilateral": (("rectangle", "rectangle"), ("square", "square")),
    "pentagon": (("regular pentagon", "regular pentagon"),),
    "hexagon": (("regular hexagon", "regular hexagon"),),
    "triangle": (("equilateral triangle", "equilateral triangle"),),
    "line": (*((t, "polygon edge") for t in _EDGED), ("sector", "sector edge")),
}
# the relation words the public engine asks about (it never asks similar, concentric or symmetric)
PUBLIC_RELATIONS: tuple[str, ...] = (
    "tangent",
    "parallel",
    "perpendicular",
    "circumscribed",
    "inscribed",
    "shared edge",
    "diagonal",
    "major axis",
    "minor axis",
    "diameter",
)


class Words:
    """A figure's shape vocabulary in one style: which shapes a term covers and how questions write it."""

    style = ""
    relation_words: tuple[str, ...] = ()
    directions: tuple[str, ...] = tuple(f"to the {q} of" for q in QUADRANT_DIRECTIONS)

    def __init__(self, shapes: Sequence[Shape], terms: Sequence[str]) -> None:
        self.shapes = list(shapes)
        self.terms = tuple(terms)
        self.members = {t: self._members(t) for t in self.terms}
        self.counts = {t: len(m) for t, m in self.members.items()}
        self.present = [t for t in self.terms if self.counts[t]]
        self.absent = [t for t in self.terms if not self.counts[t]]

    def _members(self, term: str) -> list[int]:
        raise NotImplementedError

    def related(self, a: str, b: str) -> bool:
        """Return True when two terms may cover the same shape (they cannot both be choices)."""
        raise NotImplementedError

    def name(self, index: int) -> str | None:
        """Return the words after "the" that pick out shape `index` alone, or None."""
        raise NotImplementedError

    def counted(self, term: str) -> str:
        """Return the plural a counting question asks about, with its qualifier ("lines (excluding ...)")."""
        raise NotImplementedError

    def indefinite(self, term: str) -> str:
        """Return the term with its article, as an existence question writes it ("a ellipse (not circle)")."""
        raise NotImplementedError

    def definite(self, term: str) -> str:
        """Return the term as it follows "the" in an existence choice ("only the ellipse (not circle) exists")."""
        raise NotImplementedError

    def choice_labels(self, terms: Sequence[str], aspect: str) -> list[str]:
        """Return the texts of 'which of the following' choices for these terms."""
        raise NotImplementedError

    def frequency_anchor(self, term: str) -> str:
        """Return how a frequency question names the shapes it compares with ("circle(s)" / "circles")."""
        raise NotImplementedError

    def frequency_terms(self, base: str) -> list[str]:
        """Return the terms a frequency question about `base` may offer as choices."""
        raise NotImplementedError

    def answer_terms(self) -> list[str]:
        """Return the terms that may answer a 'which of the following' question about place or area."""
        raise NotImplementedError

    def area_anchors(self) -> list[tuple[str, list[int]]]:
        """Return (how an area question names it, the shapes) for each anchor an area question may compare with."""
        raise NotImplementedError

    def kinds_present(self) -> list[str]:
        """Return the terms an existence 'which is present/absent' question may use for present shapes."""
        raise NotImplementedError

    def pair_name(self, i: int, j: int) -> str | None:
        """Return the plural that names exactly shapes i and j together ("triangles"), or None."""
        return None


class McotWords(Words):
    """The geometric hierarchy: a term covers its sub-kinds; notes say so where the figure holds one."""

    style = "mcot"
    relation_words = RELATION_WORDS

    def __init__(self, shapes: Sequence[Shape]) -> None:
        super().__init__(shapes, TERM_NAMES)
        self._names = {i: unique_name(i, self.shapes) for i in range(len(self.shapes))}

    def _members(self, term: str) -> list[int]:
        return members(term, self.shapes)

    def related(self, a: str, b: str) -> bool:
        """Return True when one term covers the other or they overlap (triangle / equilateral triangle)."""
        return related_terms(a, b)

    def name(self, index: int) -> str | None:
        """Return the most specific term, or "larger/smaller X", that picks out shape `index` alone."""
        return self._names[index]

    def counted(self, term: str) -> str:
        """Return "rectangles (squares included)", "lines (edges of other shapes do not count as lines)"."""
        return plural(term) + inclusion_note(term, self.shapes)

    def indefinite(self, term: str) -> str:
        """Return "an ellipse (circles included)"."""
        return article(term) + inclusion_note(term, self.shapes)

    def definite(self, term: str) -> str:
        """Return the bare term."""
        return term

    def choice_labels(self, terms: Sequence[str], aspect: str) -> list[str]:
        """Return the bare terms."""
        return list(terms)

    def frequency_anchor(self, term: str) -> str:
        """Return "rectangles (squares included)"."""
        return self.counted(term)

    def frequency_terms(self, base: str) -> list[str]:
        """Return the terms unrelated to `base` whose shapes are all of that very kind (no doubt what to count)."""
        shapes = self.shapes
        return [
            t for t in self.terms if not related_terms(t, base) and all(shapes[i].kind == t for i in self.members[t])
        ]

    def answer_terms(self) -> list[str]:
        """Return the most specific unique term of each shape that has one."""
        out = [unique_term(i, self.shapes) for i in range(len(self.shapes))]
        return [t for t in out if t is not None]

    def area_anchors(self) -> list[tuple[str, list[int]]]:
        """Return "the <name>" of each named closed shape."""
        return [
            (f"the {n}", [i]) for i, n in self._names.items() if n is not None and self.shapes[i].kind not in OPEN_KINDS
        ]

    def kinds_present(self) -> list[str]:
        """Return the kinds present that are terms (pentagram, not star)."""
        return sorted({s.kind for s in self.shapes} & set(TERM_NAMES))

    def pair_name(self, i: int, j: int) -> str | None:
        """Return the plural of the most specific term whose shapes are exactly i and j."""
        terms = [t for t in self.terms if sorted(self.members[t]) == sorted((i, j))]
        return plural(min(terms, key=lambda t: len(TERMS[t]))) if terms else None


class PublicWords(Words):
    """The public engine's types: one per shape, parents qualified by the sub-types the figure holds."""

    style = "public"
    relation_words = PUBLIC_RELATIONS
    directions = (
        *Words.directions,
        *(f"directly to the {d} of" for d in DIRECT_DIRECTIONS),
    )

    def __init__(self, shapes: Sequence[Shape]) -> None:
        self.types = [PUBLIC_TYPE.get(s.kind, s.kind) for s in shapes]
        super().__init__(shapes, PUBLIC_TERMS)
        self.in_figure = frozenset(self.present)

    def _members(self, term: str) -> list[int]:
        return [i for i, t in enumerate(self.types) if t == term]

    def related(self, a: str, b: str) -> bool:
        """Return True only for the same type: types never overlap."""
        return a == b

    def _subtypes(self, term: str, context: frozenset[str]) -> list[str]:
        """Return the qualifier words of the sub-types of `term` present in `context`, each once, in order."""
        out: list[str] = []
        for child, desc in SUBTYPES.get(term, ()):
            if child in context and desc not in out:
                out.append(desc)
        return out

    def singular(self, term: str, context: frozenset[str] | None = None) -> str:
        """Return "ellipse (not circle)", "line (not polygon edge, sector edge)", or the bare type."""
        subs = self._subtypes(term, self.in_figure if context is None else context)
        return f"{term} (not {', '.join(subs)})" if subs else term

    def name(self, index: int) -> str | None:
        """Return the shape's type (qualified) when it is the only shape of its type, else None."""
        term = self.types[index]
        return self.singular(term) if self.counts.get(term) == 1 else None

    def counted(self, term: str) -> str:
        """Return "ellipses (excluding circles)", "lines (excluding polygon edges)", "circles"."""
        subs = self._subtypes(term, self.in_figure)
        return f"{term}s (excluding {', '.join(d + 's' for d in subs)})" if subs else term + "s"

    def indefinite(self, term: str) -> str:
        """Return "a " and the qualified type, as the release writes it (also "a ellipse")."""
        return "a " + self.singular(term)

    def definite(self, term: str) -> str:
        """Return the qualified type."""
        return self.singular(term)

    def choice_labels(self, terms: Sequence[str], aspect: str) -> list[str]:
        """Return existence choices as "hexagon (regular hexagons excluded)" (sub-types in the figure or among
        the choices), other choices as "hexagon (not regular hexagon)" (sub-types in the figure)."""
        if aspect != "existence":
            return [self.singular(t) for t in terms]
        context = self.in_figure | frozenset(terms)
        out = []
        for t in terms:
            subs = self._subtypes(t, context)
            out.append(f"{t} ({', '.join(d + 's' for d in subs)} excluded)" if subs else t)
        return out

    def frequency_anchor(self, term: str) -> str:
        """Return "circle(s)" or "ellipse(s) (not circle)"."""
        subs = self._subtypes(term, self.in_figure)
        return f"{term}(s) (not {', '.join(subs)})" if subs else f"{term}(s)"

    def frequency_terms(self, base: str) -> list[str]:
        """Return every other type."""
        return [t for t in self.terms if t != base]

    def answer_terms(self) -> list[str]:
        """Return the types present."""
        return list(self.present)

    def area_anchors(self) -> list[tuple[str, list[int]]]:
        """Return "the circle" for a type with one shape, "all the circles" for several (closed shapes only)."""
        out = []
        for t in self.present:
            idx = self.members[t]
            if any(self.shapes[i].kind in OPEN_KINDS for i in idx):
                continue
            if len(idx) == 1:
                out.append((f"the {self.singular(t)}", idx))
            else:
                named = self.singular(t)
                out.append(("all the " + (named.replace(" (", "s (", 1) if " (" in named else named + "s"), idx))
        return out

    def kinds_present(self) -> list[str]:
        """Return the types present."""
        return list(self.present)


def words_for(style: str, shapes: Sequence[Shape]) -> Words:
    """Return the figure's words in `style` ("public" or "mcot")."""
    if style == "public":
        return PublicWords(shapes)
    if style == "mcot":
        return McotWords(shapes)
    raise ValueError(f"unknown question style {style!r}; choose {' or '.join(WORDINGS)}")
