"""Typed, versioned records: result, score and trace lines as models; old lines read, newer ones are refused."""

import json
from pathlib import Path

import pytest

from mcot.rundir import (
    RESULT_VERSION,
    SCHEMA_KEY,
    SCORE_VERSION,
    TRACE_VERSION,
    Result,
    ResultsLedger,
    RunDir,
    RunDirError,
    Score,
    Step,
    Trace,
    TraceStore,
    open_run,
    read_scores,
    trace_relpath,
    write_scores,
)

OLD_RESULT = {
    "id": "q1",
    "mode": "canvas",
    "status": "ok",
    "prediction": "\\boxed{B}",
    "steps": 3,
    "usage": {"input_tokens": 120, "output_tokens": 30, "cost_usd": None},
    "latency_s": 1.25,
    "error": None,
    "trace": "traces/q1.canvas.jsonl",
}
OLD_SCORE = {
    "id": "q1",
    "mode": "canvas",
    "benchmark": "games",
    "category": "maze",
    "score": 1.0,
    "correct": True,
    "method": "rule",
    "extracted": "B",
    "judge": None,
    "details": {"match": "letter"},
}


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_unversioned_result_line_reads_as_version_1_with_its_fields(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text(json.dumps(OLD_RESULT) + "\n", encoding="utf-8")
    [result] = ResultsLedger(tmp_path).records()
    assert result.schema_version == 1 and result.key == ("q1", "canvas") and result.ok
    assert (result.prediction, result.steps, result.latency_s) == ("\\boxed{B}", 3, 1.25)
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.cost_usd) == (120, 30, None)
    assert result.trace_path() == "traces/q1.canvas.jsonl"
    assert result.to_json() == {SCHEMA_KEY: 1, **OLD_RESULT}  # the keys it was read with, nothing added


