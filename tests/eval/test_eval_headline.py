"""The headline's numbers are the detail tables' numbers; small samples are shown as such; tool use from traces."""

from __future__ import annotations

import random

import pytest
from handmade import MakeRun, ok
from mcot.benchmarks.item import Item
from mcot.eval.compare import compare_runs
from mcot.eval.report import benchmark_tables, build_report, headline_rows, headline_table
from mcot.eval.scoring import score_run
from mcot.eval.tables import Table, pct
from mcot.eval.tool_use import tool_use, tool_use_tables

from mcot.rundir import Score, open_run, read_scores


def _score(item_id: str, arm: str, benchmark: str, category: str, right: bool | None, **details: object) -> Score:
    method = "none" if right is None else "rule"
    return Score(
        id=item_id,
        mode=arm,
        benchmark=benchmark,
        category=category,
        score=float(bool(right)),
        correct=right,
        method=method,
        details=dict(details),
    )


def _scores(seed: int = 3) -> list[Score]:
    rng = random.Random(seed)
    scores = []
    for arm, p in (("text", 0.3), ("canvas", 0.5), ("tools", 0.6)):
        for i in range(40):
            category = ("math", "physics", "counting", "game")[i % 4]
            scores.append(_score(f"r{i}", arm, "rbench-v", category, rng.random() < p))
        for i in range(48):
            aspect = ("existence", "counting", "size", "location", "reference", "relationship")[i % 6]
            level = "easy" if i % 12 < 6 else "hard"
            scores.append(_score(f"g{i}", arm, "gepbench", aspect, rng.random() < p, level=level))
        for i in range(30):
            task = ("single", "multi", "tf", "fill", "open")[i % 5]
            details = {"task": task, "s1": 1 if rng.random() < p else 0, "s2": 1 if rng.random() < p else 0.5}
            if task == "open":
                details = {"task": task, "s3": 1 if rng.random() < p else 0.5}
            scores.append(_score(f"o{i}", arm, "omniphys", "mechanics", bool(rng.random() < p), **details))
    scores.append(
        Score(
            id="r0",
            mode="text",
            benchmark="rbench-v",
            category="math",
            score=0.0,
            correct=False,
            method="error",
            details={"status": "error"},
        )
    )
    return [s for s in scores if not (s.id == "r0" and s.mode == "text" and s.method != "error")]


def _cell(table: Table, mode: str, column: str) -> str:
    row = next(row for row in table.rows if row[0] == mode)
    return row[table.columns.index(column)]


def test_the_headline_numbers_are_the_detail_tables_numbers() -> None:
    scores = _scores()
    details = {table.title: table for table in benchmark_tables(scores)}
    headline = headline_table(scores)
    assert headline is not None
    columns = headline.columns
    seen = set()
    for row in headline.rows:
        benchmark, metric, arm, value = row[0], row[1], row[2], row[3]
        title = {"rbench-v": "RBench-V", "gepbench": "GePBench", "omniphys": "OmniPhys"}[benchmark]
        assert value == _cell(details[title], arm, metric), (benchmark, metric, arm)
        seen.add((benchmark, metric))
        if arm == "text":
            assert row[columns.index("Δ vs text (pp)")] == "—"
    assert seen == {
        ("rbench-v", "Overall"),
        ("rbench-v", "w/o Math"),
        ("gepbench", "Avg"),
        ("omniphys", "P_obj"),
        ("omniphys", "P_open"),
    }
    # n and errors as the protocol counts them: the failed pair is in n and counted
    text = next(r for r in headline.rows if r[:3] == ["rbench-v", "Overall", "text"])
    assert text[columns.index("n")] == _cell(details["RBench-V"], "text", "n") == "40"
    assert text[columns.index("errors")] == "1"


def test_differences_from_text_pair_the_same_items_and_holm_is_over_all_of_them() -> None:
    scores = _scores()
    rows = headline_rows(scores)
    tested = [row for row in rows if row.difference is not None and row.difference.p_value is not None]
    assert len(tested) == 10  # 5 metrics × 2 arms against text
    for row in tested:
        assert row.p_holm is not None and row.p_holm >= row.difference.p_value
    canvas = next(r for r in rows if (r.benchmark, r.figure.metric, r.figure.arm) == ("rbench-v", "Overall", "canvas"))
    text = next(r for r in rows if (r.benchmark, r.figure.metric, r.figure.arm) == ("rbench-v", "Overall", "text"))
    assert canvas.difference is not None
    assert canvas.difference.value == pytest.approx(canvas.figure.value - text.figure.value)


