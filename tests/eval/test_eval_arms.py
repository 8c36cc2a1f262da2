"""Any pair of arms can be compared; a tool's drawing is counted apart from the model's in a three-arm run."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from handmade import MakeRun, ok
from mcot.eval.compare import choose_pairs, compare_runs
from mcot.eval.errors import EvalError
from mcot.eval.report import benchmark_tables
from mcot.eval.scoring import score_run

from mcot.commands.compare import run_compare
from mcot.core.errors import UsageError
from mcot.core.item import Item

MAZE = {
    "grid": ["#####", "S..##", "##.##", "#...A", "#B###"],
    "cell": 20,
    "origin": [10, 10],
    "start": [1, 0],
    "exits": {"A": {"cell": [3, 4], "color": [220, 0, 0]}, "B": {"cell": [4, 1], "color": [0, 0, 220]}},
    "target": "A",
    "path": [[1, 0], [1, 1], [1, 2], [2, 2], [3, 2], [3, 3], [3, 4]],
}
ROUTE = [[20 + 20 * c, 20 + 20 * r] for r, c in MAZE["path"]]


def _maze(i: int) -> Item:
    return Item(
        id=f"maze-{i}",
        benchmark="games",
        category="maze",
        question="Which exit?",
        choices=["exit A", "exit B"],
        answer="A",
        answer_type="choice",
        meta=MAZE,
    )


def _three_arm_run(make_run: MakeRun) -> Path:
    """Four mazes: text right on 1, canvas right on 2 (drawing the route), tools right on 4 (solve_maze drew it)."""
    items = [_maze(i) for i in range(4)]
    results = [ok(f"maze-{i}", "text", "Answer: A" if i == 0 else "Answer: B") for i in range(4)]
    results += [ok(f"maze-{i}", "canvas", "Answer: A" if i < 2 else "Answer: B") for i in range(4)]
    results += [ok(f"maze-{i}", "tools", "Answer: A") for i in range(4)]
    lines = [
        {
            "step": 1,
            "kind": "tool",
            "tool": "draw_line",
            "drawn_by": "model",
            "ops": [{"op": "draw_line", "args": {"start": a, "end": b}, "id": f"e{k}"}],
        }
        for k, (a, b) in enumerate(itertools.pairwise(ROUTE))
    ]
    solved = [
        {
            "step": 1,
            "kind": "tool",
            "tool": "solve_maze",
            "drawn_by": "tool",
            "ops": [{"op": "trace_path", "args": {"points": ROUTE}, "id": "e1"}],
        }
    ]
    traces = {("maze-0", "canvas"): lines, ("maze-1", "canvas"): lines}
    traces |= {(f"maze-{i}", "tools"): solved for i in range(4)}
    return make_run("run", items, ["text", "canvas", "tools"], results, traces)


def test_compare_text_and_tools_on_a_three_arm_run(make_run: MakeRun, capsys: pytest.CaptureFixture) -> None:
    run = _three_arm_run(make_run)
    score_run(run, figures=False)
    assert run_compare(run, None, None, False, a="text", b="tools") == 0
    out = capsys.readouterr().out
    assert "### tools vs text on the same items" in out and "canvas vs text" not in out
    assert "| Overall | 4 | 25.0 | 100.0 | +75.0 |" in out
    [comparison] = compare_runs(run, a="text", b="tools", n_boot=500)
    overall = comparison.groups[-1]
    assert (overall.n, overall.wrong_to_right, overall.right_to_wrong) == (4, ["maze-1", "maze-2", "maze-3"], [])


def test_without_arms_a_three_arm_run_compares_text_with_each_other_arm(make_run: MakeRun) -> None:
    run = _three_arm_run(make_run)
    score_run(run, figures=False)
    comparisons = compare_runs(run, n_boot=500)
    assert [(c.a, c.b) for c in comparisons] == [("text", "canvas"), ("text", "tools")]
    assert [c.groups[-1].accuracy_b for c in comparisons] == [0.5, 1.0]
    report = (run / "report.md").read_text()
    assert "### canvas vs text on the same items" in report and "### tools vs text on the same items" in report


def test_one_arm_given_is_compared_with_text_and_unknown_arms_are_named(make_run: MakeRun) -> None:
    run = _three_arm_run(make_run)
    assert choose_pairs(run, ["text", "canvas", "tools"], b="canvas") == [("text", "canvas")]
    assert choose_pairs(run, ["text", "canvas", "tools"], a="tools") == [("tools", "text")]
    assert choose_pairs(run, ["canvas", "tools"]) == [("canvas", "tools")]
    with pytest.raises(EvalError, match="no scored arm 'custom'; its arms: text, canvas, tools"):
        choose_pairs(run, ["tools", "text", "canvas"], a="text", b="custom")
    with pytest.raises(EvalError, match="no text arm: choose two with --a and --b"):
        choose_pairs(run, ["canvas", "tools", "custom"])
    score_run(run, figures=False)
    with pytest.raises(UsageError, match="its arms: text, canvas, tools"):
        run_compare(run, None, None, False, a="txt", b="canvas")


def test_the_tool_drawn_route_is_not_credited_and_is_shown_apart(make_run: MakeRun) -> None:
    run = _three_arm_run(make_run)
    scores = {(s.id, s.mode): s for s in score_run(run, figures=False).scores}
    assert scores[("maze-0", "canvas")].details["trace"]["verdict"] == "valid"
    assert scores[("maze-0", "canvas")].details["trace"]["tool_drawn"] == 0
    tools = scores[("maze-0", "tools")].details["trace"]
    assert (tools["verdict"], tools["tool_drawn"]) == ("absent", 1)
    assert "trace" not in scores[("maze-0", "text")].details
    [crosstab] = [t for t in benchmark_tables(list(scores.values())) if t.title.startswith("Trace verifiers")]
    rows = {row[0]: dict(zip(crosstab.columns, row, strict=True)) for row in crosstab.rows if row[1] == "maze"}
    assert rows["tools"]["right & absent"] == "4" and rows["tools"]["right & drawn by a tool"] == "4"
    assert rows["canvas"]["right & valid"] == "2" and rows["canvas"]["right & drawn by a tool"] == "0"
    assert rows["canvas"]["wrong & absent"] == "2"
