"""Writers of mcot's export formats: a jsonl folder, one parquet file, a Hugging Face `datasets` folder.

Each writer is `write(rows, catalog, view, target, run) -> count`: the rows of a view (JSON-ready dicts naming
images by export name), the images they name, the view's declaration (its Arrow schema, image and JSON
columns), a staging path that mcot/export/output.py moves into place, and the run (for a dataset card). parquet
and hf embed image bytes as Hugging Face image structs (`{"bytes", "path"}`, `path` being the export name) and
carry the `datasets` features in the schema. Formats are declared in `mcot.builtin` (`mcot.declare_export_format`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.export.images import ImageCatalog
from mcot.rundir import json_line

if TYPE_CHECKING:
    from mcot.declare import ExportView
    from mcot.rundir import Run

RECORDS_FILE = "records.jsonl"
HF_SPLIT = "train"
BATCH = 256


# --- jsonl ---------------------------------------------------------------------------------------------------


def write_jsonl(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, folder: Path, run: Run) -> int:
    """Write FOLDER/records.jsonl and copy every image the rows name into FOLDER/images/; return the row count."""
    count = 0
    with (folder / RECORDS_FILE).open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json_line(row) + "\n")
            count += 1
    for name, source in catalog.sources.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return count


_VALUE_TYPES = {"string": "string", "bool": "bool", "double": "float64", "int64": "int64", "binary": "binary"}


def hf_features(schema: Any, image_columns: tuple[str, ...]) -> dict[str, Any]:
    """Return the `datasets` features (the JSON of `Features.to_dict`) of an Arrow schema; image columns as Image."""
    import pyarrow as pa

    def feature(kind: Any) -> Any:
        if pa.types.is_struct(kind):
            return {kind.field(i).name: feature(kind.field(i).type) for i in range(kind.num_fields)}
        if pa.types.is_list(kind):
            inner = kind.value_type
            return [feature(inner)] if pa.types.is_struct(inner) else {"feature": feature(inner), "_type": "Sequence"}
        return {"dtype": _VALUE_TYPES[str(kind)], "_type": "Value"}

    features: dict[str, Any] = {}
    for column in schema:
        if column.name in image_columns:
            features[column.name] = {"feature": {"_type": "Image"}, "_type": "Sequence"}
        else:
            features[column.name] = feature(column.type)
    return features


def _arrow_row(row: dict[str, Any], view: ExportView, catalog: ImageCatalog) -> dict[str, Any]:
    out = dict(row)
    for column in view.image_columns:
        out[column] = [catalog.embedded(name) for name in row.get(column) or []]
    for column in view.json_columns:
        out[column] = json.dumps(row.get(column), ensure_ascii=False)
    return out


def _batches(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def write_parquet(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, path: Path, run: Run) -> int:
    """Write the rows as one parquet file with images embedded and `datasets` features; return the row count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = view.arrow_schema()
    info = {"info": {"features": hf_features(schema, view.image_columns)}}
    schema = schema.with_metadata({b"huggingface": json.dumps(info).encode("utf-8")})
    count = 0
    with pq.ParquetWriter(path, schema) as writer:
        for batch in _batches(rows):
            table = pa.Table.from_pylist([_arrow_row(row, view, catalog) for row in batch], schema=schema)
            writer.write_table(table)
            count += table.num_rows
        if count == 0:
            writer.write_table(schema.empty_table())
    return count


# --- hf ----------------------------------------------------------------------------------------------------------


def write_hf(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, folder: Path, run: Run) -> int:
    """Save the rows with `datasets` (a DatasetDict with one `train` split) and a dataset card in `folder`;
    return the row count.

    `load_from_disk(folder)` and `load_dataset(folder)` both read the result. The parquet the dataset is built
    from, and its cache, live in a scratch folder beside `folder`, removed afterwards.
    """
    import datasets

    work = folder.absolute().parent / f".{folder.name}.work"
    work.mkdir()
    try:
        shard = work / "rows.parquet"
        count = write_parquet(rows, catalog, view, shard, run)
        bars = datasets.is_progress_bar_enabled()
        datasets.disable_progress_bars()
        try:
            dataset = datasets.Dataset.from_parquet(str(shard), cache_dir=str(work / "cache"))
            datasets.DatasetDict({HF_SPLIT: dataset}).save_to_disk(str(folder))
        finally:
            if bars:
                datasets.enable_progress_bars()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (folder / "README.md").write_text(dataset_card(run, view.name, count), encoding="utf-8")
    return count


def dataset_card(run: Run, view: str, count: int) -> str:
    """Return the README.md of an hf export: its `datasets` configuration and what the records are."""
    from mcot.export.records import model_spec

    model = model_spec(run)
    return (
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        f"  - split: {HF_SPLIT}\n    path: {HF_SPLIT}/data-*.arrow\n---\n\n"
        f"# mcot traces of {run.root.name}\n\n"
        f"Model `{model}`, arms {', '.join(run.arms)}, {count} records (one per item and arm, `{view}` view), "
        "written by `mcot export --format hf`. Read it with `datasets.load_from_disk(PATH)` or "
        "`datasets.load_dataset(PATH)` (both give a DatasetDict with one `train` split). Records whose "
        "`status` is not `ok` are failed, budget-stopped or missing traces; `correct` is null where unscored.\n"
    )
