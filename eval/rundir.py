"""The run directory (DESIGN.md, docs/contracts.md): its file names, the results ledger, manifest, scores, items.

The one module that reads and writes run directories: `mcot run` writes through `RunDir`, scoring, compare,
export and view read through `open_run`, `read_jsonl` and `read_scores`. Whole files are written with
`write_text_atomic` / `write_bytes_atomic` (benchmarks/files.py: a temporary sibling and a rename, with the umask's
modes, 644 / 755 under the usual 022), the results ledger by appending; folders are made with the umask's mode.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TextIO

from mcot.benchmarks.files import write_bytes_atomic, write_text_atomic
from mcot.benchmarks.item import ITEMS_FILE, Item, ItemError, read_items
from mcot.eval.errors import EvalError

Method = Literal["rule", "judge", "judge_error", "none", "error", "human"]
MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
SCORES = "scores.jsonl"
ITEMS_COPY = "items.jsonl"
TRACES = "traces"
BLOBS = "blobs"
SYNC_EVERY_S = 1.0
"""How often the results ledger is synced to disk while a run appends to it."""


class RunDirError(EvalError):
    """A run directory is missing, malformed, or belongs to a different experiment."""


@dataclass
class Score:
    """One line of RUN/scores.jsonl: the score of one (item id, arm) and how it was decided.

    `mode` is the arm's name. Method "error": the run did not finish the pair (status error or budget, or no
    result at all); such a score is wrong (`correct` False, `score` 0.0) with `status` and `reason` in details.
    """

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
    """A run directory opened for reading: manifest, last result per (id, arm), its frozen items and their root.

    `items` come from RUN/items.jsonl only (checked against the manifest's dataset hash); `items_root` is
    where item images are read from (the manifest's dataset path, else the run). `source_changed` is one line
    naming how the source dataset differs from when the run started, or None when it does not (or is unknown).
    """

    root: Path
    manifest: dict[str, Any]
    results: dict[tuple[str, str], dict[str, Any]]
    items: dict[str, Item]
    items_root: Path
    source_changed: str | None = None

    @property
    def arms(self) -> list[str]:
        """Return the run's arm names: the manifest's `arms`, else its `modes`, else those of the results."""
        return manifest_arms(self.manifest) or order_arms({mode for _, mode in self.results})

    def arm_tools(self, arm: str) -> tuple[str, ...] | None:
        """Return the tool names the manifest lists for `arm` (() for text), or None when it does not say."""
        for entry in self.manifest.get("arms") or []:
            if isinstance(entry, dict) and entry.get("name") == arm and isinstance(entry.get("tools"), list):
                return tuple(str(tool) for tool in entry["tools"])
        return () if arm == "text" else None

    def trace(self, item_id: str, mode: str) -> list[dict[str, Any]] | None:
        """Return the steps of the trace of (item_id, mode), or None when it has none."""
        result = self.results.get((item_id, mode), {})
        relative = result.get("trace") or f"traces/{item_id}.{mode}.jsonl"
        path = self.root / relative
        if not path.is_file():
            return None
        return read_jsonl(path)


def order_arms(names: Iterable[str]) -> list[str]:
    """Return arm names text first, then canvas, then tools, then the others by name."""
    rank = {"text": 0, "canvas": 1, "tools": 2}
    return sorted(set(names), key=lambda name: (rank.get(name, 3), name))


def manifest_arms(manifest: dict[str, Any]) -> list[str]:
    """Return the arm names a manifest lists (`arms[].name`, else `modes`), in its order; [] when neither."""
    arms = [str(entry["name"]) for entry in manifest.get("arms") or [] if isinstance(entry, dict) and entry.get("name")]
    if arms:
        return arms
    return [str(mode) for mode in manifest.get("modes") or []]


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


def read_manifest(root: Path) -> dict[str, Any]:
    """Return RUN/manifest.json; raise RunDirError when `root` is not a run directory or the manifest is not JSON."""
    manifest_path = Path(root) / MANIFEST
    if not manifest_path.is_file():
        raise RunDirError(f"{root} is not a run directory: {MANIFEST} is missing (make one with `mcot run`)")
    try:
        return json.loads(manifest_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunDirError(f"{manifest_path} is not valid JSON ({exc.msg})") from exc


def check_frozen_items(root: Path, manifest: dict[str, Any]) -> Path:
    """Return RUN/items.jsonl after checking it against the manifest's `dataset.sha256`.

    Raise RunDirError when the file is missing or its hash differs (the run's frozen items were changed).
    A manifest without a dataset hash is not checked.
    """
    path = Path(root) / ITEMS_COPY
    if not path.is_file():
        raise RunDirError(
            f"{path} is missing: a run keeps a frozen copy of its items there, and scoring, compare, export and view "
            "read only that copy; restore it, or make a new run with `mcot run`"
        )
    expected = (manifest.get("dataset") or {}).get("sha256")
    if expected and file_sha256(path) != expected:
        raise RunDirError(
            f"{path} does not match the manifest's dataset hash: the run's frozen items were changed "
            f"(sha256 {file_sha256(path)[:12]}… now, {str(expected)[:12]}… in the manifest); restore the file "
            "(the run's results belong to the items it was run on) or make a new run with another --out"
        )
    return path


def source_change(manifest: dict[str, Any]) -> str | None:
    """Return one line naming how the source dataset differs from when the run started, or None.

    None also when the manifest does not record the source hash (older runs) or has no dataset path.
    """
    dataset = manifest.get("dataset") or {}
    expected, where = dataset.get("source_sha256"), dataset.get("path")
    if not expected or not where:
        return None
    source = Path(where) / ITEMS_FILE
    if not source.is_file():
        return f"the source dataset {source} is gone since the run; scored from the run's frozen copy RUN/{ITEMS_COPY}"
    actual = file_sha256(source)
    if actual == expected:
        return None
    return (
        f"the source dataset {source} changed since the run (sha256 {actual[:12]}… now, {str(expected)[:12]}… "
        f"when the run started); scored from the run's frozen copy RUN/{ITEMS_COPY}"
    )


def open_run(root: Path) -> Run:
    """Return the run at `root` with its frozen items; raise EvalError when it is not a run or its items changed."""
    root = Path(root)
    manifest = read_manifest(root)
    items_path = check_frozen_items(root, manifest)
    results: dict[tuple[str, str], dict[str, Any]] = {}
    if (root / RESULTS).is_file():
        for row in read_jsonl(root / RESULTS):
            results[(str(row.get("id")), str(row.get("mode")))] = row
    try:
        items = {item.id: item for item in read_items(items_path.parent)}
    except ItemError as exc:
        raise EvalError(str(exc)) from exc
    dataset_path = (manifest.get("dataset") or {}).get("path")
    items_root = Path(dataset_path) if dataset_path and Path(dataset_path).is_dir() else root
    return Run(root, manifest, results, items, items_root, source_change(manifest))


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
    _synced: float = field(default=float("-inf"), init=False, repr=False)

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
        return read_manifest(self.root)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest atomically."""
        write_json_atomic(self.manifest_path, manifest)

    def results(self) -> dict[tuple[str, str], dict[str, Any]]:
        """Return the newest result line per (id, mode)."""
        return latest_by_key(self.result_lines())

    def result_lines(self) -> list[dict[str, Any]]:
        """Return every line of the ledger, in the order written (a retried pair has several)."""
        return read_jsonl(self.results_path)

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
            write_bytes_atomic(self.results_path, data[: data.rfind(b"\n") + 1])

    def append_result(self, record: dict[str, Any]) -> None:
        """Append one result line: the resume ledger.

        Each line is handed to the kernel at once (a killed process loses nothing it wrote); the disk is synced
        at most once a second and on close, since a sync per line caps a fast run at the disk's sync rate.
        """
        if self._results is None:
            raise RunDirError("run directory not opened")
        self._results.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._results.flush()
        now = time.monotonic()
        if now - self._synced >= SYNC_EVERY_S:
            os.fsync(self._results.fileno())
            self._synced = now

    def close(self) -> None:
        """Sync and close the ledger."""
        if self._results is not None:
            self._results.flush()
            os.fsync(self._results.fileno())
            self._results.close()
            self._results = None
