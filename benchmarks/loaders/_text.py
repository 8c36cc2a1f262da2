"""Reading native text files that may be damaged: lines that are not UTF-8, JSON nested past Python's limits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcot.benchmarks.loaders._types import SkipItem

from mcot.core.inputs import open_regular


def numbered_lines(path: Path) -> Iterator[tuple[int, str | None]]:
    """Yield (line number from 1, text) of a file; a line that is not UTF-8 comes as None (the caller skips it).

    The file must be a regular file (NotRegularFile, an OSError, otherwise): a named pipe would block the reader.
    """
    with open_regular(path, what="data file") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError:
                yield number, None


def json_record(line: str) -> dict[str, Any]:
    """Return the JSON object on one line; SkipItem when it is not JSON, nests too deeply, or is not an object."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise SkipItem("malformed record", f"line is not valid JSON ({exc.msg} at column {exc.colno})") from exc
    except RecursionError:
        raise SkipItem("malformed record", "line nests JSON too deeply to read") from None
    if not isinstance(record, dict):
        raise SkipItem("malformed record", f"line is a JSON {type(record).__name__}, not an object")
    return record


NOT_UTF8 = SkipItem("malformed record", "line is not UTF-8 text")
"""The skip of a line that is not UTF-8 (raise a copy: `SkipItem(NOT_UTF8.kind, NOT_UTF8.reason)`)."""
