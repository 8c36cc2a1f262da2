"""The viewer's data: one index row per (item, arm) with its answer class, verdict and step counts, trace shards
loaded on demand, links relative to the page, payload-safe embedding, and the `mcot view` command."""

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from viewer_runs import (
    EVIL_ID,
    EVIL_TEXT,
    generation_run,
    judged_generation_run,
    large_run,
    mcot,
    offline_tools_run,
    payload_run,
    triage_run,
)

import mcot.viewer as viewer
from mcot.cli import app
from mcot.rundir import Result, RunDirError, Score, open_run
from mcot.viewer import correctness, shard_dir, step_counts, viewer_data, write_viewer


class _Scripts(HTMLParser):
    """Collects the text of every <script> element the way a browser's parser splits the page."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._open: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._open = dict(attrs)
            self.scripts.append((self._open, ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._open = None


def page_index(page: Path) -> dict:
    """Return the index embedded in a viewer page, read as a browser's HTML parser splits it."""
    parser = _Scripts()
    parser.feed(page.read_text(encoding="utf-8"))
    embedded = [text for attrs, text in parser.scripts if attrs.get("id") == "mcot-index"]
    assert len(embedded) == 1
    return json.loads(embedded[0])


def shard_records(page: Path, index: dict) -> list[dict]:
    """Return every trace's shard record, in index order."""
    records: list[dict] = []
    for k, (url, start) in enumerate(index["shards"]):
        text = (page.parent / url).read_text(encoding="utf-8")
        prefix = f"mcotShard({k},"
        assert text.startswith(prefix) and text.endswith(");\n") and start == len(records)
        records += json.loads(text[len(prefix) : -3])
    return records


def rows(index: dict) -> dict[tuple[str, str], dict]:
    """Return the index rows by (id, arm) with their fields named."""
    named = {}
    for row in index["traces"]:
        item = index["items"][row[0]]
        named[(item[0], index["arms"][row[1]])] = {
            "status": index["statuses"][row[2]],
            "correct": index["correctness"][row[3]],
            "verdict": index["verdicts"][row[4]],
            "counts": row[5:9],
            "outputs": row[9],
            "generation": row[10],
            "benchmark": index["benchmarks"][item[2]],
            "category": index["categories"][item[3]],
        }
    return named


def test_one_row_per_pair_with_its_answer_class_verdict_and_counts(tmp_path: Path) -> None:
    run = triage_run(tmp_path / "run")
    page = write_viewer(run)
    assert page == run / "index.html"
    index = page_index(page)
    table = rows(index)
    assert len(table) == 15 and index["arms"] == ["text", "canvas", "tools"] and index["scored"] is True
    assert [key for key in table][:3] == [("m1", "text"), ("m1", "canvas"), ("m1", "tools")]  # item, then arm order
    wrong_canvas = sorted(i for (i, arm), row in table.items() if arm == "canvas" and row["correct"] == "wrong")
    assert wrong_canvas == ["d1", "g1", "m1"]
    assert table[("m2", "tools")] | {"counts": None} == table[("m2", "tools")] | {
        "status": "error",
        "correct": "error",
        "verdict": "absent",
        "counts": None,
    }
    assert (table[("d1", "tools")]["status"], table[("d1", "tools")]["correct"]) == ("budget", "error")
    assert table[("d1", "text")]["correct"] == "unjudged"
    assert [table[("m1", arm)]["verdict"] for arm in ("text", "canvas", "tools")] == ["none", "invalid", "valid"]
    assert table[("m1", "canvas")]["counts"] == [5, 4, 1, 5]  # model turns, tool calls, failed, canvas images
    assert table[("g1", "canvas")] | {"counts": None} == {
        "status": "ok",
        "correct": "wrong",
        "verdict": "none",
        "counts": None,
        "outputs": 0,
        "generation": 0,
        "benchmark": "gepbench",
        "category": "counting",
    }


def test_shard_records_hold_the_trace_and_link_images_relative_to_the_page(tmp_path: Path) -> None:
    run = triage_run(tmp_path / "run")
    page = write_viewer(run)
    index = page_index(page)
    records = dict(zip(rows(index), shard_records(page, index), strict=True))
    m1 = records[("m1", "canvas")]
    assert m1["item_images"] == ["../run-items/images/q.png"] and m1["choices"] == ["left", "right"]
    assert m1["verdict"]["violation"] == "the path crosses a wall at (3, 4)"
    assert [s["kind"] for s in m1["steps"]][:4] == ["observation", "model", "tool", "observation"]
    assert m1["steps"][0]["image"] == "blobs/red.png" and (run / m1["steps"][0]["image"]).is_file()
    assert m1["steps"][2]["error"] == "start is outside the canvas"
    assert not any("svg" in s or "ops" in s for s in m1["steps"])
    assert records[("m2", "tools")]["error"] == "the model timed out"

    elsewhere = write_viewer(run, tmp_path / "site" / "view.html")
    index = page_index(elsewhere)
    moved = dict(zip(rows(index), shard_records(elsewhere, index), strict=True))
    assert moved[("m1", "canvas")]["steps"][0]["image"] == "../run/blobs/red.png"
    assert (elsewhere.parent / moved[("m1", "canvas")]["steps"][0]["image"]).is_file()
    assert shard_dir(elsewhere) == tmp_path / "site" / "view_files"


