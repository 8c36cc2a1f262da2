"""The verifiers' rebuild of a drawing from op records agrees with the real canvas after random edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.eval.verify import drawn_elements

canvas = pytest.importorskip("mcot.canvas")

_xy = st.tuples(st.integers(20, 380), st.integers(20, 380)).map(list)
_action = st.one_of(
    st.tuples(st.just("line"), _xy, _xy),
    st.tuples(st.just("arrow"), _xy, _xy),
    st.tuples(st.just("path"), st.lists(_xy, min_size=2, max_size=4), st.booleans()),
    st.tuples(st.just("polygon"), st.lists(_xy, min_size=3, max_size=4, unique_by=tuple), st.none()),
    st.tuples(st.just("rotate"), st.integers(-180, 180), _xy),
    st.tuples(st.just("reflect"), _xy, _xy),
    st.tuples(st.just("scale"), st.sampled_from([0.5, 1.5]), _xy),
    st.tuples(st.just("translate"), st.integers(-30, 30), st.integers(-30, 30)),
    st.tuples(st.just("update"), _xy, st.none()),
    st.tuples(st.just("remove"), st.none(), st.none()),
    st.tuples(st.just("undo"), st.none(), st.none()),
    st.tuples(st.just("redo"), st.none(), st.none()),
    st.tuples(st.just("grid"), st.booleans(), st.none()),
)


def _apply(c: object, action: tuple, last: list[str]) -> None:
    kind, a, b = action
    try:
        if kind == "line":
            last.append(c.draw_line(a, b))
        elif kind == "arrow":
            last.append(c.draw_arrow(a, b))
        elif kind == "path":
            last.append(c.trace_path(a, closed=b))
        elif kind == "polygon":
            last.append(c.draw_polygon(a))
        elif kind == "undo":
            c.undo()
        elif kind == "redo":
            c.redo()
        elif kind == "grid":
            c.show_grid(a, 40)
        elif last and last[-1] in c.elements:
            target = last[-1]
            if kind == "rotate":
                c.transform(ids=[target], rotate={"angle": a, "center": b})
            elif kind == "reflect":
                c.transform(ids=[target], reflect={"line": [a, b]})
            elif kind == "scale":
                c.transform(ids=[target], scale={"factor": a, "center": b})
            elif kind == "translate":
                c.transform(ids=[target], translate=[a, b])
            elif kind == "update" and c.elements[target].kind in ("line", "arrow"):
                c.update_element(target, end=a)
            elif kind == "remove":
                c.remove_element(target)
    except canvas.CanvasError:
        pass


def _expected(c: object) -> list[list[tuple[float, float]]]:
    out = []
    for element in c.elements.values():
        props = element.props
        if element.kind in ("line", "arrow"):
            out.append([tuple(props["start"]), tuple(props["end"])])
        elif element.kind in ("path", "polygon"):
            points = [tuple(p) for p in props["points"]]
            if element.kind == "polygon" or props.get("closed"):
                points.append(points[0])
            out.append(points)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(_action, min_size=1, max_size=12))
def test_rebuilt_drawing_matches_the_canvas(actions: list[tuple]) -> None:
    c = canvas.Canvas(size=(400, 400))
    created: list[str] = []
    for action in actions:
        _apply(c, action, created)
    rebuilt = [points for _, points in drawn_elements(c.log)]
    expected = _expected(c)
    assert len(rebuilt) == len(expected)
    for got, want in zip(rebuilt, expected, strict=True):
        assert len(got) == len(want)
        flat_got = [value for point in got for value in point]
        flat_want = [value for point in want for value in point]
        assert flat_got == pytest.approx(flat_want, abs=1e-6)
