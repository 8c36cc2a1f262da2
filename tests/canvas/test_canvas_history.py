"""Undo, redo, the operation log and replay: byte-identical images at every step."""

from __future__ import annotations

import io
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcot.canvas import Canvas, CanvasError
from PIL import Image


def sha(canvas: Canvas) -> str:
    return canvas.snapshot().sha256


def decoded(canvas: Canvas) -> Image.Image:
    return Image.open(io.BytesIO(canvas.snapshot().png)).convert("RGB")


def test_undo_and_redo_restore_exact_bytes() -> None:
    c = Canvas(size=(120, 80))
    states = [sha(c)]
    c.draw_line([0, 0], [120, 80])
    states.append(sha(c))
    c.mark_point([60, 40], label="M", color="blue")
    states.append(sha(c))
    assert c.undo() is True
    assert sha(c) == states[1]
    assert c.undo() is True
    assert sha(c) == states[0]
    assert c.undo() is False
    assert c.redo() is True and sha(c) == states[1]
    assert c.redo() is True and sha(c) == states[2]
    assert c.redo() is False
    assert [r["op"] for r in c.log] == ["draw_line", "mark_point", "undo", "undo", "redo", "redo"]


def test_undo_of_a_removal_restores_the_drawing_order() -> None:
    c = Canvas(size=(60, 60))
    c.draw_circle([30, 30], 20, fill="red", opacity=1.0)
    c.draw_circle([30, 30], 10, fill="blue", opacity=1.0)
    c.draw_line([0, 30], [60, 30], color="green")
    before = sha(c)
    c.remove_element("e1")
    assert "e1" not in c.elements
    c.undo()
    assert list(c.elements) == ["e1", "e2", "e3"]
    assert sha(c) == before


def test_undo_update_and_transform() -> None:
    c = Canvas(size=(60, 60))
    eid = c.draw_line([0, 10], [60, 10])
    before = sha(c)
    c.update_element(eid, color="blue", width=6)
    assert c.elements[eid].props["color"] == "blue"
    c.transform(ids=[eid], translate=[0, 20])
    c.undo()
    c.undo()
    assert c.elements[eid].props["color"] == "red" and sha(c) == before


def test_a_new_operation_clears_redo() -> None:
    c = Canvas(size=(40, 40))
    c.draw_line([0, 0], [40, 40])
    c.undo()
    c.mark_point([5, 5])
    assert c.redo() is False
    assert list(c.elements) == ["e2"]  # ids are never reused


def test_grid_toggle_is_an_undoable_operation() -> None:
    c = Canvas(size=(300, 200))
    plain = sha(c)
    c.show_grid(True, step=50)
    assert c.grid_step == 50 and sha(c) != plain
    c.undo()
    assert c.grid_step is None and sha(c) == plain


def test_log_records_are_canonical_json() -> None:
    c = Canvas(size=(100, 100))
    c.draw_line((1, 2), (3, 4))
    c.mark_point([5, 5], label="P", color="Blue")
    assert c.log[0] == {
        "op": "draw_line",
        "args": {"start": [1.0, 2.0], "end": [3.0, 4.0], "color": "red", "width": 3.0, "dashed": False},
        "id": "e1",
    }
    assert c.log[1]["args"]["color"] == "blue"
    assert json.loads(json.dumps(c.log)) == c.log


def test_replay_gives_identical_snapshots_at_every_step() -> None:
    base = Image.new("RGB", (160, 120), (200, 220, 240))
    c = Canvas(base=base)
    shas = []
    c.draw_polygon([[10, 10], [150, 20], [80, 110]], fill="yellow")
    shas.append(sha(c))
    c.transform(region=[0, 0, 80, 60], rotate={"angle": 45})
    shas.append(sha(c))
    c.show_grid(True)
    shas.append(sha(c))
    c.undo()
    shas.append(sha(c))
    c.redo()
    shas.append(sha(c))
    replayed = Canvas(base=base)
    for record, expected in zip(json.loads(json.dumps(c.log)), shas, strict=True):
        replayed.apply(record)
        assert sha(replayed) == expected
    assert sha(Canvas.replay(base, c.log)) == shas[-1]


def test_apply_refuses_records_out_of_order() -> None:
    c = Canvas(size=(50, 50))
    c.draw_line([0, 0], [1, 1])
    record = c.log[0]
    other = Canvas(size=(50, 50))
    other.mark_point([2, 2])
    try:
        other.apply(record)
    except CanvasError as exc:
        assert "e1" in str(exc) and "original order" in str(exc)
    else:
        raise AssertionError("expected CanvasError")


def test_apply_refuses_an_undo_with_nothing_to_undo() -> None:
    c = Canvas(size=(50, 50))
    with pytest.raises(CanvasError, match="nothing to undo"):
        c.apply({"op": "undo", "args": {}})
    assert c.log == []


# ------------------------------------------------------------------ random operation sequences

coord = st.floats(min_value=-50, max_value=250, allow_nan=False).map(lambda v: round(v, 2))
pt = st.tuples(coord, coord).map(list)
colour = st.sampled_from(["red", "blue", "#00aa00", "black", "orange"])

