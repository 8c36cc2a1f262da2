"""The general guarantees, each tested over the LIST of every command it covers (a new command belongs in the
list): a file a user names is opened as a regular file without blocking (a FIFO refused in one line naming it,
`NAMED_FILES`); every command that writes a folder takes its one-writer lock (`WRITERS`); no command writes into a
folder it reads from (`READ_WRITERS`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_files_and_inputs import _gobench
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.rundir import LOCK

HOLD = """
import sys, time
from pathlib import Path
from mcot.core.rundir import run_lock
with run_lock(Path(sys.argv[1]), "mcot run"):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An items folder, a scored run of it (text and canvas), a FIFO, and a study file over the items."""
    root = tmp_path_factory.mktemp("guarantees")
    runner = CliRunner()
    items, run = root / "items", root / "run"
    assert (
        runner.invoke(app, ["gen", "games", "--task", "maze", "--n", "2", "--seed", "1", "--out", str(items)]).exit_code
        == 0
    )
    assert (
        runner.invoke(
            app, ["run", "--data", str(items), "--model", "offline", "--mode", "text,canvas", "--out", str(run)]
        ).exit_code
        == 0
    )
    assert runner.invoke(app, ["score", str(run)]).exit_code == 0
    fifo = root / "pipe"
    os.mkfifo(fifo)
    study = root / "STUDY.toml"
    study.write_text(f'data = ["{items}"]\narms = ["text"]\n[[model]]\nspec = "offline"\n')
    gobench = _gobench(root / "gobench")
    return {"items": items, "run": run, "fifo": fifo, "study": study, "root": root, "gobench": gobench}  # fmt: skip


NAMED_FILES: dict[str, Callable[[dict[str, Path]], list[str]]] = {
    "run --data": lambda m: ["run", "--data", str(m["fifo"]), "--model", "offline", "--out", str(m["root"] / "r1")],
    "run --model scripted:FILE": lambda m: ["run", "--data", str(m["items"]), "--model", f"scripted:{m['fifo']}",
                                            "--mode", "text", "--out", str(m["root"] / "r2")],
    "score --human": lambda m: ["score", str(m["run"]), "--human", str(m["fifo"])],
    "study STUDY.toml": lambda m: ["study", str(m["fifo"]), "--out", str(m["root"] / "s1")],
    "imagine --data": lambda m: ["imagine", "--data", str(m["fifo"]), "--generator", "procedural",
                                 "--out", str(m["root"] / "i1")],
    "convert": lambda m: ["convert", "gepbench", str(m["fifo"]), "--out", str(m["root"] / "c1")],
    "convert gobench --scores": lambda m: ["convert", "gobench", str(m["gobench"]), "--scores", str(m["fifo"]),
                                           "--out", str(m["root"] / "c2")],
    "convert --mapping": lambda m: ["convert", "omniphys", str(m["items"] / "items.jsonl"), "--mapping",
                                    str(m["fifo"]), "--out", str(m["root"] / "c3")],
    "score --judge scripted:FILE": lambda m: ["score", str(m["run"]), "--judge", f"scripted:{m['fifo']}"],
    "score --judge-template": lambda m: ["score", str(m["run"]), "--judge", "offline", "--judge-template",
                                         str(m["fifo"])],
    "tools call --image": lambda m: ["tools", "call", "draw_line", "--image", str(m["fifo"]),
                                     '{"start": [0, 0], "end": [5, 5]}'],
}  # fmt: skip
"""Every command option that names a file mcot reads."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", NAMED_FILES)
def test_a_named_pipe_is_refused_in_one_line_naming_it(name: str, made: dict[str, Path]) -> None:
    result = CliRunner().invoke(app, NAMED_FILES[name](made))
    assert result.exit_code == 2, (name, result.output)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(made["fifo"]) in lines[0] and "named pipe" in lines[0], (name, lines)


def _held_copy(run: Path, out: Path) -> Path:
    """Copy `run` into the held folder `out` (its lock file left as the holder made it); return `out`."""
    shutil.copytree(run, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns(LOCK))
    return out


