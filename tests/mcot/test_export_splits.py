"""`mcot export --mode --benchmark --only-correct --split --seed --tokenizer` on a real offline GePBench run, whose
figures each carry about fourteen questions: the splits share no figure, their record counts follow the fractions
as whole figures allow, the filters keep exactly what they name, and the printed tokens are the tokenizer's own."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # datasets must never reach the hub
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from typer.testing import CliRunner, Result

from mcot.cli import app
from mcot.core.errors import UsageError
from mcot.export import ExportError
from mcot.export.splits import Split, assign_clusters, parse_splits

HELD = re.compile(
    r"^split (?P<name>\S+): (?P<records>\d+) records \([\d.]+%\) from (?P<clusters>\d+) clusters?, "
    r"(?P<tokens>\d+) tokens, (?P<images>\d+) images \((?P<files>\d+) files\)$"
)


def _mcot(*args: str | Path, code: int = 0) -> Result:
    """Run `mcot ARGS` in this process and check its exit code."""
    done = CliRunner().invoke(app, [str(arg) for arg in args], prog_name="mcot")
    assert done.exit_code == code, (args, done.exit_code, done.output, done.exception)
    return done


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Eight GePBench figures (about 110 questions); a scored run of the text and canvas arms, a scored text-only
    run of the same items (a second "model"), and an unscored copy of the first."""
    root = tmp_path_factory.mktemp("splits")
    items, run, other = root / "items", root / "run", root / "other"
    _mcot("gen", "gepbench", "--n", "8", "--seed", "1", "--out", items)
    _mcot("run", "--data", items, "--model", "offline", "--mode", "text,canvas", "--out", run)
    _mcot("score", run)
    _mcot("run", "--data", items, "--model", "offline", "--mode", "text", "--out", other)
    _mcot("score", other)
    unscored = root / "unscored"
    shutil.copytree(run, unscored)
    (unscored / "scores.jsonl").unlink()
    return {"items": items, "run": run, "other": other, "unscored": unscored}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _figures(items: Path) -> dict[str, tuple[str, int]]:
    """Return each item's figure (its level and image id), read from the items file by hand."""
    return {row["id"]: (row["meta"]["level"], row["meta"]["image_id"]) for row in _jsonl(items / "items.jsonl")}


def _held(output: str) -> dict[str, dict[str, int]]:
    """Return the printed figures of each split."""
    found = {}
    for line in output.splitlines():
        match = HELD.match(line)
        if match:
            found[match["name"]] = {key: int(value) for key, value in match.groupdict().items() if key != "name"}
    return found


