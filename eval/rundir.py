"""The run directory (DESIGN.md, docs/contracts.md): its file names, the results ledger, manifest, scores, items.

The one module that reads and writes run directories: `mcot run` writes through `RunDir`, scoring, compare,
export and view read through `open_run`, `read_jsonl` and `read_scores`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TextIO

from benchmarks.item import ITEMS_FILE, Item, ItemError, read_items
from eval.errors import EvalError

Method = Literal["rule", "judge", "judge_error", "none"]
MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
SCORES = "scores.jsonl"
ITEMS_COPY = "items.jsonl"
TRACES = "traces"
BLOBS = "blobs"

# Fields that must match when a run directory is resumed: anything else would mix two experiments.
RESUME_KEYS = ("model", "dataset")


class RunDirError(EvalError):
    """A run directory is missing, malformed, or belongs to a different experiment."""


@dataclass
class Score:
    """One line of RUN/scores.jsonl: the score of one (item id, mode) and how it was decided."""

    id: str
    mode: str
    benchmark: str
    category: str
    score: float | None
    correct: bool | None
    method: Method
    extracted: str | None = None
    judge: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json_line(self) -> str:
        """Return the score as one JSON line (no newline)."""
        return json.dumps(asdict(self), ensure_ascii=False, default=_json_default)


def _json_default(value: object) -> object:
    if isinstance(value, Path):
        return value.as_posix()
    if hasattr(value, "item"):
        return value.item()  # numpy scalars
    raise TypeError(f"cannot serialise {type(value).__name__}")


@dataclass(frozen=True)
class Run:
    """A run directory opened for scoring: manifest, last result per (id, mode), the items and their root."""

    root: Path
    manifest: dict[str, Any]
    results: dict[tuple[str, str], dict[str, Any]]
    items: dict[str, Item]
    items_root: Path

    def trace(self, item_id: str, mode: str) -> list[dict[str, Any]] | None:
        """Return the steps of the trace of (item_id, mode), or None when it has none."""
        result = self.results.get((item_id, mode), {})
        relative = result.get("trace") or f"traces/{item_id}.{mode}.jsonl"
        path = self.root / relative
        if not path.is_file():
            return None
        return read_jsonl(path)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Return the JSON objects of a JSONL file (none when it is absent); a torn last line (a killed writer) is ignored.

    Raise RunDirError naming the file and line when any other line is not JSON.
    """
    path = Path(path)
    if not path.is_file():
        return []
    rows: list[dict[str, Any]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise RunDirError(f"{path}:{number}: not JSON ({exc.msg})") from exc
    return rows


def latest_by_key(records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Return the last record for each (id, mode): a retried item's newest line wins."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        latest[(str(record["id"]), str(record["mode"]))] = record
    return latest


def open_run(root: Path) -> Run:
    """Return the run at `root`; raise EvalError when it is not a run directory or its items cannot be found."""
    root = Path(root)
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise EvalError(f"{root} is not a run directory: {MANIFEST} is missing (make one with `mcot run`)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise EvalError(f"{manifest_path} is not valid JSON ({exc.msg})") from exc
    results: dict[tuple[str, str], dict[str, Any]] = {}
    if (root / RESULTS).is_file():
        for row in read_jsonl(root / RESULTS):
            results[(str(row.get("id")), str(row.get("mode")))] = row
    items, items_root = _load_items(root, manifest)
    return Run(root, manifest, results, items, items_root)


def _load_items(root: Path, manifest: dict[str, Any]) -> tuple[dict[str, Item], Path]:
    """Return the run's items by id, from the dataset path of the manifest, else from RUN/items.jsonl."""
    candidates: list[Path] = []
    dataset_path = (manifest.get("dataset") or {}).get("path")
    if dataset_path:
        candidates.append(Path(dataset_path))
    candidates.append(root)
    for candidate in candidates:
        if (candidate / ITEMS_FILE).is_file():
            try:
                return {item.id: item for item in read_items(candidate)}, candidate
            except ItemError as exc:
                raise EvalError(str(exc)) from exc
    raise EvalError(
        f"no items found for {root}: neither the dataset path {dataset_path!r} nor {root / ITEMS_FILE} exists"
    )


def read_scores(root: Path) -> list[Score]:
    """Return the scores of a scored run (last line wins per (id, mode)); raise EvalError when unscored."""
    path = Path(root) / SCORES
    if not path.is_file():
        raise EvalError(f"{root} has no {SCORES}: run `mcot score {root}` first")
    latest: dict[tuple[str, str], Score] = {}
    for row in read_jsonl(path):
        try:
            score = Score(**row)
        except TypeError as exc:
            raise EvalError(f"{path}: a line does not have the score fields ({exc})") from exc
        latest[(score.id, score.mode)] = score
    return list(latest.values())


def write_scores(root: Path, scores: Iterable[Score]) -> Path:
    """Write RUN/scores.jsonl atomically and return its path."""
    return write_text_atomic(Path(root) / SCORES, "".join(score.to_json_line() + "\n" for score in scores))


def write_text_atomic(path: Path, text: str) -> Path:
    """Write `text` to `path` through a temporary sibling and a rename; return `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


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
