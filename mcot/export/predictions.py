"""Prediction files for the benchmarks' own evaluators: `mcot export RUN --format vlmevalkit|gepbench`.

- `vlmevalkit`: one TSV per (VLMEvalKit dataset, arm), `OUT/<arm>/mcot-<arm>_<DATASET>.tsv`, with the columns
  that dataset's `evaluate()` reads: `index`, `question`, `answer`, `prediction` and its category column
  (RBench-V: `subject`, lower case, as the RBench-V VLMEvalKit fork groups by; GOBench: `category`). Items of
  benchmarks VLMEvalKit has no evaluator for (GePBench, games, OmniPhys) and GOBench's generation items are not
  written.
- `gepbench`: the GePBench evaluation script's output form (geocap `eval/gepbench.py`):
  `OUT/<arm>/<level>/<perspective>.jsonl`, one line per question holding the native record (`image_id`,
  `question_id`, `question`, `choices`, `answer` as their values, and any other native field) plus `response`
  (the model's final text) and `pred` (the option letter the official rule reads, `-` when none).

A pair that failed or is missing gets VLMEvalKit's failed-call mark as its prediction (VLMEvalKit scores it as
it scores its own failed calls) and an empty GePBench `response` (`pred` `-`: wrong). Every export also writes
`predictions.json`: the files, their columns and row counts. docs/scoring.md shows the commands that score
these files with the official code.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.export.images import ImageCatalog
from mcot.export.output import ExportError

if TYPE_CHECKING:
    from mcot.benchmarks.item import Item
    from mcot.declare import ExportView
    from mcot.rundir import Run

INDEX_FILE = "predictions.json"
FAILED_CALL = "Failed to obtain answer via API."
"""VLMEvalKit's prediction for a call that failed (its `FAIL_MSG`); GOBench leaves such rows out of its means."""
NO_LETTER = "-"
"""The GePBench script's `pred` when no option letter is found."""


@dataclass(frozen=True)
class VLMEvalKitDataset:
    """How one benchmark's items become rows of a VLMEvalKit dataset's prediction file."""

    dataset: str
    category_column: str
    lower_case_category: bool = False


VLMEVALKIT_DATASETS = {
    "rbench-v": VLMEvalKitDataset("RBench-V", "subject", lower_case_category=True),
    "gobench": VLMEvalKitDataset("GOBench", "category"),
}
"""The benchmarks VLMEvalKit evaluates, by mcot benchmark name (vlmeval/dataset: the RBench-V fork's `RBench_V`,
`GOBenchDataset`)."""


def frozen_items(run: Run) -> dict[str, Item]:
    """Return the run's items by id: those it holds, else read from its frozen RUN/items.jsonl (an export streams
    its rows and leaves `run.items` empty; a prediction file needs each row's question, answer and choices)."""
    if run.items:
        return run.items
    from mcot.benchmarks.item import ITEMS_FILE, iter_items

    return {item.id: item for item in iter_items(run.root)} if (run.root / ITEMS_FILE).is_file() else {}


def vlmevalkit_columns(dataset: VLMEvalKitDataset) -> tuple[str, ...]:
    """Return the columns of a VLMEvalKit prediction file for `dataset`, in order (mcot's `id` last)."""
    return ("index", "question", "answer", "prediction", dataset.category_column, "id")


def write_vlmevalkit(
    rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, folder: Path, run: Run
) -> int:
    """Write one VLMEvalKit prediction TSV per (dataset, arm) under FOLDER; return the number of rows written."""
    tables: dict[tuple[str, str], list[dict[str, Any]]] = {}
    items = frozen_items(run)
    for row in rows:
        dataset = VLMEVALKIT_DATASETS.get(str(row.get("benchmark")))
        item = items.get(str(row.get("id")))
        if dataset is None or item is None or item.answer_type == "image":
            continue
        table = tables.setdefault((dataset.dataset, str(row["mode"])), [])
        table.append(_vlmevalkit_row(dataset, item, row, len(table)))
    if not tables:
        raise ExportError(
            f"{run.root} has no RBench-V or GOBench understanding items: VLMEvalKit's evaluators read only those "
            "(GePBench: --format gepbench); nothing was written"
        )
    files = []
    for (name, arm), table in sorted(tables.items()):
        dataset = next(d for d in VLMEVALKIT_DATASETS.values() if d.dataset == name)
        path = Path(arm) / f"mcot-{arm}_{name}.tsv"
        _write_tsv(folder / path, vlmevalkit_columns(dataset), table)
        files.append({"path": str(path), "dataset": name, "arm": arm, "rows": len(table),
                      "columns": list(vlmevalkit_columns(dataset))})  # fmt: skip
    _write_index(folder, "vlmevalkit", files)
    return sum(len(table) for table in tables.values())


