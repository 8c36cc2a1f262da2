"""A run directory as a whole: `RunDir` for the command that writes it, `open_run` / `Run` for those that read it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.benchmarks.item import Item, ItemError, read_items
from mcot.rundir.blobs import BlobStore
from mcot.rundir.errors import RunDirError
from mcot.rundir.items import check_frozen_items, source_change
from mcot.rundir.layout import BLOBS, MANIFEST, RESULTS
from mcot.rundir.ledger import ResultsLedger
from mcot.rundir.manifest import Manifest, order_arms, read_manifest, write_manifest
from mcot.rundir.results import Result
from mcot.rundir.traces import TraceStore, legacy_trace_relpath


@dataclass(frozen=True)
class Run:
    """A run directory opened for reading: manifest, last result per (id, arm), its frozen items and their root.

    `items` come from RUN/items.jsonl only (checked against the manifest's dataset hash); `items_root` is
    where item images are read from (the manifest's dataset path, else the run). `source_changed` is one line
    naming how the source dataset differs from when the run started, or None when it does not (or is unknown).
    """

    root: Path
    manifest: Manifest
    results: dict[tuple[str, str], Result]
    items: dict[str, Item]
    items_root: Path
    source_changed: str | None = None

    @property
    def arms(self) -> list[str]:
        """Return the run's arm names: the manifest's `arms`, else its `modes`, else those of the results."""
        return self.manifest.arm_names() or order_arms({mode for _, mode in self.results})

    def arm_tools(self, arm: str) -> tuple[str, ...] | None:
        """Return the tool names the manifest lists for `arm` (() for text), or None when it does not say."""
        return self.manifest.arm_tools(arm)

    def trace(self, item_id: str, mode: str) -> list[dict[str, Any]] | None:
        """Return the steps of the trace of (item_id, mode), or None when it has none.

        The result line names the file; a result line without a `trace` key (the oldest runs) means
        `traces/<id>.<mode>.jsonl`. A file that names another pair is not this pair's.
        """
        result = self.results.get((item_id, mode))
        relative = result.trace_path() if result is not None else legacy_trace_relpath(item_id, mode)
        return TraceStore(self.root).read(relative, (item_id, mode))


def open_run(root: Path) -> Run:
    """Return the run at `root` with its frozen items; raise RunDirError when it is not a run or its items changed."""
    root = Path(root)
    manifest = read_manifest(root)
    items_path = check_frozen_items(root, manifest)
    results = ResultsLedger(root).latest()
    try:
        items = {item.id: item for item in read_items(items_path.parent)}
    except ItemError as exc:
        raise RunDirError(str(exc)) from None
    dataset_path = manifest.dataset.path
    items_root = Path(dataset_path) if dataset_path and Path(dataset_path).is_dir() else root
    return Run(root, manifest, results, items, items_root, source_change(manifest))


@dataclass
class RunDir:
    """The run directory a run command writes: its paths, manifest, results ledger, traces and blobs."""

    root: Path
    _ledger: ResultsLedger | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    @property
    def manifest_path(self) -> Path:
        """Return RUN/manifest.json."""
        return self.root / MANIFEST

    @property
    def results_path(self) -> Path:
        """Return RUN/results.jsonl."""
        return self.root / RESULTS

    @property
    def traces(self) -> TraceStore:
        """Return the run's trace store."""
        return TraceStore(self.root)

    @property
    def traces_dir(self) -> Path:
        """Return RUN/traces."""
        return self.traces.folder

    @property
    def blobs_dir(self) -> Path:
        """Return RUN/blobs."""
        return self.root / BLOBS

    def blobs(self) -> BlobStore:
        """Return the run's blob store."""
        return BlobStore(self.blobs_dir)

    def trace_path(self, item_id: str, mode: str) -> Path:
        """Return where the trace of (item, mode) is written (a hashed name inside RUN/traces)."""
        return self.traces.path(item_id, mode)

    def exists(self) -> bool:
        """Return whether a manifest is present."""
        return self.manifest_path.is_file()

    def read_manifest(self) -> Manifest:
        """Return the manifest; raise RunDirError when absent or malformed."""
        return read_manifest(self.root)

    def write_manifest(self, manifest: Manifest) -> None:
        """Write the manifest atomically."""
        write_manifest(self.root, manifest)

    def results(self) -> dict[tuple[str, str], Result]:
        """Return the newest result line per (id, mode)."""
        return ResultsLedger(self.root).latest()

    def result_lines(self) -> Iterator[Result]:
        """Yield every line of the ledger, in the order written (a retried pair has several)."""
        return ResultsLedger(self.root).records()

    def open(self) -> None:
        """Create the folders and open the results ledger for appending (a torn last line dropped first)."""
        self.traces_dir.mkdir(parents=True, exist_ok=True)
        self.blobs_dir.mkdir(parents=True, exist_ok=True)
        self._ledger = ResultsLedger(self.root)
        self._ledger.open()

    def append_result(self, record: Result) -> None:
        """Append one result line: the resume ledger."""
        if self._ledger is None:
            raise RunDirError(f"{self.root}: run directory not opened")
        self._ledger.append(record)

    def close(self) -> None:
        """Sync and close the ledger."""
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None
