"""Run-directory files read back whatever text was written into them (issue 21 part 1).

Every Unicode line terminator (what `str.splitlines` splits on) and every control character, in ids, answers,
tool arguments and judge replies: results, scores, traces, the schedule, the response cache, an export and the
viewer's data read back exactly, and a run answered with such text is scored, viewed and exported (exit 0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcot.agents.backends import load_model
from mcot.agents.backends.base import ModelResponse, Usage
from mcot.agents.cache import CachedBackend
from mcot.agents.messages import ToolCall
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.item import Item, write_items
from mcot.core.registry import EXPORT_VIEWS
from mcot.core.rundir import (
    Result,
    ResultsLedger,
    RunDir,
    Score,
    Step,
    Trace,
    TraceStore,
    compact_json,
    iter_jsonl,
    json_line,
    read_jsonl,
    read_schedule,
    read_scores,
    write_schedule,
    write_scores,
)
from mcot.export.formats import RECORDS_FILE
from mcot.export.formats import write_jsonl as export_jsonl
from mcot.export.images import ImageCatalog
from mcot.testing.fake_provider import FakeProvider, Reply
from mcot.viewer import embedded_json

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character `str.splitlines` splits at (\\r\\n is two of them)."""
CONTROLS = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)])
EVERYTHING = f"a{LINE_BREAKS}b{CONTROLS}c\u2028\u2029\ud800y\udfffz"
"""What a model or a judge may send: line breaks, control characters and lone surrogates (JSON allows them)."""
EVIL_ID = f"q{LINE_BREAKS}{CONTROLS}1"
"""An item id with every line terminator and control character (items files cannot hold lone surrogates)."""
ANSWER = f"a{LINE_BREAKS}b{CONTROLS}c"
"""A model's answer with every line terminator and control character, for the whole run (without lone surrogates:
the judge's prompt hashing does not take them)."""


