"""Tool calls fuzzed near every canvas limit: no exception escapes, errors say what to fix, calls stay small, and
a failed call leaves the canvas exactly as it was (pixels, elements, log, version and redo).

Hypothesis draws FUZZ_CALLS calls in all (250 by default, the CI size; `perf/fuzz_tools.py` runs 10,000) against
canvases that are empty, typical, and within a few elements of every limit: the element count, a path and a
polygon of the most points, the longest text, the largest stroke, radius and font, coordinates at the range's
edge, and the largest blank canvas. Arguments follow each tool's schema with values at and just past its bounds,
or are junk: other types, NaN and infinities, huge numbers, deep nesting, very long strings, broken JSON, and
names that are no tool. FUZZ_REPORT names a JSON file that receives the figures (calls, failures, crashes,
slowest call, the calls over CALL_SECONDS, peak memory). How long a call takes is a figure, never an assertion
here (a loaded machine would fail it): perf/fuzz_tools.py fails on a call over its time.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import resource
import statistics
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from mcot.canvas import MAX_COORD, MAX_ELEMENTS, MAX_PIXELS, MAX_SIDE, MAX_WIDTH, Canvas, Checkpoint
from mcot.canvas._limits import MAX_MARKER_RADIUS, MAX_PATH_POINTS, MAX_TEXT_CHARS, MAX_TEXT_SIZE
from mcot.tools import ToolResult, call, registry
from mcot.tools.schemas import parameters_schema

pytestmark = pytest.mark.long_running

FUZZ_CALLS = int(os.environ.get("FUZZ_CALLS", "250"))
"""How many tool calls the fuzz makes in all (CI size by default)."""

FUZZ_REPORT = os.environ.get("FUZZ_REPORT")
"""Where to write the figures as JSON (perf/fuzz_tools.py reads them), or None."""

CALL_SECONDS = 1.0
"""Longest a call may compute (its CPU time; a tool working in a child process: its wall time): perf/fuzz_tools.py
fails on a call over it."""

OWN_LIMIT_SECONDS = {"solve": 4.0 + 1.0}
"""Tools that run under their own, longer time limit (then the error says so), plus the time to stop them."""

MEMORY_CAP_MB = 1024
"""Most memory (traced Python and numpy allocations) one call may take at its peak."""

PROCESS_CAP_MB = 4096
"""Most resident memory the whole test process may reach."""

ERROR_CHARS = 2000
"""Longest error text a model is sent."""

TOOLS = registry()
NAMES = sorted(TOOLS)
SCHEMAS = {name: parameters_schema(spec) for name, spec in TOOLS.items()}


# ------------------------------------------------------------------------------------------- canvases


def _fill(canvas: Canvas, count: int) -> None:
    """Add `count` small elements of several kinds (the element limit is what matters, not their looks)."""
    w, h = canvas.width, canvas.height
    for i in range(count):
        x, y = (i * 37) % w, (i * 53) % h
        kind = i % 4
        if kind == 0:
            canvas.mark_point([x, y])
        elif kind == 1:
            canvas.draw_line([x, y], [w - x, h - y], width=1.0)
        elif kind == 2:
            canvas.add_text([x, y], "t", size=8.0)
        else:
            canvas.draw_circle([x, y], 3.0)


def _typical() -> Canvas:
    canvas = Canvas(size=(800, 600))
    canvas.draw_line([10, 10], [400, 300], color="blue", dashed=True)
    canvas.mark_point([100, 100], label="A")
    canvas.trace_path([[0, 0], [50, 80], [120, 40], [300, 500]], arrow=True)
    canvas.draw_arrow([200, 200], [260, 120])
    canvas.draw_circle([400, 300], 80, fill="yellow", opacity=0.4)
    canvas.draw_polygon([[500, 100], [700, 150], [650, 400]], fill="green")
    canvas.add_text([20, 560], "F = ma")
    canvas.transform(region=[0, 0, 100, 100], translate=[600, 400])
    canvas.show_grid(True)
    canvas.add_text([300, 30], "undone")
    canvas.undo()  # something to redo
    return canvas


def _near_full(missing: int, redo: bool = False) -> Callable[[], Canvas]:
    def build() -> Canvas:
        canvas = Canvas(size=(640, 480))
        _fill(canvas, MAX_ELEMENTS - missing + (1 if redo else 0))
        if redo:
            canvas.undo()
        return canvas

    return build


def _extremes() -> Canvas:
    """A canvas whose elements sit at the other limits: most points, longest text, widest stroke, far coordinates."""
    canvas = Canvas(size=(1024, 768))
    n = MAX_PATH_POINTS
    canvas.trace_path([[i % 1024, (i * 7) % 768] for i in range(n)], width=MAX_WIDTH)
    ring = [[512 + 300 * math.cos(2 * math.pi * i / n), 384 + 300 * math.sin(2 * math.pi * i / n)] for i in range(n)]
    canvas.draw_polygon(ring, opacity=1.0)
    canvas.add_text([5, 5], "W" * MAX_TEXT_CHARS, size=MAX_TEXT_SIZE)
    canvas.mark_point([500, 500], label="L" * MAX_TEXT_CHARS, radius=MAX_MARKER_RADIUS)
    canvas.draw_circle([512, 384], MAX_COORD, width=MAX_WIDTH)
    canvas.draw_line([-MAX_COORD, -MAX_COORD], [MAX_COORD, MAX_COORD])
    _fill(canvas, MAX_ELEMENTS - 2 - canvas_count(canvas))
    return canvas


def canvas_count(canvas: Canvas) -> int:
    """Return the number of elements on the canvas."""
    return len(canvas.elements)


def _largest() -> Canvas:
    """The largest blank canvas: MAX_SIDE wide and as tall as MAX_PIXELS allows, a few elements on it."""
    canvas = Canvas(size=(MAX_SIDE, MAX_PIXELS // MAX_SIDE))
    canvas.draw_line([0, 0], [MAX_SIDE, MAX_PIXELS // MAX_SIDE], color="red", width=5)
    canvas.draw_circle([4000, 2000], 500, fill="blue")
    return canvas


BUILDERS: dict[str, Callable[[], Canvas]] = {
    "empty": lambda: Canvas(size=(640, 480)),
    "typical": _typical,
    "thin": lambda: Canvas(size=(1, MAX_SIDE)),
    "full": _near_full(0),
    "full-1": _near_full(1),
    "full-3+redo": _near_full(3, redo=True),
    "full-8": _near_full(8),
    "extremes": _extremes,
    "largest": _largest,
}
WEIGHTS = {"largest": 1, "thin": 2, "empty": 4, "typical": 6}
"""How often each canvas is drawn relative to the others (default 4): the largest one is slow to check."""


@dataclass
class Base:
    """A canvas kept at one state between calls, and what that state looks like."""

    canvas: Canvas
    mark: Checkpoint
    pixels: str
    snapshot: str
    log: list[dict[str, Any]]
    version: int
    elements: dict[str, Any]
    grid: int | None
    redo: tuple[bool, dict[str, Any]]


def _elements(canvas: Canvas) -> dict[str, Any]:
    return dict(canvas.elements)  # Elements are frozen: equal ids and equal Elements mean the same drawing


def _redo_probe(canvas: Canvas) -> tuple[bool, dict[str, Any]]:
    """Return what `redo()` would do now (whether it did anything, and the elements after), then take it back."""
    mark = canvas.checkpoint()
    done = canvas.redo()
    after = _elements(canvas) if done else {}
    canvas.rollback(mark)
    return done, after


def _pixels(canvas: Canvas) -> str:
    return hashlib.sha256(canvas.render_full().tobytes()).hexdigest()


_BASES: dict[str, Base] = {}


def base(kind: str) -> Base:
    """Return the canvas of `kind` at its base state (built once, then brought back after every change)."""
    if kind not in _BASES:
        canvas = BUILDERS[kind]()
        _BASES[kind] = Base(
            canvas=canvas,
            mark=canvas.checkpoint(),
            pixels=_pixels(canvas),
            snapshot=canvas.snapshot().sha256,
            log=canvas.log,
            version=canvas.version,
            elements=_elements(canvas),
            grid=canvas.grid_step,
            redo=_redo_probe(canvas),
        )
    return _BASES[kind]


# ------------------------------------------------------------------------------------------- arguments


def _edge_numbers(schema: dict[str, Any]) -> list[float]:
    """Return numbers at and just past a numeric schema's bounds, and the canvas's own limits."""
    values: list[float] = [0, -0.0, 1, -1, 0.5, 1e-300, 5e-324]
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in schema:
            bound = float(schema[key])
            values += [bound, math.nextafter(bound, math.inf), math.nextafter(bound, -math.inf), bound + 1, bound - 1]
    values += [MAX_COORD, -MAX_COORD, MAX_COORD * 1.0001, MAX_SIDE, MAX_SIDE + 1, MAX_WIDTH, MAX_WIDTH + 0.001]
    values += [1e308, -1e308, 2.0**63, 10.0**20]
    return values


@dataclass(frozen=True)
class Big:
    """A value too big to print in a failure report (a huge int, a very long string, deep nesting), made on use."""

    kind: str
    size: int
    unit: str = "x"

    def make(self) -> Any:
        """Return the value this stands for."""
        if self.kind == "int":
            return 10**self.size
        if self.kind == "text":
            return self.unit * self.size
        value: Any = 1
        for _ in range(self.size):
            value = [value] if self.kind == "list" else {"a": value}
        return value


def materialize(value: Any, made: dict[int, Any] | None = None) -> Any:
    """Return `value` with every Big replaced by what it stands for (one value per Big, however often it occurs:
    a JSON text repeating a deep value holds it once per occurrence, but could not nest past the parser's depth)."""
    made = {} if made is None else made
    if isinstance(value, Big):
        if id(value) not in made:
            made[id(value)] = value.make()
        return made[id(value)]
    if isinstance(value, list):
        return [materialize(v, made) for v in value]
    if isinstance(value, dict):
        return {k: materialize(v, made) for k, v in value.items()}
    return value


huge_ints = st.builds(Big, st.just("int"), st.sampled_from([10, 19, 30, 400, 5000])) | st.sampled_from(
    [2**63, -(2**63) - 1]
)
non_finite = st.sampled_from([math.nan, math.inf, -math.inf])
long_text = st.builds(
    Big,
    st.just("text"),
    st.sampled_from([10**3, 10**4, 10**5, 10**6]),
    st.sampled_from(["x", "é", "\u202e", "\x00", "🙂"]),
)
deep = st.builds(Big, st.sampled_from(["list", "dict"]), st.sampled_from([50, 500, 5000, 50_000]))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    huge_ints,
    non_finite,
    st.text(max_size=20),
    st.sampled_from(["", "red", "#zzzzzz", "e1", "e0", "e99999", "E1", "image", "canvas", "nan", "inf", "1e999"]),
)
junk = st.one_of(
    st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
        max_leaves=12,
    ),
    long_text,
    deep,
)


