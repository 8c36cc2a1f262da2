"""The trainer views (`sharegpt`, `verl`, `verl-sft`, `trl`) on real offline runs and on items directories, each
checked by its trainer's own loading code where it is installed (the `rl` extra), else by its documented schema."""

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pyarrow.parquet as pq
import pytest
from extras import needs
from trainer_runs import mcot, shared_runs

from mcot.core.rundir import trace_relpath
from mcot.export import ExportError, export_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """GePBench and maze items and their scored offline runs (text, canvas and tools arms)."""
    return shared_runs(tmp_path_factory)


@pytest.fixture
def hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The datasets library's cache, in the test's folder."""
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    return tmp_path / "hf-cache"


def _lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]


def _scores(run: Path) -> dict[tuple[str, str], dict[str, Any]]:
    return {(s["id"], s["mode"]): s for s in map(json.loads, (run / "scores.jsonl").read_text().splitlines())}


# --- sharegpt: LLaMA-Factory 0.9.5 (it pins datasets <= 4.0 and trl <= 0.24, so it does not co-install; its data ----
# --- package imports torchaudio, which has no build for torch 2.13: checked against its documented rules) -------

SHAREGPT_SCHEMA = {  # LLaMA-Factory 0.9.5 data/README.md, "Sharegpt Format" with tools and images
    "type": "object",
    "required": ["conversations", "system", "tools", "images"],
    "properties": {
        "conversations": {
            "type": "array",
            "minItems": 2,
            "items": {
                "type": "object",
                "required": ["from", "value"],
                "properties": {
                    "from": {"enum": ["human", "gpt", "function_call", "observation"]},
                    "value": {"type": "string"},
                },
            },
        },
        "system": {"type": "string"},
        "tools": {"type": "string"},
        "images": {"type": "array", "items": {"type": "string"}},
    },
}
TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


def check_sharegpt(record: dict[str, Any]) -> None:
    """Check a record as LLaMA-Factory 0.9.5 reads it: SharegptDatasetConverter's role order and count, mm_plugin's
    image-token count, FunctionFormatter's tool-call words and ToolFormatter's tools JSON."""
    jsonschema.validate(record, SHAREGPT_SCHEMA)
    turns = record["conversations"]
    for position, turn in enumerate(turns):
        allowed = ("human", "observation") if position % 2 == 0 else ("gpt", "function_call")
        assert turn["from"] in allowed, (position, turn["from"])
    assert len(turns) % 2 == 0
    assert sum(turn["value"].count("<image>") for turn in turns) == len(record["images"])
    for turn in turns:
        if turn["from"] == "function_call":
            match = TOOL_CALL.search(turn["value"])
            assert match is not None
            calls = json.loads(match.group(1))
            assert all(set(call) == {"name", "arguments"} for call in calls)
    if record["tools"]:
        assert all({"name", "description", "parameters"} <= set(tool) for tool in json.loads(record["tools"]))


def test_sharegpt_records_load_as_llama_factory_reads_them(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "sharegpt"
    assert export_run(runs["maze_run"], "jsonl", out, view="sharegpt").count == 6
    records = _lines(out)
    for record in records:
        check_sharegpt(record)
        assert all((out / name).is_file() for name in record["images"])
    tools = next(r for r in records if r["mode"] == "tools" and r["id"] == "maze-1-00000")
    trace = [json.loads(line) for line in (runs["maze_run"] / trace_relpath("maze-1-00000", "tools")).open()]
    said = [s["text"] for s in trace if s["kind"] == "model" and s.get("tool_calls") and s.get("text")]
    calls = [t["value"] for t in tools["conversations"] if t["from"] == "function_call"]
    assert len(calls) == sum(1 for s in trace if s["kind"] == "model" and s.get("tool_calls"))
    assert all(any(call.startswith(text) for call in calls) for text in said)  # the text beside the calls is kept
    assert tools["conversations"][-1]["from"] == "gpt" and "\\boxed{" in tools["conversations"][-1]["value"]
    text = next(r for r in records if r["mode"] == "text")
    assert [t["from"] for t in text["conversations"]] == ["human", "gpt"] and text["tools"] == ""


def test_a_budget_stopped_sharegpt_record_ends_on_the_model(runs: dict[str, Path], tmp_path: Path) -> None:
    budget = tmp_path / "budget"
    mcot("run", "--data", runs["maze"], "--model", "offline", "--mode", "tools", "--max-steps", "2", "--out", budget)
    out = tmp_path / "sharegpt"
    export_run(budget, "jsonl", out, view="sharegpt")
    for record in _lines(out):
        check_sharegpt(record)
        assert record["status"] == "budget"


# --- verl RL rows ------------------------------------------------------------------------------------------------


def _verl_rows(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).to_pylist()


def test_verl_rows_carry_the_prompt_ground_truth_and_tools_kwargs(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "verl.parquet"
    assert export_run(runs["maze_run"], "parquet", out, view="verl").count == 6
    rows = {(r["id"], r["mode"]): r for r in _verl_rows(out)}
    canvas = rows[("maze-1-00000", "canvas")]
    assert canvas["data_source"] == "games" and canvas["ability"] == "maze" and canvas["agent_name"] == "tool_agent"
    assert canvas["reward_model"] == {"style": "rule", "ground_truth": "11"}
    assert [m["role"] for m in canvas["prompt"]] == ["system", "user"]
    assert canvas["prompt"][1]["content"].count("<image>") == len(canvas["images"]) == 1
    assert canvas["images"][0]["bytes"].startswith(b"\x89PNG")
    extra = canvas["extra_info"]
    offered = extra["tool_selection"]
    assert offered[0] == "draw_line" and "solve_maze" not in offered and extra["need_tools_kwargs"] is True
    holders = [name for name in offered if extra["tools_kwargs"][name]["create_kwargs"]["item"] is not None]
    assert holders == [offered[0]]  # the item once, under the arm's first tool
    assert all(extra["tools_kwargs"][name] is None for name in extra["tools_kwargs"] if name not in offered)
    item = json.loads(extra["tools_kwargs"][offered[0]]["create_kwargs"]["item"])
    assert item["meta"]["path"] and item["canvas"] == [635, 495] and item["answer"] == "11"
    text = rows[("maze-1-00000", "text")]
    assert text["agent_name"] == "single_turn_agent" and text["extra_info"]["tool_selection"] == []
    assert [m["role"] for m in text["prompt"]] == ["user"]


@needs("verl", extra="rl")
def test_verl_rows_load_in_verls_rl_dataset(runs: dict[str, Path], tmp_path: Path, hf_cache: Path) -> None:
    from training_code import tiny_tokenizer, verl_rl_dataset

    out = tmp_path / "verl.parquet"
    export_run(runs["gep"], "parquet", out, view="verl")
    dataset = verl_rl_dataset(out, tiny_tokenizer(), tmp_path)
    assert len(dataset) == len(_verl_rows(out))
    row = dataset[0]
    assert row["data_source"] == "gepbench" and row["reward_model"]["ground_truth"] in "ABCD"
    assert set(row["tools_kwargs"]) >= {"draw_line", "zoom"}
    user = row["raw_prompt"][-1]["content"]
    images = [part for part in user if part["type"] == "image"]
    assert len(images) == 1 and images[0]["image"].size == (640, 640)


# --- verl SFT ----------------------------------------------------------------------------------------------------


def test_verl_sft_messages_hold_tool_calls_and_image_tokens(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "sft.parquet"
    export_run(runs["maze_run"], "parquet", out, view="verl-sft")
    for row in _verl_rows(out):
        tokens = sum((m["content"] or "").count("<image>") for m in row["messages"])
        assert tokens == len(row["images"])
        assert all(m["role"] != "user" or m is row["messages"][1] for m in row["messages"][2:]) or row["mode"] == "text"
        for message in row["messages"]:
            for call in message["tool_calls"] or []:
                assert isinstance(json.loads(call["function"]["arguments"]), dict)
    tools = next(r for r in _verl_rows(out) if r["mode"] == "tools")
    roles = [m["role"] for m in tools["messages"]]
    assert roles[:3] == ["system", "user", "assistant"] and "tool" in roles and roles[-1] == "assistant"
    assert "<image>" in next(
        m["content"] for m in tools["messages"] if m["role"] == "tool" and "<image>" in m["content"]
    )


@needs("verl", extra="rl")
def test_verl_sft_loads_in_verls_multiturn_sft_dataset(runs: dict[str, Path], tmp_path: Path) -> None:
    from training_code import tiny_tokenizer

    from mcot.env.verl_sft import SFTDataset

    out = tmp_path / "sft.parquet"
    export_run(runs["maze_run"], "parquet", out, view="verl-sft")
    dataset = SFTDataset(str(out), tiny_tokenizer(), {"max_length": 4096})
    assert len(dataset) == 6
    modes = [r["mode"] for r in _verl_rows(out)]
    tools = dataset.tools[modes.index("tools")]
    assert isinstance(tools, list) and {t["function"]["name"] for t in tools} >= {"draw_line", "solve_maze"}
    assert dataset.tools[modes.index("text")] is None
    assert dataset.messages[modes.index("tools")][2]["tool_calls"][0]["type"] == "function"


# --- trl -----------------------------------------------------------------------------------------------------------


def test_trl_rows_are_typed_prompt_completion(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "trl"
    export_run(runs["maze_run"], "jsonl", out, view="trl")
    for record in _lines(out):
        messages = record["prompt"] + record["completion"]
        placeholders = sum(1 for m in messages if m["role"] != "tool" for p in m["content"] if p["type"] == "image")
        assert placeholders == len(record["images"])
        assert all(
            isinstance(part, dict) and part["type"] in ("text", "image") for m in messages for part in m["content"]
        )
        assert json.loads(record["item"])["id"] == record["id"] and record["toolset"] == record["mode"]
    tools = next(r for r in _lines(out) if r["mode"] == "tools")
    assert tools["completion"][0]["role"] == "assistant" and tools["completion"][0]["tool_calls"]
    assert any(m["role"] == "tool" and m["name"] for m in tools["completion"])


@needs("trl", extra="rl")
def test_trl_rows_load_in_trls_data_utils(runs: dict[str, Path], tmp_path: Path, hf_cache: Path) -> None:
    import datasets
    from trl.data_utils import is_conversational, prepare_multimodal_messages

    out = tmp_path / "trl-hf"
    export_run(runs["maze_run"], "hf", out, view="trl")
    train = datasets.load_from_disk(str(out))["train"]
    for row in train:
        assert is_conversational(row)
        messages = prepare_multimodal_messages(row["prompt"] + row["completion"], row["images"])
        filled = [p["image"] for m in messages if m["role"] != "tool" for p in m["content"] if p["type"] == "image"]
        assert len(filled) == len(row["images"]) and all(image.width > 0 for image in filled)
        assert isinstance(json.loads(row["tools"]), list)


# --- items directories: RL prompts without a run -------------------------------------------------------------------


def test_an_items_directory_exports_prompt_rows_with_exact_ground_truth(runs: dict[str, Path], tmp_path: Path) -> None:
    items = [json.loads(line) for line in (runs["gep"] / "items.jsonl").read_text().splitlines()]
    out = tmp_path / "verl.parquet"
    done = mcot("export", runs["gep"], "--format", "parquet", "--as", "verl", "--out", out)
    assert done.exit_code == 0 and f"exported {len(items)} records" in done.stdout
    rows = _verl_rows(out)
    assert [r["id"] for r in rows] == [i["id"] for i in items]
    assert [r["reward_model"]["ground_truth"] for r in rows] == [i["answer"] for i in items]
    assert all(r["status"] is None and r["mode"] == "canvas" and r["correct"] is None for r in rows)
    assert [r["extra_info"]["index"] for r in rows] == list(range(len(items)))
    trl = tmp_path / "trl"
    mcot("export", runs["maze"], "--format", "jsonl", "--as", "trl", "--toolset", "tools", "--out", trl)
    records = _lines(trl)
    assert [r["completion"] for r in records] == [[], []] and {r["toolset"] for r in records} == {"tools"}
    assert "solve_maze" in {t["function"]["name"] for t in json.loads(records[0]["tools"])}
    assert len(list((trl / "images").iterdir())) == 2  # one file per distinct image


def test_an_items_directory_refuses_views_that_need_a_run(runs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="needs a run's answers; export an items directory --as verl, trl"):
        export_run(runs["gep"], "jsonl", tmp_path / "x", view="sharegpt")
    with pytest.raises(ExportError, match="no toolset named 'paint'"):
        export_run(runs["gep"], "jsonl", tmp_path / "x", view="trl", toolset="paint")
    with pytest.raises(ExportError, match="no scores"):
        export_run(runs["gep"], "jsonl", tmp_path / "x", view="trl", only_correct=True)
    with pytest.raises(ExportError, match="--toolset names the arm of an items directory"):
        export_run(runs["gep_run"], "jsonl", tmp_path / "x", view="trl", toolset="canvas")
    assert not (tmp_path / "x").exists()


def test_folder_exports_write_each_distinct_image_once(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "sft"
    export_run(runs["gep_run"], "jsonl", out, view="verl-sft")
    named = {name for record in _lines(out) for name in record["images"]}
    files = {f"images/{p.name}" for p in (out / "images").iterdir()}
    assert named == files and len(files) < sum(len(r["images"]) for r in _lines(out))
