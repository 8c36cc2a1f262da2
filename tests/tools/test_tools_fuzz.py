"""Every tool fuzzed with junk arguments: no exception escapes, a time limit stops long work, a failed call changes
nothing. How long calls take is measured by perf/fuzz_tools.py, never asserted here (a loaded machine would fail it)."""

from __future__ import annotations

import importlib
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcot.canvas import Canvas
from mcot.tools import ToolResult, call, registry
from mcot.tools.budget import DEFAULT_SECONDS
from mcot.tools.schemas import parameters_schema

NAMES = list(registry())

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e308, -1e308, float("nan"), float("inf"), "", "red", "#zzzzzz", "e1", "S"]),
    st.text(max_size=12),
)
junk = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
points = st.lists(st.floats(min_value=-2000, max_value=2000), min_size=0, max_size=3)
shaped = st.one_of(junk, points, st.lists(points, max_size=4), st.lists(st.lists(points, max_size=3), max_size=4))


def _canvas() -> Canvas:
    c = Canvas(size=(120, 90))
    c.draw_line([0, 0], [60, 45])
    c.mark_point([10, 10])
    c.undo()  # something to redo: a failed call must leave it there
    return c


def _check(name: str, arguments: object) -> ToolResult:
    c = _canvas()
    sha, log, version = c.snapshot().sha256, c.log, c.version
    pixels = c.render_full().tobytes()
    result = call(name, arguments, c)  # type: ignore[arg-type]
    assert isinstance(result, ToolResult)
    json.dumps(result.data, allow_nan=False)
    if result.ok:
        assert result.error is None
    else:
        assert result.error and result.text.startswith("Error:") and not result.drawn
        assert name in result.error, result.error  # the model learns which call failed
        assert c.snapshot().sha256 == sha and c.log == log and c.version == version, (name, arguments)
        assert c.render_full().tobytes() == pixels, (name, arguments)
        assert c.redo() is True and list(c.elements) == ["e1", "e2"], (name, arguments)  # e2 was undone before
    return result


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_junk_arguments_never_escape(name: str, data: st.DataObject) -> None:
    spec = registry()[name]
    keys = list(parameters_schema(spec)["properties"])
    mode = data.draw(st.integers(min_value=0, max_value=3))
    if mode == 0:
        arguments: object = data.draw(junk)
    elif mode == 1 and keys:
        arguments = data.draw(st.dictionaries(st.sampled_from(keys), shaped, max_size=len(keys)))
    elif mode == 2 and keys:
        arguments = dict(spec.example)
        arguments[data.draw(st.sampled_from(keys))] = data.draw(shaped)
    else:
        text = json.dumps(spec.example)
        arguments = text[: data.draw(st.integers(min_value=0, max_value=len(text)))]
    _check(name, arguments)


BAD_CALLS = [
    (
        "trace_light_ray",
        {
            "origin": [60, 45],
            "direction": [1, 0],
            "surfaces": [{"kind": "block", "polygon": [[40, 30], [80, 30], [80, 60], [40, 60]], "n": 1.5}],
        },
        "inside block",
    ),
    ("trace_light_ray", {"origin": [10, 10], "direction": [0, 0]}, "non-zero direction"),
    (
        "trace_light_ray",
        {"origin": [10, 10], "direction": [1, 0], "surfaces": [{"kind": "mirror", "points": [[5, 5], [5, 5]]}]},
        "coincide",
    ),
    ("trace_light_ray", {"origin": [float("nan"), 10], "direction": [1, 0]}, "finite"),
    ("cast_ray", {"origin": [10, 10], "direction": [1, 1], "walls": [[[3, 3], [3, 3]]]}, "coincide"),
    ("simulate_projectile", {"origin": [10, 10], "velocity": [1, 1], "obstacles": [{"kind": "circle"}]}, "radius"),
    ("solve_maze", {"grid": ["..E", "..."]}, "no start cell"),
    ("solve_maze", {"grid": []}, "at least 1"),
    ("count_triangles", {"segments": [[[1, 1], [1, 1]]]}, "two equal end points"),
    ("intersect", {"a": {"kind": "segment", "points": [[0, 0]]}, "b": {"kind": "line"}}, "exactly 2"),
    ("analyze_polygon", {"points": [[0, 0], [1, 1], [2, 2]]}, "degenerate"),
    ("thin_lens", {"focal_length": 0, "object_distance": 5}, "must not be 0"),
    ("find_color", {"color": 5}, "string"),
    ("query_graph", {"edges": [["a", "b"]], "query": "shortest_path"}, "source"),
    ("transform", {"ids": ["e1"]}, "exactly one of translate"),
    ("zoom", {"region": [500, 500, 600, 600]}, "does not overlap"),
]


@pytest.mark.parametrize(("name", "arguments", "words"), BAD_CALLS)
def test_bad_input_reads_as_an_actionable_error(name: str, arguments: dict, words: str) -> None:
    result = _check(name, arguments)
    assert not result.ok and words in result.text, result.text


def test_unbounded_requests_are_capped() -> None:
    res = _check("simulate_bounces", {"origin": [60, 45], "velocity": [1e6, 3.3e5], "radius": 1, "max_bounces": 1000})
    assert res.ok and len(res.data["hits"]) == 1000  # capped at max_bounces, not run to t_max
    many = [[[i, 0], [i + 0.5, 90]] for i in range(0, 120, 1)] + [
        [[0, j * 0.7], [120, j * 0.7 + 1]] for j in range(120)
    ]
    res = _check("count_triangles", {"segments": many})
    # either it finished, or it stopped at the call's time limit and said so
    assert (res.ok and res.data["count"] >= 0) or f"{DEFAULT_SECONDS:g} s time limit" in res.text


class TickingClock:
    """A clock that moves `tick` seconds each time it is read, and remembers every reading."""

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.readings: list[float] = []

    def __call__(self) -> float:
        self.readings.append(len(self.readings) * self.tick)
        return self.readings[-1]


def test_the_time_limit_stops_a_call_that_would_run_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # with a tiny budget the same heavy request must stop at the limit with a message naming it
    module = importlib.import_module("mcot.tools.registry")  # `mcot.tools.registry` the name is the function
    original = module.time_budget
    fan = [  # 150 lines through the middle at different angles: some 400,000 triangles, ~0.5 s of work
        [[60 - 100 * math.cos(a), 45 - 100 * math.sin(a) + k % 7], [60 + 100 * math.cos(a), 45 + 100 * math.sin(a)]]
        for k in range(150)
        for a in [math.pi * k / 150]
    ]
    assert call("count_triangles", {"segments": fan[:20]}, _canvas()).data["count"] > 100
    clock = TickingClock(0.001)  # the budget passes at the 50th check, however busy the machine is
    monkeypatch.setattr(module, "time_budget", lambda: original(0.05, clock=clock))
    res = _check("count_triangles", {"segments": fan})
    assert not res.ok and "time limit" in res.text and "count_triangles" in res.text
    deadline = clock.readings[0] + 0.05
    assert len(clock.readings) > 40  # the work checked the clock as it went
    assert sum(reading > deadline for reading in clock.readings) == 1  # and stopped at the first check past it