def from_schema(schema: dict[str, Any], key: str = "", depth: int = 0) -> st.SearchStrategy[Any]:
    """Return a strategy for values of `schema`: mostly fitting it, some at or just past its bounds, a few junk.

    Most calls are meant to get far enough to reach the canvas, so that full canvases are really tried.
    """
    if depth > 6:
        return scalars
    fitting, near = _fitting(schema, key, depth), _near(schema, key, depth)
    return st.integers(0, 99).flatmap(lambda i: fitting if i < 86 else near if i < 97 else junk)


def _bounds(schema: dict[str, Any], low: float, high: float) -> tuple[float, float]:
    low = float(schema.get("minimum", schema.get("exclusiveMinimum", low)))
    high = float(schema.get("maximum", schema.get("exclusiveMaximum", high)))
    if "exclusiveMinimum" in schema:
        low = math.nextafter(low, math.inf)
    if "exclusiveMaximum" in schema:
        high = math.nextafter(high, -math.inf)
    return low, max(low, high)


_WORDS = {
    "id": ["e1", "e2", "e3", "e4999", "e5000", "e5001"],
    "color": ["red", "blue", "#00ff00", "black"],
    "fill": ["yellow", "green"],
    "background": ["white", "black"],
    "text": ["F = ma", "A", "x" * 100],
    "label": ["A", "P1"],
    "expression": ["sqrt(8)/2 + sin(pi/6)", "x^2 - 2", "2x(1+x)", "E^(I pi)"],
    "source": ["image", "canvas"],
}
_MAZE_ROWS = ["S..#", ".#..", "...E", "#..."]


