"""The mcot item: one benchmark question, and the items directory that stores many of them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcot.core.inputs import InputFileError, excerpt, open_regular
from mcot.core.rundir.atomic import temporary_dir
from mcot.core.rundir.errors import RunDirError
from mcot.core.rundir.layout import LOCK
from mcot.core.rundir.lock import run_lock

AnswerType = Literal["choice", "number", "text", "yesno", "rating", "image"]
ITEMS_FILE = "items.jsonl"
IMAGES_DIR = "images"


class ItemError(ValueError):
    """An item or an items directory is malformed; the message says where and why."""


class Item(BaseModel):
    """One question of a benchmark, in the mcot item format of DESIGN.md."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    benchmark: str
    category: str
    question: str
    images: list[str] = Field(default_factory=list)
    choices: list[str] | None = None
    answer: str
    answer_type: AnswerType
    meta: dict[str, Any] = Field(default_factory=dict)

    def to_json_line(self) -> str:
        """Return the item as one JSON line (no trailing newline), keys in DESIGN.md order."""
        return self.model_dump_json()


class PromptView(BaseModel):
    """What a model may see of an item: never the answer, never meta."""

    model_config = ConfigDict(frozen=True)

    id: str
    benchmark: str
    category: str
    question: str
    images: tuple[Path, ...]
    choices: tuple[str, ...] | None
    answer_type: AnswerType


def prompt_view(item: Item, root: Path) -> PromptView:
    """Return the model-visible view of `item`, with image paths resolved against the items `root`.

    Raises ItemError for an image path that leaves `root` (absolute, `..`, or a symlink pointing outside).
    """
    return PromptView(
        id=item.id,
        benchmark=item.benchmark,
        category=item.category,
        question=item.question,
        images=tuple(contained_path(root, p, f"item {item.id!r}") for p in item.images),
        choices=tuple(item.choices) if item.choices is not None else None,
        answer_type=item.answer_type,
    )


def contained_path(root: Path, relative: str, owner: str = "an item") -> Path:
    """Return `root / relative` when it stays inside `root` once resolved; raise ItemError naming it otherwise.

    Refused: absolute paths, `..` that climbs out, symlinks (anywhere on the way) that point outside `root`,
    and names the file system cannot hold (a NUL byte, too long).
    """
    if not isinstance(relative, str) or not relative.strip() or "\x00" in relative:
        raise ItemError(f"{owner}: image path {relative!r} must be a non-empty relative path")
    path = Path(relative)
    if path.is_absolute() or path.drive:
        raise ItemError(f"{owner}: image path {relative!r} is absolute; it must be relative to {root}")
    try:
        base = _resolved_root(str(root))
        target = _resolved_inside(base, path)
    except (OSError, RuntimeError, ValueError) as exc:
        raise ItemError(f"{owner}: image path {relative!r} cannot be resolved ({exc})") from None
    if not target.is_relative_to(base):
        raise ItemError(f"{owner}: image path {relative!r} leaves the items directory {root}")
    return Path(root) / path


@lru_cache(maxsize=64)
def _resolved_root(root: str) -> Path:
    """Return an items directory resolved (once per process: a run resolves every item's images against it)."""
    return Path(root).resolve()


def _resolved_inside(base: Path, path: Path) -> Path:
    """Return `base / path` resolved: its folder resolved once per process, its last part checked each time."""
    if path.name in ("", ".", ".."):
        return (base / path).resolve()
    leaf = _resolved_folder(base, path.parent) / path.name
    # a run's items keep their images in a few folders: resolving each image's whole path again cost an lstat
    # per part on every prompt; only the last part (the file itself, or a symlink in its place) is checked anew
    return leaf.resolve() if leaf.is_symlink() else leaf


@lru_cache(maxsize=1024)
def _resolved_folder(base: Path, folder: Path) -> Path:
    """Return the folder `base / folder` resolved (`folder` may be `.`)."""
    return (base / folder).resolve()


def iter_items(directory: Path) -> Iterator[Item]:
    """Yield the items of an items directory in file order; raise ItemError naming the file and the bad line.

    A line that is not UTF-8 is refused with its line number and the byte's column; items.jsonl must be a
    regular file (a named pipe would block the reader).
    """
    path = Path(directory) / ITEMS_FILE
    if not path.exists():
        raise ItemError(f"{path} not found: an items directory holds items.jsonl and images/")
    try:
        handle = open_regular(path, what="items file")
    except InputFileError as exc:
        raise ItemError(str(exc)) from exc
    except OSError as exc:
        raise ItemError(f"{path} cannot be read ({exc.strerror or exc})") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ItemError(
                    f"{path}:{number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                    "items files are UTF-8"
                ) from None
            if not line.strip():
                continue
            try:
                yield Item.model_validate_json(line)
            except ValueError as exc:
                first = excerpt(str(exc).splitlines()[0])
                raise ItemError(f"{path}:{number}: not a valid item ({first})") from exc


