"""Element properties from the op table: canonical properties, edits, and how an element moves under a transform."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcot.canvas._errors import CanvasError
from mcot.canvas._ops import REQUIRED, element_kind, kind_properties
from mcot.canvas._types import Element

from mcot.core.geometry import Affine, Vec

_NDIGITS = 9
"""Transformed coordinates are rounded to this many decimals so that 90-degree turns land on exact values."""


def build_props(kind: str, given: Mapping[str, Any], op: str | None = None) -> dict[str, Any]:
    """Return the full canonical property dict of a new element of ``kind`` (defaults filled in).

    Raises CanvasError naming the argument for an unknown one (``op`` names the operation in the message), a
    missing required one, or a value the kind's check refuses.
    """
    spec = kind_properties(kind)
    if not given.keys() <= spec.keys():
        unknown = next(name for name in given if name not in spec)
        raise CanvasError(
            f"bad arguments for {op or kind}: no argument {unknown!r}; its arguments are {', '.join(spec)}"
        )
    props: dict[str, Any] = {}
    for name, (check, default) in spec.items():
        if name in given:
            props[name] = check(name, given[name])
        elif default is REQUIRED:
            raise CanvasError(f"{kind} needs the argument {name!r}")
        else:
            props[name] = check(name, default) if default is not None else None
    return props


def updated_props(element: Element, changes: Mapping[str, Any]) -> dict[str, Any]:
    """Return the element's properties with ``changes`` validated and applied; unknown names are refused."""
    kind = element_kind(element.kind)
    spec = kind_properties(kind)
    if not changes:
        raise CanvasError(
            f"update_element needs at least one property to change; {element.kind} has: {', '.join(spec)}"
        )
    props = dict(element.props)
    for name, value in changes.items():
        if name not in spec:
            raise CanvasError(
                f"{element.kind} element {element.id} has no property {name!r}; it has: {', '.join(spec)}"
            )
        if name in kind.read_only:
            raise CanvasError(f"property {name!r} of {element.kind} element {element.id} cannot be changed")
        prop = spec[name]
        if value is None and prop.default is None:
            props[name] = None
        else:
            props[name] = prop.check(name, value)
    return props


def transformed(element: Element, t: Affine) -> Element:
    """Return the element moved by ``t``: its points are mapped; its lengths (radii, font sizes) follow its scale."""
    kind = element_kind(element.kind)
    p = dict(element.props)
    if kind.move is not None:
        p = kind.move(p, t)
    else:
        for name in kind.points:
            p[name] = mapped(t, p[name])
        for name in kind.point_lists:
            p[name] = [mapped(t, q) for q in p[name]]
        for name in kind.lengths:
            p[name] = round(p[name] * t.scale_factor, _NDIGITS)
    # Re-validate: a transform may push geometry or sizes out of the allowed ranges.
    spec = kind_properties(kind)
    checked = {
        name: (spec[name].check(f"{element.id}.{name} after the transform", val) if val is not None else None)
        for name, val in p.items()
    }
    return Element(id=element.id, kind=element.kind, props=checked)


def anchors(element: Element) -> list[Vec]:
    """Return the points whose bounding box is the element's centre for a rotation or scaling without one."""
    kind = element_kind(element.kind)
    if kind.anchors is not None:
        return kind.anchors(element.props)
    p = element.props
    pts: list[Vec] = [(p[name][0], p[name][1]) for name in kind.points]
    for name in kind.point_lists:
        pts.extend((q[0], q[1]) for q in p[name])
    return pts


def mapped(t: Affine, p: list[float]) -> list[float]:
    """Return the image of point ``p`` under ``t`` as the canvas stores it: rounded to 9 decimals."""
    x, y = t.apply(p)
    return [clean(x), clean(y)]


def matrix_list(t: Affine) -> list[float]:
    """Return ``[a, b, c, d, e, f]`` of ``t`` as the canvas stores a patch's matrix: rounded to 9 decimals."""
    return [clean(v) for v in t.as_tuple()]


def clean(v: float) -> float:
    """Return ``v`` rounded to 9 decimals, with negative zero made positive."""
    r = round(v, _NDIGITS)
    return 0.0 if r == 0 else r
