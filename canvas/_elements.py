"""Element kinds: their properties, defaults, validation and how each kind moves under a transform."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcot.canvas import _validate as v
from mcot.canvas._errors import CanvasError
from mcot.canvas._geometry import Affine
from mcot.canvas._limits import MAX_MARKER_RADIUS, MAX_RADIUS, MAX_TEXT_SIZE, MAX_WIDTH
from mcot.canvas._types import Element

Validator = Callable[[str, Any], Any]
REQUIRED = object()
"""Marks a property that has no default."""


def _optional_color(name: str, value: Any) -> str | None:
    return None if value is None else v.color(name, value)


def _label(name: str, value: Any) -> str | None:
    return None if value is None else v.text(name, value, allow_empty=True)


def _width(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_WIDTH, low_open=True)


def _marker_radius(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_MARKER_RADIUS, low_open=True)


def _radius(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_RADIUS, low_open=True)


def _opacity(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=1.0)


def _font_size(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_TEXT_SIZE, low_open=True)


def _path_points(name: str, value: Any) -> list[list[float]]:
    return v.points(name, value, minimum=2)


def _polygon_points(name: str, value: Any) -> list[list[float]]:
    return v.points(name, value, minimum=3)


def _matrix(name: str, value: Any) -> list[float]:
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple) or len(value) != 6:
        raise CanvasError(f"{name} must be six numbers [a, b, c, d, e, f] (a cairo-style affine matrix), got {value!r}")
    m = [v.number(f"{name}[{i}]", x, low=-1e7, high=1e7) for i, x in enumerate(value)]
    if abs(m[0] * m[3] - m[1] * m[2]) < 1e-12:
        raise CanvasError(f"{name} {m} is singular (it collapses the patch); use an invertible matrix")
    return m


def _patch_region(name: str, value: Any) -> list[int]:
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple) or len(value) != 4:
        raise CanvasError(f"{name} must be [x0, y0, x1, y1], got {value!r}")
    return [v.integer(f"{name}[{i}]", x, low=0, high=1 << 20) for i, x in enumerate(value)]


KINDS: dict[str, dict[str, tuple[Validator, Any]]] = {
    "point": {
        "at": (v.point, REQUIRED),
        "label": (_label, None),
        "color": (v.color, "red"),
        "radius": (_marker_radius, 5.0),
    },
    "line": {
        "start": (v.point, REQUIRED),
        "end": (v.point, REQUIRED),
        "color": (v.color, "red"),
        "width": (_width, 3.0),
        "dashed": (v.boolean, False),
    },
    "path": {
        "points": (_path_points, REQUIRED),
        "closed": (v.boolean, False),
        "arrow": (v.boolean, False),
        "color": (v.color, "red"),
        "width": (_width, 3.0),
    },
    "arrow": {
        "start": (v.point, REQUIRED),
        "end": (v.point, REQUIRED),
        "color": (v.color, "red"),
        "width": (_width, 3.0),
    },
    "circle": {
        "center": (v.point, REQUIRED),
        "radius": (_radius, REQUIRED),
        "color": (v.color, "red"),
        "width": (_width, 3.0),
        "fill": (_optional_color, None),
        "opacity": (_opacity, 1.0),
    },
    "polygon": {
        "points": (_polygon_points, REQUIRED),
        "color": (v.color, "red"),
        "width": (_width, 3.0),
        "fill": (_optional_color, None),
        "opacity": (_opacity, 0.3),
    },
    "text": {
        "at": (v.point, REQUIRED),
        "text": (v.text, REQUIRED),
        "color": (v.color, "red"),
        "size": (_font_size, 16.0),
    },
    "patch": {
        "region": (_patch_region, REQUIRED),
        "matrix": (_matrix, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
        "opacity": (_opacity, 1.0),
    },
}
"""Each kind's properties: name -> (validator, default or REQUIRED)."""

READ_ONLY = {"patch": frozenset({"region"})}
"""Properties that update_element may not change (a patch's source region is fixed when it is copied)."""


def build_props(kind: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """Return the full canonical property dict of a new element of ``kind`` (defaults filled in)."""
    spec = KINDS[kind]
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
    spec = KINDS[element.kind]
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
        if name in READ_ONLY.get(element.kind, ()):
            raise CanvasError(f"property {name!r} of {element.kind} element {element.id} cannot be changed")
        check, default = spec[name]
        if value is None and default is None:
            props[name] = None
        else:
            props[name] = check(name, value)
    return props


def transformed(element: Element, t: Affine) -> Element:
    """Return the element moved by ``t``: its geometry is mapped; radii and font sizes follow its scale."""
    p = dict(element.props)
    kind = element.kind
    if kind == "point" or kind == "text":
        p["at"] = t.apply(p["at"])
    elif kind in ("line", "arrow"):
        p["start"], p["end"] = t.apply(p["start"]), t.apply(p["end"])
    elif kind in ("path", "polygon"):
        p["points"] = [t.apply(q) for q in p["points"]]
    elif kind == "circle":
        p["center"] = t.apply(p["center"])
        p["radius"] = round(p["radius"] * t.scale_factor, 9)
    elif kind == "patch":
        p["matrix"] = Affine(*p["matrix"]).then(t).as_list()
    if kind == "text":
        p["size"] = round(p["size"] * t.scale_factor, 9)
    # Re-validate: a transform may push geometry or sizes out of the allowed ranges.
    spec = KINDS[kind]
    checked = {
        name: (spec[name][0](f"{element.id}.{name} after the transform", val) if val is not None else None)
        for name, val in p.items()
    }
    return Element(id=element.id, kind=kind, props=checked)
