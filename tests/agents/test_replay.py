"""`replay:RUN`: a finished run's model turns replayed with no server; a changed pipeline fails where it changed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcot.agents.backends import load_model
from mcot.agents.backends.replay import ReplayBackend
from mcot.agents.errors import ModelSpecError
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.runconfig import RunConfig
from mcot.runner import run_items, select_items
from mcot.testing.fake_provider import FakeProvider, Reply

QUESTION = re.compile(r"How many red squares\? \((\d+)\)")


def _png(color: str) -> bytes:
    from io import BytesIO

    buffer = BytesIO()
    Image.new("RGB", (64, 48), color).save(buffer, format="PNG")
    return buffer.getvalue()


def _items(root: Path, ids: range) -> Path:
    pairs = []
    for n in ids:
        item = Item(
            id=f"q{n}",
            benchmark="rbench-v",
            category="game",
            question=f"How many red squares? ({n})",
            images=[f"images/q{n}.png"],
            answer=str(n),
            answer_type="number",
            meta={"n": n},
        )
        pairs.append((item, {f"images/q{n}.png": _png("white")}))
    write_items(root, pairs)
    return root


def _answer(body: dict[str, Any]) -> Reply:
    """A model that draws once in the canvas arm, then answers the number its question names."""
    messages = body["messages"]
    n = QUESTION.search(json.dumps(messages)).group(1)  # type: ignore[union-attr]
    drew = any(m["role"] == "assistant" for m in messages)
    if body.get("tools") and not drew:
        return Reply("Let me mark it.", tool_calls=[("draw_line", {"start": [0, 0], "end": [int(n) * 10 + 5, 40]})])
    return Reply(f"There are {n}.\n\\boxed{{{n}}}", usage=(150 + int(n), 25))


def _run(data: Path, model: str, out: Path, **options: Any) -> list[dict[str, Any]]:
    config = RunConfig(data=data, model=model, out=out, mode="text,canvas", concurrency=3, **options)
    run_items(config, quiet=True)
    return sorted(read_jsonl(out / "results.jsonl"), key=lambda r: (r["id"], r["mode"]))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A run of three items in the text and canvas arms against the local server: (items dir, RUN)."""
    root = tmp_path_factory.mktemp("replay")
    data = _items(root / "items", range(3))
    patch = pytest.MonkeyPatch()
    patch.setenv("OPENAI_API_KEY", "sk-test-replay0123456789")
    try:
        with FakeProvider(default=_answer) as server:
            results = _run(data, "openai:gpt-4o", root / "run", base_url=server.openai_url)
            assert len(server.requests) == 9  # 3 text turns, 3 × 2 canvas turns
    finally:
        patch.undo()
    assert [r["status"] for r in results] == ["ok"] * 6
    return data, root / "run"