def _fitting(schema: dict[str, Any], key: str, depth: int) -> st.SearchStrategy[Any]:
    alternatives = schema.get("anyOf", []) + schema.get("oneOf", [])
    if alternatives:
        return st.one_of([_fitting(a, key, depth + 1) for a in alternatives])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    kind = schema.get("type")
    if kind == "number":
        low, high = _bounds(schema, -50.0, 1000.0)
        return st.floats(low, high, allow_nan=False, allow_infinity=False)
    if kind == "integer":
        low, high = _bounds(schema, 0, 100)
        return st.integers(math.ceil(low), int(min(high, low + 1000)))
    if kind == "string":
        words = _WORDS.get(key, ["e1", "red", "A", "x^2 - 2 = 0", "a"])
        if key == "grid" or key == "equations":
            words = _MAZE_ROWS if key == "grid" else ["x^2 - 2 = 0", "2x + y = 7", "x - y = -1"]
        return st.sampled_from(words) | st.text(max_size=min(int(schema.get("maxLength", 20)), 20), min_size=1)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        item = from_schema(schema.get("items", {}), key, depth + 1)
        low = int(schema.get("minItems", 0))
        high = min(int(schema.get("maxItems", low + 4)), low + 4)
        return st.lists(item, min_size=low, max_size=max(low, high))
    if kind == "object":
        return _object_of(schema, depth)
    return scalars


