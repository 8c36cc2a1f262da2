"""Files and inputs as a user (or a hostile dataset) gives them, through the CLI: a named pipe where an image should
be, a YAML alias bomb, a full disk, a read-only output folder, a file-size limit, a non-UTF-8 items file, an empty
one. Each ends in seconds with one line on stderr and an exit code, never a hang or a traceback, and leaves nothing
that a re-run cannot finish."""

from __future__ import annotations

import io
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.runconfig import RunConfig
from mcot.runner import run_items

TIMEOUT = 120
"""Seconds a command may take before the test calls it hung (each of these takes a few)."""
QUESTIONS = "\n".join(f"{n}. Is optical law {n} obeyed?" for n in range(1, 6))


def _png(color: str = "white", size: tuple[int, int] = (64, 48)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def _mcot(*args: str | Path, cwd: Path | None = None, preexec: object = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcot", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=cwd,
        preexec_fn=preexec,  # type: ignore[arg-type]
    )


def _one_line(stderr: str) -> str:
    """Return the only line of stderr, failing the test when there are more or there is a traceback."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert lines[0].startswith("mcot: ") and len(lines[0]) < 500, lines[0]
    return lines[0]


def _items(root: Path, n: int = 2, images: bool = True) -> Path:
    pairs = []
    for k in range(n):
        item = Item(
            id=f"q{k}",
            benchmark="rbench-v",
            category="game",
            question=f"How many red squares? ({k})",
            images=[f"images/q{k}.png"] if images else [],
            answer=str(k),
            answer_type="number",
        )
        pairs.append((item, {f"images/q{k}.png": _png()} if images else {}))
    write_items(root, pairs)
    return root


def _gobench(root: Path) -> Path:
    """A GOBench-format folder: two scenarios (three records each, as the public file has) with their images."""
    records = []
    for n, (category, prompt) in enumerate(
        [
            ("reflect_light_images", "A girl looks into a flat bathroom mirror; her reflection faces her."),
            ("refracted_light_images", "A straw stands in a clear glass of water and seems to bend at the surface."),
        ],
        start=1,
    ):
        for suffix in (1, 2, 3):
            image = f"{category}/{n}.{suffix}.png"
            (root / image).parent.mkdir(parents=True, exist_ok=True)
            (root / image).write_bytes(_png("gray", (32, 32)))
            records.append(
                {
                    "index": f"{category}_{n}.{suffix}",
                    "category": category,
                    "image": image,
                    "title": f"scenario {n}",
                    "prompt": prompt,
                    "Questions_reality": QUESTIONS,
                    "Question_aesthetics": "Please rate the aesthetics of the image on a scale of 1-5.",
                    "Question_Instruction_consistency": "Please rate the instruction consistency on a scale of 1-5.",
                }
            )
    (root / "data_total.json").write_text(json.dumps(records))
    return root


# ------------------------------------------------------------------------------- a named pipe as an item image


def test_a_named_pipe_as_an_item_image_fails_its_pair_instead_of_hanging_mcot_run(tmp_path: Path) -> None:
    items = _items(tmp_path / "items")
    fifo = items / "images" / "q0.png"
    fifo.unlink()
    os.mkfifo(fifo)  # nothing ever writes to it: a blocking open() would wait for ever
    run = tmp_path / "run"
    made = _mcot("run", "--data", items, "--model", "offline", "--mode", "text,canvas", "--out", run)
    assert made.returncode == 3, made.stderr
    assert f"image {fifo} is a named pipe (FIFO), not a regular file" in made.stdout + made.stderr
    rows = {(r["id"], r["mode"]): r for r in read_jsonl(run / "results.jsonl")}
    assert {key: row["status"] for key, row in rows.items()} == {
        ("q0", "text"): "error",
        ("q0", "canvas"): "error",
        ("q1", "text"): "ok",
        ("q1", "canvas"): "ok",
    }
    assert "NotRegularFile" in rows[("q0", "canvas")]["error"]

    exported = _mcot("export", run, "--format", "jsonl", "--out", tmp_path / "export")
    # the pipe is an image that is not there, not a hang: left out, said, and the export exits 3 (issue 29 part 7)
    assert exported.returncode == 3, exported.stderr
    assert "mcot: left out 1 image(s) not found: " in exported.stderr


def test_a_named_pipe_as_the_input_of_an_edit_fails_the_image_not_mcot_imagine(tmp_path: Path) -> None:
    item = Item(
        id="edit-1",
        benchmark="omniphys",
        category="optics",
        question="Draw the reflected ray.",
        images=["images/in.png"],
        answer="images/ref.png",
        answer_type="image",
        meta={"task_type": "diagram_editing", "reference_image": "images/ref.png"},
    )
    items = tmp_path / "items"
    write_items(items, [(item, {"images/in.png": _png(), "images/ref.png": _png("green")})])
    (items / "images" / "in.png").unlink()
    os.mkfifo(items / "images" / "in.png")
    made = _mcot("imagine", "--data", items, "--generator", "procedural", "--out", tmp_path / "run")
    assert made.returncode == 3 and "is a named pipe (FIFO), not a regular file" in made.stdout + made.stderr


def test_a_named_pipe_as_a_native_image_is_skipped_by_convert(tmp_path: Path) -> None:
    source = _gobench(tmp_path / "gobench")
    (source / "reflect_light_images" / "1.2.png").unlink()
    os.mkfifo(source / "reflect_light_images" / "1.2.png")
    made = _mcot("convert", "gobench", source, "--out", tmp_path / "items")
    assert made.returncode == 0, made.stderr
    skipped = read_jsonl(tmp_path / "items" / "skipped.jsonl")
    assert [(s["id"], s["kind"]) for s in skipped] == [("reflect_light_images_1.2", "not a regular file")]
    assert "is a named pipe (FIFO), not a regular file" in skipped[0]["reason"]


# ------------------------------------------------------------------------------- YAML, UTF-8, empty files


def test_a_yaml_alias_bomb_as_the_omniphys_mapping_is_refused_at_once_in_one_short_line(tmp_path: Path) -> None:
    source = tmp_path / "omniphys.jsonl"
    source.write_text(json.dumps({"id": "q1", "question": "?", "answer": "A", "type": "single_choice"}) + "\n")
    levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        levels.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")
    bomb = tmp_path / "mapping.yaml"
    bomb.write_text("\n".join(levels) + "\ntypes: {t: *i}\n")  # 9^9 copies of "lol" once expanded
    made = _mcot("convert", "omniphys", source, "--out", tmp_path / "items", "--mapping", bomb)
    assert made.returncode == 2
    line = _one_line(made.stderr)
    assert "YAML aliases (*a) are not allowed (line 2, column 8)" in line and str(bomb) in line
    assert not (tmp_path / "items").exists()


def test_a_non_utf8_items_file_is_refused_naming_the_file_and_line(tmp_path: Path) -> None:
    items = _items(tmp_path / "items", n=3)
    lines = (items / "items.jsonl").read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"red", b"r\xffd", 1)
    (items / "items.jsonl").write_bytes(b"\n".join(lines))
    made = _mcot("run", "--data", items, "--model", "offline", "--mode", "text", "--out", tmp_path / "run")
    assert made.returncode == 2
    line = _one_line(made.stderr)
    assert f"{items / 'items.jsonl'}:2: not UTF-8 text (byte 0xff at column" in line
    assert not (tmp_path / "run").exists()


def test_an_empty_items_file_is_refused_by_run_and_an_empty_run_by_score_and_view(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "items.jsonl").write_text("\n")
    made = _mcot("run", "--data", empty, "--model", "offline", "--mode", "text", "--out", tmp_path / "run")
    assert made.returncode == 2 and "holds no items: there is nothing to run" in _one_line(made.stderr)
    assert not (tmp_path / "run").exists()

    run = tmp_path / "old-run"  # what a run of an empty file was left as before it was refused
    run_items(RunConfig(data=_items(tmp_path / "items", n=1), model="offline", out=run), quiet=True)
    (run / "items.jsonl").write_text("")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["dataset"]["sha256"] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # of b""
    (run / "manifest.json").write_text(json.dumps(manifest))
    (run / "results.jsonl").write_text("")
    for command in (("score", run), ("view", run)):
        said = _mcot(*command)
        assert said.returncode == 2 and "items.jsonl holds no items" in _one_line(said.stderr), command


# ------------------------------------------------------------------------------- a full disk, a read-only folder

COMMANDS = {
    "run": ("run", "--data", "{items}", "--model", "offline", "--mode", "text,canvas", "--out", "{out}/run"),
    "score": ("score", "{out}/good"),
    "view": ("view", "{out}/good"),
    "export": ("export", "{out}/good", "--format", "jsonl", "--out", "{out}/export"),
    "gen": ("gen", "games", "--task", "maze", "--n", "6", "--seed", "0", "--out", "{out}/gen"),
    "convert": ("convert", "gobench", "{gobench}", "--out", "{out}/converted"),
    "imagine": ("imagine", "--data", "{gobench}/data_total.json", "--generator", "procedural", "--out",
                "{out}/imagined", "--seed", "0", "--size", "128x128", "--limit", "1"),
}  # fmt: skip
"""The commands that write, each as a user would give it; {out} is the small file system under test."""
ROOM = {"run": 8}
"""KB left free on the full disk, so that the command starts and the disk fills part-way (a run: mid-pairs)."""
RERUN = {"run", "imagine", "score", "view"}
"""The commands re-run with room after the full disk, to show that what they left lets them finish (the others
stage their output and rename it into place: that nothing is left of them is checked instead)."""

MOUNTED = """
set -u
mount -t tmpfs -o size=8m,mode=0755 tmpfs "$OUT" || exit 97
cp -r "$GOOD" "$OUT/good"
if [ "$CASE" = full ]; then dd if=/dev/zero of="$OUT/fill" bs=1k 2>/dev/null; truncate -s "-${ROOM}K" "$OUT/fill"
else mount -o remount,ro "$OUT"; fi
"$@" >"$LOG/first.out" 2>"$LOG/first.err"; echo $? >"$LOG/first.rc"
ls -A "$OUT" >"$LOG/left"
if [ "$CASE" = full ]; then rm "$OUT/fill"; else mount -o remount,rw "$OUT"; fi
if [ "$AGAIN" = yes ]; then "$@" >"$LOG/again.out" 2>"$LOG/again.err"; echo $? >"$LOG/again.rc"; fi
if [ -d "$OUT/run" ]; then cp "$OUT/run/results.jsonl" "$LOG/results.jsonl"; fi
"""
"""Runs a command on a small tmpfs, first full (or read-only), then again with room, in a mount namespace of its
own (`unshare -m`): the mount is gone when the script ends, whatever happens to the test."""


def _can_mount(where: Path) -> str | None:
    """Return why a private tmpfs cannot be mounted here (not root, no unshare), or None when it can."""
    if shutil.which("unshare") is None:
        return "no unshare(1) on this machine"
    probe = subprocess.run(
        ["unshare", "-m", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
        capture_output=True,
        timeout=30,
    )
    return None if probe.returncode == 0 else "mounting a tmpfs needs root (CAP_SYS_ADMIN) in a mount namespace"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Items, a finished offline run of them, and a GOBench folder, on the ordinary disk."""
    root = tmp_path_factory.mktemp("world")
    items = _items(root / "items")
    run_items(RunConfig(data=items, model="offline", out=root / "good"), quiet=True)  # text and canvas
    yield {"items": items, "good": root / "good", "gobench": _gobench(root / "gobench")}


def _on_small_disk(case: str, name: str, world: dict[str, Path], tmp_path: Path) -> dict[str, str]:
    out, log = tmp_path / "small", tmp_path / "log"
    out.mkdir()
    log.mkdir()
    reason = _can_mount(out)
    if reason is not None:
        pytest.skip(reason)
    values = {key: str(path) for key, path in world.items()} | {"out": str(out)}
    command = [sys.executable, "-m", "mcot", *(part.format(**values) for part in COMMANDS[name])]
    script = tmp_path / "script.sh"
    script.write_text(MOUNTED)
    room = str(ROOM.get(name, 0))
    again = "yes" if case == "full" and name in RERUN else "no"
    env = {**os.environ, "OUT": str(out), "GOOD": str(world["good"]), "LOG": str(log), "CASE": case, "ROOM": room}
    env["AGAIN"] = again
    done = subprocess.run(["unshare", "-m", "sh", str(script), *command], env=env, timeout=4 * TIMEOUT, cwd=tmp_path)
    if done.returncode == 97:
        pytest.skip("cannot mount a tmpfs here")
    return {path.name: path.read_text() for path in log.iterdir()}


def _finished_once(results: str, n_items: int = 2) -> None:
    """Check a resumed ledger: every pair of the run ends ok, and none was finished twice (nothing paid twice)."""
    rows = [json.loads(line) for line in results.splitlines() if line.strip()]
    ok = [(row["id"], row["mode"]) for row in rows if row["status"] == "ok"]
    assert len(ok) == len(set(ok))
    last = {(row["id"], row["mode"]): row["status"] for row in rows}
    assert last == {(f"q{k}", arm): "ok" for k in range(n_items) for arm in ("text", "canvas")}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_disk_gives_one_line_and_a_rerun_with_room_finishes(
    name: str, world: dict[str, Path], tmp_path: Path
) -> None:
    log = _on_small_disk("full", name, world, tmp_path)
    assert log["first.rc"].strip() == "1", log["first.err"]
    assert "space left" in _one_line(log["first.err"]).lower()
    assert not [entry for entry in log["left"].split() if entry.startswith(".")]  # no staging folder left behind
    if name in RERUN:
        assert log["again.rc"].strip() == "0", log["again.err"]
    if name == "run":
        _finished_once(log["results.jsonl"])


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_read_only_output_folder_gives_one_line_and_writes_nothing(
    name: str, world: dict[str, Path], tmp_path: Path
) -> None:
    log = _on_small_disk("read-only", name, world, tmp_path)
    assert log["first.rc"].strip() in ("1", "2"), log["first.err"]
    line = _one_line(log["first.err"]).lower()
    assert "read-only" in line or "not writable" in line, line
    assert sorted(log["left"].split()) == ["good"]


def test_a_ledger_cut_just_before_its_last_newline_resumes_with_nothing_lost_or_repeated(tmp_path: Path) -> None:
    # where `ulimit -f` falls exactly between a line's `}` and its newline (seen once in CI, in the test below)
    items, run = _items(tmp_path / "items", n=3), tmp_path / "run"
    run_items(RunConfig(data=items, model="offline", mode="text,canvas", out=run), quiet=True)
    ledger = run / "results.jsonl"
    whole = ledger.read_bytes()
    lines = whole.splitlines(keepends=True)
    ledger.write_bytes(b"".join(lines[:3]) + lines[3].rstrip(b"\n"))  # the 4th line cut just before its newline
    run_items(RunConfig(data=items, model="offline", mode="text,canvas", out=run), quiet=True)
    _finished_once(ledger.read_text(), 3)
    assert ledger.read_bytes().startswith(b"".join(lines[:4]))


def test_a_file_size_limit_gives_one_line_and_the_run_resumes(tmp_path: Path) -> None:
    items, run = _items(tmp_path / "items", n=12), tmp_path / "run"

    def limited() -> None:  # `ulimit -f 6`: the ledger's write past 6 KB fails with EFBIG (Python ignores SIGXFSZ)
        resource.setrlimit(resource.RLIMIT_FSIZE, (6 * 1024, resource.RLIM_INFINITY))

    made = _mcot("run", "--data", items, "--model", "offline", "--mode", "text,canvas", "--out", run, preexec=limited)
    assert made.returncode == 1 and "file-size limit" in _one_line(made.stderr)
    again = _mcot("run", "--data", items, "--model", "offline", "--mode", "text,canvas", "--out", run)
    assert again.returncode == 0, again.stderr
    _finished_once((run / "results.jsonl").read_text(), 12)
