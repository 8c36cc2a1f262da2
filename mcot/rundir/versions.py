"""The schema versions of a run directory's JSON lines: what this mcot writes, and what an older line reads as.

Every line mcot writes into results.jsonl, scores.jsonl and a trace file names its schema (`"schema_version": N`);
a line written before lines were versioned has no such key and reads as version 1. A line of a newer version
than this mcot knows is refused in one line (upgrade mcot to read it), never guessed at.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from mcot.rundir.errors import RunDirError

SCHEMA_KEY = "schema_version"
"""The key of a line's schema version."""
UNVERSIONED = 1
"""The version of a line without `schema_version` (written before lines were versioned)."""
RESULT_VERSION = 2
"""results.jsonl: 1 the unversioned lines; 2 adds `schema_version`."""
SCORE_VERSION = 2
"""scores.jsonl: 1 the unversioned lines; 2 adds `schema_version`."""
TRACE_VERSION = 2
"""traces/*.jsonl: 1 the unversioned lines; 2 adds `schema_version`."""


def line_version(row: Mapping[str, Any], newest: int, what: str) -> int:
    """Return the schema version of a parsed line (UNVERSIONED when it has none).

    Raise RunDirError when the line names a version this mcot does not know (newer than `newest`, or not an
    integer); `what` names the file in the message.
    """
    version = row.get(SCHEMA_KEY, UNVERSIONED)
    if type(version) is not int or version < UNVERSIONED:
        raise RunDirError(f"{what}: schema_version {version!r} is not a version mcot writes")
    if version > newest:
        raise RunDirError(
            f"{what}: written with schema_version {version}, newer than this mcot reads ({newest}): upgrade mcot"
        )
    return version


def versioned(row: Mapping[str, Any], newest: int, what: str) -> dict[str, Any]:
    """Return the fields of a parsed line with its schema version set (see `line_version`, which may raise)."""
    return {**row, SCHEMA_KEY: line_version(row, newest, what)}


def validation_message(exc: ValidationError) -> str:
    """Return the first problem of a failed validation in a few words (`field: message`)."""
    error = exc.errors()[0]
    place = ".".join(str(part) for part in error["loc"]) or "line"
    return f"{place}: {error['msg']}"


class OpenRecord(BaseModel):
    """A JSON line's object: known fields typed, any other key kept as it was (and written back)."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True)
