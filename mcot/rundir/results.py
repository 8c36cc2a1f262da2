"""A line of RUN/results.jsonl, typed: `Result`, the outcome of one finished (item id, arm), and its `ResultUsage`.

The fields are those of docs/contracts.md ("results.jsonl"). Every model is open (`extra="allow"`): a key this
mcot does not know (written by a newer writer, or a plugin's executor) is kept and written back. A line is read
with `Result.from_line` (an unversioned line reads as schema version 1) and written with `Result.to_line`,
which keeps the keys the result was made or read with, its schema version first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError, field_validator

from mcot.rundir.errors import RunDirError
from mcot.rundir.jsonl import json_line
from mcot.rundir.traces import legacy_trace_relpath
from mcot.rundir.versions import RESULT_VERSION, SCHEMA_KEY, OpenRecord, validation_message, versioned

OK = "ok"
"""The status of a pair that ended with an answer (the others: "error", "budget")."""


class ResultUsage(OpenRecord):
    """`usage`: all tokens of the solve, the cost of those paid for, the turns the cache served (None: unknown)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cached_calls: int | None = None

    @field_validator("input_tokens", "output_tokens", "cached_calls", mode="before")
    @classmethod
    def _count(cls, value: Any) -> int | None:
        # an older ledger may hold junk counts: they are unknown, and the line still reads
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        return int(value) if ok else None

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _cost(cls, value: Any) -> float | None:
        # a cost that is negative, not a number or not finite (written before backends refused such figures) is unknown
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            return float(value)
        return None


class Result(OpenRecord):
    """One line of RUN/results.jsonl: how one (item id, arm) ended (`mode` is the arm's name).

    `status` "ok" (an answer, `prediction` verbatim), "error" (with `error`, the reason) or "budget" (a budget
    stop). An answer that is an image also has `images` (blob paths, the first the answer), `image` and
    `image_meta`; `empty` flags a well-formed empty answer, `cut_chars` what the answer cap left out;
    `generator` names the image generator of a generation run.
    """

    schema_version: int = RESULT_VERSION
    id: str
    mode: str
    status: str = "error"
    prediction: str | None = ""
    steps: int = 0
    usage: ResultUsage = Field(default_factory=ResultUsage)
    latency_s: float | None = 0.0
    error: str | None = None
    trace: str | None = None
    benchmark: str | None = None
    category: str | None = None
    images: list[str] | None = None
    image: str | None = None
    image_meta: list[dict[str, Any]] | None = None
    empty: bool = False
    cut_chars: int = 0
    generator: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        """Return the pair the line is about: (item id, arm)."""
        return self.id, self.mode

    @property
    def ok(self) -> bool:
        """Return whether the pair ended with an answer (status "ok")."""
        return self.status == OK

    @property
    def text(self) -> str:
        """Return the prediction's text ("" when it has none)."""
        return self.prediction or ""

    def first_image(self) -> str | None:
        """Return the blob path of the image answer (`image`, else the first of `images`), or None."""
        return self.image or (self.images[0] if self.images else None)

    def trace_path(self) -> str | None:
        """Return the run-relative path of the pair's trace (`trace`; None when it has none). The oldest lines have
        no `trace` key: their trace is `traces/<id>.<mode>.jsonl`."""
        return self.trace if "trace" in self.model_fields_set else legacy_trace_relpath(self.id, self.mode)

    def with_fields(self, fields: Mapping[str, Any]) -> Result:
        """Return the result with `fields` added or replaced (a runner's extra keys, the trace's path)."""
        return self if not fields else Result.model_validate({**self.to_json(), **fields})

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object of the line: the schema version, then the keys it was made or read with."""
        return {SCHEMA_KEY: self.schema_version, **self.model_dump(exclude_unset=True, exclude={SCHEMA_KEY})}

    def to_line(self) -> str:
        """Return the result as one JSON line (no newline) that every line splitter keeps whole."""
        return json_line(self.to_json())

    @classmethod
    def from_line(cls, row: Mapping[str, Any], where: str = "results.jsonl") -> Result:
        """Return the result a parsed line holds (no `schema_version`: version 1); raise RunDirError naming `where`
        when the line is not a result line (no id or arm, a field of the wrong type, a newer schema)."""
        try:
            return cls.model_validate(versioned(row, RESULT_VERSION, where))
        except ValidationError as exc:
            raise RunDirError(f"{where}: a line is not a result line ({validation_message(exc)})") from None
