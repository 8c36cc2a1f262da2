"""Reading and writing the files of a run directory that scoring uses (layout: DESIGN.md, docs/contracts.md)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from benchmarks.item import ITEMS_FILE, Item, ItemError, read_items
from eval.errors import EvalError

Method = Literal["rule", "judge", "judge_error", "none"]
MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
SCORES = "scores.jsonl"


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
    """Return the JSON objects of a JSONL file; a truncated last line (a killed writer) is ignored."""
    rows: list[dict[str, Any]] = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise EvalError(f"{path}:{number}: not JSON ({exc.msg})") from exc
    return rows


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
