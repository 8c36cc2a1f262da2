"""`mcot export` on a real offline run: the three formats read back in their libraries, the two training views,
refusals, all-or-nothing writes, unscored runs."""

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pyarrow.parquet as pq
import pytest
from PIL import Image

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # datasets must never reach the hub
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from typer.testing import CliRunner, Result

from mcot.cli import app
from mcot.export import ExportError, export_run
from mcot.export.conversation import Conversation, Turn
from mcot.export.views import llava_conversations


def _mcot(*args: str | Path, check: bool = True) -> Result:
    """Run `mcot ARGS` in this process (Typer's runner: the real command line, without a new interpreter)."""
    done = CliRunner().invoke(app, [str(arg) for arg in args], prog_name="mcot")
    if check and done.exit_code not in (0, 3):
        raise AssertionError(
            f"mcot {' '.join(map(str, args))} exited {done.exit_code}: {done.stderr}"
        ) from done.exception
    return done


def _mcot_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run `python -m mcot ARGS` as its own process."""
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mcot", *map(str, args)], capture_output=True, text=True, timeout=180, env=env
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two maze items; a scored run of the three arms, an unscored copy, and a run stopped on its step budget."""
    root = tmp_path_factory.mktemp("export")
    items, run, budget = root / "items", root / "run", root / "budget"
    _mcot("gen", "games", "--task", "maze", "--n", "2", "--seed", "1", "--out", items)
    _mcot("run", "--data", items, "--model", "offline", "--mode", "text,canvas,tools", "--out", run)
    _mcot("score", run)
    _mcot("run", "--data", items, "--model", "offline", "--mode", "tools", "--max-steps", "2", "--out", budget)
    _mcot("score", budget)
    unscored = root / "unscored"
    shutil.copytree(run, unscored)
    (unscored / "scores.jsonl").unlink()
    return {"run": run, "budget": budget, "unscored": unscored}


@pytest.fixture
def offline_datasets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The datasets library, offline, with its cache in the test's folder."""
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    datasets.disable_progress_bars()
    return datasets


def _lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]


