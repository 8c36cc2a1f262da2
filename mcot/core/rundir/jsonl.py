"""JSON lines that read back whatever was written: one writer and one reader for every JSONL file of a run.

A line is split only at `\\n`. The writer escapes, besides what JSON escapes anyway (every control character
below U+0020), the characters that other line splitters break at — U+0085, U+2028, U+2029, which `str.splitlines`,
JavaScript before ES2019 and many editors treat as line ends — and lone surrogates (which UTF-8 cannot encode);
so a model's answer, an item id or a judge reply holding any of them stays on its line and reads back
exactly. The reader splits bytes at `\\n` only, so files written by older versions (with those characters raw)
read back too. A torn last line (a writer killed mid-line) is skipped; any other line that is not JSON is an
error naming the file and the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from mcot.core.rundir.atomic import write_chunks_atomic
from mcot.core.rundir.errors import RunDirError

_UNSAFE = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
"""What JSON leaves raw with ensure_ascii=False that must not be: line separators and lone surrogates."""
_CHUNK_LINES = 512


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_unsafe(text: str) -> str:
    """Return JSON text with U+0085, U+2028, U+2029 and lone surrogates written as \\u escapes (same value)."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def _default(value: object) -> object:
    if isinstance(value, Path):
        return value.as_posix()
    item = getattr(value, "item", None)
    if callable(item):
        return item()  # numpy scalars
    raise TypeError(f"cannot serialise {type(value).__name__}")


def _lenient(value: object) -> object:
    try:
        return _default(value)
    except TypeError:
        return str(value)


_STRICT = json.JSONEncoder(ensure_ascii=False, default=_default)
_LENIENT = json.JSONEncoder(ensure_ascii=False, default=_lenient)
_COMPACT = json.JSONEncoder(ensure_ascii=False, default=_default, separators=(",", ":"))


def json_line(value: Any, *, lenient: bool = False) -> str:
    """Return `value` as one JSON line (no newline) that every line splitter keeps whole.

    Paths become POSIX strings and numpy scalars numbers; `lenient` turns any other object into its str()
    (trace data), where otherwise it is a TypeError.
    """
    return escape_unsafe((_LENIENT if lenient else _STRICT).encode(value))


def compact_json(value: Any) -> str:
    """Return `value` as compact JSON (no spaces) that every line splitter keeps whole (for embedding in pages)."""
    return escape_unsafe(_COMPACT.encode(value))


def json_text(value: Any, indent: int = 2) -> str:
    """Return `value` as indented JSON ending in a newline (a manifest), escaped as `json_line` escapes."""
    return escape_unsafe(json.dumps(value, indent=indent, ensure_ascii=False, default=_default)) + "\n"


def iter_jsonl(path: Path, *, skip_torn: bool = True) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of a JSONL file in order, read as it goes (none when the file is absent).

    Lines are split at `\\n` only. A last line that is not JSON (a killed writer) is skipped when `skip_torn`;
    any other line that is not a JSON object raises RunDirError naming the file and line.
    """
    path = Path(path)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        pending: tuple[int, bytes] | None = None
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            if pending is not None:
                yield _parse(path, *pending, last=False, skip_torn=skip_torn)
            pending = (number, raw)
        if pending is not None:
            row = _parse(path, *pending, last=True, skip_torn=skip_torn)
            if row is not None:
                yield row


def _parse(path: Path, number: int, raw: bytes, *, last: bool, skip_torn: bool) -> Any:
    try:
        row = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        if last and skip_torn:
            return None
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise RunDirError(f"{path}:{number}: not JSON ({why})") from None
    if not isinstance(row, dict):
        raise RunDirError(f"{path}:{number}: not a JSON object")
    return row


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Return the JSON objects of a JSONL file (see `iter_jsonl`): none when absent, a torn last line skipped."""
    return list(iter_jsonl(path))


def encode_lines(rows: Iterable[Any], line: Callable[[Any], str] = json_line) -> Iterator[bytes]:
    """Yield the rows as UTF-8 JSON lines, a few hundred lines a chunk."""
    batch: list[str] = []
    for row in rows:
        batch.append(line(row))
        if len(batch) >= _CHUNK_LINES:
            yield ("\n".join(batch) + "\n").encode("utf-8")
            batch = []
    if batch:
        yield ("\n".join(batch) + "\n").encode("utf-8")


def write_jsonl(path: Path, rows: Iterable[Any], line: Callable[[Any], str] = json_line) -> Path:
    """Write the rows as a JSONL file atomically, one `line(row)` a line, streamed; return the path."""
    return write_chunks_atomic(path, encode_lines(rows, line))
