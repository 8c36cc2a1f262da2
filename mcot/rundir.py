"""The run directory of DESIGN.md: manifest, the append-only results ledger, traces and blobs."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from eval.errors import EvalError
from eval.rundir import MANIFEST, RESULTS, SCORES, write_text_atomic
from eval.rundir import read_jsonl as read_jsonl_file

ITEMS_COPY = "items.jsonl"
TRACES = "traces"
BLOBS = "blobs"

# Fields that must match when a run directory is resumed: anything else would mix two experiments.
RESUME_KEYS = ("model", "dataset")


class RunDirError(ValueError):
    """A run directory is missing, malformed, or belongs to a different experiment."""


def now_iso() -> str:
    """Return the current UTC time as an ISO-8601 string with seconds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def file_sha256(path: Path) -> str:
    """Return the hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_json_atomic(path: Path, data: Any) -> None:
    """Write `data` as pretty JSON to `path` through a temporary file and a rename."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Return the JSON objects of a JSON-lines file (none when it is absent); a torn last line is ignored."""
    if not Path(path).is_file():
        return []
    try:
        return read_jsonl_file(path)
    except EvalError as exc:
        raise RunDirError(str(exc)) from exc


def latest_by_key(records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Return the last record for each (id, mode): a retried item's newest line wins."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        latest[(str(record["id"]), str(record["mode"]))] = record
    return latest


@dataclass
class RunDir:
    """Paths and ledgers of one run directory."""

    root: Path
    _results: TextIO | None = field(default=None, init=False, repr=False)

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def results_path(self) -> Path:
        return self.root / RESULTS

    @property
    def scores_path(self) -> Path:
        return self.root / SCORES

    @property
    def traces_dir(self) -> Path:
        return self.root / TRACES

    @property
    def blobs_dir(self) -> Path:
        return self.root / BLOBS

    def trace_path(self, item_id: str, mode: str) -> Path:
        """Return where the trace of (item, mode) lives; ids are sanitised to stay inside traces/."""
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in item_id).lstrip(".") or "_"
        return self.traces_dir / f"{safe}.{mode}.jsonl"

    def exists(self) -> bool:
        """Return whether a manifest is present."""
        return self.manifest_path.is_file()

    def read_manifest(self) -> dict[str, Any]:
        """Return the manifest; raise RunDirError when absent or malformed."""
        if not self.manifest_path.is_file():
            raise RunDirError(f"{self.root} is not a run directory (no {MANIFEST})")
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise RunDirError(f"{self.manifest_path}: not JSON ({exc.msg})") from exc

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest atomically."""
        write_json_atomic(self.manifest_path, manifest)

    def results(self) -> dict[tuple[str, str], dict[str, Any]]:
        """Return the newest result line per (id, mode)."""
        return latest_by_key(read_jsonl(self.results_path))

    def open(self) -> None:
        """Create the folders and open the results ledger for appending."""
        self.traces_dir.mkdir(parents=True, exist_ok=True)
        self.blobs_dir.mkdir(parents=True, exist_ok=True)
        self._repair_torn_ledger()
        self._results = self.results_path.open("a", encoding="utf-8")

    def _repair_torn_ledger(self) -> None:
        """Drop a half-written last line (a killed run) so that appended lines stay parseable."""
        if not self.results_path.is_file():
            return
        data = self.results_path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data[: data.rfind(b"\n") + 1]
            self.results_path.write_bytes(keep)

    def append_result(self, record: dict[str, Any]) -> None:
        """Append one result line and flush it to disk: this line is the resume ledger."""
        if self._results is None:
            raise RunDirError("run directory not opened")
        self._results.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._results.flush()
        os.fsync(self._results.fileno())

    def close(self) -> None:
        """Close the ledger."""
        if self._results is not None:
            self._results.close()
            self._results = None


def check_resumable(existing: dict[str, Any], fresh: dict[str, Any]) -> None:
    """Raise RunDirError when a resumed run would mix a different model or dataset into `existing`."""
    for key in RESUME_KEYS:
        old, new = existing.get(key), fresh.get(key)
        if key == "dataset":
            old = (old or {}).get("sha256")
            new = (new or {}).get("sha256")
        elif key == "model":
            old = (old or {}).get("spec")
            new = (new or {}).get("spec")
        if old != new:
            raise RunDirError(f"{key} differs from the existing run ({old!r} there, {new!r} now); use another --out")