def _scores(run: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    return {(r["id"], r["mode"]): r for r in rows}


def _decodes(image: Any) -> bool:
    image.load()
    return isinstance(image, Image.Image) and image.width > 0


# --- formats -----------------------------------------------------------------------------------------------------


def test_hf_export_reads_with_load_from_disk_and_load_dataset(
    runs: dict[str, Path], tmp_path: Path, offline_datasets: Any
) -> None:
    out = tmp_path / "hf"
    assert export_run(runs["run"], "hf", out).count == 6
    for loaded in (
        offline_datasets.load_from_disk(str(out)),
        offline_datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache")),
    ):
        train = loaded["train"]
        assert train.num_rows == 6
        assert {(row["id"], row["mode"]) for row in train} == set(_scores(runs["run"]))
        assert isinstance(train.features["item_images"].feature, offline_datasets.Image)
        assert isinstance(train.features["canvas_images"].feature, offline_datasets.Image)
        tools = next(row for row in train if row["mode"] == "tools")
        assert [_decodes(image) for image in tools["item_images"]] == [True]
        assert len(tools["canvas_images"]) == 2 and all(_decodes(image) for image in tools["canvas_images"])
        assert tools["correct"] is True and tools["status"] == "ok"
        assert json.loads(tools["trace"])[-1]["kind"] == "model"


def test_parquet_export_embeds_images_and_reads_with_pandas(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "traces.parquet"
    assert export_run(runs["run"], "parquet", out, view="llava").count == 6
    frame = pq.read_table(out).to_pandas()
    assert len(frame) == 6 and set(frame["mode"]) == {"text", "canvas", "tools"}
    first = frame[frame["mode"] == "tools"].iloc[0]["image"][0]
    assert first["bytes"].startswith(b"\x89PNG") and first["path"].startswith("images/")


def test_jsonl_folder_moved_elsewhere_resolves_every_image(runs: dict[str, Path], tmp_path: Path) -> None:
    views = ("records", "messages", "llava")
    for view in views:
        export_run(runs["run"], "jsonl", tmp_path / "made" / view, view=view)
    moved = tmp_path / "elsewhere" / "deeper"
    shutil.move(str(tmp_path / "made"), str(moved))
    for view in views:
        names = [name for record in _lines(moved / view) for name in _image_names(record)]
        assert len(names) >= 6 and len(set(names)) >= 3, view
        for name in names:
            assert not Path(name).is_absolute()
            with Image.open(moved / view / name) as image:
                assert image.width > 0
    records = _lines(moved / "records")
    assert all(len(r["item_images"]) == 1 for r in records)
    assert {len(r["canvas_images"]) for r in records if r["mode"] == "tools"} == {2}
    assert not any("/" + "blobs/" in json.dumps(r) or json.dumps(r).count(str(tmp_path)) for r in records)


def _image_names(record: dict[str, Any]) -> list[str]:
    """Every string of a record that names an image under images/."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str) and value.startswith("images/"):
            found.append(value)
        elif isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(record)
    return found


# --- records: flags, scores, only-correct --------------------------------------------------------------------------


def test_budget_stopped_and_missing_pairs_are_exported_and_flagged(runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "partial"
    shutil.copytree(runs["budget"], run)
    results = (run / "results.jsonl").read_text().splitlines()
    kept = [line for line in results if json.loads(line)["id"] == "maze-1-00000"]
    (run / "results.jsonl").write_text("".join(line + "\n" for line in kept))  # the other item's result is lost
    summary = export_run(run, "jsonl", tmp_path / "out")
    records = {r["id"]: r for r in _lines(tmp_path / "out")}
    assert summary.count == 2 and summary.flagged == 2
    stopped, missing = records["maze-1-00000"], records["maze-1-00001"]
    assert stopped["status"] == "budget" and "step budget" in stopped["error"] and stopped["correct"] is False
    assert missing["status"] == "missing" and missing["trace"] == [] and "no result" in missing["error"]


def test_only_correct_keeps_the_pairs_scored_correct(runs: dict[str, Path], tmp_path: Path) -> None:
    right = {key for key, score in _scores(runs["run"]).items() if score["correct"]}
    summary = export_run(runs["run"], "jsonl", tmp_path / "out", only_correct=True)
    assert summary.count == len(right) >= 1
    assert {(r["id"], r["mode"]) for r in _lines(tmp_path / "out")} == right


def test_an_unscored_run_is_exported_with_a_warning(runs: dict[str, Path], tmp_path: Path) -> None:
    done = _mcot("export", runs["unscored"], "--format", "jsonl", "--out", tmp_path / "out")
    assert done.exit_code == 0
    assert "warning:" in done.stderr and "not scored" in done.stderr and "--score" in done.stderr
    assert {r["correct"] for r in _lines(tmp_path / "out")} == {None}
    refused = _mcot(
        "export", runs["unscored"], "--format", "jsonl", "--out", tmp_path / "o2", "--only-correct", check=False
    )
    _one_line_refusal(refused, "--only-correct needs scores")


def test_score_flag_scores_an_unscored_run_first(runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "unscored"
    shutil.copytree(runs["unscored"], run)
    summary = export_run(run, "jsonl", tmp_path / "out", score=True)
    assert summary.scored_now and not any("not scored" in w for w in summary.warnings)
    assert (run / "scores.jsonl").is_file()
    assert {r["correct"] for r in _lines(tmp_path / "out")} <= {True, False}


# --- refusals and all-or-nothing writes --------------------------------------------------------------------------


def _one_line_refusal(done: Result | subprocess.CompletedProcess[str], words: str) -> None:
    code = done.returncode if isinstance(done, subprocess.CompletedProcess) else done.exit_code
    assert code == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcot: ") and words in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_refusals_exit_2_with_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    run = runs["run"]
    out = tmp_path / "out"
    assert _mcot("export", run, "--format", "jsonl", "--out", out).exit_code == 0
    before = (out / "records.jsonl").read_bytes()
    _one_line_refusal(_mcot_process("export", run, "--format", "jsonl", "--out", out), "--overwrite")
    _one_line_refusal(_mcot("export", run, "--format", "parquet", "--out", tmp_path, check=False), "is a directory")
    _one_line_refusal(
        _mcot("export", run, "--format", "jsonl", "--out", tmp_path / "x.jsonl", check=False), "writes a folder"
    )
    _one_line_refusal(
        _mcot("export", run, "--format", "csv", "--out", tmp_path / "c", check=False),
        "Known: jsonl, parquet, hf, vlmevalkit or gepbench",
    )
    _one_line_refusal(
        _mcot("export", run, "--format", "jsonl", "--as", "sft", "--out", tmp_path / "v", check=False),
        "Known: records, messages, llava, sharegpt, verl, verl-sft or trl",
    )
    _one_line_refusal(
        _mcot("export", run, "--format", "hf", "--out", run, "--overwrite", check=False), "not an mcot export"
    )
    assert (out / "records.jsonl").read_bytes() == before
    replaced = _mcot("export", run, "--format", "jsonl", "--as", "llava", "--out", out, "--overwrite")
    assert replaced.exit_code == 0 and "conversations" in _lines(out)[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_hf_without_the_datasets_library_says_what_to_install(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # `import datasets` now fails as when it is not installed
    _one_line_refusal(
        _mcot("export", runs["run"], "--format", "hf", "--out", tmp_path / "hf", check=False), "pip install"
    )
    assert list(tmp_path.iterdir()) == []


def test_nothing_to_export_is_refused_before_writing(runs: dict[str, Path], tmp_path: Path) -> None:
    assert not any(score["correct"] for score in _scores(runs["budget"]).values())
    refused = _mcot("export", runs["budget"], "--format", "hf", "--out", tmp_path / "hf", "--only-correct", check=False)
    _one_line_refusal(refused, "no pair is scored correct")
    assert list(tmp_path.iterdir()) == []


def test_a_refused_file_export_leaves_the_existing_file(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    out.write_bytes(b"mine")
    with pytest.raises(ExportError, match="already exists"):
        export_run(runs["run"], "parquet", out)
    assert out.read_bytes() == b"mine"
    assert export_run(runs["run"], "parquet", out, overwrite=True).count == 6
    assert pq.read_table(out).num_rows == 6


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "hf"])
def test_a_failed_export_leaves_nothing(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    if fmt == "hf":
        pytest.importorskip("datasets")
    from mcot.export import images

    calls = {"n": 0}
    real_add = images.ImageCatalog.add

    def failing_add(self: Any, source: Path) -> str | None:
        calls["n"] += 1
        if calls["n"] > 5:
            raise OSError("disk full (simulated)")
        return real_add(self, source)

    monkeypatch.setattr(images.ImageCatalog, "add", failing_add)
    parent = tmp_path / "new" / "deeper"
    out = parent / ("t.parquet" if fmt == "parquet" else "t")
    with pytest.raises(OSError, match="simulated"):
        export_run(runs["run"], fmt, out)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_export_exits_1_with_one_line(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcot.export import formats

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(formats.shutil, "copyfile", broken)
    result = CliRunner().invoke(app, ["export", str(runs["run"]), "--format", "jsonl", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1 and "No space left" in result.stderr
    assert list(tmp_path.iterdir()) == []


# --- the training views ------------------------------------------------------------------------------------------

_TEXT_PART = {
    "type": "object",
    "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
    "required": ["type", "text"],
    "additionalProperties": False,
}
_IMAGE_PART = {
    "type": "object",
    "properties": {
        "type": {"const": "image_url"},
        "image_url": {
            "type": "object",
            "properties": {
                # a data URL, or a file path relative to the export folder
                "url": {
                    "type": "string",
                    "anyOf": [{"pattern": "^data:image/[a-z]+;base64,"}, {"pattern": "^[^/:][^:]*$"}],
                },
                "detail": {"enum": ["auto", "low", "high"]},
            },
            "required": ["url"],
            "additionalProperties": False,
        },
    },
    "required": ["type", "image_url"],
    "additionalProperties": False,
}
_TEXT_CONTENT = {"anyOf": [{"type": "string"}, {"type": "array", "items": _TEXT_PART}]}
_TOOL_CALL = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 1}, "arguments": {"type": "string"}},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        },
    },
    "required": ["id", "type", "function"],
    "additionalProperties": False,
}
CHAT_MESSAGES_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "OpenAI Chat Completions messages (system, user with image parts, assistant with tool_calls, tool)",
    "type": "array",
    "minItems": 1,
    "items": {
        "oneOf": [
            {
                "type": "object",
                "properties": {"role": {"const": "system"}, "content": _TEXT_CONTENT},
                "required": ["role", "content"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {
                    "role": {"const": "user"},
                    "content": {
                        "anyOf": [{"type": "string"}, {"type": "array", "items": {"oneOf": [_TEXT_PART, _IMAGE_PART]}}]
                    },
                },
                "required": ["role", "content"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {
                    "role": {"const": "assistant"},
                    "content": {"anyOf": [{"type": "null"}, _TEXT_CONTENT]},
                    "tool_calls": {"type": "array", "minItems": 1, "items": _TOOL_CALL},
                },
                "required": ["role"],
                "anyOf": [
                    {"required": ["tool_calls"]},
                    {"properties": {"content": {"not": {"type": "null"}}}, "required": ["content"]},
                ],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {"role": {"const": "tool"}, "tool_call_id": {"type": "string"}, "content": _TEXT_CONTENT},
                "required": ["role", "tool_call_id", "content"],
                "additionalProperties": False,
            },
        ]
    },
}


def _check_pairing(messages: list[dict[str, Any]]) -> None:
    """Every tool call is answered by one tool message with its id, right after its assistant message."""
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        assert message["role"] != "tool", "a tool message that answers no call"
        calls = [call["id"] for call in message.get("tool_calls") or []]
        answered = []
        while index < len(messages) and messages[index]["role"] == "tool":
            answered.append(messages[index]["tool_call_id"])
            index += 1
        assert sorted(answered) == sorted(calls) and len(set(calls)) == len(calls)


def _drop_nulls(value: Any) -> Any:
    """A row read back from Arrow has every field of the message struct; drop the null ones."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None or k == "content"}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def test_messages_view_validates_as_openai_chat_messages(runs: dict[str, Path], tmp_path: Path) -> None:
    jsonschema.Draft202012Validator.check_schema(CHAT_MESSAGES_SCHEMA)
    validator = jsonschema.Draft202012Validator(CHAT_MESSAGES_SCHEMA)
    records = []
    for name in ("run", "budget"):
        export_run(runs[name], "jsonl", tmp_path / name, view="messages")
        records += [(tmp_path / name, r) for r in _lines(tmp_path / name)]
    assert len(records) == 8
    for folder, record in records:
        messages = record["messages"]
        validator.validate(messages)
        _check_pairing(messages)
        urls = [
            p["image_url"]["url"]
            for m in messages
            if isinstance(m["content"], list)
            for p in m["content"]
            if p["type"] == "image_url"
        ]
        assert urls == record["images"] and all((folder / url).is_file() for url in urls)
        if record["status"] == "ok":
            assert messages[-1]["role"] == "assistant" and "\\boxed" in messages[-1]["content"][0]["text"]
    tools = next(r for _, r in records if r["mode"] == "tools" and r["status"] == "ok")["messages"]
    roles = [m["role"] for m in tools]
    assert roles[:3] == ["system", "user", "assistant"] and "tool" in roles
    canvas_turns = [m for m in tools[2:] if m["role"] == "user" and any(p["type"] == "image_url" for p in m["content"])]
    assert canvas_turns, "the updated canvas follows the tool results as a user turn with the image"
    text = next(r for _, r in records if r["mode"] == "text")
    assert [m["role"] for m in text["messages"]] == ["user", "assistant"] and text["tools"] == []
    stopped = next(r for _, r in records if r["status"] == "budget")["messages"]
    assert stopped[-1]["role"] == "tool" and stopped[-1]["content"][0]["text"].startswith("not run: step budget")


def test_messages_view_in_hf_keeps_the_shape_and_the_images(
    runs: dict[str, Path], tmp_path: Path, offline_datasets: Any
) -> None:
    export_run(runs["run"], "hf", tmp_path / "hf", view="messages")
    train = offline_datasets.load_from_disk(str(tmp_path / "hf"))["train"]
    validator = jsonschema.Draft202012Validator(CHAT_MESSAGES_SCHEMA)
    for row in train:
        messages = _drop_nulls(row["messages"])
        validator.validate(messages)
        _check_pairing(messages)
        urls = [
            p["image_url"]["url"] for m in messages if m["content"] for p in m["content"] if p["type"] == "image_url"
        ]
        assert len(urls) == len(row["images"]) and all(_decodes(image) for image in row["images"])
        assert isinstance(json.loads(row["tools"]), list)


def test_llava_view_has_one_image_token_per_image(runs: dict[str, Path], tmp_path: Path) -> None:
    for name in ("run", "budget"):
        out = tmp_path / name
        export_run(runs[name], "jsonl", out, view="llava")
        for record in _lines(out):
            turns = record["conversations"]
            tokens = sum(turn["value"].count("<image>") for turn in turns)
            assert tokens == len(record.get("image", [])), record["id"]
            assert all((out / image).is_file() for image in record.get("image", []))
            assert turns[0]["from"] == "human" and turns[0]["value"].count("<image>") >= (record["mode"] != "text")
            assert all(a["from"] != b["from"] for a, b in itertools.pairwise(turns))
            if record["status"] == "ok":
                assert turns[-1]["from"] == "gpt"
            if record["mode"] == "text":
                assert record["system"] is None and turns[0]["value"].startswith("<image>\n")
    tools = next(r for r in _lines(tmp_path / "run") if r["mode"] == "tools")
    assert len(tools["image"]) == 2 and "<tool_call>" in tools["conversations"][1]["value"]
    assert "Tool maze_from_image result:" in tools["conversations"][2]["value"]


def test_llava_writes_a_literal_image_token_in_text_so_tokens_match_images() -> None:
    talk = Conversation(
        [
            Turn("user", [("image", "images/a.png"), ("text", "What does <image> mean here?")]),
            Turn("assistant", [("text", "A placeholder: <image>.")]),
        ],
        (),
    )
    system, turns = llava_conversations(talk)
    assert system is None
    assert [t["value"].count("<image>") for t in turns] == [1, 0]
    assert turns[1]["value"] == "A placeholder: [image]."


# --- the messages view is the conversation the model had -----------------------------------------------------------


def _normalised(messages: list[dict[str, Any]], image_sha: Any) -> list[tuple[Any, ...]]:
    """Messages as (role, parts, tool calls, call id), text-only content joined as the wire format joins it."""
    out = []
    for message in messages:
        content = message.get("content")
        parts: list[tuple[str, str]] = []
        if isinstance(content, str):
            parts = [("text", content)]
        elif content:
            for part in content:
                if part["type"] == "text":
                    parts.append(("text", part["text"]))
                else:
                    parts.append(("image", image_sha(part["image_url"]["url"])))
        if parts and all(kind == "text" for kind, _ in parts):
            parts = [("text", "\n\n".join(text for _, text in parts))]
        calls = tuple(
            (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in message.get("tool_calls") or []
        )
        out.append((message["role"], tuple(parts), calls, message.get("tool_call_id")))
    return out


SCRIPT = [
    {
        "text": "Let me look closer.",
        "tool_calls": [
            {"name": "zoom", "arguments": {"region": [0, 0, 100, 100]}},
            {"name": "draw_line", "arguments": {"start": [0, 0], "end": [50, 50]}},
        ],
    },
    {
        "text": "",
        "tool_calls": [{"name": "show_grid", "arguments": {"on": True}}, {"name": "no_such_tool", "arguments": {}}],
    },
    {"text": "", "tool_calls": [{"name": "undo", "arguments": {}}]},
    {"text": "Done. \\boxed{3}"},
]
"""Scripted turns: two calls in a turn, a tool that returns an image (zoom), an unknown tool, undo, an answer."""


@pytest.mark.parametrize(
    ("model", "arms", "max_steps"),
    [("offline", "text,canvas,tools", 12), ("scripted", "canvas", 12), ("scripted", "canvas", 2)],
    ids=["offline", "scripted", "scripted-budget"],
)
def test_messages_view_is_the_conversation_the_model_was_sent(
    tmp_path: Path, model: str, arms: str, max_steps: int
) -> None:
    """The rebuilt conversation equals what the solver sent in its last request, then the model's last turn."""
    import base64
    import hashlib

    from mcot.agents.backends.openai_chat import to_chat_messages
    from mcot.agents.backends.scripted import ScriptedBackend
    from mcot.agents.offline.policy import OfflineBackend

    from mcot import declare_backend
    from mcot.registry import BACKENDS
    from mcot.runconfig import RunConfig
    from mcot.runner import run_items

    sent: dict[str, list[dict[str, Any]]] = {}
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    base: Any = OfflineBackend if model == "offline" else ScriptedBackend

    class Recording(base):  # type: ignore[misc, valid-type]
        async def generate(self, request: Any) -> Any:
            sent[request.hints["mode"]] = to_chat_messages(request.messages)
            return await super().generate(request)

    def build(argument: str, options: Any) -> Any:
        return Recording() if model == "offline" else Recording(str(script))

    declare_backend("recording", build, usage="recording", description="records what it is sent", replace=True)
    try:
        _mcot("gen", "games", "--task", "maze", "--n", "1", "--seed", "3", "--out", tmp_path / "items")
        config = RunConfig(
            data=tmp_path / "items",
            model="recording",
            out=tmp_path / "run",
            mode=arms,
            max_steps=max_steps,
            max_canvas_images=10,  # the solver sends every canvas image, as the export keeps them all
        )
        run_items(config, quiet=True)
    finally:
        BACKENDS.unregister("recording")
    export_run(tmp_path / "run", "jsonl", tmp_path / "out", view="messages")

    def from_data_url(url: str) -> str:
        return hashlib.sha256(base64.b64decode(url.split(",", 1)[1])).hexdigest()

    def from_file(url: str) -> str:
        return hashlib.sha256((tmp_path / "out" / url).read_bytes()).hexdigest()

    records = {r["mode"]: r for r in _lines(tmp_path / "out")}
    assert set(records) == set(sent) == set(arms.split(","))
    for mode, record in records.items():
        exported = _normalised(record["messages"], from_file)
        request = _normalised(sent[mode], from_data_url)
        assert exported[: len(request)] == request, mode
        after = [message[0] for message in exported[len(request) :]]
        if record["status"] == "ok":  # the final answer, after the last request
            assert after == ["assistant"] and not exported[-1][2]
        else:  # stopped with calls pending: they are answered "not run"
            assert after == ["assistant", "tool", "tool"] and record["status"] == "budget"
    if model == "scripted" and max_steps == 12:
        roles = [message[0] for message in exported]
        assert roles.count("tool") == 5 and len(record["images"]) == 5  # the zoom's image and four canvases


def test_a_killed_exports_leftover_is_removed_by_the_next_export(runs: dict[str, Path], tmp_path: Path) -> None:
    """Found by perf/crash_resume.py: a SIGKILL after staging left `.OUT.partial-XXXX` beside --out for good."""
    out = tmp_path / "records"
    leftover = tmp_path / ".records.partial-dead0001"
    leftover.mkdir()
    (leftover / "records.jsonl").write_text("{}\n")
    _mcot("export", runs["run"], "--format", "jsonl", "--out", out)
    assert (out / "records.jsonl").is_file() and not leftover.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records"]
