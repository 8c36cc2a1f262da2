"""The trace store: one JSONL file per (item id, arm) under RUN/traces, one line per step.

A Step serialises to one line in the format of docs/contracts.md. Images appear as blob paths only; their bytes
live in the run's BlobStore. `Trace.ops()` gives the canvas operations in order, which is all `Canvas.replay`
needs to rebuild every snapshot byte for byte.

A model step records `sampling`, the sampling fields its request sent (`{"temperature": 0.0, "seed": 7}`;
keys the backend does not send are left out). A tool step records `drawn_by`: "model" for a canvas
operation the model issued itself, "tool" for any other tool (geometry a domain tool drew with `draw=true`).
A model step also records `request_key` (the sha256 key of its request, `mcot.agents.cache.request_key`),
`request_parts` (the key's parts as short digests, to tell what changed between two runs), `cached` (True when
the response cache served it: its tokens were not paid) and `tool_calls_in_text` (the calls were parsed from
the text). Old traces lack these fields; `replay:RUN` needs them. The first model step of a pair records `sent`:
what the model was given before its first turn, exactly — `system` (the system prompt, None in the text arm),
`task` (the task text), `tools` (the tool schemas as the backend sent them) and `schema_flavor`; exports and the
viewer read it rather than render the templates again.

File names come from `trace_name`: a readable part of the id, a hash of the exact (id, arm) pair and the arm,
so two pairs never share a file and no name is longer than a file system allows; every line written by the
store carries its pair (`"pair": {"id", "mode"}`), so a file says whose it is. Old runs named traces
`<id>.<mode>.jsonl`; their result lines carry that path, which is how every reader finds a trace.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from mcot.rundir.atomic import write_text_atomic
from mcot.rundir.errors import RunDirError
from mcot.rundir.jsonl import iter_jsonl, json_line, write_jsonl
from mcot.rundir.layout import TRACES
from mcot.rundir.versions import (
    SCHEMA_KEY,
    TRACE_VERSION,
    OpenRecord,
    line_version,
    validation_message,
    versioned,
)

StepKind = Literal["model", "tool", "observation"]
DrawnBy = Literal["model", "tool"]
PAIR = "pair"
"""The key of a trace line that names its (item id, arm): `{"id": ..., "mode": ...}`."""
_COMMON = ("step", "kind", "text", "tool", "arguments", "result", "error", "image", "svg", "changed", "usage", "t")
_EXTRA: dict[str, tuple[str, ...]] = {
    "model": (
        "tool_calls",
        "latency_s",
        "retries",
        "sampling",
        "request_key",
        "request_parts",
        "cached",
        "tool_calls_in_text",
        "sent",
    ),
    "tool": ("drawn_by", "ops", "data"),
    "observation": ("seen",),
}
_READABLE = re.compile(r"[^A-Za-z0-9_-]+")
READABLE_CHARS = 80
"""How much of an id (and of an arm name) a trace file name shows; the hash tells the pairs apart."""
HASH_CHARS = 24
"""Hex digits of sha256(id, arm) in a trace file name: 96 bits, so no two pairs of any run share a file."""


class Step(OpenRecord):
    """One trace line; fields that do not apply to a kind stay None (or empty).

    A key this mcot does not know (a newer writer's, a plugin's) is kept and written back (`extra="allow"`);
    an unversioned line reads as schema version 1.
    """

    schema_version: int = TRACE_VERSION
    step: int
    kind: StepKind
    t: float = 0.0
    text: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] | str | None = None
    result: str | None = None
    error: str | None = None
    image: str | None = None
    svg: str | None = None
    changed: list[str] = Field(default_factory=list)
    usage: dict[str, Any] | None = None
    tool_calls: list[dict[str, Any]] | None = None
    latency_s: float | None = None
    retries: list[dict[str, Any]] | None = None
    sampling: dict[str, Any] | None = None
    request_key: str | None = None
    request_parts: dict[str, str] | None = None
    cached: bool | None = None
    tool_calls_in_text: bool | None = None
    sent: dict[str, Any] | None = None
    drawn_by: DrawnBy | None = None
    ops: list[dict[str, Any]] | None = None
    data: dict[str, Any] | None = None
    seen: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the step as the JSON object of one trace line: its schema version, the common fields, its kind's,
        then any key it was made or read with that this mcot does not know."""
        line = {SCHEMA_KEY: self.schema_version}
        line.update((name, getattr(self, name)) for name in (*_COMMON, *_EXTRA[self.kind]))
        if self.model_extra:
            line.update(self.model_extra)
        return line

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = TRACES) -> Step:
        """Return a Step from one parsed trace line (its `pair` key dropped; no `schema_version`: version 1);
        raise RunDirError naming `where` when it is not a step (no step number or kind, a newer schema)."""
        row = versioned(data, TRACE_VERSION, where)
        row.pop(PAIR, None)
        if row.get("changed") is None:
            row["changed"] = []
        try:
            return cls.model_validate(row)
        except ValidationError as exc:
            raise RunDirError(f"{where}: a line is not a trace step ({validation_message(exc)})") from None


