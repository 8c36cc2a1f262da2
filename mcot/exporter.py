"""Export a run as a multimodal chain-of-thought dataset: one record per (item id, mode)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eval.rundir import RunDir, check_frozen_items, latest_by_key, read_jsonl

FORMATS = ("jsonl", "parquet", "hf")
HF_DATA_FILE = "data/train-00000-of-00001.parquet"


class ExportError(ValueError):
    """The run cannot be exported as asked."""


def export_records(run_root: Path) -> Iterator[dict[str, Any]]:
    """Yield one record per recorded (item, arm): the item, the answer, the prediction, score and trace.

    Items come from the run's frozen RUN/items.jsonl (RunDirError when it no longer matches the manifest).
    """
    run_dir = RunDir(Path(run_root))
    manifest = run_dir.read_manifest()
    items = {str(r["id"]): r for r in read_jsonl(check_frozen_items(run_dir.root, manifest))}
    scores = latest_by_key(read_jsonl(run_dir.scores_path))
    dataset_path = (manifest.get("dataset") or {}).get("path")
    items_root = Path(dataset_path) if dataset_path and Path(dataset_path).is_dir() else run_dir.root
    for (item_id, mode), result in sorted(run_dir.results().items()):
        item = items.get(item_id, {})
        score = scores.get((item_id, mode), {})
        trace = read_jsonl(run_dir.root / result["trace"]) if result.get("trace") else []
        yield {
            "id": item_id,
            "mode": mode,
            "benchmark": item.get("benchmark"),
            "category": item.get("category"),
            "question": item.get("question"),
            "choices": item.get("choices"),
            "answer": item.get("answer"),
            "answer_type": item.get("answer_type"),
            "item_images": [str(items_root / p) for p in item.get("images", [])],
            "model": manifest.get("model", {}).get("spec"),
            "status": result.get("status"),
            "prediction": result.get("prediction"),
            "extracted": score.get("extracted"),
            "correct": score.get("correct"),
            "score": score.get("score"),
            "steps": result.get("steps"),
            "usage": result.get("usage"),
            "trace": trace,
            "canvas_images": [s["image"] for s in trace if s.get("kind") == "observation" and s.get("image")],
        }


def _read_bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def export_jsonl(run_root: Path, out: Path) -> int:
    """Write records as JSON lines at `out`, copying the images they use next to it; return the count."""
    out.parent.mkdir(parents=True, exist_ok=True)
    images_dir = out.parent / "blobs"
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for record in export_records(run_root):
            for rel in record["canvas_images"]:
                source = Path(run_root) / rel
                target = out.parent / rel
                if source.is_file() and not target.exists():
                    images_dir.mkdir(exist_ok=True)
                    shutil.copyfile(source, target)
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


def _arrow_table(run_root: Path) -> Any:
    import pyarrow as pa

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    rows: dict[str, list[Any]] = {
        key: []
        for key in (
            "id",
            "mode",
            "benchmark",
            "category",
            "question",
            "choices",
            "answer",
            "answer_type",
            "model",
            "status",
            "prediction",
            "extracted",
            "correct",
            "score",
            "steps",
            "trace",
            "item_image",
            "canvas_images",
        )
    }
    for record in export_records(run_root):
        for key in rows:
            if key in ("item_image", "canvas_images", "trace", "choices"):
                continue
            rows[key].append(record[key])
        rows["choices"].append(record["choices"])
        rows["trace"].append(json.dumps(record["trace"], ensure_ascii=False))
        first = record["item_images"][0] if record["item_images"] else None
        rows["item_image"].append({"bytes": _read_bytes(Path(first)), "path": Path(first).name} if first else None)
        rows["canvas_images"].append(
            [{"bytes": _read_bytes(Path(run_root) / rel), "path": rel} for rel in record["canvas_images"]]
        )
    schema = pa.schema(
        [
            ("id", pa.string()),
            ("mode", pa.string()),
            ("benchmark", pa.string()),
            ("category", pa.string()),
            ("question", pa.string()),
            ("choices", pa.list_(pa.string())),
            ("answer", pa.string()),
            ("answer_type", pa.string()),
            ("model", pa.string()),
            ("status", pa.string()),
            ("prediction", pa.string()),
            ("extracted", pa.string()),
            ("correct", pa.bool_()),
            ("score", pa.float64()),
            ("steps", pa.int64()),
            ("trace", pa.string()),
            ("item_image", image),
            ("canvas_images", pa.list_(image)),
        ]
    )
    features = {
        name: {"dtype": "string", "_type": "Value"}
        for name in (
            "id",
            "mode",
            "benchmark",
            "category",
            "question",
            "answer",
            "answer_type",
            "model",
            "status",
            "prediction",
            "extracted",
            "trace",
        )
    }
    features |= {
        "choices": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
        "correct": {"dtype": "bool", "_type": "Value"},
        "score": {"dtype": "float64", "_type": "Value"},
        "steps": {"dtype": "int64", "_type": "Value"},
        "item_image": {"_type": "Image"},
        "canvas_images": {"feature": {"_type": "Image"}, "_type": "Sequence"},
    }
    metadata = {b"huggingface": json.dumps({"info": {"features": features}}).encode()}
    return pa.Table.from_pydict(rows, schema=schema.with_metadata(metadata))


def export_parquet(run_root: Path, out: Path) -> int:
    """Write one parquet file with images embedded (Hugging Face image structs); return the row count."""
    import pyarrow.parquet as pq

    table = _arrow_table(run_root)
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, out)
    return table.num_rows


def export_hf(run_root: Path, out: Path) -> int:
    """Write a Hugging Face dataset folder (parquet shard + dataset card); return the row count."""
    count = export_parquet(run_root, out / HF_DATA_FILE)
    manifest = RunDir(Path(run_root)).read_manifest()
    card = (
        "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/train-*\n---\n\n"
        f"# mcot traces of {Path(run_root).name}\n\n"
        f"Model `{manifest.get('model', {}).get('spec')}`, modes {', '.join(manifest.get('modes', []))}, "
        f"{count} records (one per item and mode). Each record holds the question, the ground truth, the "
        "model's final text, the score, and the full trace (JSON) with the canvas images it saw.\n"
    )
    (out / "README.md").write_text(card, encoding="utf-8")
    return count


def export_run(run_root: Path, fmt: str, out: Path) -> int:
    """Export a run in `fmt` (jsonl, parquet or hf) to `out`; return the number of records."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    check_frozen_items(Path(run_root), RunDir(Path(run_root)).read_manifest())  # before anything is written
    exporter = {"jsonl": export_jsonl, "parquet": export_parquet, "hf": export_hf}[fmt]
    return exporter(Path(run_root), Path(out))