def read_items(directory: Path) -> list[Item]:
    """Return all items of an items directory; ids must be unique, and there must be at least one item."""
    items = list(iter_items(directory))
    path = Path(directory) / ITEMS_FILE
    if not items:
        raise ItemError(f"{path} holds no items: there is nothing to run, score or view")
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise ItemError(f"{path}: duplicate item id {excerpt(item.id)!r}")
        seen.add(item.id)
    return items


class ItemsWriter:
    """Writes an items directory atomically: into a temporary sibling, renamed into place on close.

    Images are added with `add_image(relative_path, bytes)`; items with `add(item)`. Nothing appears
    at the destination until `commit()` succeeds, so a failed run never leaves a half-written directory.
    Files and folders get the umask's modes (644 / 755 under the usual 022), not mkdtemp's 0700.
    The writer holds the folder's one-writer lock (`run_lock`, as a run does) from its start to its commit or
    abort, so that a second `mcot gen`, `convert` or `select hardest` on the same --out refuses at once (ItemError
    naming the holder) instead of writing over the first; `command` names the holder to the one refused.
    """

    def __init__(self, out: Path, *, overwrite: bool = False, command: str = "mcot (writing items)") -> None:
        self.out = Path(out)
        self._lock = ExitStack()
        try:
            self._lock.enter_context(run_lock(self.out, command))
        except RunDirError as exc:
            raise ItemError(str(exc)) from None
        except (NotADirectoryError, FileExistsError, PermissionError) as exc:  # a path no folder can be made at
            raise ItemError(f"cannot write {self.out}: {exc.strerror or exc}") from None
        try:
            self._start(overwrite)
        except BaseException:
            self._lock.close()
            raise

    def _start(self, overwrite: bool) -> None:
        if self.out.exists() and not overwrite and any(path.name != LOCK for path in self.out.iterdir()):
            raise ItemError(f"{self.out} exists and is not empty; choose another --out or remove it")
        parent = self.out.parent
        parent.mkdir(parents=True, exist_ok=True)
        if not os.access(parent, os.W_OK):
            raise ItemError(f"{parent} is not writable")
        self._tmp = temporary_dir(parent, f".{self.out.name}.")
        (self._tmp / IMAGES_DIR).mkdir()
        self._items = (self._tmp / ITEMS_FILE).open("w", encoding="utf-8")
        self._ids: set[str] = set()
        self._images: set[str] = set()
        self._dirs: set[Path] = set()
        self.count = 0

    def add_image(self, relative: str, data: bytes) -> str:
        """Store image bytes under images/ and return the relative path an item should reference."""
        rel = Path(relative)
        if rel.is_absolute() or ".." in rel.parts:
            raise ItemError(f"image path {relative!r} must be relative and stay inside the directory")
        if rel.parts[0] != IMAGES_DIR:
            rel = Path(IMAGES_DIR) / rel
        target = self._tmp / rel
        if target.parent not in self._dirs:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(target.parent)
        target.write_bytes(data)
        self._images.add(rel.as_posix())
        return rel.as_posix()

    def add(self, item: Item) -> None:
        """Append one item; its images must have been added already."""
        if item.id in self._ids:
            raise ItemError(f"duplicate item id {item.id!r}")
        for image in item.images:
            if image not in self._images and not (self._tmp / image).is_file():
                raise ItemError(f"item {item.id!r} refers to {image!r}, which was not added")
        self._ids.add(item.id)
        self._items.write(item.to_json_line() + "\n")
        self.count += 1

    def add_file(self, relative: str, data: bytes) -> None:
        """Write an extra file (e.g. skipped.jsonl, a native export) at `relative` inside the directory."""
        target = self._tmp / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def open_file(self, relative: str) -> BinaryIO:
        """Open an extra file at `relative` inside the directory for writing piece by piece; the caller closes it."""
        target = self._tmp / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        return target.open("wb")

    def commit(self) -> Path:
        """Close and move the finished directory into place; return its path."""
        try:
            self._items.close()
            if self.out.exists():
                shutil.rmtree(self.out)  # the lock file goes with it: the writer is done once the rename is
            os.replace(self._tmp, self.out)
        finally:
            self._lock.close()
        return self.out

    def abort(self) -> None:
        """Discard everything written so far."""
        try:
            self._items.close()
            shutil.rmtree(self._tmp, ignore_errors=True)
        finally:
            self._lock.close()

    def __enter__(self) -> ItemsWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


def write_items(
    out: Path, items: Iterable[tuple[Item, dict[str, bytes]]], *, overwrite: bool = False, command: str = "mcot"
) -> int:
    """Write (item, {relative image path: bytes}) pairs as an items directory (holding its lock in the name of
    `command`); return the item count."""
    with ItemsWriter(out, overwrite=overwrite, command=command) as writer:
        for item, images in items:
            for rel, data in images.items():
                writer.add_image(rel, data)
            writer.add(item)
        return writer.count
