"""The diagram-editing trace verifier: drawn paths against an item's `meta.solution_path`, on hand-made traces."""

from __future__ import annotations

import math
from typing import Any

import pytest
from mcot.eval.verify import solution_geometry, verify_diagram_trace, verify_solution_path

from mcot.core.item import Item

REFLECTED = [[160.0, 200.0], [260.0, 60.0]]
"""The reflected ray of a light from S = (60, 60) meeting the mirror y = 200 at P = (160, 200)."""

PARABOLA = [[40 + 60 * t, 80 + 70 * t * t] for t in (k * math.sqrt(2) / 14 for k in range(15))]
"""A ball thrown horizontally from (40, 80): x = 40 + 60 t, y = 80 + 70 t², to the ground y = 220."""


def _item(solution: Any = REFLECTED, **meta: Any) -> Item:
    extra = {} if solution is None else {"solution_path": solution}
    return Item(
        id="d1",
        benchmark="omniphys",
        category="optics",
        question="Draw the reflected ray.",
        images=["images/in.png"],
        answer="images/ref.png",
        answer_type="image",
        meta={"task_type": "diagram_editing", "reference_image": "images/ref.png", **extra, **meta},
    )


OBSERVED = {"step": 0, "kind": "observation", "image": "blobs/a.png"}


def _trace(*calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str], tool_drew: bool = False) -> list:
    """Return trace steps: the first observation, then one tool step per (op, args[, drawn_by])."""
    steps: list[dict[str, Any]] = [OBSERVED]
    created = 0
    for n, call in enumerate(calls, start=1):
        op, args = call[0], call[1]
        who = call[2] if len(call) > 2 else "model"
        record: dict[str, Any] = {"op": op, "args": args}
        if op not in ("undo", "redo", "remove_element"):
            created += 1
            record["id"] = f"e{created}"
        steps.append({"step": n, "kind": "tool", "tool": op, "ops": [record], "drawn_by": who})
    return steps


def test_the_correct_reflected_ray_is_valid_either_way_round() -> None:
    verdict = verify_diagram_trace(_item(), _trace(("draw_arrow", {"start": [160, 200], "end": [260, 60]})))
    assert verdict is not None
    assert (verdict.verdict, verdict.task, verdict.candidates, verdict.tool_drawn) == ("valid", "diagram", 1, 0)
    reverse = verify_diagram_trace(_item(), _trace(("draw_line", {"start": [261, 61], "end": [159, 202]})))
    assert reverse is not None and reverse.verdict == "valid"


def test_a_ray_sent_back_to_the_source_is_invalid_with_where_it_strays() -> None:
    verdict = verify_diagram_trace(_item(), _trace(("draw_arrow", {"start": [160, 200], "end": [60, 60]})))
    assert verdict is not None and verdict.verdict == "invalid"
    # tolerance: max(6, 3 % of the path's extent of 140 px) = 6 px; the first sample 4 px along is still within it
    assert verdict.violation is not None and "off the solution path" in verdict.violation
    assert "(tolerance 6 px)" in verdict.violation


def test_a_ray_drawn_8_px_off_is_invalid_and_4_px_off_valid() -> None:
    shift = lambda dx: _trace(("draw_line", {"start": [160 + dx, 200], "end": [260 + dx, 60]}))  # noqa: E731
    # a horizontal shift of dx moves the line dx · sin(angle) = dx · 140 / 172.05 px away
    assert verify_diagram_trace(_item(), shift(4)).verdict == "valid"  # 3.3 px
    off = verify_diagram_trace(_item(), shift(8))  # 6.5 px > 6
    assert off.verdict == "invalid" and off.violation.startswith("the drawing is 7 px off")


def test_a_short_ray_must_reach_the_end_unless_the_item_asks_for_less() -> None:
    half = _trace(("draw_arrow", {"start": [160, 200], "end": [210, 130]}))
    verdict = verify_diagram_trace(_item(), half)
    assert verdict.verdict == "invalid"
    assert verdict.violation is not None and "does not reach" in verdict.violation
    assert "it should reach (260, 60)" in verdict.violation
    assert verify_diagram_trace(_item(solution_cover=0.5), half).verdict == "valid"
    assert verify_diagram_trace(_item(solution_cover=0.6), half).verdict == "invalid"