@dataclass
class Trace:
    """The ordered steps of one (item, mode) solve; `pair` is the (item id, arm) its file names, when known."""

    steps: list[Step] = field(default_factory=list)
    pair: tuple[str, str] | None = None

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def to_lines(self, pair: tuple[str, str] | None = None) -> list[str]:
        """Return one JSON line per step (no trailing newlines), each naming `pair` (else the trace's own) when given."""
        owner = pair or self.pair
        tag = {PAIR: {"id": owner[0], "mode": owner[1]}} if owner else {}
        return [json_line({**step.to_dict(), **tag}, lenient=True) for step in self.steps]

    def to_text(self, pair: tuple[str, str] | None = None) -> str:
        """Return the trace file's text: `to_lines(pair)`, each ended by a newline."""
        return "".join(line + "\n" for line in self.to_lines(pair))

    def write_jsonl(self, path: Path | str, pair: tuple[str, str] | None = None) -> Path:
        """Write the trace as JSON lines atomically, with the umask's mode; return the path."""
        return write_jsonl(Path(path), self.to_lines(pair), line=str)

    @classmethod
    def read_jsonl(cls, path: Path | str) -> Trace:
        """Return the trace stored in a JSON-lines file (its pair too, when the file names one)."""
        rows = list(iter_jsonl(Path(path)))
        return cls([Step.from_dict(row, str(path)) for row in rows], pair=pair_of(rows))

    def ops(self, upto: int | None = None) -> list[dict[str, Any]]:
        """Return the canvas op records of the tool steps before line `upto` (all when None), in order."""
        out: list[dict[str, Any]] = []
        for step in self.steps[:upto]:
            if step.kind == "tool" and step.ops:
                out.extend(step.ops)
        return out

    def of_kind(self, kind: StepKind) -> list[Step]:
        """Return the steps of one kind."""
        return [s for s in self.steps if s.kind == kind]


def sent_to_model(steps: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """Return what the model was given before its first turn (`system`, `task`, `tools`, `schema_flavor`), as the
    trace's first model step recorded it (`sent`); None for a trace written before it was recorded."""
    for step in steps:
        if step.get("kind") == "model" and isinstance(step.get("sent"), dict):
            return step["sent"]
    return None


def pair_of(rows: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Return the (item id, arm) the first trace line names, or None (a trace written before pairs were kept)."""
    tag = rows[0].get(PAIR) if rows else None
    if isinstance(tag, dict) and isinstance(tag.get("id"), str) and isinstance(tag.get("mode"), str):
        return tag["id"], tag["mode"]
    return None


def _readable(text: str) -> str:
    return _READABLE.sub("_", text)[:READABLE_CHARS].strip("_") or "_"


def trace_name(item_id: str, mode: str) -> str:
    """Return the file name of the trace of (item_id, mode): `<readable id>.<hash of the pair>.<readable arm>.jsonl`.

    The hash is of the exact pair, so ids that differ in any character (`q#1`, `q&1`, `q 1`, `a/b` and `a_b`, a NUL,
    a case) get different files; the name is ASCII and at most 200 bytes, whatever the id's length.
    """
    exact = f"{len(item_id)}:{item_id}\x00{mode}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(exact).hexdigest()[:HASH_CHARS]
    return f"{_readable(item_id)}.{digest}.{_readable(mode)}.jsonl"


def trace_relpath(item_id: str, mode: str) -> str:
    """Return the run-relative path of the trace of (item_id, mode), as result lines record it."""
    return f"{TRACES}/{trace_name(item_id, mode)}"


def legacy_trace_relpath(item_id: str, mode: str) -> str:
    """Return where runs made before hashed names kept a trace whose result line names none (`traces/<id>.<mode>.jsonl`)."""
    return f"{TRACES}/{item_id}.{mode}.jsonl"


@dataclass(frozen=True)
class TraceStore:
    """The traces of one run directory: where each pair's file is, writing it, reading it back."""

    root: Path

    @property
    def folder(self) -> Path:
        """Return RUN/traces."""
        return self.root / TRACES

    def path(self, item_id: str, mode: str) -> Path:
        """Return where the trace of (item_id, mode) is written."""
        return self.root / trace_relpath(item_id, mode)

    def write(self, item_id: str, mode: str, trace: Trace) -> str:
        """Write the trace of (item_id, mode) atomically; return its run-relative path (for the result line)."""
        trace.write_jsonl(self.path(item_id, mode), (item_id, mode))
        return trace_relpath(item_id, mode)

    def write_text(self, item_id: str, mode: str, text: str) -> str:
        """Write trace text made elsewhere (`Trace.to_text((item_id, mode))`, a remote worker's); return its path."""
        write_text_atomic(self.path(item_id, mode), text)
        return trace_relpath(item_id, mode)

    def locate(self, relative: str) -> Path | None:
        """Return the file a result line's `trace` names, or None when the name would leave RUN/traces."""
        if not isinstance(relative, str) or not relative or "\x00" in relative:
            return None
        path = self.root / relative
        try:
            inside = path.resolve().is_relative_to(self.folder.resolve())
        except (OSError, RuntimeError, ValueError):
            return None
        return path if inside else None

    def read(self, relative: str | None, pair: tuple[str, str] | None = None) -> list[dict[str, Any]] | None:
        """Return the steps of the trace a result line names (their `pair` key dropped), or None when there is none.

        With `pair`, a file that names another pair is not this pair's trace (None). A line of a newer schema than
        this mcot reads raises RunDirError. The steps stay JSON objects (the verifiers, the viewer and the exports
        read them as written; `Trace.read_jsonl` gives them typed).
        """
        path = self.locate(relative) if relative else None
        if path is None or not path.is_file():
            return None
        rows = list(iter_jsonl(path))
        owner = pair_of(rows)
        if pair is not None and owner is not None and owner != pair:
            return None
        where = str(path)
        for row in rows:
            line_version(row, TRACE_VERSION, where)
            row.pop(PAIR, None)
        return rows
