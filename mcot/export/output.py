"""Where an export goes: checks on `--out` before anything is written, and an all-or-nothing move into place.

The export is written into a temporary sibling of `--out` (created under the process umask, like any file
mcot writes) and renamed into place only once complete; on any error the sibling, and any parent folder
made for it, are removed, so a failed export leaves nothing behind.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from mcot.core.rundir import RunInUseError, run_lock
from mcot.export.formats import RECORDS_FILE

if TYPE_CHECKING:
    from mcot.core.declare import ExportFormat


class ExportError(ValueError):
    """The run cannot be exported as asked (the message says what to change)."""


SPLITS_FILE = "splits.json"
"""What a split export (`--split`) writes at its top: the splits asked for, each split's figures and its clusters."""
EXPORT_MARKERS = (RECORDS_FILE, "dataset_dict.json", "predictions.json", SPLITS_FILE)
"""Files that mark a folder as an earlier export, which --overwrite may replace."""


def check_out(out: Path, chosen: ExportFormat, overwrite: bool) -> None:
    """Return when `out` may receive an export in the format `chosen`; raise ExportError saying why not."""
    out = Path(out)
    fmt = chosen.name
    if chosen.folder:
        if fmt == "jsonl" and out.suffix.lower() == ".jsonl":
            raise ExportError(
                f"--format jsonl writes a folder (records.jsonl and images/); give --out a folder name, "
                f"e.g. {out.with_suffix('')}"
            )
        if out.exists() and not out.is_dir():
            raise ExportError(f"{out} is a file; --format {fmt} writes a folder: give --out a folder name")
        if out.is_dir() and any(out.iterdir()):
            if not overwrite:
                raise ExportError(f"{out} already exists; pass --overwrite to replace it, or choose another --out")
            if not any((out / marker).is_file() for marker in EXPORT_MARKERS):
                raise ExportError(
                    f"{out} exists and is not an mcot export (no {' or '.join(EXPORT_MARKERS)}); "
                    "not replacing it: choose another --out"
                )
        return
    if out.is_dir():
        raise ExportError(
            f"{out} is a directory; --format {fmt} writes one file: name a file, e.g. {out / ('traces.' + fmt)}"
        )
    if out.exists() and not overwrite:
        raise ExportError(f"{out} already exists; pass --overwrite to replace it, or choose another --out")


def check_split_out(out: Path, chosen: ExportFormat, overwrite: bool) -> None:
    """Return when `out` may receive a split export (a folder, whatever the format); raise ExportError saying why
    not."""
    out = Path(out)
    if out.suffix.lower() in (".jsonl", ".parquet", f".{chosen.name}"):
        raise ExportError(
            f"--split writes a folder (a part per split): give --out a folder name, e.g. {out.with_suffix('')}"
        )
    check_out(out, dataclasses.replace(chosen, folder=True), overwrite)


def _first_missing(folder: Path) -> Path | None:
    """Return the outermost ancestor of `folder` (or itself) that does not exist, or None."""
    missing = None
    for candidate in [folder, *folder.parents]:
        if candidate.exists():
            break
        missing = candidate
    return missing


@contextmanager
def staged(out: Path, folder: bool) -> Iterator[Path]:
    """Yield a temporary sibling of `out` to write into (a folder when `folder`); move it to `out` on success.

    One export writes `out` at a time: the one-writer lock of a hidden sibling (`.OUT.writing`) is held from
    before the leftovers of a killed export are cleared to the move, so a second export to the same `out` refuses
    at once (ExportError naming the holder) instead of removing the first one's staged copy under it.
    """
    out = Path(out).absolute()
    made = _first_missing(out.parent)
    out.parent.mkdir(parents=True, exist_ok=True)
    with _one_writer(out):
        _remove_leftovers(out)
        temporary = out.parent / f".{out.name}.partial-{secrets.token_hex(4)}"
        if folder:
            temporary.mkdir()
        try:
            yield temporary
            _replace(temporary, out)
        except BaseException:
            _remove(temporary)
            if made is not None:
                shutil.rmtree(made, ignore_errors=True)
            raise


def _one_writer(out: Path) -> ExitStack:
    """Return the held lock of `out`'s writing (an ExitStack to close), or raise ExportError naming its holder."""
    held = ExitStack()
    root = out.parent / f".{out.name}.writing"
    held.callback(_remove_empty, root)  # after the lock lets go: also the folder a killed export left
    try:
        held.enter_context(run_lock(root, "mcot export"))
    except RunInUseError as exc:
        holder = str(exc).rpartition(" (")[2].removesuffix(")")
        raise ExportError(f"--out {out} is being written by another mcot process ({holder}); wait for it or choose "
                          "another --out") from None  # fmt: skip
    return held


def _remove_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # gone already, or another export holds it now
        pass


def _remove_leftovers(out: Path) -> None:
    """Remove what an export to `out` killed before it could clean up left beside it (a staged copy, an old one).

    Found by perf/crash_resume.py: a SIGKILL after staging left a dataset-sized `.OUT.partial-XXXX` folder for good.
    """
    for pattern in (f".{out.name}.partial-*", f".{out.name}.old-*"):
        for leftover in out.parent.glob(pattern):
            _remove(leftover)


def _replace(temporary: Path, out: Path) -> None:
    """Move `temporary` to `out`, replacing what is there (an earlier export) only once the new one is complete."""
    if not out.is_dir():
        os.replace(temporary, out)
        return
    old = out.parent / f".{out.name}.old-{secrets.token_hex(4)}"
    os.rename(out, old)
    try:
        os.rename(temporary, out)
    except BaseException:
        os.rename(old, out)
        raise
    _remove(old)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        path.unlink(missing_ok=True)
