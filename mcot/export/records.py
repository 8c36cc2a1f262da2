"""The (item, arm) pairs of a run and the `records` view: one record per pair, failed and missing ones flagged.

An items directory (no run) is a source too (`items_source`): a Run with its items and one arm (a toolset) but
no results, whose pairs are prompts: the views that take it (`mcot export ITEMS --as verl|trl`) write RL prompt
rows from the items alone, and their flags say so (`status` null).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot.core.item import Item, ItemError, contained_path, iter_items
from mcot.core.rundir import (
    MANIFEST,
    RESULTS,
    SCORES,
    ArmEntry,
    Manifest,
    Result,
    Run,
    Score,
    check_frozen_items,
    order_arms,
    read_jsonl,
    read_manifest,
    source_change,
)
from mcot.eval.advice import MISSING_STATUS
from mcot.export.images import ImageCatalog

ITEMS_SOURCE = "items"
"""`Pair.source` of a pair read from an items directory (no run): a prompt, with no result, score or trace."""
MISSING_REASON = "the run has no result for this item and arm (interrupted, or not run yet)"
_STEP_IMAGES = ("image", "seen")
Keep = Callable[[Item, str], bool]
"""Whether an export keeps the pair of an item and an arm (its filters and its split)."""


@dataclass(frozen=True)
class Pair:
    """One (item, arm) of a run: its result line, score line and trace steps (empty when it has none)."""

    run: Run
    item: Item
    arm: str
    result: Result | None
    score: Score | None
    trace: list[dict[str, Any]]
    index: int = 0
    """The pair's position in the export (0, 1, …), in item order then arm order."""
    source: str = "run"
    """"run", or ITEMS_SOURCE for a prompt read from an items directory."""

    @property
    def is_prompt(self) -> bool:
        """Return whether the pair is a prompt from an items directory (no run: no result, score or trace)."""
        return self.source == ITEMS_SOURCE

    @property
    def status(self) -> str | None:
        """Return the result's status (ok, error, budget), "missing" when the run has no result for the pair, or
        None for a prompt from an items directory."""
        if self.is_prompt:
            return None
        return (self.result.status or "error") if self.result is not None else MISSING_STATUS

    @property
    def error(self) -> str | None:
        """Return why the pair did not finish (the result's error), or None."""
        if self.is_prompt:
            return None
        if self.result is None:
            return MISSING_REASON
        return self.result.error

    @property
    def correct(self) -> bool | None:
        """Return the score's `correct`, or None when the pair has no score."""
        return None if self.score is None else self.score.correct

    def item_image_paths(self) -> list[Path]:
        """Return the absolute paths of the item's images (under the run's items root); a path that leaves the
        items root (absolute, `..`, a symlink pointing outside) is left out, so no export copies a file from
        elsewhere."""
        return [self.run.items_root / rel for rel in self.item.images if _contained(self.run.items_root, rel)]

    def outside_images(self) -> list[str]:
        """Return the item's image paths that leave the items root (left out of every export), as written."""
        return [rel for rel in self.item.images if not _contained(self.run.items_root, rel)]

    def flags(self) -> dict[str, Any]:
        """Return the fields every view carries: id, arm (`mode`), benchmark, category, status, error, correct,
        score."""
        return {
            "id": self.item.id,
            "mode": self.arm,
            "benchmark": self.item.benchmark,
            "category": self.item.category,
            "status": self.status,
            "error": self.error,
            "correct": self.correct,
            "score": None if self.score is None else self.score.score,
        }