def _listing(folder: Path) -> list[tuple[str, int]]:
    """Return every file under `folder` with its size: what a refused writer must leave as it was."""
    return sorted((str(path.relative_to(folder)), path.stat().st_size) for path in folder.rglob("*") if path.is_file())


WRITERS: dict[str, Callable[[dict[str, Path], Path], list[str]]] = {
    "run": lambda m, out: ["run", "--data", str(m["items"]), "--model", "offline", "--mode", "text", "--out", str(out)],
    "score": lambda m, out: ["score", str(out)],
    "view": lambda m, out: ["view", str(out)],
    "export --score": lambda m, out: ["export", str(out), "--format", "jsonl", "--out", str(m["root"] / "e"),
                                      "--score"],
    "imagine": lambda m, out: ["imagine", "--data", str(m["items"]), "--generator", "procedural", "--out", str(out)],
    "study": lambda m, out: ["study", str(m["study"]), "--out", str(out)],
    "gen games": lambda m, out: ["gen", "games", "--task", "maze", "--n", "1", "--seed", "1", "--out", str(out)],
    "gen gepbench": lambda m, out: ["gen", "gepbench", "--n", "1", "--out", str(out)],
    "convert": lambda m, out: ["convert", "gobench", str(m["gobench"]), "--out", str(out)],
    "select hardest": lambda m, out: ["select", "hardest", "--runs", str(m["run"]), "--share", "0.5",
                                      "--out", str(out)],
    "probe": lambda m, out: ["probe", str(_held_copy(m["run"], out)), "--arm", "canvas"],
    "demo": lambda m, out: ["demo", "--out", str(out)],
    "export --out": lambda m, out: ["export", str(m["run"]), "--format", "jsonl", "--out", str(out.parent / "ds")],
}  # fmt: skip
"""Every command that writes a run, study or items folder: each takes that folder's one-writer lock (a command
that writes into an existing run is given a copy of one in the held folder)."""


