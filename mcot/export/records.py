"""The (item, arm) pairs of a run and the `records` view: one record per pair, failed and missing ones flagged.

An items directory (no run) is a source too (`items_source`): a Run with its items and one arm (a toolset) but
no results, whose pairs are prompts: the views that take it (`mcot export ITEMS --as verl|trl`) write RL prompt
rows from the items alone, and their flags say so (`status` null).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot.benchmarks.item import Item, iter_items
from mcot.eval.advice import MISSING_STATUS
from mcot.eval.rundir import Run, latest_by_key, order_arms, read_jsonl
from mcot.export.images import ImageCatalog

ITEMS_SOURCE = "items"
"""`Pair.source` of a pair read from an items directory (no run): a prompt, with no result, score or trace."""
MISSING_REASON = "the run has no result for this item and arm (interrupted, or not run yet)"
_STEP_IMAGES = ("image", "seen")


@dataclass(frozen=True)
class Pair:
    """One (item, arm) of a run: its result line, score line and trace steps (empty when it has none)."""

    run: Run
    item: Item
    arm: str
    result: dict[str, Any] | None
    score: dict[str, Any] | None
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
        return str(self.result.get("status") or "error") if self.result is not None else MISSING_STATUS

    @property
    def error(self) -> str | None:
        """Return why the pair did not finish (the result's error), or None."""
        if self.is_prompt:
            return None
        if self.result is None:
            return MISSING_REASON
        return self.result.get("error")

    @property
    def correct(self) -> bool | None:
        """Return the score's `correct`, or None when the pair has no score."""
        return None if self.score is None else self.score.get("correct")

    def item_image_paths(self) -> list[Path]:
        """Return the absolute paths of the item's images (under the run's items root); a path that leaves the
        items root (absolute, `..`, a symlink pointing outside) is left out, so no export copies a file from
        elsewhere."""
        return [self.run.items_root / rel for rel in self.item.images if _contained(self.run.items_root, rel)]

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
            "score": None if self.score is None else self.score.get("score"),
        }


def run_arms(run: Run) -> list[str]:
    """Return the arms to export: the manifest's, then any other arm that results were recorded under."""
    arms = list(run.arms)
    return arms + [arm for arm in order_arms({mode for _, mode in run.results}) if arm not in arms]


def read_run_scores(run: Run) -> dict[tuple[str, str], dict[str, Any]] | None:
    """Return the last score line per (id, arm) of RUN/scores.jsonl, or None when the run is not scored."""
    path = run.root / "scores.jsonl"
    return latest_by_key(read_jsonl(path)) if path.is_file() else None


def pair_keys(run: Run) -> list[tuple[str, str]]:
    """Return every (item id, arm) of the run that an export covers, in item order, then arm order."""
    arms = run_arms(run)
    return [(item_id, arm) for item_id in run.items for arm in arms]


def iter_pairs(run: Run, scores: dict[tuple[str, str], dict[str, Any]] | None) -> Iterator[Pair]:
    """Yield every (item of RUN/items.jsonl, arm) in item order, then arm order, with its result, score and trace."""
    arms = run_arms(run)
    index = 0
    for item in run.items.values():
        for arm in arms:
            result = run.results.get((item.id, arm))
            trace = (run.trace(item.id, arm) or []) if result is not None else []
            score = (scores or {}).get((item.id, arm))
            yield Pair(run, item, arm, result, score, trace, index)
            index += 1


def is_items_dir(path: Path) -> bool:
    """Return whether `path` is an items directory (items.jsonl, no run manifest) rather than a run."""
    from mcot.eval.rundir import MANIFEST

    path = Path(path)
    return (path / "items.jsonl").is_file() and not (path / MANIFEST).is_file()


def items_source(directory: Path, toolset: str, tools: tuple[str, ...]) -> Run:
    """Return an items directory as a Run that has not run: one arm (`toolset`, offering `tools`), no results.

    Its items are read when its pairs are (`iter_prompts`), one line at a time, so that 100,000 prompts need no
    more memory than a few.
    """
    directory = Path(directory)
    manifest = {"arms": [{"name": toolset, "tools": list(tools)}], "command": "mcot export"}
    return Run(directory, manifest, {}, {}, directory)


def iter_prompts(source: Run) -> Iterator[Pair]:
    """Yield a prompt pair per item of an items directory (`items_source`), in file order, for its one arm."""
    (arm,) = source.arms
    for index, item in enumerate(iter_items(source.root)):
        yield Pair(source, item, arm, None, None, [], index, ITEMS_SOURCE)


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
    return run.manifest.get("command") == "mcot imagine" or bool(run.manifest.get("generator"))


def model_spec(run: Run) -> str | None:
    """Return the spec of what answered: the manifest's model, else its image generator."""
    for key in ("model", "generator"):
        spec = (run.manifest.get(key) or {}).get("spec")
        if spec:
            return str(spec)
    return None


def record_view(pair: Pair, catalog: ImageCatalog) -> dict[str, Any]:
    """Return the `records` view of a pair: the item, the model's answer, its score, the trace and image names.

    A prediction that is an image (a generator's, or an edited diagram's final canvas) names it by export name.
    """
    result = pair.result or {}
    score = pair.score or {}
    trace = export_trace(pair, catalog)
    canvas = [s["image"] for s in trace if s.get("kind") == "observation" and s.get("image")]
    produced = [rel for rel in result.get("images") or [] if isinstance(rel, str)]
    outputs = catalog.add_all([pair.run.root / rel for rel in produced])
    prediction = result.get("prediction")
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
        "extracted": score.get("extracted"),
        "correct": flags["correct"],
        "score": flags["score"],
        "score_method": score.get("method"),
        "steps": result.get("steps"),
        "usage": result.get("usage"),
        "latency_s": result.get("latency_s"),
        "item_images": catalog.add_all(pair.item_image_paths()),
        "canvas_images": canvas,
        "output_images": outputs,
        "trace": trace,
    }


def _contained(root: Path, relative: str) -> bool:
    """Return True when the item-relative path stays inside `root` once resolved."""
    from mcot.benchmarks.item import ItemError, contained_path

    try:
        contained_path(root, relative)
    except ItemError:
        return False
    return True
