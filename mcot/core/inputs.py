"""Reading files that users and datasets give mcot: regular files only, opened without blocking; YAML without aliases.

A dataset may hold anything where an image should be: a named pipe (`open()` would wait for a writer forever, in
a thread no signal reaches), a device (`/dev/zero` never ends), a socket. A file is therefore checked with
`os.stat` before it is opened, opened with `O_NONBLOCK` (a FIFO opens at once instead of waiting), and checked
again on the open descriptor, so what is read is the regular file that was checked. YAML aliases can expand a few
hundred bytes into gigabytes (the "billion laughs"), so YAML is read without them and from a bounded file.
Whatever an error message quotes of an input is cut to a few hundred characters (`excerpt`).

These are the input limits the README lists under "Reliability".
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from mcot.core.errors import UsageError

IMAGE_MAX_BYTES = 256 * 1024 * 1024
"""The largest image file mcot reads (a 40-megapixel PNG, the pixel limit, is well under it)."""
YAML_MAX_BYTES = 1024 * 1024
"""The largest YAML (or JSON) settings file mcot reads: a field mapping or a scene is a few hundred bytes."""
EXCERPT_CHARS = 200
"""The most characters of an input an error message quotes."""

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class InputFileError(OSError):
    """An input file mcot will not read; the message names the file and why."""


class NotRegularFile(InputFileError):
    """A path names something other than a regular file: a FIFO, a device, a socket, a folder."""


class FileTooLarge(InputFileError):
    """A file is over the size limit of what it should be (an image, a settings file)."""


class NotAFolder(UsageError):
    """A path given for a folder mcot writes into (a response cache) names something else (exit 2, one line)."""


class UnsafeYaml(ValueError):
    """YAML that mcot will not expand: it uses aliases, or the file is over the size limit."""


def kind_of(mode: int) -> str:
    """Return what a file of this `st_mode` is, in words ("a named pipe (FIFO)", …; "a regular file")."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def check_regular(path: Path | str, *, what: str = "file") -> os.stat_result:
    """Return the `os.stat` of `path` (symlinks followed) when it is a regular file; NotRegularFile otherwise.

    For code that hands a path to a library that opens it itself; `read_regular` also checks the open file.
    """
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        raise _not_regular(path, status.st_mode, what)
    return status


def check_source(path: Path | str, *, what: str = "data") -> None:
    """Return nothing when `path` is a regular file or a folder (a dataset is either); NotRegularFile naming what it
    is otherwise (a FIFO, a device, a socket), before anything opens it."""
    mode = os.stat(path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise NotRegularFile(f"{what} {os.fspath(path)} is {kind_of(mode)}, not a file or a folder")


def check_folder_or_absent(path: Path | str, *, option: str, holds: str) -> None:
    """Return nothing when `path` is a folder or does not exist yet; NotAFolder naming `option` and what the folder
    `holds` otherwise (a file there would fail every write into it, one by one, with a raw NotADirectoryError)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotAFolder(f"{option} {os.fspath(path)} is not a folder: give the folder {holds}")


def open_regular(path: Path | str, *, what: str = "file", max_bytes: int | None = None) -> BinaryIO:
    """Return the regular file at `path` open for binary reading, never blocking on a FIFO or opening a device.

    Raises NotRegularFile for anything else, FileTooLarge for a file over `max_bytes`, and the OSError of a file
    that is missing or unreadable (FileNotFoundError, PermissionError, …), with the path as its filename.
    """
    check_regular(path, what=what)  # before open(): opening a device may act on it (a tape rewinds)
    descriptor = os.open(path, _OPEN_FLAGS)
    try:
        status = os.fstat(descriptor)  # the file now open, in case the path was swapped after the check
        if not stat.S_ISREG(status.st_mode):
            raise _not_regular(path, status.st_mode, what)
        if max_bytes is not None and status.st_size > max_bytes:
            raise FileTooLarge(f"{what} {os.fspath(path)} is {status.st_size:,} bytes; at most {max_bytes:,} are read")
        return os.fdopen(descriptor, "rb", closefd=True)
    except BaseException:
        os.close(descriptor)
        raise


def read_regular(path: Path | str, *, what: str = "file", max_bytes: int | None = None) -> bytes:
    """Return the bytes of the regular file at `path` (see `open_regular` for what is refused)."""
    with open_regular(path, what=what, max_bytes=max_bytes) as handle:
        data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:  # it grew while being read
        raise FileTooLarge(f"{what} {os.fspath(path)} is over {max_bytes:,} bytes; at most {max_bytes:,} are read")
    return data


def read_image_file(path: Path | str) -> bytes:
    """Return the bytes of an image file (a regular file of at most IMAGE_MAX_BYTES); InputFileError otherwise."""
    return read_regular(path, what="image", max_bytes=IMAGE_MAX_BYTES)


class _NoAliasLoader(yaml.SafeLoader):
    """The safe loader, refusing anchors' aliases (`*name`): each would copy the anchored node again."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise UnsafeYaml(f"YAML aliases (*{excerpt(str(event.anchor), 40)}) are not allowed{_where(event)}")
        return super().compose_node(parent, index)


def load_yaml(text: str) -> Any:
    """Return the data of YAML (or JSON) text, with aliases refused (UnsafeYaml) and yaml.YAMLError on bad text."""
    if len(text) > YAML_MAX_BYTES:
        raise UnsafeYaml(f"YAML text is {len(text):,} characters; at most {YAML_MAX_BYTES:,} are read")
    loader = _NoAliasLoader(text)  # what yaml.safe_load does, with the safe loader that refuses aliases
    try:
        return loader.get_single_data()
    except RecursionError:
        raise UnsafeYaml("YAML text nests too deeply to read") from None
    finally:
        loader.dispose()


def read_yaml_file(path: Path | str, *, what: str = "YAML file") -> Any:
    """Return the data of a YAML/JSON file (regular, at most YAML_MAX_BYTES, UTF-8, no aliases).

    Raises InputFileError, UnsafeYaml, UnicodeDecodeError or yaml.YAMLError; the caller says whose file it is.
    """
    return load_yaml(read_regular(path, what=what, max_bytes=YAML_MAX_BYTES).decode("utf-8"))


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """Return `text` cut to `limit` characters (with how much was left out), for quoting an input in a message."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def _not_regular(path: Path | str, mode: int, what: str) -> NotRegularFile:
    return NotRegularFile(f"{what} {os.fspath(path)} is {kind_of(mode)}, not a regular file")


def _where(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
