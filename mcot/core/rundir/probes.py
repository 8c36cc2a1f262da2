"""The probes file, RUN/probes.jsonl: one `Probe` a line per (item id, arm, kind) that `mcot probe` asked.

A probe asks the run's model again for the final answer of a finished pair with the trace's own observations
changed (docs/scoring.md, "Faithfulness probes"). The file is append-only and is the probes' resume ledger: a
line is handed to the kernel as it is written, a torn last line (a killed probe) is dropped before appending,
and when a key appears twice (an error asked again) the last line wins.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Literal

from pydantic import Field, ValidationError

from mcot.core.rundir.errors import RunDirError
from mcot.core.rundir.jsonl import iter_jsonl, json_line
from mcot.core.rundir.layout import PROBES
from mcot.core.rundir.ledger import repair_torn_tail
from mcot.core.rundir.versions import SCHEMA_KEY, OpenRecord, validation_message, versioned

PROBE_VERSION = 1
"""probes.jsonl: 1, the first version (every line carries it)."""
ProbeStatus = Literal["ok", "error", "no_drawing"]
"""ok: asked and answered; error: the probe could not be asked or answered (`error` says why); no_drawing: the
trace has nothing the probe could change (no drawing by the model), so the model was not asked."""


class Probe(OpenRecord):
    """One line of RUN/probes.jsonl: the model's answer to one (item, arm) with its observations changed by `kind`.

    `answer` is the reply's text verbatim, `extracted` what the benchmark's protocol read from it and `original`
    what it read from the unprobed prediction; `changed` whether the two differ, `correct` the protocol's verdict
    on the probed answer and `original_correct` the one on the unprobed answer. `images` counts the images the
    probe changed (replaced or removed); `donor` is the item whose drawings a shuffle showed; `setting` holds a
    perturbation's amounts. `usage` is the call's `{input_tokens, output_tokens, cost_usd, cached}`.
    """

    schema_version: int = PROBE_VERSION
    id: str
    arm: str
    kind: str
    status: ProbeStatus = "ok"
    benchmark: str = ""
    category: str = ""
    answer: str | None = None
    extracted: str | None = None
    original: str | None = None
    changed: bool | None = None
    correct: bool | None = None
    original_correct: bool | None = None
    images: int = 0
    donor: str | None = None
    setting: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """Return what the line is about: (item id, arm, kind)."""
        return self.id, self.arm, self.kind

    @property
    def done(self) -> bool:
        """Return whether a resume keeps the line (an answer, or nothing to change); an error is asked again."""
        return self.status != "error"

    def to_line(self) -> str:
        """Return the probe as one JSON line (no newline), its schema version first."""
        return json_line({SCHEMA_KEY: self.schema_version, **self.model_dump(exclude={SCHEMA_KEY})})

    @classmethod
    def from_line(cls, row: Mapping[str, Any], where: str = PROBES) -> Probe:
        """Return the probe a parsed line holds; raise RunDirError naming `where` for a line that is not one."""
        try:
            return cls.model_validate(versioned(row, PROBE_VERSION, where))
        except ValidationError as exc:
            raise RunDirError(f"{where}: a line does not have the probe fields ({validation_message(exc)})") from None


class ProbeLedger:
    """RUN/probes.jsonl: read it line by line, or open it and append probe lines."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / PROBES
        self._handle: BinaryIO | None = None

    def records(self) -> Iterator[Probe]:
        """Yield every probe line in the order written (none when the file is absent)."""
        where = str(self.path)
        for row in iter_jsonl(self.path):
            yield Probe.from_line(row, where)

    def latest(self) -> dict[tuple[str, str, str], Probe]:
        """Return the newest line per (item id, arm, kind)."""
        return {probe.key: probe for probe in self.records()}

    def open(self) -> None:
        """Drop a torn last line, then open the file for appending."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair_torn_tail(self.path)
        self._handle = self.path.open("ab")

    def append(self, probe: Probe) -> None:
        """Append one probe line, handed to the kernel at once."""
        if self._handle is None:
            raise RunDirError(f"{self.path} is not open for appending")
        self._handle.write((probe.to_line() + "\n").encode("utf-8"))
        self._handle.flush()

    def close(self) -> None:
        """Sync and close the file."""
        if self._handle is not None:
            try:
                os.fsync(self._handle.fileno())
            finally:
                self._handle.close()
                self._handle = None


def read_probes(root: Path) -> list[Probe]:
    """Return the newest probe line per (item id, arm, kind) of a run (empty when it was never probed)."""
    return list(ProbeLedger(root).latest().values())


def pair_probes(root: Path, item_id: str, arm: str) -> list[dict[str, Any]]:
    """Return what the viewer shows of the probes of one (item id, arm): kind, status, extracted, changed, correct."""
    path = Path(root) / PROBES
    try:
        stat = path.stat()
    except OSError:
        return []
    return list(_probes_by_pair(str(path), stat.st_mtime_ns, stat.st_size).get((item_id, arm), ()))


@lru_cache(maxsize=4)
def _probes_by_pair(path: str, mtime_ns: int, size: int) -> dict[tuple[str, str], tuple[dict[str, Any], ...]]:
    """Return the probes of a file by pair, read once per version of the file (its time and size)."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for probe in ProbeLedger(Path(path).parent).latest().values():
        shown = {"kind": probe.kind, "status": probe.status, "extracted": probe.extracted,
                 "changed": probe.changed, "correct": probe.correct, "images": probe.images, "error": probe.error}  # fmt: skip
        grouped.setdefault((probe.id, probe.arm), []).append(shown)
    return {pair: tuple(lines) for pair, lines in grouped.items()}
