"""Files for a shared server: everything mcot writes follows the process umask (644 / 755 under 022, 600 / 700
under 077), through real commands in a subprocess and through each writer in process."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcot.benchmarks.item import Item, ItemsWriter
from mcot.eval.judges import JudgeCache

from mcot.rundir import BlobStore, Result, RunDir, Step, Trace, temporary_dir, write_bytes_atomic, write_text_atomic

PNG = bytes.fromhex("89504e470d0a1a0a") + b"not really a png, only bytes"


def _modes(root: Path) -> dict[str, set[str]]:
    """Return {"files": modes, "folders": modes} (octal strings) of `root` and everything under it."""
    files: set[str] = set()
    folders = {oct(stat.S_IMODE(root.stat().st_mode))}
    for folder, dirs, names in os.walk(root):
        folders |= {oct(stat.S_IMODE((Path(folder) / d).stat().st_mode)) for d in dirs}
        files |= {oct(stat.S_IMODE((Path(folder) / n).stat().st_mode)) for n in names}
    return {"files": files, "folders": folders}


def _expected(umask: int) -> dict[str, set[str]]:
    return {"files": {oct(0o666 & ~umask)}, "folders": {oct(0o777 & ~umask)}}


def _mcot_under(umask: int, cwd: Path, *args: str) -> None:
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-m", "mcot", *args],
        cwd=cwd,
        env=env,
        preexec_fn=lambda: os.umask(umask),  # sets only the child's umask
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"mcot {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_generate_run_score_view_and_export_follow_the_umask(tmp_path: Path, umask: int) -> None:
    _mcot_under(umask, tmp_path, "gen", "games", "--task", "maze", "--n", "2", "--seed", "3", "--out", "games")
    _mcot_under(umask, tmp_path, "gen", "gepbench", "--n", "1", "--seed", "3", "--native", "--out", "gep")
    _mcot_under(
        umask, tmp_path, "run", "--data", "games", "--model", "offline", "--mode", "text,canvas,tools", "--out", "run"
    )
    _mcot_under(umask, tmp_path, "score", "run")
    _mcot_under(umask, tmp_path, "view", "run")
    _mcot_under(umask, tmp_path, "export", "run", "--format", "jsonl", "--out", "export")
    run = tmp_path / "run"
    for written in ("manifest.json", "items.jsonl", "results.jsonl", "scores.jsonl", "report.md", "report.html"):
        assert (run / written).is_file(), written
    assert any((run / "blobs").iterdir()) and any((run / "traces").iterdir()) and any((run / "figures").iterdir())
    for output in ("games", "gep", "run", "export"):
        assert _modes(tmp_path / output) == _expected(umask), output
    leftovers = [p.name for p in tmp_path.rglob("*") if p.name.endswith(".tmp") or ".partial-" in p.name]
    assert leftovers == []


@pytest.fixture
def umask_027() -> Iterator[int]:
    """Run the test under umask 027 (neither the default nor mkstemp's 077), restoring the old umask after."""
    old = os.umask(0o027)
    try:
        yield 0o027
    finally:
        os.umask(old)


def test_every_writer_follows_the_umask_in_process(tmp_path: Path, umask_027: int) -> None:
    root = tmp_path / "out"
    write_text_atomic(root / "run" / "report.md", "# report\n")
    write_bytes_atomic(root / "run" / "figures" / "a.png", PNG)
    sha = BlobStore(root / "run" / "blobs").put(PNG)
    assert (root / "run" / "blobs" / f"{sha}.png").read_bytes() == PNG
    Trace([Step(step=0, kind="model", t=0.0, text="done")]).write_jsonl(root / "run" / "traces" / "q.text.jsonl")
    cache = JudgeCache(root / "run" / "judge-cache")
    cache.put("ab" + "0" * 62, "yes", spec="scripted")
    assert cache.get("ab" + "0" * 62) == "yes"
    ledger = RunDir(root / "run")
    ledger.results_path.parent.mkdir(parents=True, exist_ok=True)
    ledger.results_path.write_text('{"id": "a", "mode": "text"}\n{"id": "b", "mo')  # a torn last line
    ledger.open()
    ledger.append_result(Result(id="c", mode="text"))
    ledger.close()
    assert [json.loads(line)["id"] for line in ledger.results_path.read_text().splitlines()] == ["a", "c"]
    item = Item(
        id="q",
        benchmark="games",
        category="maze",
        question="?",
        images=["images/q.png"],
        answer="A",
        answer_type="choice",
        choices=["x", "y"],
    )
    with ItemsWriter(root / "items") as writer:
        writer.add_image("images/q.png", PNG)
        writer.add(item)
        writer.add_file("native/summary.json", b"{}")
    assert _modes(root) == _expected(umask_027)


def test_temporaries_follow_the_umask_and_a_failed_write_leaves_nothing(tmp_path: Path, umask_027: int) -> None:
    folder = temporary_dir(tmp_path, ".stage.")
    assert oct(stat.S_IMODE(folder.stat().st_mode)) == oct(0o750)
    target = tmp_path / "kept.txt"
    write_text_atomic(target, "old")
    with pytest.raises(TypeError):
        write_bytes_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".stage." + folder.name.removeprefix(".stage."), "kept.txt"]
