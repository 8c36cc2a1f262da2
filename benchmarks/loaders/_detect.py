"""Which native format a path holds, from its layout and a peek at its first bytes."""

from __future__ import annotations

import json
from pathlib import Path

from mcot.benchmarks.item import ITEMS_FILE
from mcot.benchmarks.loaders.gepbench import dataset_root
from mcot.benchmarks.loaders.gobench import DATA_FILE

_PEEK = 65_536
_ITEM_KEYS = {"id", "benchmark", "answer_type"}


def detect_format(path: Path) -> str | None:
    """Return "items", "rbench-v", "gepbench", "gobench" or "omniphys" for a file or folder, or None."""
    path = Path(path)
    if path.is_dir():
        return _detect_dir(path)
    if path.is_file():
        return _detect_file(path)
    return None


def _detect_dir(path: Path) -> str | None:
    if (path / ITEMS_FILE).is_file():
        return "items"
    if dataset_root(path) is not None:
        return "gepbench"
    if (path / DATA_FILE).is_file():
        return "gobench"
    if any(path.rglob("*.parquet")) or any(p for p in path.rglob("*.arrow") if not p.name.startswith("cache-")):
        return "rbench-v"
    for tsv in sorted(path.glob("*.tsv")):
        if _detect_file(tsv) == "rbench-v":
            return "rbench-v"
    jsonl = sorted(path.glob("*.jsonl"))
    if jsonl and _detect_file(jsonl[0]) == "omniphys":
        return "omniphys"
    return None


def _detect_file(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if suffix in {".parquet", ".arrow"}:
        return "rbench-v"
    head = _peek(path)
    if suffix == ".tsv":
        columns = set(head.split("\n", 1)[0].strip("\r").split("\t"))
        if {"question", "answer"} <= columns and columns & {"subject", "catagory", "category"}:
            return "rbench-v"
        return None
    if suffix == ".json":
        return "gobench" if path.name == DATA_FILE or '"Questions_reality"' in head else None
    if suffix == ".jsonl":
        first = head.split("\n", 1)[0]
        try:
            record = json.loads(first)
        except json.JSONDecodeError:
            return "omniphys" if first.lstrip().startswith("{") else None
        if not isinstance(record, dict):
            return None
        if path.name == ITEMS_FILE and _ITEM_KEYS <= set(record):
            return "items"
        return "omniphys"
    return None


def _peek(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(_PEEK).decode("utf-8", errors="replace")
    except OSError:
        return ""