class LineIndex:
    """The last line per (id, mode) of a JSONL ledger (results.jsonl, scores.jsonl), kept as byte offsets and read
    back one line at a time: an export holds a few bytes per pair, not the pairs.

    A torn last line (a run killed mid-write) and lines that are not JSON objects are skipped, as read_jsonl does.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.offsets: dict[tuple[str, str], int] = {}
        self.correct: set[tuple[str, str]] = set()
        """The keys whose last line says `correct: true` (a score ledger's correct pairs)."""
        if not self.path.is_file():
            return
        with self.path.open("rb") as handle:
            offset = 0
            for line in handle:
                try:
                    row = json.loads(line)
                except ValueError:
                    row = None
                if isinstance(row, dict):
                    key = (str(row.get("id")), str(row.get("mode")))
                    self.offsets[key] = offset
                    (self.correct.add if row.get("correct") is True else self.correct.discard)(key)
                offset += len(line)

    def get(self, key: tuple[str, str]) -> dict[str, Any] | None:
        """Return the last line of `key` as parsed JSON, or None when the ledger has none."""
        offset = self.offsets.get(key)
        if offset is None:
            return None
        with self.path.open("rb") as handle:
            handle.seek(offset)
            row: dict[str, Any] = json.loads(handle.readline())
            return row

    def result(self, key: tuple[str, str]) -> Result | None:
        """Return the last line of `key` as a typed result line (see `Result.from_line`), or None."""
        row = self.get(key)
        return Result.from_line(row, str(self.path)) if row is not None else None

    def score(self, key: tuple[str, str]) -> Score | None:
        """Return the last line of `key` as a typed score line (see `Score.from_line`), or None."""
        row = self.get(key)
        return Score.from_line(row, str(self.path)) if row is not None else None

    def modes(self) -> set[str]:
        """Return the modes (arms) the ledger has lines for."""
        return {mode for _, mode in self.offsets}


@dataclass
class RunSource:
    """A run read for an export one pair at a time: its manifest (in `run`, whose results and items stay empty),
    its frozen items file, and indexes of its results and scores (None: not scored)."""

    run: Run
    items_path: Path
    results: LineIndex
    scores: LineIndex | None

    def arms(self) -> list[str]:
        """Return the arms to export: the manifest's, then any other arm that results were recorded under."""
        arms = self.run.manifest.arm_names() or order_arms(self.results.modes())
        return arms + [arm for arm in order_arms(self.results.modes()) if arm not in arms]

    def item_ids(self) -> Iterator[str]:
        """Yield the ids of the frozen items, in file order."""
        for item in iter_items(self.items_path.parent):
            yield item.id

    def pairs(self, only_correct: bool = False, keep: Keep | None = None) -> Iterator[Pair]:
        """Yield every (item, arm) in item order, then arm order, with its result, score and trace (with
        `only_correct`, only those scored correct; with `keep`, only those it keeps: their traces alone read)."""
        arms = self.arms()
        index = 0
        for item in iter_items(self.items_path.parent):
            for arm in arms:
                if keep is not None and not keep(item, arm):
                    continue
                score = self.scores.score((item.id, arm)) if self.scores is not None else None
                if only_correct and (score is None or score.correct is not True):
                    continue
                result = self.results.result((item.id, arm))
                trace = read_trace(self.run, item.id, arm, result) if result is not None else []
                yield Pair(self.run, item, arm, result, score, trace, index)
                index += 1


def open_source(root: Path) -> RunSource:
    """Return a run as an export reads it (the checks of mcot.eval.rundir.open_run: a run directory whose frozen
    items match its manifest; raise EvalError otherwise), without loading its items, results or scores."""

    root = Path(root)
    manifest = read_manifest(root)
    items_path = check_frozen_items(root, manifest)
    dataset_path = manifest.dataset.path
    items_root = Path(dataset_path) if dataset_path and Path(dataset_path).is_dir() else root
    run = Run(root, manifest, {}, {}, items_root, source_change(manifest))
    scores = LineIndex(root / SCORES) if (root / SCORES).is_file() else None
    return RunSource(run, items_path, LineIndex(root / RESULTS), scores)


def read_trace(run: Run, item_id: str, arm: str, result: Result) -> list[dict[str, Any]]:
    """Return the steps of the trace a result names (`trace`, else traces/<id>.<arm>.jsonl), [] when it has none."""
    relative = result.trace or f"traces/{item_id}.{arm}.jsonl"
    path = run.root / relative
    return read_jsonl(path) if path.is_file() else []


def is_items_dir(path: Path) -> bool:
    """Return whether `path` is an items directory (items.jsonl, no run manifest) rather than a run."""

    path = Path(path)
    return (path / "items.jsonl").is_file() and not (path / MANIFEST).is_file()


def items_source(directory: Path, toolset: str, tools: tuple[str, ...]) -> Run:
    """Return an items directory as a Run that has not run: one arm (`toolset`, offering `tools`), no results.

    Its items are read when its pairs are (`iter_prompts`), one line at a time, so that 100,000 prompts need no
    more memory than a few.
    """
    directory = Path(directory)

    manifest = Manifest(arms=[ArmEntry(name=toolset, tools=list(tools))], command="mcot export")
    return Run(directory, manifest, {}, {}, directory)


def iter_prompts(source: Run, keep: Keep | None = None) -> Iterator[Pair]:
    """Yield a prompt pair per item of an items directory (`items_source`), in file order, for its one arm (with
    `keep`, for the items it keeps)."""
    (arm,) = source.arms
    index = 0
    for item in iter_items(source.root):
        if keep is None or keep(item, arm):
            yield Pair(source, item, arm, None, None, [], index, ITEMS_SOURCE)
            index += 1


def export_trace(pair: Pair, catalog: ImageCatalog) -> list[dict[str, Any]]:
    """Return the pair's trace steps with their image paths (`image`, `seen`) renamed to export names."""
    steps: list[dict[str, Any]] = []
    for step in pair.trace:
        copy = dict(step)
        for key in _STEP_IMAGES:
            if isinstance(copy.get(key), str):
                copy[key] = catalog.add(pair.run.root / copy[key])
        steps.append(copy)
    return steps


def is_generation_run(run: Run) -> bool:
    """Return whether the run was made by an image generator (`mcot imagine`), not a chat model."""
    return run.manifest.is_generation()


def model_spec(run: Run) -> str | None:
    """Return the spec of what answered: the manifest's model, else its image generator."""
    return run.manifest.model_spec or run.manifest.generator_spec or None


def record_view(pair: Pair, catalog: ImageCatalog) -> dict[str, Any]:
    """Return the `records` view of a pair: the item, the model's answer, its score, the trace and image names.

    A prediction that is an image (a generator's, or an edited diagram's final canvas) names it by export name.
    """
    result, score = pair.result, pair.score
    trace = export_trace(pair, catalog)
    canvas = [s["image"] for s in trace if s.get("kind") == "observation" and s.get("image")]
    produced = list(result.images or []) if result is not None else []
    outputs = catalog.add_all([pair.run.root / rel for rel in produced])
    prediction = result.prediction if result is not None else None
    if isinstance(prediction, str) and prediction in produced:
        prediction = catalog.add(pair.run.root / prediction)
    flags = pair.flags()
    return {
        "id": flags["id"],
        "mode": flags["mode"],
        "benchmark": flags["benchmark"],
        "category": flags["category"],
        "question": pair.item.question,
        "choices": pair.item.choices,
        "answer": pair.item.answer,
        "answer_type": pair.item.answer_type,
        "model": model_spec(pair.run),
        "status": flags["status"],
        "error": flags["error"],
        "prediction": prediction,
        "extracted": score.extracted if score is not None else None,
        "correct": flags["correct"],
        "score": flags["score"],
        "score_method": score.method if score is not None else None,
        "steps": result.steps if result is not None else None,
        "usage": result.to_json().get("usage") if result is not None else None,
        "latency_s": result.latency_s if result is not None else None,
        "item_images": catalog.add_all(pair.item_image_paths()),
        "canvas_images": canvas,
        "output_images": outputs,
        "trace": trace,
    }


def _contained(root: Path, relative: str) -> bool:
    """Return True when the item-relative path stays inside `root` once resolved."""

    try:
        contained_path(root, relative)
    except ItemError:
        return False
    return True