def _splitlines_rows(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file the way a naive reader does (`splitlines`): it must see the same rows."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_one_json_line_never_holds_a_character_a_line_splitter_breaks_at() -> None:
    line = json_line({"id": EVIL_ID, "text": EVERYTHING})
    assert line.splitlines() == [line] and "\n" not in line
    line.encode("utf-8")  # lone surrogates are escaped, so the line is valid UTF-8
    assert json.loads(line) == {"id": EVIL_ID, "text": EVERYTHING}
    compact = compact_json([EVERYTHING])
    assert compact.splitlines() == [compact] and json.loads(compact) == [EVERYTHING]
    embedded = embedded_json({"x": EVERYTHING + "</script>"})
    assert "\u2028" not in embedded and "<" not in embedded and json.loads(embedded) == {"x": EVERYTHING + "</script>"}


def test_the_reader_splits_at_newlines_only_so_files_of_older_versions_read_back(tmp_path: Path) -> None:
    raw = json.dumps({"id": "old", "prediction": "x\u2028y\x85z"}, ensure_ascii=False)  # as mcot used to write
    path = tmp_path / "results.jsonl"
    path.write_text(raw + "\n" + raw + "\n" + '{"id": "torn", "mo', encoding="utf-8")
    assert [row["prediction"] for row in read_jsonl(path)] == ["x\u2028y\x85z"] * 2


def test_results_scores_traces_and_the_schedule_read_back_exactly(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    record = Result(id=EVIL_ID, mode="canvas", status="ok", prediction=EVERYTHING, error=EVERYTHING)
    run.open()
    run.append_result(record)
    run.append_result(record.with_fields({"mode": "text"}))
    run.close()
    assert list(ResultsLedger(run.root).records()) == [record, record.with_fields({"mode": "text"})]
    assert _splitlines_rows(run.results_path)[0] == record.to_json()

    score = Score(
        id=EVIL_ID,
        mode="canvas",
        benchmark=EVERYTHING,
        category=EVERYTHING,
        score=1.0,
        correct=True,
        method="judge",
        extracted=EVERYTHING,
        judge={"spec": "openai:judge", "raw": "1" + EVERYTHING},
        details={"reason": EVERYTHING},
    )
    write_scores(run.root, [score])
    assert read_scores(run.root) == [score]

    trace = Trace(
        [
            Step(
                step=0, kind="model", t=0.0, text=EVERYTHING, tool_calls=[{"name": "add_text", "arguments": EVERYTHING}]
            ),
            Step(step=1, kind="tool", t=0.1, tool="add_text", arguments={"text": EVERYTHING}, error=EVERYTHING),
        ]
    )
    relative = TraceStore(run.root).write(EVIL_ID, "canvas", trace)
    steps = TraceStore(run.root).read(relative, (EVIL_ID, "canvas"))
    assert steps == [step.to_dict() for step in trace.steps]
    assert Trace.read_jsonl(run.root / relative).pair == (EVIL_ID, "canvas")

    write_schedule(run.root / "schedule.jsonl", [(EVIL_ID, "text"), (EVIL_ID, "canvas")])
    assert read_schedule(run.root / "schedule.jsonl") == [(EVIL_ID, "text"), (EVIL_ID, "canvas")]


def test_the_response_cache_reads_back_exactly(tmp_path: Path) -> None:
    cache = CachedBackend(load_model("offline"), tmp_path / "cache")
    response = ModelResponse(
        text=EVERYTHING,
        tool_calls=(ToolCall("call-1", "add_text", json.dumps({"text": EVERYTHING})),),
        usage=Usage(3, 4),
        stop_reason="stop",
    )
    path = cache.store("ab" + "0" * 62, response)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1
    stored = cache.lookup("ab" + "0" * 62)
    assert stored is not None and stored.text == EVERYTHING
    assert json.loads(stored.tool_calls[0].arguments) == {"text": EVERYTHING}


def test_an_export_and_the_viewer_data_read_back_exactly(tmp_path: Path) -> None:
    rows = [{"id": EVIL_ID, "prediction": EVERYTHING}, {"id": "plain", "prediction": "B"}]
    folder = tmp_path / "export"
    folder.mkdir()
    view = EXPORT_VIEWS.get("messages")
    assert export_jsonl(rows, ImageCatalog(), view, folder, None) == 2  # the JSONL writer reads neither view nor run
    assert read_jsonl(folder / RECORDS_FILE) == rows == _splitlines_rows(folder / RECORDS_FILE)


@pytest.fixture
def evil_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run whose item id, answers and tool arguments hold every line terminator and control character."""
    item = Item(
        id=EVIL_ID,
        benchmark="rbench-v",
        category="physics",
        question=f"Which way? {LINE_BREAKS}",
        answer="to the right",
        answer_type="text",
    )
    write_items(tmp_path / "items", [(item, {})])
    script = {
        "text": [{"text": f"{ANSWER} \\boxed{{to the right}}"}],
        "canvas": [
            {"text": ANSWER, "tool_calls": [{"name": "add_text", "arguments": {"at": [1, 1], "text": ANSWER}}]},
            {"text": f"{ANSWER} \\boxed{{to the right}}"},
        ],
    }
    (tmp_path / "script.json").write_text(json.dumps(script), encoding="utf-8")
    run = tmp_path / "run"
    argv = ["run", "--data", str(tmp_path / "items"), "--model", f"scripted:{tmp_path / 'script.json'}"]
    result = CliRunner().invoke(app, [*argv, "--mode", "text,canvas", "--out", str(run), "--log-every", "0"])
    assert result.exit_code == 0, result.output
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-not-real")
    monkeypatch.setenv("MCOT_JUDGE_CACHE", str(tmp_path / "judge-cache"))
    return run


def test_a_run_answered_with_any_text_is_scored_judged_viewed_and_exported(evil_run: Path, tmp_path: Path) -> None:
    results = {row["mode"]: row for row in read_jsonl(evil_run / "results.jsonl")}
    assert {row["id"] for row in results.values()} == {EVIL_ID}
    assert results["text"]["prediction"] == f"{ANSWER} \\boxed{{to the right}}"
    steps = TraceStore(evil_run).read(results["canvas"]["trace"], (EVIL_ID, "canvas")) or []
    assert [s["arguments"] for s in steps if s["kind"] == "tool"] == [{"at": [1, 1], "text": ANSWER}]
    with FakeProvider(default=Reply("1" + ANSWER)) as judge:
        judged = CliRunner().invoke(
            app, ["score", str(evil_run), "--judge", "openai:gpt-4o-mini", "--base-url", judge.openai_url]
        )
    # MathVerse's scoring prompt takes only a bare 0 or 1: this reply is unparsable, so each judgment is a
    # judge error, kept with its raw text (exit 3: judgments missing) — what matters here is that it reads back
    assert judged.exit_code == 3 and "judgment(s) are missing" in judged.output, judged.output
    scores = read_scores(evil_run)
    assert {(s.id, s.mode) for s in scores} == {(EVIL_ID, "text"), (EVIL_ID, "canvas")}
    assert len(_splitlines_rows(evil_run / "scores.jsonl")) == 2
    raws = [s.judge["raw"] for s in scores if s.judge and "raw" in s.judge]
    assert all(raw == "1" + ANSWER for raw in raws)
    viewed = CliRunner().invoke(app, ["view", str(evil_run)])
    assert viewed.exit_code == 0, viewed.output
    shards = list((evil_run / "index_files").glob("t-*.js"))
    assert shards and all("\u2028" not in path.read_text(encoding="utf-8") for path in shards)
    out = tmp_path / "exported"
    exported = CliRunner().invoke(
        app, ["export", str(evil_run), "--format", "jsonl", "--out", str(out), "--as", "messages"]
    )
    assert exported.exit_code == 0, exported.output
    records = list(iter_jsonl(out / RECORDS_FILE))
    assert len(records) == 2 and records == _splitlines_rows(out / RECORDS_FILE)
    assert {record["id"] for record in records} == {EVIL_ID}