draw_op = st.one_of(
    st.builds(
        lambda a, b, c, d: ("draw_line", {"start": a, "end": b, "color": c, "dashed": d}), pt, pt, colour, st.booleans()
    ),
    st.builds(lambda a, c: ("mark_point", {"at": a, "label": "P", "color": c}), pt, colour),
    st.builds(
        lambda ps, cl, ar: ("trace_path", {"points": ps, "closed": cl, "arrow": ar}),
        st.lists(pt, min_size=2, max_size=6),
        st.booleans(),
        st.booleans(),
    ),
    st.builds(lambda a, b: ("draw_arrow", {"start": a, "end": b}), pt, pt),
    st.builds(
        lambda a, r: ("draw_circle", {"center": a, "radius": r, "fill": "green", "opacity": 0.4}),
        pt,
        st.integers(1, 60),
    ),
    st.builds(lambda ps: ("draw_polygon", {"points": ps, "fill": "purple"}), st.lists(pt, min_size=3, max_size=6)),
    st.builds(lambda a: ("add_text", {"at": a, "text": "abc"}), pt),
)
edit_op = st.one_of(
    st.builds(lambda d: ("translate", d), pt),
    st.builds(lambda a: ("rotate", a), st.integers(-180, 180)),
    st.builds(lambda a, b: ("reflect", [a, b]), pt, pt),
    st.builds(lambda f: ("scale", f), st.sampled_from([0.5, 1.5, 2.0])),
    st.just(("remove", None)),
    st.builds(lambda c: ("update", c), colour),
    st.just(("undo", None)),
    st.just(("redo", None)),
    st.builds(lambda on: ("grid", on), st.booleans()),
    st.builds(lambda a: ("region", a), pt),
)


def _run(c: Canvas, op: tuple, pick: int) -> None:
    name, arg = op
    ids = list(c.elements)
    target = ids[pick % len(ids)] if ids else None
    try:
        if name in ("draw_line", "mark_point", "trace_path", "draw_arrow", "draw_circle", "draw_polygon", "add_text"):
            getattr(c, name)(**arg)
        elif name == "undo":
            c.undo()
        elif name == "redo":
            c.redo()
        elif name == "grid":
            c.show_grid(arg)
        elif name == "region":
            c.transform(region=[arg[0], arg[1], arg[0] + 40, arg[1] + 30], translate=[15, -10])
        elif target is None:
            return
        elif name == "translate":
            c.transform(ids=[target], translate=arg)
        elif name == "rotate":
            c.transform(ids=[target], rotate={"angle": arg})
        elif name == "reflect":
            c.transform(ids=[target], reflect={"line": arg})
        elif name == "scale":
            c.transform(ids=[target], scale={"factor": arg})
        elif name == "remove":
            c.remove_element(target)
        elif name == "update":
            c.update_element(target, color=arg)
    except CanvasError:
        pass  # refused operations (degenerate reflection line, region off the image) must change nothing


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.one_of(draw_op, edit_op), st.integers(0, 100)), min_size=5, max_size=60), st.data())
def test_replay_is_byte_identical_over_random_sequences(ops: list, data: st.DataObject) -> None:
    base = Image.new("RGB", (200, 150), (230, 230, 210))
    base.paste((30, 90, 160), (20, 20, 90, 70))
    c = Canvas(base=base)
    shas = [sha(c)]
    snapshot_now = data.draw(st.lists(st.booleans(), min_size=len(ops), max_size=len(ops)))
    for (op, pick), now in zip(ops, snapshot_now, strict=True):
        version, elements, grid = c.version, dict(c.elements), c.grid_step
        _run(c, op, pick)
        if c.version == version:
            # a refused operation leaves the canvas exactly as it was
            assert dict(c.elements) == elements and c.grid_step == grid
            continue
        assert c.version == version + 1 == len(c.log)
        # Snapshot at some steps only, so that both the incremental and the full render paths get used.
        shas.append(sha(c) if now else None)
        if now:
            assert c.render_full().tobytes() == decoded(c).tobytes()
    final = sha(c)
    assert c.render_full().tobytes() == decoded(c).tobytes()
    records = json.loads(json.dumps(c.log))
    replayed = Canvas(base=base)
    assert sha(replayed) == shas[0]
    for k, record in enumerate(records, start=1):
        replayed.apply(record)
        if shas[k] is not None:
            assert sha(replayed) == shas[k]
    assert sha(replayed) == final
    assert sha(Canvas.replay(base, records)) == final


def test_replay_of_a_long_seeded_sequence() -> None:
    rng = random.Random(7)
    base = Image.new("RGB", (256, 192), (240, 240, 240))
    c = Canvas(base=base)
    shas = {}
    names = [
        "draw_line",
        "mark_point",
        "draw_arrow",
        "draw_circle",
        "translate",
        "rotate",
        "undo",
        "redo",
        "remove",
        "update",
    ]
    for i in range(300):
        name = rng.choice(names)
        p = [round(rng.uniform(-20, 270), 1), round(rng.uniform(-20, 210), 1)]
        q = [round(rng.uniform(-20, 270), 1), round(rng.uniform(-20, 210), 1)]
        op = {
            "draw_line": ("draw_line", {"start": p, "end": q}),
            "mark_point": ("mark_point", {"at": p, "label": f"P{i}"}),
            "draw_arrow": ("draw_arrow", {"start": p, "end": q, "color": "blue"}),
            "draw_circle": ("draw_circle", {"center": p, "radius": 12, "fill": "orange", "opacity": 0.5}),
            "translate": ("translate", [5, -3]),
            "rotate": ("rotate", rng.randint(-90, 90)),
            "undo": ("undo", None),
            "redo": ("redo", None),
            "remove": ("remove", None),
            "update": ("update", "green"),
        }[name]
        _run(c, op, rng.randrange(1000))
        if i % 25 == 0:
            shas[len(c.log)] = sha(c)
    shas[len(c.log)] = sha(c)
    replayed = Canvas(base=base)
    for k, record in enumerate(c.log, start=1):
        replayed.apply(record)
        if k in shas:
            assert sha(replayed) == shas[k]
