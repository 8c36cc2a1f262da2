"""Every (item, arm) of a run counts: failed, budget-stopped and missing pairs are errors in the denominator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from handmade import MakeRun, failed, ok
from mcot.benchmarks.item import Item
from mcot.eval.protocols._gobench_understanding import understanding_tables
from mcot.eval.report import benchmark_tables
from mcot.eval.scoring import score_run

from mcot.commands.score import run_score
from mcot.rundir import read_jsonl, read_scores

CONNECTION = "ConnectionError: http://127.0.0.1:9/v1 refused the connection (is the server running?)"


def _games(n: int) -> list[Item]:
    return [
        Item(
            id=f"g{i}",
            benchmark="games",
            category="count",
            question="How many?",
            answer=str(i),
            answer_type="number",
        )
        for i in range(n)
    ]


def test_a_failed_and_a_missing_pair_count_as_errors_in_n(make_run: MakeRun, capsys: pytest.CaptureFixture) -> None:
    results = [
        ok("g0", "text", "Answer: 0"),
        ok("g1", "text", "Answer: 1"),
        failed("g2", "text", CONNECTION),
        # g3 has no result at all: the run was interrupted before it
    ]
    run = make_run("run", _games(4), ["text"], results)
    assert run_score(run) == 0
    out = capsys.readouterr().out

    lines = read_jsonl(run / "scores.jsonl")
    assert [(line["id"], line["mode"]) for line in lines] == [
        ("g0", "text"),
        ("g1", "text"),
        ("g2", "text"),
        ("g3", "text"),
    ]
    by_id = {line["id"]: line for line in lines}
    assert (by_id["g2"]["method"], by_id["g2"]["correct"], by_id["g2"]["score"]) == ("error", False, 0.0)
    assert by_id["g2"]["details"] == {"status": "error", "reason": CONNECTION}
    assert (by_id["g3"]["method"], by_id["g3"]["correct"], by_id["g3"]["score"]) == ("error", False, 0.0)
    assert by_id["g3"]["details"]["status"] == "missing"

    [table] = [t for t in benchmark_tables(read_scores(run)) if t.title.startswith("Games")]
    assert table.columns == ["Mode", "Overall", "count", "n", "errors", "unjudged", "judge errors"]
    assert table.rows == [["text", "50.0", "50.0", "4", "2", "0", "0"]]
    assert "| text | 50.0 | 50.0 | 4 | 2 | 0 | 0 |" in out

    # the advice names the causes and the cure (a re-run, not a judge)
    assert "2 (item, arm) pair(s) failed in the run" in out
    assert "1 × ConnectionError: http://127.0.0.1:9/v1 refused the connection" in out
    assert "re-run the same `mcot run` command to retry them" in out
    assert "--judge" not in out.split("to do:", 1)[1]
    report = (run / "report.md").read_text()
    assert "## What to do" in report and "1 × ConnectionError" in report


def test_unjudged_items_count_wrong_and_the_note_gives_the_range(make_run: MakeRun) -> None:
    items = [
        Item(id=f"t{i}", benchmark="games", category="words", question="Which way?", answer="left", answer_type="text")
        for i in range(4)
    ]
    results = [
        ok("t0", "text", "Answer: left"),
        ok("t1", "text", "Answer: right"),  # text answers that differ: rules cannot decide, unjudged
        ok("t2", "text", "Answer: the one on the left side"),  # unjudged
        failed("t3", "text", "step budget spent: 12 model turns", status="budget"),
    ]
    run = make_run("run", items, ["text"], results)
    summary = score_run(run, figures=False)
    [table] = [t for t in benchmark_tables(summary.scores) if t.title.startswith("Games")]
    assert table.rows == [["text", "25.0", "25.0", "4", "1", "2", "0"]]
    assert "text: 2 unjudged item(s) (rules could not decide): accuracy range [25.0, 75.0]" in "\n".join(table.notes)
    advice = "\n".join(summary.advice)
    assert "1 (item, arm) pair(s) stopped on a budget" in advice and "1 × step budget spent" in advice
    assert "`mcot score " in advice and "--judge SPEC` decides them" in advice
    assert "re-run the same `mcot run`" not in advice


def test_a_run_with_no_successful_pair_says_so(make_run: MakeRun) -> None:
    results = [failed(f"g{i}", arm, CONNECTION) for i in range(3) for arm in ("text", "canvas")]
    run = make_run("run", _games(3), ["text", "canvas"], results)
    summary = score_run(run, figures=False)
    assert len(summary.scores) == 6 and summary.methods == {"error": 6}
    assert summary.advice[0] == "no (item, arm) pair of the run succeeded: all 6 count as wrong"
    assert "6 × ConnectionError" in summary.advice[1]
    [table] = [t for t in benchmark_tables(summary.scores) if t.title.startswith("Games")]
    assert table.rows == [["text", "0.0", "0.0", "3", "3", "0", "0"], ["canvas", "0.0", "0.0", "3", "3", "0", "0"]]


def test_an_arm_without_any_result_is_scored_as_missing(make_run: MakeRun) -> None:
    run = make_run("run", _games(2), ["text", "canvas"], [ok("g0", "text", "Answer: 0"), ok("g1", "text", "Answer: 1")])
    scores = score_run(run, figures=False).scores
    canvas = [s for s in scores if s.mode == "canvas"]
    assert [(s.id, s.method, s.details["status"]) for s in canvas] == [
        ("g0", "error", "missing"),
        ("g1", "error", "missing"),
    ]


def test_failures_land_in_their_table_cells(make_run: MakeRun) -> None:
    """A failed GePBench item counts in its level's cell; a failed OmniPhys item in its task kind's means."""
    items = [
        Item(
            id=f"gep-{level}",
            benchmark="gepbench",
            category="size",
            question="Size?",
            choices=["1", "2", "3", "4"],
            answer="A",
            answer_type="choice",
            meta={"level": level},
        )
        for level in ("easy", "hard")
    ] + [
        Item(
            id=f"omni-{i}",
            benchmark="omniphys",
            category="optics",
            question="Pick.",
            choices=["a", "b", "c", "d"],
            answer="B",
            answer_type="choice",
            meta={"task_type": "single_choice"},
        )
        for i in range(2)
    ]
    results = [ok("gep-easy", "text", "A"), failed("gep-hard", "text", "TimeoutError: 120 s")]
    results += [ok("omni-0", "text", "Answer: B"), failed("omni-1", "text", "TimeoutError: 120 s")]
    run = make_run("run", items, ["text"], results)
    scores = {s.id: s for s in score_run(run, figures=False).scores}
    assert scores["gep-hard"].details == {"status": "error", "reason": "TimeoutError: 120 s", "level": "hard"}
    assert scores["omni-1"].details["task"] == "single"
    tables = {t.title: t for t in benchmark_tables(list(scores.values()))}
    gep = tables["GePBench"]
    assert gep.rows[0][gep.columns.index("Size (easy)")] == "100.0"
    assert gep.rows[0][gep.columns.index("Size (hard)")] == "0.0"
    omni = tables["OmniPhys"]
    row = dict(zip(omni.columns, omni.rows[0], strict=True))
    assert (row["S1"], row["P_obj"], row["n"], row["errors"]) == ("50.0", "0.0", "2", "1")


def test_gobench_sps_counts_a_failed_item_beside_the_means_it_leaves() -> None:
    from mcot.rundir import Score

    dims = {"authenticity": 4.0, "aesthetics": 3.0, "fidelity": 4.0}
    done = Score(
        id="a",
        mode="text",
        benchmark="gobench",
        category="reflect",
        score=1.0,
        correct=None,
        method="rule",
        details={
            "task": "understanding",
            "model_scores": dims,
            "human_scores": dims,
            "sps": {"authenticity": 1.0, "aesthetics": 1.0, "fidelity": 1.0},
            "unparsable": [],
        },
    )
    lost = Score(
        id="b",
        mode="text",
        benchmark="gobench",
        category="reflect",
        score=0.0,
        correct=False,
        method="error",
        details={"status": "error", "task": "understanding"},
    )
    sps = understanding_tables([done, lost])[0]
    # as VLMEvalKit counts a failed prediction: it leaves the three means, and the table counts it
    assert sps.rows[0] == ["text", "100.0", "100.0", "100.0", "100.0", "2", "1", "0", "0", "1 / 1 / 1"]


def test_scores_file_has_a_line_per_item_and_arm(make_run: MakeRun) -> None:
    run = make_run("run", _games(3), ["text", "canvas", "tools"], [ok("g0", "canvas", "Answer: 0")])
    score_run(run, figures=False)
    lines = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert len(lines) == 9
    assert sum(1 for line in lines if line["method"] == "error") == 8
    assert Path(run / "report.md").read_text().count("error") > 0
