"""The words questions use for shapes: which kinds a term covers, articles and plurals.

Terms follow the geometric hierarchy, so an equilateral triangle is a triangle, a square is a rectangle and a
quadrilateral, a circle is an ellipse. A question that counts or looks for a term says which special kinds it
includes when the figure holds one, instead of the public engine's "(not circle)" qualifiers.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcot.benchmarks.generators.gepbench.shapes import Shape

TERMS: dict[str, frozenset[str]] = {
    "line": frozenset({"line"}),
    "triangle": frozenset({"triangle", "equilateral triangle"}),
    "equilateral triangle": frozenset({"equilateral triangle"}),
    "quadrilateral": frozenset({"quadrilateral", "rectangle", "square"}),
    "rectangle": frozenset({"rectangle", "square"}),
    "square": frozenset({"square"}),
    "pentagon": frozenset({"pentagon", "regular pentagon"}),
    "regular pentagon": frozenset({"regular pentagon"}),
    "hexagon": frozenset({"hexagon", "regular hexagon"}),
    "regular hexagon": frozenset({"regular hexagon"}),
    "star": frozenset({"pentagram", "hexagram"}),
    "pentagram": frozenset({"pentagram"}),
    "hexagram": frozenset({"hexagram"}),
    "ellipse": frozenset({"ellipse", "circle"}),
    "circle": frozenset({"circle"}),
    "sector": frozenset({"sector"}),
    "spiral": frozenset({"spiral"}),
}
TERM_NAMES: tuple[str, ...] = tuple(TERMS)
# pairs of terms whose kinds overlap, computed once (questions ask this tens of thousands of times)
_RELATED: frozenset[tuple[str, str]] = frozenset((a, b) for a in TERMS for b in TERMS if TERMS[a] & TERMS[b])
LINE_NOTE = "edges of other shapes do not count as lines"


def article(word: str) -> str:
    """Return `word` with "a" or "an" in front ("an ellipse", "a regular hexagon")."""
    return ("an " if word[0] in "aeiou" else "a ") + word


def plural(word: str) -> str:
    """Return the plural of a shape term ("ellipses", "lines", "regular hexagons")."""
    if word.endswith(("x", "s")):
        return word + "es"
    return word + "s"


def matches(term: str, shape: Shape) -> bool:
    """Return True when `shape` answers to `term` (a square answers to rectangle and quadrilateral)."""
    return shape.kind in TERMS[term]


def members(term: str, shapes: Sequence[Shape]) -> list[int]:
    """Return the indices of the shapes that answer to `term`."""
    return [i for i, s in enumerate(shapes) if s.kind in TERMS[term]]


def related_terms(a: str, b: str) -> bool:
    """Return True when one term covers the other or they overlap (triangle / equilateral triangle); False when
    either is not a term."""
    return (a, b) in _RELATED


def inclusion_note(term: str, shapes: Sequence[Shape]) -> str:
    """Return a parenthetical saying which special kinds present in the figure the term includes, or ""."""
    if term == "line":
        return f" ({LINE_NOTE})"
    special = sorted({s.kind for s in shapes if s.kind in TERMS[term] and s.kind != term})
    if term == "star":
        special = []
    if not special:
        return ""
    return " (" + " and ".join(plural(k) for k in special) + " included)"


SIZE_RATIO = 1.3  # "the larger circle" needs the two circles' sizes to differ at least this much


def unique_term(index: int, shapes: Sequence[Shape]) -> str | None:
    """Return the most specific term that picks out shape `index` alone in the figure, or None."""
    shape = shapes[index]
    candidates = [t for t, kinds in TERMS.items() if shape.kind in kinds and len(members(t, shapes)) == 1]
    if not candidates:
        return None
    return min(candidates, key=lambda t: len(TERMS[t]))


def _magnitude(shape: Shape) -> float:
    return shape.area if shape.closed else float(shape.geometry.length)


def unique_name(index: int, shapes: Sequence[Shape]) -> str | None:
    """Return a name that picks out shape `index` alone: a term, or "larger/smaller X", "longer/shorter line"
    when exactly two shapes share the term and their sizes clearly differ; None when there is none."""
    term = unique_term(index, shapes)
    if term is not None:
        return term
    shape = shapes[index]
    for t in sorted((t for t, kinds in TERMS.items() if shape.kind in kinds), key=lambda t: len(TERMS[t])):
        pair = members(t, shapes)
        if len(pair) != 2:
            continue
        other = shapes[pair[0] if pair[1] == index else pair[1]]
        mine, theirs = _magnitude(shape), _magnitude(other)
        if max(mine, theirs) < SIZE_RATIO * min(mine, theirs):
            return None
        bigger = mine > theirs
        if shape.closed:
            return ("larger " if bigger else "smaller ") + t
        return ("longer " if bigger else "shorter ") + t
    return None