def test_a_replay_gives_the_same_predictions_with_no_server(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    data, run = recorded
    original = sorted(read_jsonl(run / "results.jsonl"), key=lambda r: (r["id"], r["mode"]))
    replayed = _run(data, f"replay:{run}", tmp_path / "again")
    assert [(r["id"], r["mode"], r["status"]) for r in replayed] == [(r["id"], r["mode"], "ok") for r in original]
    assert [r["prediction"] for r in replayed] == [r["prediction"] for r in original]
    assert replayed[0]["prediction"] == "There are 0.\n\\boxed{0}"
    for old, new in zip(original, replayed, strict=True):
        assert new["steps"] == old["steps"]
        assert (new["usage"]["input_tokens"], new["usage"]["output_tokens"]) == (
            old["usage"]["input_tokens"],
            old["usage"]["output_tokens"],
        )
        assert new["usage"]["cost_usd"] == 0.0 and old["usage"]["cost_usd"] > 0
        old_steps = read_jsonl(run / old["trace"])
        new_steps = read_jsonl(tmp_path / "again" / new["trace"])
        old_models = [s for s in old_steps if s["kind"] == "model"]
        new_models = [s for s in new_steps if s["kind"] == "model"]
        # the replay keys its requests as the run did, so the keys are comparable across the two runs
        assert [s["request_key"] for s in new_models] == [s["request_key"] for s in old_models]
        assert [s["image"] for s in new_steps] == [s["image"] for s in old_steps]
    manifest = json.loads((tmp_path / "again" / "manifest.json").read_text())
    assert manifest["model"]["spec"] == f"replay:{run}"


def test_a_replay_of_a_replay_still_matches(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    data, run = recorded
    first = _run(data, f"replay:{run}", tmp_path / "first")
    second = _run(data, f"replay:{tmp_path / 'first'}", tmp_path / "second")
    assert [r["prediction"] for r in second] == [r["prediction"] for r in first]
    assert ReplayBackend(tmp_path / "first").key_spec == "openai:gpt-4o"


def test_a_changed_prompt_fails_at_the_first_differing_request(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    data, run = recorded
    # --max-steps is written into the canvas arm's system prompt; the text arm's request does not change
    results = _run(data, f"replay:{run}", tmp_path / "steps", max_steps=5)
    by_arm = {(r["id"], r["mode"]): r for r in results}
    assert all(by_arm[(f"q{n}", "text")]["status"] == "ok" for n in range(3))
    canvas = by_arm[("q1", "canvas")]
    assert canvas["status"] == "error" and canvas["steps"] == 0
    assert canvas["error"] == (
        f"replay:{run}: item q1, arm canvas, model turn 1 differs from the recorded request "
        "(message 0 (system) differs)"
    )


def test_a_changed_sampling_setting_is_named(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    data, run = recorded
    results = _run(data, f"replay:{run}", tmp_path / "warm", temperature=0.5)
    assert {r["status"] for r in results} == {"error"}
    assert results[0]["error"] == (
        f"replay:{run}: item q0, arm canvas, model turn 1 differs from the recorded request "
        "(temperature differs: 0.0 recorded, 0.5 now)"
    )


def test_changed_tool_arguments_fail_at_the_next_turn(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    data, run = recorded
    edited = tmp_path / "edited"
    shutil.copytree(run, edited)
    [record] = [r for r in read_jsonl(edited / "results.jsonl") if (r["id"], r["mode"]) == ("q2", "canvas")]
    trace = edited / record["trace"]
    steps = read_jsonl(trace)
    first_model = next(s for s in steps if s["kind"] == "model")
    assert first_model["tool_calls"][0]["arguments"] == {"start": [0, 0], "end": [25, 40]}
    first_model["tool_calls"][0]["arguments"] = {"start": [0, 0], "end": [60, 10]}
    trace.write_text("".join(json.dumps(s) + "\n" for s in steps))
    results = {(r["id"], r["mode"]): r for r in _run(data, f"replay:{edited}", tmp_path / "out")}
    assert [r["status"] for r in results.values()].count("ok") == 5
    failed = results[("q2", "canvas")]
    assert failed["status"] == "error" and failed["steps"] == 1
    assert failed["error"] == (
        f"replay:{edited}: item q2, arm canvas, model turn 2 differs from the recorded request "
        "(message 2 (assistant) differs; message 3 (user) differs)"
    )


def test_a_replay_of_other_items_is_refused_by_check_dataset(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    data, run = recorded
    backend = load_model(f"replay:{run}")
    same = select_items(data, None)
    backend.check_dataset(same.sha256)  # the run's own items: accepted
    fewer = select_items(data, 2)
    other = _items(tmp_path / "other", range(3, 6))
    different = select_items(other, None)
    for info in (fewer, different):
        with pytest.raises(ModelSpecError) as caught:
            backend.check_dataset(info.sha256)
        assert str(caught.value).startswith(f"replay:{run} was made with other items (dataset sha256 ")
        assert str(caught.value).endswith("replay needs the same items (the same --data and --limit)")


def test_the_replay_backend_names_itself_and_its_model(recorded: tuple[Path, Path]) -> None:
    _, run = recorded
    backend = load_model(f"replay:{run}")
    assert (backend.spec, backend.provider, backend.model) == (f"replay:{run}", "replay", "gpt-4o")
    assert backend.sampling_support() == {
        "temperature": f"replayed: the recorded turns of {run}",
        "seed": f"replayed: the recorded turns of {run}",
    }


def test_a_run_without_request_keys_is_refused_at_load(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    _, run = recorded
    old = tmp_path / "old"
    shutil.copytree(run, old)
    for trace in (old / "traces").iterdir():
        steps = [{k: v for k, v in s.items() if k not in ("request_key", "request_parts")} for s in read_jsonl(trace)]
        trace.write_text("".join(json.dumps(s) + "\n" for s in steps))
    with pytest.raises(ModelSpecError, match=r"was made before mcot recorded request keys \(mcot .+\), so its turns"):
        load_model(f"replay:{old}")


def test_a_missing_or_empty_run_is_refused_at_load(tmp_path: Path) -> None:
    with pytest.raises(ModelSpecError, match=r"manifest\.json not found; replay needs the directory of a finished"):
        load_model(f"replay:{tmp_path / 'nothing'}")
    with pytest.raises(ModelSpecError, match="needs something after the colon: use replay:RUN"):
        load_model("replay:")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "manifest.json").write_text(json.dumps({"model": {"spec": "openai:gpt-4o"}}))
    (empty / "results.jsonl").write_text("")
    with pytest.raises(ModelSpecError, match="holds no results; there is nothing to replay"):
        load_model(f"replay:{empty}")
