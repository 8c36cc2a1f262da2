"""`mcot run` end to end on real items: run directory, resume, failures, secrets."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.core.rundir import RunDir, read_jsonl
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.testing.fake_provider import FakeProvider, Reply

SECRET = "sk-test-THISMUSTNOTLEAK0123456789"


def _png(color: str) -> bytes:
    from io import BytesIO

    buffer = BytesIO()
    Image.new("RGB", (64, 48), color).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    pairs = []
    for n in range(4):
        item = Item(
            id=f"q{n}",
            benchmark="rbench-v",
            category="game",
            question=f"How many red squares? ({n})",
            images=[f"images/q{n}.png"],
            choices=None,
            answer=str(n),
            answer_type="number",
            meta={"n": n},
        )
        pairs.append((item, {f"images/q{n}.png": _png("white")}))
    out = tmp_path / "items"
    write_items(out, pairs)
    return out


def _pairs(run: Path) -> list[tuple[str, str]]:
    return [(r["id"], r["mode"]) for r in read_jsonl(run / "results.jsonl")]


def test_offline_run_writes_the_run_directory(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    summary = run_items(RunConfig(data=items_dir, model="offline", out=run, concurrency=3), quiet=True)
    assert summary.total == 8 and summary.by_status == {"ok": 8}
    assert sorted(_pairs(run)) == sorted((f"q{n}", m) for n in range(4) for m in ("text", "canvas"))
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["model"]["spec"] == "offline" and manifest["modes"] == ["text", "canvas"]
    assert manifest["dataset"]["n_items"] == 4 and len(manifest["dataset"]["sha256"]) == 64
    assert manifest["sessions"][-1]["finished"] is not None and manifest["prompts"]
    for result in read_jsonl(run / "results.jsonl"):
        steps = read_jsonl(run / result["trace"])
        assert steps, result
        for step in steps:
            if step.get("image"):
                assert (run / step["image"]).is_file()


def test_resume_redoes_nothing_that_finished(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    config = RunConfig(data=items_dir, model="offline", out=run)
    run_items(config, quiet=True)
    ledger = (run / "results.jsonl").read_text().splitlines(keepends=True)
    assert len(ledger) == 8
    # a run killed after four pairs, in the middle of writing the fifth line: that pair was not finished
    (run / "results.jsonl").write_text("".join(ledger[:4]) + '{"id": "q2", "mode": "te')
    summary = run_items(config, quiet=True)
    assert summary.skipped_done == 4 and sum(summary.by_status.values()) == 4
    pairs = _pairs(run)
    assert len(pairs) == len(set(pairs)) == 8
    again = run_items(config, quiet=True)
    assert again.skipped_done == 8 and again.by_status == {}
    sessions = json.loads((run / "manifest.json").read_text())["sessions"]
    assert len(sessions) == 3 and all(s["finished"] for s in sessions)


def test_failed_item_is_recorded_and_the_run_goes_on(items_dir: Path, tmp_path: Path) -> None:
    (items_dir / "images" / "q1.png").write_bytes(b"not a png")
    run = tmp_path / "run"
    summary = run_items(RunConfig(data=items_dir, model="offline", out=run, mode="canvas"), quiet=True)
    results = {r["id"]: r for r in read_jsonl(run / "results.jsonl")}
    assert len(results) == 4
    assert results["q1"]["status"] == "error" and results["q1"]["error"]
    assert summary.by_status.get("ok") == 3


def test_resume_refuses_a_different_model(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_items(RunConfig(data=items_dir, model="offline", out=run, limit=1), quiet=True)
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"text": "\\boxed{1}"}]))
    with pytest.raises(UsageError, match="--model: 'offline' in the run"):
        run_items(RunConfig(data=items_dir, model=f"scripted:{script}", out=run), quiet=True)


def test_api_key_never_reaches_the_run_directory(
    items_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = tmp_path / "run"
    script = [Reply(tool_calls=[("draw_line", {"start": [0, 0], "end": [60, 40]})]), Reply("\\boxed{2}")]
    with FakeProvider(script * 4, default=Reply("\\boxed{0}")) as server:
        config = RunConfig(
            data=items_dir,
            model="openai:gpt-4o",
            out=run,
            base_url=server.openai_url,
            concurrency=1,
            mode="canvas",
            limit=2,
        )
        summary = run_items(config, quiet=True)
    assert summary.by_status == {"ok": 2}
    for path in run.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_cli_run_then_rerun(items_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "mcot",
        "run",
        "--data",
        str(items_dir),
        "--model",
        "offline",
        "--out",
        str(run),
        "--mode",
        "text",
    ]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "4 ok" in first.stdout
    second = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert "4 already done" in second.stdout and "nothing new" in second.stdout
    bad = subprocess.run([*command[:-1], "pictures"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--mode" in bad.stderr
    assert RunDir(run).exists()


def test_a_bad_model_spec_writes_nothing(items_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = tmp_path / "run"
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        run_items(RunConfig(data=items_dir, model="openai:gpt-4o", out=run), quiet=True)
    assert not run.exists()
    with pytest.raises(ValueError):
        run_items(RunConfig(data=items_dir, model="nonsense:thing", out=run), quiet=True)
    assert not run.exists()