def _near(schema: dict[str, Any], key: str, depth: int) -> st.SearchStrategy[Any]:
    alternatives = schema.get("anyOf", []) + schema.get("oneOf", [])
    if alternatives:
        return st.one_of([_near(a, key, depth + 1) for a in alternatives])
    kind = schema.get("type")
    if kind in ("number", "integer"):
        edges = _edge_numbers(schema)
        if kind == "integer":
            return st.sampled_from([int(x) for x in edges if math.isfinite(x)] + [10**19]) | huge_ints
        return st.sampled_from(edges) | non_finite | huge_ints
    if kind == "string":
        limit = int(schema.get("maxLength", 60))
        return st.builds(lambda n: "a" * n, st.sampled_from([max(0, limit - 1), limit, limit + 1])) | long_text
    if kind == "array":
        item = from_schema(schema.get("items", {}), key, depth + 1)
        low, high = int(schema.get("minItems", 0)), int(schema.get("maxItems", 64))
        sizes = sorted({max(0, low - 1), low, max(0, high - 1), high, high + 1})
        return st.sampled_from(sizes).flatmap(lambda n: _array(item, n)) | deep
    if kind == "object":
        return _object_of(schema, depth) | st.builds(dict) | st.just({"unknown": 1})
    return junk


def _array(item: st.SearchStrategy[Any], n: int) -> st.SearchStrategy[list[Any]]:
    """Return n values: drawn one by one when few, else one drawn value repeated (so that huge lists stay cheap)."""
    if n <= 12:
        return st.lists(item, min_size=n, max_size=n)
    return st.tuples(item, st.lists(item, max_size=3)).map(lambda t: [t[0]] * (n - len(t[1])) + t[1])