def _vlmevalkit_row(dataset: VLMEvalKitDataset, item: Item, row: dict[str, Any], position: int) -> dict[str, Any]:
    native = item.meta.get("record")
    record: dict[str, Any] = native if isinstance(native, dict) else {}
    index = item.meta.get("index", record.get("index", position + 1))
    category = item.category.lower() if dataset.lower_case_category else item.category
    return {
        "index": index,
        "question": record.get("question", item.question),
        "answer": item.answer,
        "prediction": _prediction(row, failed=FAILED_CALL),
        dataset.category_column: category,
        "id": item.id,
    }


def _write_tsv(path: Path, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    """Write rows as a tab-separated file with a header (fields with tabs, quotes or newlines quoted)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


# --- GePBench ---------------------------------------------------------------------------------------------

GEPBENCH_MCOT_KEYS = ("level", "aspect", "choice_values", "answer_value")
"""Item meta keys mcot's GePBench loader adds (the rest of the meta is the native record's own fields)."""


def gepbench_record(item: Item) -> dict[str, Any]:
    """Return the item's native GePBench question record (image_id, question_id, question, choices, answer, …)."""
    meta = item.meta
    choices = meta.get("choice_values", list(item.choices or []))
    answer = meta["answer_value"] if "answer_value" in meta else choices["ABCDEFGH".index(item.answer)]
    native = {key: value for key, value in meta.items() if key not in GEPBENCH_MCOT_KEYS}
    return {**native, "question": item.question, "choices": choices, "answer": answer}


def write_gepbench(
    rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, folder: Path, run: Run
) -> int:
    """Write the GePBench script's per-perspective JSONL under FOLDER/<arm>/<level>/; return the lines written."""
    from mcot.eval.protocols.gepbench import public_answer

    files: dict[Path, list[str]] = {}
    items = frozen_items(run)
    for row in rows:
        item = items.get(str(row.get("id")))
        if row.get("benchmark") != "gepbench" or item is None:
            continue
        response = _prediction(row, failed="")
        pred = public_answer(response, item.choices)[0] or NO_LETTER
        level = str(item.meta.get("level", "all"))
        perspective = str(item.meta.get("aspect", item.category))
        line = {**gepbench_record(item), "response": response, "pred": pred}
        files.setdefault(Path(str(row["mode"])) / level / f"{perspective}.jsonl", []).append(
            json.dumps(line, ensure_ascii=False)
        )
    if not files:
        raise ExportError(f"{run.root} has no GePBench items; nothing was written")
    index = []
    for path, lines in sorted(files.items()):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        arm, level, name = path.parts
        index.append({"path": str(path), "arm": arm, "level": level, "perspective": Path(name).stem,
                      "rows": len(lines)})  # fmt: skip
    _write_index(folder, "gepbench", index)
    return sum(len(lines) for lines in files.values())


# --- shared -----------------------------------------------------------------------------------------------


def _prediction(row: dict[str, Any], *, failed: str) -> str:
    """Return the pair's final text, or `failed` for a pair that did not finish with an answer."""
    prediction = row.get("prediction")
    if row.get("status") not in ("ok", "budget") or not isinstance(prediction, str):
        return failed
    return prediction


def _write_index(folder: Path, fmt: str, files: list[dict[str, Any]]) -> None:
    """Write FOLDER/predictions.json: the format and one entry per file written."""
    index = {"format": fmt, "files": files}
    (folder / INDEX_FILE).write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