def test_step_counts_count_model_turns_tool_calls_and_canvas_images() -> None:
    steps = [
        {"kind": "observation", "image": "blobs/a.png"},
        {"kind": "model", "tool_calls": [{"name": "draw_line"}, {"name": "zoom"}]},
        {"kind": "tool", "tool": "draw_line", "error": None},
        {"kind": "tool", "tool": "zoom", "error": "region outside", "image": None},
        {"kind": "observation", "image": "blobs/b.png"},
        {"kind": "model", "text": "\\boxed{3}"},
    ]
    counts = step_counts(steps)
    assert (counts.model_turns, counts.tool_calls, counts.failed_tool_calls, counts.canvas_images) == (2, 2, 1, 2)


def test_answer_classes() -> None:
    assert (
        correctness(
            Result(id="q", mode="text", status="ok"),
            Score(id="q", mode="text", benchmark="b", category="c", correct=True, method="rule"),
        )
        == "right"
    )
    assert (
        correctness(
            Result(id="q", mode="text", status="ok"),
            Score(id="q", mode="text", benchmark="b", category="c", correct=False, method="judge"),
        )
        == "wrong"
    )
    assert (
        correctness(
            Result(id="q", mode="text", status="error"),
            Score(id="q", mode="text", benchmark="b", category="c", correct=False, method="error"),
        )
        == "error"
    )
    assert (
        correctness(None, Score(id="q", mode="text", benchmark="b", category="c", correct=False, method="error"))
        == "error"
    )  # never run
    assert (
        correctness(
            Result(id="q", mode="text", status="ok"),
            Score(id="q", mode="text", benchmark="b", category="c", correct=None, method="judge_error"),
        )
        == "unjudged"
    )
    assert correctness(Result(id="q", mode="text", status="ok"), None) == "unscored"
    assert correctness(Result(id="q", mode="text", status="budget"), None) == "error"


def test_an_unscored_run_says_so(tmp_path: Path) -> None:
    run = triage_run(tmp_path / "run")
    (run / "scores.jsonl").unlink()
    index = page_index(write_viewer(run))
    assert index["scored"] is False
    assert {row["correct"] for key, row in rows(index).items() if key[1] != "tools"} == {"unscored"}
    assert {row["verdict"] for row in rows(index).values()} == {"none"}


def test_payloads_are_embedded_as_data_that_no_parser_reads_as_markup(tmp_path: Path) -> None:
    run = payload_run(tmp_path / '<i>run & "x"')
    page = write_viewer(run)
    text = page.read_text(encoding="utf-8")
    assert "<title>mcot traces — &lt;i&gt;run &amp; &quot;x&quot;</title>" in text
    parser = _Scripts()
    parser.feed(text)
    assert len(parser.scripts) == 2  # the index and the page's own script: no payload opened or closed one
    embedded = text.split('id="mcot-index">', 1)[1].split("</script>", 1)[0]
    assert "<" not in embedded and ">" not in embedded and "&" not in embedded
    index = page_index(page)
    assert index["items"][0][:2] == [EVIL_ID, f"Question {EVIL_TEXT} [click](javascript:window.pwned='md')"]
    records = shard_records(page, index)
    evil = records[1]  # EVIL_ID/canvas (text first)
    assert evil["prediction"] == f"Answer: {EVIL_TEXT}"
    assert evil["steps"][0]["image"] == "javascript%3Awindow.pwned%3D%27step-image%27"  # a path, never a scheme
    assert evil["item_images"] == ["../%3Ci%3Erun%20%26%20%22x%22-items/javascript%3Awindow.pwned%3D%27item-image%27"]