def test_the_splits_share_no_figure_and_their_counts_follow_the_fractions(
    study: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "gep"
    done = _mcot("export", study["run"], "--format", "jsonl", "--as", "messages", "--out", out,
                 "--split", "train=0.75,val=0.25", "--seed", "3")  # fmt: skip
    figures = _figures(study["items"])
    train, val = _jsonl(out / "train" / "records.jsonl"), _jsonl(out / "val" / "records.jsonl")
    train_figures, val_figures = {figures[r["id"]] for r in train}, {figures[r["id"]] for r in val}
    assert train_figures and val_figures and not train_figures & val_figures
    assert train_figures | val_figures == set(figures.values())
    assert sorted((r["id"], r["mode"]) for r in train + val) == sorted(
        (item_id, arm) for item_id in figures for arm in ("text", "canvas")
    )
    held = _held(done.stdout)
    assert held["train"]["records"] == len(train) and held["val"]["records"] == len(val)
    assert held["train"]["clusters"] == len(train_figures) and held["val"]["clusters"] == len(val_figures)
    per_figure = {figure: 2 * list(figures.values()).count(figure) for figure in set(figures.values())}
    total = sum(per_figure.values())
    assert abs(len(train) - 0.75 * total) <= max(per_figure.values())
    for name, rows in (("train", train), ("val", val)):  # every image a record names is in its split's folder
        assert all((out / name / image).is_file() for row in rows for image in row["images"])
    record = json.loads((out / "splits.json").read_text())
    assert record["seed"] == 3 and record["cluster_keys"] == {"gepbench": "meta.level + meta.image_id"}
    assert [(s["name"], s["fraction"], s["records"]) for s in record["splits"]] == [
        ("train", 0.75, len(train)),
        ("val", 0.25, len(val)),
    ]
    assert "whole clusters to each (gepbench: meta.level + meta.image_id)" in done.stdout

    again = tmp_path / "again"
    _mcot("export", study["run"], "--format", "jsonl", "--as", "messages", "--out", again,
          "--split", "train=0.75,val=0.25", "--seed", "3")  # fmt: skip
    assert (again / "val" / "records.jsonl").read_bytes() == (out / "val" / "records.jsonl").read_bytes()


def test_clusters_go_largest_first_to_the_split_furthest_below_its_share() -> None:
    splits = [Split("train", 0.5), Split("val", 0.5)]
    # a (5) to train, the first split on a tie; b (3) to val, 5 short of 5; c (2) to val, 2 short against 0
    assert assign_clusters({"a": 5, "b": 3, "c": 2}, splits, seed=0) == {"a": "train", "b": "val", "c": "val"}
    sizes = {f"figure-{k}": 10 for k in range(20)}
    chosen = assign_clusters(sizes, [Split("train", 0.9), Split("val", 0.1)], seed=7)
    assert sorted(chosen.values()).count("val") == 2 and chosen == assign_clusters(sizes, [Split("train", 0.9),
                                                                                          Split("val", 0.1)], seed=7)  # fmt: skip
    others = {seed: sorted(k for k, v in assign_clusters(sizes, [Split("train", 0.9), Split("val", 0.1)], seed).items()
                           if v == "val") for seed in range(5)}  # fmt: skip
    assert len({tuple(names) for names in others.values()}) > 1  # the seed chooses which figures


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("train=0.9,val=0.2", "the fractions sum to 1.1, not 1"),
        ("train=0.9", "the fractions sum to 0.9, not 1"),
        ("train=0.5,train=0.5", "'train' is named twice"),
        ("train:0.9,val=0.1", "is not NAME=FRACTION"),
        ("train=x,val=0.1", "must be a number above 0 and at most 1"),
        ("../up=0.5,val=0.5", "is not NAME=FRACTION"),
    ],
)
def test_a_bad_split_is_one_line(text: str, message: str) -> None:
    with pytest.raises(ExportError, match=re.escape(message)):
        parse_splits(text)
    assert [s.name for s in parse_splits("train=0.7,val=0.2,test=0.1")] == ["train", "val", "test"]


def test_a_bad_split_on_the_command_line_writes_nothing(study: dict[str, Path], tmp_path: Path) -> None:
    done = _mcot("export", study["run"], "--format", "jsonl", "--out", tmp_path / "x", "--split", "train=0.9,val=0.2",
                 code=2)  # fmt: skip
    assert done.output.strip().splitlines() == ["mcot: --split 'train=0.9,val=0.2': the fractions sum to 1.1, not 1"]
    done = _mcot("export", study["run"], "--format", "gepbench", "--out", tmp_path / "x", "--split",
                 "train=0.5,val=0.5", code=2)  # fmt: skip
    assert "writes prediction files for an evaluator" in done.output
    assert not (tmp_path / "x").exists()


