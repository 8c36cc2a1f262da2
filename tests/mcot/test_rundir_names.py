"""File names made from ids cannot collide or overflow (issue 21 part 2); old runs' trace names still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcot.benchmarks.item import Item, write_items
from typer.testing import CliRunner

from mcot.cli import app
from mcot.rundir import (
    Result,
    Run,
    Step,
    Trace,
    TraceStore,
    open_run,
    read_jsonl,
    read_scores,
    safe_stem,
    trace_name,
)

CLASHING = ["q#1", "q&1", "q 1", "q_1", "a/b", "a_b", ".x", "x", "n\x00ul", "n_ul", "Q1", "q1", "x" * 300, "x" * 301]
"""Ids that an escape to `[A-Za-z0-9_.-]` maps onto one another, ids with a NUL, and ids too long for a name."""
LONG_BENCHMARK = "b" * 230


def test_every_id_gets_its_own_bounded_trace_file_that_names_its_pair(tmp_path: Path) -> None:
    names = {trace_name(item_id, "canvas") for item_id in CLASHING}
    assert len(names) == len(CLASHING)
    assert all(len(name.encode()) <= 200 and name.isascii() and not name.startswith(".") for name in names)
    assert trace_name("q1", "text") != trace_name("q1", "canvas") and trace_name("q1", "text").startswith("q1.")
    store = TraceStore(tmp_path)
    written = {}
    for item_id in CLASHING:
        trace = Trace([Step(step=0, kind="model", t=0.0, text=f"answer of {item_id!r}")])
        written[item_id] = store.write(item_id, "canvas", trace)
    assert len(set(written.values())) == len(CLASHING) == len(list(store.folder.iterdir()))
    for item_id, relative in written.items():
        assert store.read(relative, (item_id, "canvas")) == [
            {**Step(step=0, kind="model", t=0.0, text=f"answer of {item_id!r}").to_dict()}
        ]
        assert Trace.read_jsonl(tmp_path / relative).pair == (item_id, "canvas")
    assert store.read(written["q#1"], ("q&1", "canvas")) is None  # a file that names another pair is not its trace


def test_trace_names_from_result_lines_stay_inside_the_run(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    (tmp_path / "secret.jsonl").write_text('{"step": 0}\n')
    assert store.locate("../secret.jsonl") is None and store.read("secret.jsonl") is None
    assert store.read("traces/\x00.jsonl") is None and store.read("traces/missing.jsonl") is None


def test_an_old_run_with_traces_named_by_id_still_reads(handmade_run: Path) -> None:
    run = open_run(handmade_run)
    steps = run.trace("q1", "canvas")
    assert steps is not None and [s["kind"] for s in steps] == ["observation", "model", "tool", "observation", "model"]
    unnamed = Result.from_line({"id": "q1", "mode": "canvas"})
    oldest = Run(run.root, run.manifest, {("q1", "canvas"): unnamed}, run.items, run.items_root)
    assert oldest.trace("q1", "canvas") == steps  # a result line without `trace`: traces/<id>.<mode>.jsonl
    assert run.trace("q1", "text") is None


def test_scoring_figures_view_and_export_survive_any_id_and_benchmark_name(tmp_path: Path) -> None:
    items = [
        Item(
            id=item_id,
            benchmark=LONG_BENCHMARK,
            category="physics",
            question=f"What is {n}?",
            answer=str(n),
            answer_type="number",
        )
        for n, item_id in enumerate(CLASHING)
    ]
    write_items(tmp_path / "items", [(item, {}) for item in items])
    (tmp_path / "script.json").write_text(json.dumps([{"text": "I say \\boxed{0}"}]))
    run = tmp_path / "run"
    argv = ["run", "--data", str(tmp_path / "items"), "--model", f"scripted:{tmp_path / 'script.json'}"]
    result = CliRunner().invoke(app, [*argv, "--mode", "text", "--out", str(run), "--log-every", "0"])
    assert result.exit_code == 0, result.output
    results = read_jsonl(run / "results.jsonl")
    assert len({row["trace"] for row in results}) == len(CLASHING) == len(list((run / "traces").iterdir()))
    scored = CliRunner().invoke(app, ["score", str(run)])
    assert scored.exit_code == 0, scored.output
    assert sorted(s.id for s in read_scores(run)) == sorted(CLASHING)
    figures = [path.name for path in (run / "figures").iterdir()]
    assert figures and all(len(name.encode()) <= 255 for name in figures)
    assert any(name.startswith("accuracy-bbbb") for name in figures)
    assert CliRunner().invoke(app, ["view", str(run)]).exit_code == 0
    out = tmp_path / "export"
    exported = CliRunner().invoke(app, ["export", str(run), "--format", "jsonl", "--out", str(out), "--as", "messages"])
    assert exported.exit_code == 0, exported.output
    records = read_jsonl(out / "records.jsonl")
    assert sorted(record["id"] for record in records) == sorted(CLASHING)
    for record in records:  # each item keeps its own conversation: its own question, never another's
        question = f"What is {CLASHING.index(record['id'])}?"
        assert question in json.dumps(record["messages"])


@pytest.mark.parametrize(("text", "stem"), [("accuracy-gepbench", "accuracy-gepbench"), ("a.b_c-1", "a.b_c-1")])
def test_plain_names_keep_their_stem(text: str, stem: str) -> None:
    assert safe_stem(text) == stem


def test_names_that_are_not_plain_get_a_hash_and_never_meet() -> None:
    stems = {safe_stem(text) for text in ["a b", "a_b", "a/b", ".", "..", "x" * 101, "x" * 102, "", "é"]}
    assert len(stems) == 9 and all(len(stem) <= 100 and stem not in (".", "..") for stem in stems)