def test_a_result_line_written_now_names_its_version_first_and_keeps_what_it_does_not_know(tmp_path: Path) -> None:
    rd = RunDir(tmp_path)
    rd.open()
    rd.append_result(Result(id="q1", mode="text", status="ok", prediction="4", steps=1))
    rd.append_result(Result.from_line({**OLD_RESULT, "mode": "tools", "worker": "host-3", "images": ["blobs/a.png"]}))
    rd.close()
    written = (tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert written[0].startswith('{"schema_version": 2, "id": "q1"') and RESULT_VERSION == 2
    assert _lines(tmp_path / "results.jsonl")[1] == {SCHEMA_KEY: 1, **OLD_RESULT, "mode": "tools", "worker": "host-3",
                                                     "images": ["blobs/a.png"]}  # fmt: skip
    latest = rd.results()
    assert latest[("q1", "tools")].first_image() == "blobs/a.png"
    assert latest[("q1", "tools")].model_extra == {"worker": "host-3"}


def test_the_oldest_result_lines_without_a_trace_key_find_their_trace_by_id() -> None:
    oldest = Result.from_line({"id": "q1", "mode": "canvas", "status": "ok", "prediction": "B"})
    assert oldest.trace_path() == "traces/q1.canvas.jsonl"
    assert Result.from_line({**OLD_RESULT, "trace": None}).trace_path() is None


def test_junk_usage_figures_of_an_older_ledger_read_as_unknown() -> None:
    usage = {"input_tokens": "many", "output_tokens": float("nan"), "cost_usd": -2.0, "cached_calls": True}
    result = Result.from_line({"id": "q", "mode": "text", "usage": usage})
    assert result.usage.model_dump() == {"input_tokens": None, "output_tokens": None, "cost_usd": None,
                                         "cached_calls": None}  # fmt: skip


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"mode": "text", "status": "ok"}, r"not a result line \(id: Field required\)"),
        ({"id": "q", "mode": "text", "steps": "three"}, r"not a result line \(steps: "),
        (
            {"id": "q", "mode": "text", SCHEMA_KEY: 99},
            r"schema_version 99, newer than this mcot reads \(2\): upgrade mcot",
        ),
        ({"id": "q", "mode": "text", SCHEMA_KEY: "2"}, r"schema_version '2' is not a version mcot writes"),
    ],
)
def test_a_line_that_is_not_a_result_line_is_one_clear_error(
    tmp_path: Path, line: dict[str, object], message: str
) -> None:
    (tmp_path / "results.jsonl").write_text(json.dumps(OLD_RESULT) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(RunDirError, match=message) as raised:
        list(ResultsLedger(tmp_path).records())
    assert str(tmp_path / "results.jsonl") in str(raised.value) and "\n" not in str(raised.value)


def test_an_unversioned_score_line_reads_and_a_new_one_is_written_with_its_version(tmp_path: Path) -> None:
    (tmp_path / "scores.jsonl").write_text(json.dumps(OLD_SCORE) + "\n", encoding="utf-8")
    [old] = read_scores(tmp_path)
    assert old.schema_version == 1 and (old.correct, old.method, old.details) == (True, "rule", {"match": "letter"})
    judged = Score(id="q2", mode="text", benchmark="games", category="maze", method="judge", score=0.0, correct=False,
                   judge={"spec": "openai:gpt-4o", "prompt_sha256": "ab" * 32}, reviewer="kept")  # fmt: skip
    write_scores(tmp_path, [old, judged])
    first, second = _lines(tmp_path / "scores.jsonl")
    assert first == {SCHEMA_KEY: 1, **OLD_SCORE}
    assert (second[SCHEMA_KEY], second["reviewer"], next(iter(second))) == (SCORE_VERSION, "kept", SCHEMA_KEY)
    assert read_scores(tmp_path) == [old, judged]


def test_a_score_line_of_a_newer_schema_or_without_its_fields_is_refused(tmp_path: Path) -> None:
    (tmp_path / "scores.jsonl").write_text(json.dumps({**OLD_SCORE, SCHEMA_KEY: 3}) + "\n", encoding="utf-8")
    with pytest.raises(RunDirError, match="newer than this mcot reads"):
        read_scores(tmp_path)
    (tmp_path / "scores.jsonl").write_text(json.dumps({"id": "q", "mode": "text"}) + "\n", encoding="utf-8")
    with pytest.raises(RunDirError, match=r"does not have the score fields \(benchmark: Field required\)"):
        read_scores(tmp_path)


def test_an_unversioned_trace_reads_and_its_steps_are_written_back_versioned(tmp_path: Path) -> None:
    old = [
        {"step": 0, "kind": "observation", "image": "blobs/a.png"},
        {"step": 1, "kind": "model", "text": "done", "t": 0.5, "usage": {"input_tokens": 3, "cost_usd": 0.25}},
    ]
    path = tmp_path / "traces" / "q1.canvas.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(row) + "\n" for row in old), encoding="utf-8")
    trace = Trace.read_jsonl(path)
    assert [step.schema_version for step in trace] == [1, 1] and trace.steps[1].usage == {
        "input_tokens": 3,
        "cost_usd": 0.25,
    }
    assert TraceStore(tmp_path).read("traces/q1.canvas.jsonl") == old  # the lines as written
    relative = TraceStore(tmp_path).write("q1", "text", Trace([Step(step=0, kind="model", t=0.0, text="4")]))
    [line] = _lines(tmp_path / relative)
    assert (line[SCHEMA_KEY], line["pair"], relative) == (
        TRACE_VERSION,
        {"id": "q1", "mode": "text"},
        trace_relpath("q1", "text"),
    )


def test_a_trace_keeps_the_keys_a_newer_writer_adds(tmp_path: Path) -> None:
    sent = {"system": "You may draw.", "tools": [{"name": "draw_line", "parameters": {"type": "object"}}]}
    first = Step.from_dict({"step": 0, "kind": "model", "t": 0.0, "text": "I draw", "sent": sent, "note": "x"})
    shown = Step.from_dict({"step": 1, "kind": "tool", "t": 0.2, "tool": "python", "images": ["blobs/a.png"]})
    TraceStore(tmp_path).write("q1", "code", Trace([first, shown]))
    read = Trace.read_jsonl(tmp_path / trace_relpath("q1", "code"))
    assert read.steps == [first, shown] and read.pair == ("q1", "code")
    lines = [step.to_dict() for step in read]
    assert (lines[0]["sent"], lines[0]["note"], lines[1]["images"]) == (sent, "x", ["blobs/a.png"])


def test_a_trace_line_of_a_newer_schema_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "traces" / "q.text.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps({SCHEMA_KEY: 7, "step": 0, "kind": "model", "t": 0.0}) + "\n", encoding="utf-8")
    with pytest.raises(RunDirError, match=r"q\.text\.jsonl: written with schema_version 7"):
        TraceStore(tmp_path).read("traces/q.text.jsonl")
    with pytest.raises(RunDirError, match="schema_version 7"):
        Trace.read_jsonl(path)


def test_an_old_shaped_run_opens_typed(handmade_run: Path) -> None:
    run = open_run(handmade_run)
    assert all(isinstance(result, Result) and result.schema_version == 1 for result in run.results.values())
    assert run.results[("q1", "canvas")].status == "ok"
    steps = run.trace("q1", "canvas")
    assert steps is not None and steps[0]["kind"] == "observation"