def test_only_correct_keeps_exactly_the_correct_pairs_in_the_splits(study: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "correct"
    _mcot("export", study["run"], "--format", "jsonl", "--out", out, "--only-correct", "--split", "train=0.5,val=0.5")
    scored = _jsonl(study["run"] / "scores.jsonl")
    correct = {(r["id"], r["mode"]) for r in scored if r["correct"] is True}
    assert 0 < len(correct) < len(scored)
    rows = _jsonl(out / "train" / "records.jsonl") + _jsonl(out / "val" / "records.jsonl")
    assert sorted((r["id"], r["mode"]) for r in rows) == sorted(correct)
    assert all(r["correct"] is True for r in rows)


def test_only_correct_on_an_unscored_run_says_to_score_it(study: dict[str, Path], tmp_path: Path) -> None:
    done = _mcot("export", study["unscored"], "--format", "jsonl", "--out", tmp_path / "x", "--only-correct",
                 "--split", "train=0.5,val=0.5", code=2)  # fmt: skip
    assert f"run `mcot score {study['unscored']}` first" in done.output and len(done.output.strip().splitlines()) == 1


def test_mode_and_benchmark_keep_what_they_name(study: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "canvas"
    done = _mcot("export", study["run"], "--format", "jsonl", "--out", out, "--mode", "canvas", "--benchmark",
                 "gepbench")  # fmt: skip
    rows = _jsonl(out / "records.jsonl")
    assert {r["mode"] for r in rows} == {"canvas"} and len(rows) == len(_figures(study["items"]))
    assert f"all: {len(rows)} records from 8 clusters" in done.stdout
    both = tmp_path / "both"
    _mcot("export", study["run"], "--format", "jsonl", "--out", both, "--mode", "canvas", "--mode", "text")
    assert len(_jsonl(both / "records.jsonl")) == 2 * len(rows)
    done = _mcot("export", study["run"], "--format", "jsonl", "--out", tmp_path / "x", "--mode", "zoom", code=2)
    assert "--mode zoom: not an arm of the run (its arms: text, canvas)" in done.output
    done = _mcot("export", study["run"], "--format", "jsonl", "--out", tmp_path / "x", "--benchmark", "games", code=2)
    assert "--benchmark games: no item of" in done.output and "(its benchmarks: gepbench)" in done.output
    assert not (tmp_path / "x").exists()


def test_several_runs_split_together_keep_each_figure_in_one_split(study: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "two"
    _mcot("export", study["run"], study["other"], "--format", "parquet", "--out", out, "--mode", "text",
          "--split", "train=0.6,val=0.4", "--seed", "1")  # fmt: skip
    import pyarrow.parquet as pq

    figures = _figures(study["items"])
    train, val = (pq.read_table(out / f"{name}.parquet").to_pylist() for name in ("train", "val"))
    assert len(train) + len(val) == 2 * len(figures)  # the text arm of both runs
    assert not {figures[r["id"]] for r in train} & {figures[r["id"]] for r in val}
    assert all(row["item_images"][0]["bytes"] for row in train + val)


def test_an_hf_split_export_is_one_dataset_dict(study: dict[str, Path], tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    datasets.disable_progress_bars()
    out = tmp_path / "hf"
    done = _mcot("export", study["run"], "--format", "hf", "--as", "trl", "--out", out, "--split",
                 "train=0.75,val=0.25")  # fmt: skip
    held = _held(done.stdout)
    loaded = datasets.load_from_disk(str(out))
    assert sorted(loaded) == ["train", "val"]
    assert (loaded["train"].num_rows, loaded["val"].num_rows) == (held["train"]["records"], held["val"]["records"])
    assert "path: val/data-*.arrow" in (out / "README.md").read_text()
    read = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))  # through the card's configs
    assert {name: read[name].num_rows for name in read} == {name: held[name]["records"] for name in ("train", "val")}
    assert {row["id"] for row in read["val"]} == {row["id"] for row in loaded["val"]}


def test_items_directory_prompt_rows_split_by_figure(study: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "verl"
    _mcot("export", study["items"], "--format", "jsonl", "--as", "verl", "--out", out, "--split", "train=0.5,val=0.5")
    figures = _figures(study["items"])
    rows = {name: _jsonl(out / name / "records.jsonl") for name in ("train", "val")}
    assert not {figures[r["id"]] for r in rows["train"]} & {figures[r["id"]] for r in rows["val"]}
    assert {r["extra_info"]["split"] for r in rows["val"]} == {"val"}
    assert len(rows["train"]) + len(rows["val"]) == len(figures)
    done = _mcot("export", study["items"], "--format", "jsonl", "--as", "verl", "--out", tmp_path / "x", "--mode",
                 "canvas", code=2)  # fmt: skip
    assert "--mode names a run's arms; an items directory's prompts take one arm, --toolset" in done.output
    done = _mcot("export", study["items"], "--format", "parquet", "--as", "verl", "--out", tmp_path / "x.parquet",
                 "--split", "train=0.5,val=0.5", code=2)  # fmt: skip
    assert "--split writes a folder (a part per split): give --out a folder name" in done.output
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.parquet").exists()


def _tiny_tokenizer(folder: Path) -> Any:
    """Save a word-level tokenizer with a chat template (no hub): every word or punctuation run is one token."""
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    words = ["[UNK]", "the", "a", "of", "is", "image", "<", ">", "|", "user", "assistant", "system"]
    model = tokenizers.models.WordLevel({word: k for k, word in enumerate(words)}, unk_token="[UNK]")
    backend = tokenizers.Tokenizer(model)
    backend.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]")
    tokenizer.chat_template = "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }}\n{% endfor %}"
    tokenizer.save_pretrained(str(folder))
    return transformers.AutoTokenizer.from_pretrained(str(folder))


def _count(tokenizer: Any, messages: list[dict[str, str]]) -> int:
    text = tokenizer.apply_chat_template(messages, tokenize=False)
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


SPEAKERS = {"human": "user", "gpt": "assistant"}


def _llava_messages(row: dict[str, Any]) -> list[dict[str, str]]:
    system = [{"role": "system", "content": row["system"]}] if row["system"] else []
    return system + [{"role": SPEAKERS[t["from"]], "content": t["value"]} for t in row["conversations"]]


def _chat_messages(row: dict[str, Any]) -> list[dict[str, str]]:
    def text(content: list[dict[str, Any]] | None) -> str:
        return "\n".join("<image>" if p["type"] == "image_url" else p["text"] for p in content or [])

    return [{"role": m["role"], "content": text(m["content"])} for m in row["messages"]]


@pytest.mark.parametrize(("view", "messages"), [("llava", _llava_messages), ("messages", _chat_messages)])
def test_the_printed_tokens_are_the_tokenizers_own_counts(
    study: dict[str, Path], tmp_path: Path, view: str, messages: Any
) -> None:
    tokenizer = _tiny_tokenizer(tmp_path / "tokenizer")
    out = tmp_path / view
    done = _mcot("export", study["run"], "--format", "jsonl", "--as", view, "--mode", "text", "--out", out,
                 "--split", "train=0.75,val=0.25", "--tokenizer", tmp_path / "tokenizer")  # fmt: skip
    held = _held(done.stdout)
    for name in ("train", "val"):
        rows = _jsonl(out / name / "records.jsonl")
        assert held[name]["tokens"] == sum(_count(tokenizer, messages(row)) for row in rows) > 0
        assert held[name]["images"] == sum(len(row.get("image") or row.get("images") or []) for row in rows)
    assert f"tokens: counted by {tmp_path / 'tokenizer'} over each record's chat template" in done.stdout


def test_without_a_tokenizer_the_tokens_are_a_stated_estimate(study: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "estimate"
    done = _mcot("export", study["run"], "--format", "jsonl", "--out", out, "--mode", "text", "--split",
                 "train=0.5,val=0.5")  # fmt: skip
    held = _held(done.stdout)
    from mcot.core.rundir import json_line

    for name in ("train", "val"):
        rows = _jsonl(out / name / "records.jsonl")
        assert held[name]["tokens"] == sum(math.ceil(len(json_line(row)) / 4) for row in rows)
    assert "tokens: estimated as characters / 4" in done.stdout


def test_a_tokenizer_that_cannot_be_loaded_is_one_line(study: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    done = _mcot("export", study["run"], "--format", "jsonl", "--out", tmp_path / "x", "--tokenizer",
                 tmp_path / "no-such-tokenizer", code=2)  # fmt: skip
    assert done.output.startswith(f"mcot: --tokenizer {tmp_path / 'no-such-tokenizer'}: cannot load it")
    assert not (tmp_path / "x").exists()


def test_the_python_entry_point_checks_the_same_options(study: dict[str, Path], tmp_path: Path) -> None:
    from mcot.commands.export import run_export

    with pytest.raises(UsageError, match=re.escape("the fractions sum to 1.1")):
        run_export(study["run"], "jsonl", tmp_path / "x", split="train=0.9,val=0.2")


TOOL_TEMPLATE = (
    "{% if tools %}tools {% for t in tools %}{{ t['function']['name'] }} {% endfor %}\n{% endif %}"
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }}"
    "{% for c in m.get('tool_calls') or [] %} call {{ c['function']['name'] }} {{ c['function']['arguments'] | tojson }}"
    "{% endfor %}\n{% endfor %}"
)


def test_a_template_that_renders_tools_is_given_the_calls_and_the_definitions(tmp_path: Path) -> None:
    tokenizer = _tiny_tokenizer(tmp_path / "tokenizer")
    tokenizer.chat_template = TOOL_TEMPLATE
    tokenizer.save_pretrained(str(tmp_path / "tokenizer"))
    items, run, out = tmp_path / "maze", tmp_path / "run", tmp_path / "tools"
    _mcot("gen", "games", "--task", "maze", "--n", "2", "--seed", "1", "--out", items)
    _mcot("run", "--data", items, "--model", "offline", "--mode", "tools", "--out", run)
    done = _mcot("export", run, "--format", "jsonl", "--as", "messages", "--out", out,
                 "--tokenizer", tmp_path / "tokenizer")  # fmt: skip
    rows = _jsonl(out / "records.jsonl")
    assert all(any(m.get("tool_calls") for m in row["messages"]) for row in rows)  # the offline policy calls tools

    def count(row: dict[str, Any]) -> int:
        messages = _chat_messages(row)
        for message, original in zip(messages, row["messages"], strict=True):
            if original.get("tool_calls"):
                message["tool_calls"] = [  # type: ignore[assignment]
                    {"function": {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}}
                    for c in original["tool_calls"]
                ]
        text = tokenizer.apply_chat_template(messages, tools=row["tools"], tokenize=False)
        assert "call " in text or not any(m.get("tool_calls") for m in row["messages"])
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    assert f"all: {len(rows)} records from 2 clusters, {sum(count(row) for row in rows)} tokens" in done.stdout


def test_a_split_with_no_cluster_is_written_empty_and_said(study: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "thin"
    done = _mcot("export", study["run"], "--format", "jsonl", "--benchmark", "gepbench", "--out", out, "--split",
                 "train=0.97,val=0.01,test=0.01,dev=0.01")  # fmt: skip
    record = json.loads((out / "splits.json").read_text())
    # each figure holds about an eighth of the records, more than train's 97 % leaves it short of: all go to train
    assert {s["name"]: s["clusters"] for s in record["splits"]} == {"train": 8, "val": 0, "test": 0, "dev": 0}
    assert "split(s) val, test, dev got no cluster (8 cluster(s) for 4 splits): written empty" in done.stderr
    assert all((out / name / "records.jsonl").read_text() == "" for name in ("val", "test", "dev"))


def test_a_chat_template_that_refuses_a_record_is_one_line_and_writes_nothing(
    study: dict[str, Path], tmp_path: Path
) -> None:
    tokenizer = _tiny_tokenizer(tmp_path / "tokenizer")
    tokenizer.chat_template = "{% for m in messages %}{{ raise_exception('roles must alternate') }}{% endfor %}"
    tokenizer.save_pretrained(str(tmp_path / "tokenizer"))
    done = _mcot("export", study["run"], "--format", "jsonl", "--as", "llava", "--out", tmp_path / "x", "--split",
                 "train=0.5,val=0.5", "--tokenizer", tmp_path / "tokenizer", code=2)  # fmt: skip
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and "its chat template cannot render the llava record of gepbench-" in lines[0]
    assert "roles must alternate; nothing was written" in lines[0]
    assert not (tmp_path / "x").exists() and not list(tmp_path.glob(".x.partial-*"))