def test_generation_and_edit_records_link_outputs_and_reference(tmp_path: Path) -> None:
    run = generation_run(tmp_path / "run")
    page = write_viewer(run)
    index = page_index(page)
    records = dict(zip(rows(index), shard_records(page, index), strict=True))
    table = rows(index)
    generated, edit = records[("light-1", "procedural")], records[("edit-1", "canvas")]
    assert generated["outputs"] == ["blobs/blue.png"] and generated["generator"] == "procedural"
    assert "reference" not in generated and "item_images" not in generated
    assert table[("light-1", "procedural")]["generation"] == 1 and table[("light-1", "procedural")]["outputs"] == 1
    assert edit["item_images"] == ["../run-items/images/q.png"] and edit["reference"] == "../run-items/images/ref.png"
    assert edit["outputs"] == ["blobs/red.png"] and edit["output_source"] == "canvas"


def test_shards_split_by_size_keep_an_item_whole_and_stale_ones_go(tmp_path: Path, monkeypatch) -> None:
    run = triage_run(tmp_path / "run")
    monkeypatch.setattr(viewer, "SHARD_BYTES", 1)  # close a shard after every item
    page = write_viewer(run)
    index = page_index(page)
    assert len(index["shards"]) == 5
    assert {tuple(sorted({row[11] for row in index["traces"] if row[0] == n})) for n in range(5)} == {
        (k,) for k in range(5)
    }
    folder = shard_dir(page)
    mine = tmp_path / "run" / "index_files" / "notes.txt"
    mine.write_text("kept")
    first = {p.name for p in folder.glob("t-*.js")}
    monkeypatch.setattr(viewer, "SHARD_BYTES", 1 << 30)
    index = page_index(write_viewer(run))
    assert len(index["shards"]) == 1
    assert {p.name for p in folder.glob("t-*.js")} == {Path(index["shards"][0][0]).name}
    assert not first & {p.name for p in folder.glob("t-*.js")} and mine.read_text() == "kept"


def test_the_embedded_index_stays_compact(tmp_path: Path) -> None:
    run = large_run(tmp_path / "run", 300)  # 900 traces with a few KB of model text each
    page = write_viewer(run)
    index = page_index(page)
    assert len(index["traces"]) == 900
    text_bytes = sum(len(json.dumps(item[:2])) for item in index["items"])
    row_bytes = len(json.dumps(index["traces"], separators=(",", ":"))) / 900
    assert row_bytes < 40  # one short row of small integers per trace
    template = len(viewer.render_page({**index, "items": [], "traces": []}, "index_files").encode())
    assert page.stat().st_size - template < text_bytes + 60 * 900
    shards = sum((page.parent / url).stat().st_size for url, _ in index["shards"])
    assert shards > 10 * page.stat().st_size  # the traces stay out of the page


def test_viewer_data_of_an_opened_run(tmp_path: Path) -> None:
    run = open_run(triage_run(tmp_path / "run"))
    index, shards = viewer_data(run, run.root)
    assert len(index["traces"]) == 15 and len(shards) == len(index["shards"]) == 1
    assert shards[0].startswith("mcotShard(0,[")


def test_a_run_with_edited_frozen_items_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    run = triage_run(tmp_path / "run")
    items = run / "items.jsonl"
    items.write_text(items.read_text().replace('"answer": "B"', '"answer": "A"', 1))
    with pytest.raises(RunDirError, match="does not match the manifest's dataset hash"):
        write_viewer(run, tmp_path / "site" / "index.html")
    assert not (tmp_path / "site").exists()


def test_steps_a_tool_drew_are_marked(tmp_path: Path) -> None:
    run = triage_run(tmp_path / "run")
    trace = run / "traces" / "t1.jsonl"  # m1/canvas
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    steps[2] |= {"drawn_by": "tool", "changed": ["e1"], "ops": [{"op": "trace_path"}]}  # a domain tool that drew
    steps[5] |= {"drawn_by": "tool", "tool": "measure", "changed": [], "ops": []}  # one that only measured
    trace.write_text("".join(json.dumps(step) + "\n" for step in steps))
    page = write_viewer(run)
    index = page_index(page)
    m1 = dict(zip(rows(index), shard_records(page, index), strict=True))[("m1", "canvas")]
    assert [s.get("drawn_by") for s in m1["steps"][:6]] == [None, None, "tool", None, None, None]
    assert m1["steps"][5]["tool"] == "measure"
    assert "drawn by a tool" in page.read_text()