def test_a_small_discordance_gets_the_exact_interval_and_the_table_says_so(make_run: MakeRun) -> None:
    items = [
        Item(id=f"q{i}", benchmark="generic", category="c", question="?", answer="4", answer_type="number")
        for i in range(6)
    ]
    results = [ok(f"q{i}", "text", "\\boxed{4}" if i == 0 else "\\boxed{5}") for i in range(6)]
    results += [ok(f"q{i}", "canvas", "\\boxed{4}" if i < 5 else "\\boxed{5}") for i in range(6)]
    run = make_run("run", items, ["text", "canvas"], results)
    score_run(run, report=False)
    [comparison] = compare_runs(run, n_boot=500)
    overall = comparison.groups[-1]
    assert overall.interval_method == "exact" and overall.discordant == 4
    assert overall.low < 0 < overall.high  # 4 of 4 one way: p = 0.125, the interval includes 0
    markdown = comparison.markdown()
    assert "exact" in markdown and "fewer than 20 discordant pairs" in markdown
    assert "+0.0, +0.0" not in markdown


def test_tool_use_is_counted_from_the_traces(make_run: MakeRun) -> None:
    items = [
        Item(id=f"q{i}", benchmark="generic", category="c", question="?", answer="4", answer_type="number")
        for i in range(4)
    ]
    results = [
        ok(f"q{i}", arm, "\\boxed{4}" if i < 2 else "\\boxed{5}") for arm in ("text", "canvas") for i in range(4)
    ]
    draw = {"kind": "tool", "tool": "draw_line", "drawn_by": "model", "ops": [{"op": "draw_line"}]}
    zoom = {"kind": "tool", "tool": "zoom", "drawn_by": "model"}
    broken = {"kind": "tool", "tool": "draw_line", "drawn_by": "model", "error": "bad arguments"}
    traces = {
        ("q0", "canvas"): [{"kind": "model"}, draw, draw, {"kind": "observation"}],
        ("q1", "canvas"): [zoom, broken],
        ("q2", "canvas"): [{"kind": "model", "text": "no tools"}],
    }
    run = make_run("run", items, ["text", "canvas"], results, traces)
    score_run(run, report=False)
    [use] = tool_use(open_run(run), read_scores(run))
    assert use.arm == "canvas"
    assert use.calls == [2, 2, 0, 0] and use.with_call == 2
    assert use.by_tool == {"draw_line": 3, "zoom": 1} and use.failed == 1
    assert use.accuracy(True) == (1.0, 2) and use.accuracy(False) == (0.0, 2)
    table = tool_use_tables([use])[0]
    assert table.rows[0][:6] == ["canvas", "4", "50.0 % (2)", "1.0", "2.0", "4"]
    assert table.rows[0][6] == "25.0 % (1)"
    assert not any("says little" in note for note in table.notes)


def test_an_arm_that_never_calls_a_tool_is_flagged_and_the_report_leads_with_the_answer(make_run: MakeRun) -> None:
    items = [
        Item(id=f"q{i}", benchmark="generic", category="c", question="?", answer="4", answer_type="number")
        for i in range(12)
    ]
    results = [ok(f"q{i}", arm, "\\boxed{4}") for arm in ("text", "canvas") for i in range(12)]
    run = make_run("run", items, ["text", "canvas"], results)
    scores = score_run(run, report=False).scores
    markdown, page = build_report(open_run(run), scores, figures=False)
    assert "the canvas arm called a tool in 0 of 12 pairs: its accuracy says little about drawing" in markdown
    # the offline caveat first, then the answer, then the details
    assert markdown.index("scripted tool user") < markdown.index("## The answer") < markdown.index("## Details")
    assert markdown.index("Headline") < markdown.index("How scores were decided")
    assert page.index("scripted tool user") < page.index("The answer") < page.index("How scores were decided")
    assert pct(1.0) in markdown