def test_the_incident_ray_drawn_before_the_reflected_one_does_not_spoil_it() -> None:
    # two arrows chained end to start: the chain S→P→R is a candidate, and so is each arrow on its own
    steps = _trace(
        ("draw_arrow", {"start": [60, 60], "end": [160, 200]}), ("draw_arrow", {"start": [160, 200], "end": [260, 60]})
    )
    verdict = verify_diagram_trace(_item(), steps)
    assert (verdict.verdict, verdict.candidates) == ("valid", 3)
    both = verify_diagram_trace(_item([[60, 60], *REFLECTED]), steps)
    assert both.verdict == "valid"


def test_the_trajectory_as_a_path_is_valid_and_a_straight_line_invalid() -> None:
    item = _item(PARABOLA)
    assert verify_diagram_trace(item, _trace(("trace_path", {"points": PARABOLA}))).verdict == "valid"
    coarse = [*PARABOLA[::2], PARABOLA[-1]]  # every other point still follows the curve within the tolerance
    assert verify_diagram_trace(item, _trace(("trace_path", {"points": coarse}))).verdict == "valid"
    line = verify_diagram_trace(item, _trace(("draw_line", {"start": PARABOLA[0], "end": PARABOLA[-1]})))
    assert line.verdict == "invalid" and "off the solution path" in line.violation


def test_a_domain_tools_drawing_is_not_credited() -> None:
    steps = _trace(("trace_path", {"points": [[60, 60], *REFLECTED]}, "tool"))
    verdict = verify_diagram_trace(_item(), steps)
    assert (verdict.verdict, verdict.candidates, verdict.tool_drawn) == ("absent", 0, 1)
    steps = _trace(("trace_path", {"points": REFLECTED}, "tool"), ("draw_line", {"start": [160, 200], "end": [60, 60]}))
    verdict = verify_diagram_trace(_item(), steps)
    assert (verdict.verdict, verdict.tool_drawn) == ("invalid", 1)


def test_nothing_drawn_is_absent_and_an_undone_drawing_too() -> None:
    assert verify_diagram_trace(_item(), [OBSERVED, {"step": 1, "kind": "model", "text": "done"}]).verdict == "absent"
    undone = _trace(("draw_arrow", {"start": [160, 200], "end": [260, 60]}), ("undo", {}))
    assert verify_diagram_trace(_item(), undone).verdict == "absent"
    marked = _trace(("mark_point", {"at": [160, 200]}))
    assert verify_diagram_trace(_item(), marked).verdict == "absent"


def test_no_verdict_without_a_solution_path_or_without_a_canvas() -> None:
    drawn = _trace(("draw_arrow", {"start": [160, 200], "end": [260, 60]}))
    assert verify_diagram_trace(_item(None), drawn) is None
    assert verify_diagram_trace(_item(), None) is None
    assert verify_diagram_trace(_item(), drawn[1:]) is None  # no canvas observation: not a canvas solve
    generator = [{"step": 0, "kind": "model", "text": "a prompt", "image": "blobs/x.png"}]
    assert verify_diagram_trace(_item(), generator) is None


@pytest.mark.parametrize(
    ("solution", "extra", "message"),
    [
        ([[1, 2]], {}, "at least two distinct points"),
        ([[1, 2], [1, 2]], {}, "at least two distinct points"),
        ("not a path", {}, "ValueError"),
        (REFLECTED, {"solution_cover": 0}, "solution_cover"),
        (REFLECTED, {"solution_tolerance": -1}, "solution_tolerance"),
    ],
)
def test_a_malformed_solution_path_is_absent_with_the_reason(solution: Any, extra: dict, message: str) -> None:
    verdict = verify_diagram_trace(_item(solution, **extra), _trace(("draw_line", {"start": [0, 0], "end": [9, 9]})))
    assert verdict.verdict == "absent"
    assert verdict.violation is not None and message in verdict.violation
    assert "solution_path cannot be read" in verdict.violation


def test_solution_geometry_defaults_and_given_values() -> None:
    assert solution_geometry({"solution_path": REFLECTED}) == ([(160.0, 200.0), (260.0, 60.0)], 6.0, 1.0)
    wide = {"solution_path": [[0, 0], [1000, 0]], "solution_tolerance": None}
    assert solution_geometry(wide)[1] == pytest.approx(30.0)  # 3 % of 1000 px
    given = {"solution_path": REFLECTED, "solution_tolerance": 10, "solution_cover": 0.25}
    assert solution_geometry(given)[1:] == (10.0, 0.25)


def test_the_best_candidate_is_reported() -> None:
    near = [(160.0, 200.0), (230.0, 102.0)]  # on the ray, stops at 70 %
    far = [(160.0, 200.0), (60.0, 60.0)]
    verdict = verify_solution_path({"solution_path": REFLECTED}, [far, near])
    assert verdict.verdict == "invalid" and "does not reach" in verdict.violation