def test_mcot_view_writes_the_page_and_names_its_folder(tmp_path: Path) -> None:
    run = triage_run(tmp_path / "run")
    (tmp_path / "site").mkdir()
    result = CliRunner().invoke(app, ["view", str(run), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert f"viewer: {tmp_path / 'site' / 'index.html'}" in result.output and "index_files/" in result.output
    assert (tmp_path / "site" / "index.html").is_file() and any((tmp_path / "site" / "index_files").glob("t-*.js"))
    refused = CliRunner().invoke(app, ["view", str(tmp_path / "nothing")])
    assert refused.exit_code == 2 and "is not a run directory" in refused.output


def test_judged_images_are_labelled_by_their_ratings_not_unjudged(tmp_path: Path) -> None:
    run = judged_generation_run(tmp_path / "gen")
    mcot("view", run)
    page = run / "index.html"
    index = page_index(page)
    table = rows(index)
    assert len(table) == 6 and {row["correct"] for row in table.values()} == {"rated"}
    labels = {index["labels"][row[12]] for row in index["traces"]}  # each row's label, by its index in `labels`
    assert labels == {"authenticity 4 · aesthetics 4 · fidelity 3"}
    details = shard_records(page, index)
    assert {d["extracted"] for d in details} == {"authenticity 4; aesthetics 4; fidelity 3"}
    assert {d["method"] for d in details} == {"judge"}


def _score(**fields: Any) -> Score:
    return Score(id="q", mode="text", benchmark="b", category="c", **fields)


def test_a_graded_score_is_rated_and_a_pair_without_one_unjudged() -> None:
    graded = _score(correct=None, method="rule", score=0.8333, details={"sps": {"aesthetics": 0.83}})
    assert (correctness(Result(id="q", mode="text", status="ok"), graded), viewer.rating_label(graded)) == (
        "rated",
        "score 0.83",
    )
    unrated = _score(correct=None, method="none", score=None, details={"unjudged": "pass --judge"})
    assert (correctness(Result(id="q", mode="text", status="ok"), unrated), viewer.rating_label(unrated)) == (
        "unjudged",
        "",
    )
    right = _score(correct=True, method="judge", score=1.0, details={"judge_scores": {"grade": 1.0}})
    assert (correctness(Result(id="q", mode="text", status="ok"), right), viewer.rating_label(right)) == ("right", "")


def test_a_domain_tool_that_drew_nothing_is_not_labelled_drawn_by_a_tool(tmp_path: Path) -> None:
    run = offline_tools_run(tmp_path)
    mcot("view", run)
    page = run / "index.html"
    index = page_index(page)
    (detail,) = shard_records(page, index)
    tools = [(step["tool"], step.get("drawn_by")) for step in detail["steps"] if step["kind"] == "tool"]
    looked = {tool: drawn for tool, drawn in tools if tool in ("detect_shapes", "measure", "intersect")}
    assert looked and set(looked.values()) == {None}  # they only looked at the canvas
    assert ("analyze_polygon", "tool") in tools  # it marked points on the canvas


def test_rate_adds_each_traces_form_and_the_runs_storage_key(tmp_path: Path) -> None:
    run = open_run(generation_run(tmp_path / "run"))
    plain, _ = viewer_data(run, run.root)
    assert "rate" not in plain
    index, _ = viewer_data(run, run.root, rate=True)
    rate = index["rate"]
    assert rate["run"] == "run" and rate["key"] == f"run:{str(run.manifest.dataset.sha256)[:16]}"
    kinds = {
        index["items"][t[0]][0]: rate["forms"][f]["kind"] for t, f in zip(index["traces"], rate["form"], strict=True)
    }
    assert kinds == {"light-1": "generation", "edit-1": "diagram"}
    generation = next(form for form in rate["forms"] if form["kind"] == "generation")
    names = [d["name"] for d in generation["dimensions"]]
    assert names == [*(f"authenticity_{k}" for k in range(1, 6)), "aesthetics", "fidelity"]
    diagram = next(form for form in rate["forms"] if form["kind"] == "diagram")
    assert diagram["dimensions"][0]["values"] == [1, 0.5, 0] and diagram["dimensions"][0]["keys"] == ["1", "5", "0"]


def test_rate_leaves_the_pairs_a_run_failed_on_without_a_form(tmp_path: Path) -> None:
    run = open_run(triage_run(tmp_path / "run"))
    index, _ = viewer_data(run, run.root, rate=True)
    pairs = {
        (index["items"][t[0]][0], index["arms"][t[1]]): f
        for t, f in zip(index["traces"], index["rate"]["form"], strict=True)
    }
    assert {pair for pair, form in pairs.items() if form < 0} == {("m2", "tools"), ("d1", "tools")}
    assert [form["kind"] for form in index["rate"]["forms"]] == ["answer"]


def test_mcot_view_rate_says_how_to_rate_and_score(tmp_path: Path) -> None:
    run = triage_run(tmp_path / "run")
    result = CliRunner().invoke(app, ["view", str(run), "--rate"])
    assert result.exit_code == 0, result.output
    assert "--human FILE" in result.output
    assert '"rate":' in (run / "index.html").read_text(encoding="utf-8")