@pytest.mark.parametrize("name", WRITERS)
def test_a_second_writer_is_refused_and_nothing_is_written(name: str, made: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / (".ds.writing" if name == "export --out" else "held")  # an export's lock is its --out's sibling
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "held"
        args = WRITERS[name](made, out)
        before = _listing(out)
        assert LOCK in dict(before)
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (name, result.output)
        assert f"by another mcot process (pid {process.pid}, mcot run since" in result.output, result.output
        assert _listing(out) == before
        assert sorted(path.name for path in tmp_path.iterdir()) == [out.name]  # nor beside it
    finally:
        process.kill()
        process.wait(timeout=30)


def _study_in(folder: Path) -> str:
    """Write D/STUDY.toml whose data is D/items (inside the --out it is given); return its path."""
    study = folder / "STUDY.toml"
    study.write_text('data = ["items"]\narms = ["text"]\n[[model]]\nspec = "offline"\n')
    return str(study)


READ_WRITERS: dict[str, Callable[[Path], list[str]]] = {
    "run (--out is --data)": lambda d: ["run", "--data", str(d / "items"), "--model", "offline", "--mode", "text",
                                       "--limit", "1", "--out", str(d / "items")],
    "run (--out inside --data)": lambda d: ["run", "--data", str(d / "items"), "--model", "offline", "--mode", "text",
                                           "--out", str(d / "items" / "run")],
    "run (--data inside --out)": lambda d: ["run", "--data", str(d / "items"), "--model", "offline", "--mode", "text",
                                           "--out", str(d)],
    "imagine (--out is --data)": lambda d: ["imagine", "--data", str(d / "items"), "--generator", "procedural",
                                           "--out", str(d / "items")],
    "study (data inside --out)": lambda d: ["study", _study_in(d), "--out", str(d)],
}  # fmt: skip
"""Every command that reads a dataset and writes a folder, given the folder D that holds the dataset D/items."""


@pytest.mark.parametrize("name", READ_WRITERS)
def test_no_command_writes_into_the_folder_it_reads(name: str, tmp_path: Path) -> None:
    folder = tmp_path / "D"
    assert CliRunner().invoke(app, ["gen", "games", "--task", "maze", "--n", "3", "--seed", "2",
                                    "--out", str(folder / "items")]).exit_code == 0  # fmt: skip
    args = READ_WRITERS[name](folder)
    before = _listing(folder)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, (name, result.output)
    assert "is inside --out" in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert _listing(folder) == before  # D/items still holds its 3 items (a run used to freeze 1 over them)


def test_a_demo_never_clears_what_it_did_not_make(made: dict[str, Path], tmp_path: Path) -> None:
    from mcot.demo import MARK, prepare_out

    folder = tmp_path / "D"
    shutil.copytree(made["items"], folder / "items")  # the user's own items, where the demo puts its suite
    before = _listing(folder)
    result = CliRunner().invoke(app, ["demo", "--out", str(folder)])
    assert result.exit_code == 2
    assert result.output.strip() == f"mcot: {folder / 'items'} exists and was not made by mcot demo (which would " \
                                    "replace it); choose another --out or remove it"  # fmt: skip
    assert _listing(folder) == before
    (folder / MARK).write_text("made by mcot demo")  # a folder an earlier demo made: its items and run are cleared
    (folder / "run").mkdir()
    prepare_out(folder)
    assert sorted(path.name for path in folder.iterdir()) == [MARK]


def test_a_study_record_that_is_not_an_object_is_named(made: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "S"
    out.mkdir()
    (out / "study.json").write_text("[1, 2]")
    result = CliRunner().invoke(app, ["study", str(made["study"]), "--out", str(out)])
    assert result.exit_code == 2
    assert result.output.strip() == f"mcot: {out / 'study.json'} is not a study record (a JSON object); remove it " \
                                     "or use another --out"  # fmt: skip


def test_an_items_writer_leaves_no_lock_in_what_it_wrote(made: dict[str, Path]) -> None:
    assert not (made["items"] / LOCK).exists()  # `gen games` held it while writing; the finished folder has none
    assert not [path for path in made["root"].iterdir() if path.name.startswith(".")]  # nor a staging folder


SIZE_LIMITED: dict[str, tuple[str, str, Callable[[dict[str, Path], Path], list[str]]]] = {
    "study STUDY.toml": ("mcot.study.config", "YAML_MAX_BYTES", lambda m, big: ["study", str(big),
                                                                                "--out", str(big.parent / "S")]),
    "DIR/study.json": ("mcot.study.run", "YAML_MAX_BYTES", lambda m, big: ["study", str(m["study"]),
                                                                           "--out", str(big.parent)]),
    "score --human": ("mcot.eval.ratings", "RATINGS_MAX_BYTES", lambda m, big: ["score", str(m["run"]),
                                                                                "--human", str(big)]),
    "run --model scripted:FILE": ("mcot.agents.backends.scripted", "SCRIPTED_MAX_BYTES", lambda m, big: [
        "run", "--data", str(m["items"]), "--model", f"scripted:{big}", "--mode", "text",
        "--out", str(big.parent / "R")]),
}  # fmt: skip
"""Every settings file and record mcot reads with a size limit: the module and name of its limit, and the command
given a file over it (the limit is lowered to 1,000 bytes here; the file is 2,000)."""


@pytest.mark.parametrize("name", SIZE_LIMITED)
def test_a_file_over_its_size_limit_is_refused_in_one_line(
    name: str, made: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, limit, command = SIZE_LIMITED[name]
    monkeypatch.setattr(f"{module}.{limit}", 1000)
    big = tmp_path / ("study.json" if name == "DIR/study.json" else "big")
    big.write_text('{"pad": "' + "x" * 1990 + '"}')
    result = CliRunner().invoke(app, command(made, big))
    assert result.exit_code == 2, (name, result.output)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(big) in lines[0] and "bytes; at most 1,000 are read" in lines[0], (name, lines)
