"""The run's frozen items, RUN/items.jsonl: the exact items a run was made on, one `Item` a line.

Scoring, compare, export and view read the items (answers, meta) only from this copy, after checking its hash
against the manifest's `dataset.sha256`. While a run works, `FrozenItems` holds only each item's id and where
its line starts; an item is read back from the copy when its pair starts, so a run of a million items holds a
million ids, not a million items.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import weakref
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from mcot.core.item import ITEMS_FILE, Item, ItemError
from mcot.core.rundir.atomic import copy_stream_atomic
from mcot.core.rundir.errors import RunDirError
from mcot.core.rundir.jsonl import escape_unsafe
from mcot.core.rundir.layout import ITEMS_COPY
from mcot.core.rundir.manifest import DatasetEntry, Manifest


def file_sha256(path: Path) -> str:
    """Return the hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def frozen_line(item: Item) -> str:
    """Return the item's line in RUN/items.jsonl (`Item.to_json_line()`, line separators escaped; no newline)."""
    return escape_unsafe(item.to_json_line())


class _Files:
    """The open files of a FrozenItems: the staged text and the run's copy (closed at the latest when it is dropped)."""

    def __init__(self, staged: IO[bytes] | None) -> None:
        self.staged = staged
        self.copy: int | None = None

    def read(self, start: int, end: int) -> bytes:
        if self.copy is not None:
            return os.pread(self.copy, end - start, start)
        if self.staged is not None:
            return os.pread(self.staged.fileno(), end - start, start)
        raise RunDirError("the frozen items are closed")

    def close(self) -> None:
        if self.copy is not None:
            os.close(self.copy)
            self.copy = None
        if self.staged is not None:
            self.staged.close()
            self.staged = None


class FrozenItems:
    """The items of a run as RUN/items.jsonl holds them: their ids in order, the copy's hash, each loaded on demand.

    `freeze` streams the items into an unnamed temporary file (nothing appears in the run directory);
    `write_copy` puts that text at RUN/items.jsonl, `attach` reads items from an existing identical copy.
    """

    def __init__(self, index: dict[str, int], offsets: array[int], sha256: str, staged: IO[bytes] | None) -> None:
        self.ids = list(index)
        self.sha256 = sha256
        self._index = index
        self._offsets = offsets
        self._files = _Files(staged)
        weakref.finalize(self, self._files.close)

    @classmethod
    def freeze(cls, items: Iterable[Item], staging_dir: Path | None = None, source: Path | None = None) -> FrozenItems:
        """Return the frozen form of `items` (read once, as they come); raise ItemError on a duplicate id.

        The text is staged in an unnamed temporary file in `staging_dir` (or the nearest folder above it that
        exists; the system's temporary folder when None); `source` names the items in error messages.
        """
        staged = tempfile.TemporaryFile(dir=_existing(staging_dir))
        try:
            digest = hashlib.sha256()
            index: dict[str, int] = {}
            offsets = array("q", [0])
            for item in items:
                if item.id in index:
                    raise ItemError(f"{source or 'items'}: duplicate item id {item.id!r}")
                index[item.id] = len(index)
                data = (frozen_line(item) + "\n").encode("utf-8")
                digest.update(data)
                staged.write(data)
                offsets.append(offsets[-1] + len(data))
            staged.flush()
        except BaseException:
            staged.close()
            raise
        return cls(index, offsets, digest.hexdigest(), staged)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._index

    @property
    def index(self) -> dict[str, int]:
        """Return {item id: its position in the copy}."""
        return self._index

    def dataset_entry(self, items_dir: Path, limit: int | None) -> DatasetEntry:
        """Return the manifest's `dataset` for these items, frozen from the items directory `items_dir`."""
        return DatasetEntry(
            path=str(items_dir),
            sha256=self.sha256,
            source_sha256=file_sha256(Path(items_dir) / ITEMS_FILE),
            format="items",
            n_items=len(self.ids),
            limit=limit,
        )

    def write_copy(self, root: Path) -> Path:
        """Write RUN/items.jsonl (atomically) from the frozen text, then read items from it; return its path."""
        staged = self._files.staged
        if staged is None:
            raise RunDirError("the frozen items are closed")
        staged.seek(0)
        path = copy_stream_atomic(Path(root) / ITEMS_COPY, staged)
        self.attach(root)
        return path

    def attach(self, root: Path) -> None:
        """Read items from RUN/items.jsonl from now on; raise RunDirError unless it holds exactly these items."""
        path = Path(root) / ITEMS_COPY
        if not path.is_file() or file_sha256(path) != self.sha256:
            raise RunDirError(f"{path} is missing or was changed after the run started; this run cannot be resumed")
        self._files.close()
        self._files.copy = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))

    def load(self, item_id: str) -> Item:
        """Return the item `item_id`, read from the run's copy (or the frozen text before it is written)."""
        n = self._index[item_id]
        return Item.model_validate_json(self._files.read(self._offsets[n], self._offsets[n + 1]))

    def __iter__(self) -> Iterator[Item]:
        """Yield the items in order, one at a time."""
        for item_id in self.ids:
            yield self.load(item_id)

    def close(self) -> None:
        """Close the copy (and drop the frozen text); ids and hashes stay."""
        self._files.close()


def _existing(folder: Path | None) -> str | None:
    """Return the nearest existing folder at or above `folder` (None: the system's temporary folder)."""
    if folder is None:
        return None
    for candidate in (Path(folder).absolute(), *Path(folder).absolute().parents):
        if candidate.is_dir():
            return str(candidate)
    return None


def check_frozen_items(root: Path, manifest: Manifest) -> Path:
    """Return RUN/items.jsonl after checking it against the manifest's `dataset.sha256`.

    Raise RunDirError when the file is missing or its hash differs (the run's frozen items were changed).
    A manifest without a dataset hash is not checked.
    """
    path = Path(root) / ITEMS_COPY
    if not path.is_file():
        raise RunDirError(
            f"{path} is missing: a run keeps a frozen copy of its items there, and scoring, compare, export and view "
            "read only that copy; restore it, or make a new run with `mcot run`"
        )
    expected = manifest.dataset.sha256
    if expected and file_sha256(path) != expected:
        raise RunDirError(
            f"{path} does not match the manifest's dataset hash: the run's frozen items were changed "
            f"(sha256 {file_sha256(path)[:12]}… now, {str(expected)[:12]}… in the manifest); restore the file "
            "(the run's results belong to the items it was run on) or make a new run with another --out"
        )
    return path


def source_change(manifest: Manifest) -> str | None:
    """Return one line naming how the source dataset differs from when the run started, or None.

    None also when the manifest does not record the source hash (older runs) or has no dataset path.
    """
    expected, where = manifest.dataset.source_sha256, manifest.dataset.path
    if not expected or not where:
        return None
    source = Path(where) / ITEMS_FILE
    if not source.is_file():
        return f"the source dataset {source} is gone since the run; scored from the run's frozen copy RUN/{ITEMS_COPY}"
    actual = file_sha256(source)
    if actual == expected:
        return None
    return (
        f"the source dataset {source} changed since the run (sha256 {actual[:12]}… now, {str(expected)[:12]}… "
        f"when the run started); scored from the run's frozen copy RUN/{ITEMS_COPY}"
    )