def _object_of(schema: dict[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    props = schema.get("properties", {})
    required = [k for k in schema.get("required", []) if k in props]
    optional = [k for k in props if k not in required]

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out = {k: draw(from_schema(props[k], k, depth + 1)) for k in required}
        for k in draw(st.lists(st.sampled_from(optional), unique=True, max_size=3)) if optional else []:
            out[k] = draw(from_schema(props[k], k, depth + 1))
        return out

    return build()


_STRATEGIES = {name: from_schema(SCHEMAS[name]) for name in NAMES}


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[Any, Any]:
    """Return (name, arguments) of one call: mostly a real tool with near-limit or junk arguments."""
    mode = draw(st.integers(0, 19))
    if mode < 12:
        name = draw(st.sampled_from(NAMES))
        return name, draw(_STRATEGIES[name])
    if mode < 14:
        name = draw(st.sampled_from(NAMES))
        example = dict(TOOLS[name].example)
        if example and draw(st.booleans()):
            example[draw(st.sampled_from(sorted(example)))] = draw(junk)
            return name, example
        return name, draw(junk)
    if mode < 17:  # arguments as JSON text: whole, truncated, deeply nested, not an object
        name = draw(st.sampled_from(NAMES))
        try:
            text = json.dumps(materialize(draw(_STRATEGIES[name])), allow_nan=True)
        except (ValueError, RecursionError):  # ints past 4300 digits, nesting past the encoder's depth
            text = "{}"
        choice = draw(st.integers(0, 3))
        if choice == 1:
            text = text[: draw(st.integers(0, len(text)))]
        elif choice == 2:
            return name, Big("text", draw(st.sampled_from([100, 10_000, 200_000])), "[")
        elif choice == 3:
            text = draw(st.sampled_from(["null", "1e999", "NaN", '"x"', "{", "{}}", '{"a": 1, "a": 2}', "\ufeff{}"]))
        return name, text
    bad_names: list[Any] = [
        draw(st.text(max_size=30)),
        draw(st.sampled_from(NAMES)).upper(),
        " " + draw(st.sampled_from(NAMES)),
        Big("text", draw(st.sampled_from([100, 10_000, 1_000_000]))),
        None,
        draw(st.integers()),
        [draw(st.sampled_from(NAMES))],
        "__import__",
        "registry",
    ]
    return draw(st.sampled_from(bad_names)), draw(st.one_of(junk, st.just({})))


# ------------------------------------------------------------------------------------------- the checks


@dataclass
class Figures:
    """What the fuzz saw, for the report and for perf/fuzz_tools.py."""

    calls: int = 0
    ok: int = 0
    failed: int = 0
    crashes: int = 0
    rollbacks_checked: int = 0
    pixel_checks: int = 0
    slowest_s: float = 0.0
    slowest_call: str = ""
    peak_call_mb: float = 0.0
    peak_rss_mb: float = 0.0
    by_canvas: Counter = field(default_factory=Counter)
    check_s: Counter = field(default_factory=Counter)
    by_tool: Counter = field(default_factory=Counter)
    cpu_s: list[float] = field(default_factory=list)
    over_time: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Return the figures as JSON data."""
        return {
            "calls": self.calls,
            "seed": RUN_SEED,
            "ok": self.ok,
            "failed": self.failed,
            "crashes": self.crashes,
            "rollbacks_checked": self.rollbacks_checked,
            "pixel_checks": self.pixel_checks,
            "slowest_s": round(self.slowest_s, 4),
            "slowest_call": self.slowest_call,
            "median_call_ms": round(statistics.median(self.cpu_s) * 1000, 3) if self.cpu_s else None,
            "peak_call_mb": round(self.peak_call_mb, 1),
            "process_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "largest_rss_after_a_call_mb": round(self.peak_rss_mb, 1),
            "by_canvas": dict(self.by_canvas),
            "seconds_by_canvas": {k: round(v, 2) for k, v in self.check_s.items()},
            "tools_called": len(self.by_tool),
            "calls_over_the_time_limit": len(self.over_time),
            "over_the_time_limit": self.over_time[:20],
        }


FIGURES = Figures()


def _rss_mb() -> float:
    """Return the resident memory of this process now, in MB (Linux; 0 where /proc is absent)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 300 else text[:300] + f"… ({len(text)} chars)"


def run_call(kind: str, name: Any, arguments: Any, *, trace_memory: bool = False, pixels: bool = False) -> ToolResult:
    """Make one call on the base canvas of `kind`, check everything the fuzz promises, bring the canvas back."""
    started = time.perf_counter()
    try:
        return _run_call(kind, name, arguments, trace_memory=trace_memory, pixels=pixels)
    finally:
        FIGURES.check_s[kind] += time.perf_counter() - started


def _run_call(kind: str, name: Any, arguments: Any, *, trace_memory: bool, pixels: bool) -> ToolResult:
    b = base(kind)
    c = b.canvas
    where = f"{kind}: {_short(name)}({_short(arguments)})"
    name, arguments = materialize(name), materialize(arguments)
    if trace_memory:
        tracemalloc.start()
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        result = call(name, arguments, c)
    except BaseException as exc:  # the contract: call never raises
        FIGURES.crashes += 1
        raise AssertionError(f"{where} raised {type(exc).__name__}: {exc}") from exc
    finally:
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        if trace_memory:
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            FIGURES.peak_call_mb = max(FIGURES.peak_call_mb, peak)
            assert peak < MEMORY_CAP_MB, f"{where} took {peak:.0f} MB at its peak"
    rss = _rss_mb()
    FIGURES.peak_rss_mb = max(FIGURES.peak_rss_mb, rss)
    assert rss < PROCESS_CAP_MB, f"{where}: the process holds {rss:.0f} MB after the call"
    FIGURES.calls += 1
    FIGURES.by_canvas[kind] += 1
    FIGURES.by_tool[name if isinstance(name, str) and name in TOOLS else "(no such tool)"] += 1
    FIGURES.cpu_s.append(cpu)
    if cpu > FIGURES.slowest_s:
        FIGURES.slowest_s, FIGURES.slowest_call = cpu, where[:300]
    spent = wall if name == "solve" else cpu  # solve computes in a worker process
    limit = OWN_LIMIT_SECONDS.get(name, CALL_SECONDS) if isinstance(name, str) else CALL_SECONDS
    if spent >= limit:
        FIGURES.over_time.append(f"{where[:300]} took {spent:.2f} s (limit {limit} s)")
    assert isinstance(result, ToolResult), where
    json.dumps(result.to_dict(), allow_nan=False)
    if result.ok:
        FIGURES.ok += 1
        assert result.error is None, where
        c.rollback(b.mark)
        assert (c.version, len(c.log)) == (b.version, len(b.log)), where
        return result
    FIGURES.failed += 1
    _check_error(name, result, where)
    _check_unchanged(b, where, pixels=pixels)
    return result


def _check_error(name: Any, result: ToolResult, where: str) -> None:
    """A failed call's text starts with Error:, is short, has no traceback, and names the tool (or says none is)."""
    assert result.error and result.text.startswith("Error:") and not result.drawn and result.image is None, where
    assert len(result.text) <= ERROR_CHARS, f"{where}: error of {len(result.text)} chars: {result.text[:200]}"
    assert "Traceback" not in result.text and 'File "' not in result.text, f"{where}: {result.text}"
    known = name.strip().lower() if isinstance(name, str) else None  # tool names are looked up without case
    if known in TOOLS:
        assert result.error.startswith(f"{known}") or f"tool {name!r}" in result.error, f"{where}: {result.error}"
    else:
        assert "there is no tool named" in result.error and "Available tools" in result.error, result.error


def _check_unchanged(b: Base, where: str, *, pixels: bool) -> None:
    """After a failed call: snapshot bytes, elements, grid, log, version and redo exactly as before."""
    c = b.canvas
    assert c.version == b.version, f"{where}: version {b.version} -> {c.version}"
    assert c.log == b.log, f"{where}: the log grew by {len(c.log) - len(b.log)}"
    assert c.grid_step == b.grid, where
    assert _elements(c) == b.elements, f"{where}: the elements changed"
    assert c.snapshot().sha256 == b.snapshot, f"{where}: the snapshot changed"
    assert _redo_probe(c) == b.redo, f"{where}: redo() would do something else than before the call"
    FIGURES.rollbacks_checked += 1
    if pixels:
        assert _pixels(c) == b.pixels, f"{where}: the rendering changed"
        FIGURES.pixel_checks += 1


# ------------------------------------------------------------------------------------------- the tests


KINDS = [kind for kind in BUILDERS for _ in range(WEIGHTS.get(kind, 4))]
BATCH = 500
"""Calls per hypothesis run: each run keeps a tree of everything it drew, so the fuzz runs in batches."""

RUN_SEED = int(os.environ.get("FUZZ_SEED", "0" if FUZZ_REPORT is None else str(random.SystemRandom().getrandbits(32))))
"""CI: the same calls every run (seed 0); perf/: fresh ones, unless FUZZ_SEED is given."""


@pytest.mark.parametrize("batch", range(max(1, math.ceil(FUZZ_CALLS / BATCH))))
def test_tool_calls_near_every_limit(batch: int) -> None:
    calls = min(BATCH, FUZZ_CALLS - batch * BATCH)

    @seed(RUN_SEED * 1000 + batch)
    @settings(
        max_examples=calls,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: the failure message names the call already
    )
    @given(kind=st.sampled_from(KINDS), one=tool_calls(), sample=st.integers(0, 99))
    def fuzz(kind: str, one: tuple[Any, Any], sample: int) -> None:
        name, arguments = one
        cheap = kind not in ("largest", "extremes") and not kind.startswith("full")
        run_call(kind, name, arguments, trace_memory=sample < 10, pixels=cheap or sample < 5)

    fuzz()


def test_fuzz_figures() -> None:
    """Runs after the fuzz (file order): the process stayed under its memory cap; writes the figures."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = FIGURES.as_dict()
    if FUZZ_REPORT:
        Path(FUZZ_REPORT).write_text(json.dumps(figures, indent=1))
    assert FIGURES.crashes == 0
    assert peak < PROCESS_CAP_MB, figures


# ------------------------------------------------------------------------------------------- regressions


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_every_tool_example_on_every_canvas(kind: str) -> None:
    # each tool's own example, and the example asking for a drawing, on every canvas: valid calls near the limits
    for name in NAMES:
        example = dict(TOOLS[name].example)
        run_call(kind, name, example)
        if "draw" in SCHEMAS[name]["properties"]:
            run_call(kind, name, {**example, "draw": True})


def test_failed_call_on_nearly_full_canvas_leaves_log_and_redo_unchanged() -> None:
    # thin_lens draws 8 elements; with room for 2 the old rollback drew 2, logged 2 undos and left them to redo
    canvas = Canvas(size=(200, 150))
    _fill(canvas, MAX_ELEMENTS - 2)
    log, version, sha = canvas.log, canvas.version, canvas.snapshot().sha256
    result = call("thin_lens", {"focal_length": 30, "object_distance": 60, "center": [100, 75]}, canvas)
    assert not result.ok and "room for 2 more" in result.text and "draw=false" in result.text
    assert canvas.log == log and canvas.version == version and canvas.snapshot().sha256 == sha
    assert canvas.redo() is False
    assert len(canvas.elements) == MAX_ELEMENTS - 2


def test_a_sketch_that_fails_halfway_is_rolled_back_without_a_trace() -> None:
    from mcot.tools.drawing import Sketch

    canvas = Canvas(size=(100, 100))
    canvas.draw_line([0, 0], [10, 10])
    canvas.undo()  # e1 can be redone
    log, version = canvas.log, canvas.version
    sketch = Sketch()
    sketch.line([0, 0], [50, 50])
    sketch.point([5, 5], label="x" * (MAX_TEXT_CHARS + 1))  # refused by the canvas after the line was drawn
    with pytest.raises(ValueError):
        sketch.commit(canvas)
    assert canvas.log == log and canvas.version == version and not canvas.elements
    assert canvas.redo() is True and list(canvas.elements) == ["e1"]


def test_rollback_restores_elements_grid_log_version_stacks_and_next_id() -> None:
    canvas = Canvas(size=(120, 90))
    first = canvas.draw_line([0, 0], [60, 45])
    canvas.mark_point([5, 5])
    canvas.undo()
    mark = canvas.checkpoint()
    before = (canvas.snapshot().png, canvas.log, canvas.version, _elements(canvas))
    canvas.show_grid(True)
    canvas.update_element(first, color="blue")
    canvas.remove_element(first)
    canvas.draw_circle([50, 50], 10)
    canvas.undo()
    canvas.snapshot()
    canvas.rollback(mark)
    assert (canvas.snapshot().png, canvas.log, canvas.version, _elements(canvas)) == before
    assert canvas.grid_step is None
    assert canvas.render_full().tobytes() == Canvas.replay((120, 90), canvas.log).render_full().tobytes()
    assert canvas.redo() is True and "e2" in canvas.elements  # the redo stack is the one before the checkpoint
    assert canvas.draw_line([1, 1], [2, 2]) == "e3"  # ids continue from the checkpoint


def test_rollback_refuses_a_checkpoint_of_another_canvas() -> None:
    a, b = Canvas(size=(10, 10)), Canvas(size=(10, 10))
    with pytest.raises(ValueError, match="taken from this canvas"):
        b.rollback(a.checkpoint())


def test_a_junk_tool_name_is_answered_briefly() -> None:
    result = run_call("empty", "x" * 1_000_000, {})
    assert "there is no tool named" in result.text and len(result.text) < ERROR_CHARS


def test_deeply_nested_json_arguments_are_refused_with_a_reason() -> None:
    result = run_call("empty", "draw_line", "[" * 200_000)
    assert "draw_line" in result.text and "nest" in result.text


def test_a_call_near_every_limit_is_accepted_and_exact() -> None:
    # the most points, the longest text, far coordinates: accepted and drawn; one more point or character refused
    most = [[i % 640, (i * 7) % 480] for i in range(MAX_PATH_POINTS)]
    assert run_call("empty", "trace_path", {"points": most, "width": MAX_WIDTH}).ok
    assert not run_call("empty", "trace_path", {"points": [*most, [1, 1]]}).ok
    assert run_call("empty", "add_text", {"at": [0, 0], "text": "W" * MAX_TEXT_CHARS, "size": MAX_TEXT_SIZE}).ok
    assert not run_call("empty", "add_text", {"at": [0, 0], "text": "W" * (MAX_TEXT_CHARS + 1)}).ok
    assert run_call("full-1", "draw_line", {"start": [-MAX_COORD, 0], "end": [MAX_COORD, 1]}).ok
    assert not run_call("full", "draw_line", {"start": [0, 0], "end": [1, 1]}).ok
    assert not run_call("full", "draw_line", {"start": [0, 0], "end": [MAX_COORD * 2, 1]}).ok


def test_an_argument_too_large_to_print_is_named_in_the_error() -> None:
    # repr() of a 5,000-digit int raises, and so does repr() of a list nested 50,000 deep: the error said
    # "failed unexpectedly (ValueError ...)" instead of naming the argument
    huge = run_call("empty", "draw_line", {"start": [Big("int", 5000), 1], "end": [1, 1]})
    assert "`start[0]`" in huge.text and "int too large to show" in huge.text
    nested = run_call("empty", "mark_point", {"at": Big("list", 50_000)})
    assert "`at" in nested.text and "failed unexpectedly" not in nested.text


def test_perception_on_the_largest_canvas_reads_a_region_or_asks_for_one() -> None:
    # find_color, detect_shapes and maze_from_image decoded the whole snapshot PNG of a 40-megapixel canvas and
    # took 1.6-2.6 s; now they read the rendering directly, at most MAX_READ_PIXELS at a time
    from mcot.tools.perception import MAX_READ_PIXELS

    for name, example in [("find_color", {"color": "red"}), ("detect_shapes", {}), ("maze_from_image", {})]:
        whole = run_call("largest", name, {**example, "source": "canvas"})
        assert not whole.ok and "region=[x0, y0, x1, y1]" in whole.text and f"{MAX_READ_PIXELS:,}" in whole.text
        part = run_call("largest", name, {**example, "source": "canvas", "region": [0, 0, 4000, 2000]})
        assert name in (part.error or name)
    found = run_call("largest", "find_color", {"color": "blue", "source": "canvas", "region": [3000, 1000, 5000, 3000]})
    assert found.ok and found.data["count"] == 1
    assert found.data["regions"][0]["centroid"] == pytest.approx([4000.0, 2000.0], abs=1.0)
