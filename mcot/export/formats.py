"""Writers of the three export formats: a jsonl folder, one parquet file, a Hugging Face `datasets` folder.

Each writer takes the rows of a view (JSON-ready dicts naming images by export name) and a staging path;
mcot/export/output.py moves the result into place. parquet and hf embed image bytes as Hugging Face image
structs (`{"bytes", "path"}`, `path` being the export name) and carry the `datasets` features in the schema.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mcot.export.images import ImageCatalog
from mcot.rundir import json_line

FORMATS = ("jsonl", "parquet", "hf")
FOLDER_FORMATS = ("jsonl", "hf")
RECORDS_FILE = "records.jsonl"
HF_SPLIT = "train"
BATCH = 256
HF_INSTALL = "pip install 'mcot[hf]' (or: pip install datasets)"


# --- jsonl ---------------------------------------------------------------------------------------------------


def write_jsonl(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, folder: Path) -> int:
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


# --- arrow schemas (one per view) ------------------------------------------------------------------------------


def _schemas() -> dict[str, Any]:
    import pyarrow as pa

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    images = pa.list_(image)
    flags = [
        ("id", pa.string()),
        ("mode", pa.string()),
        ("benchmark", pa.string()),
        ("category", pa.string()),
        ("status", pa.string()),
        ("error", pa.string()),
        ("correct", pa.bool_()),
        ("score", pa.float64()),
    ]
    usage = pa.struct([("input_tokens", pa.int64()), ("output_tokens", pa.int64()), ("cost_usd", pa.float64())])
    part = pa.struct([("type", pa.string()), ("text", pa.string()), ("image_url", pa.struct([("url", pa.string())]))])
    call = pa.struct(
        [
            ("id", pa.string()),
            ("type", pa.string()),
            ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
        ]
    )
    message = pa.struct(
        [
            ("role", pa.string()),
            ("content", pa.list_(part)),
            ("tool_calls", pa.list_(call)),
            ("tool_call_id", pa.string()),
        ]
    )
    records = [
        *flags[:4],
        ("question", pa.string()),
        ("choices", pa.list_(pa.string())),
        ("answer", pa.string()),
        ("answer_type", pa.string()),
        ("model", pa.string()),
        *flags[4:6],
        ("prediction", pa.string()),
        ("extracted", pa.string()),
        *flags[6:],
        ("score_method", pa.string()),
        ("steps", pa.int64()),
        ("usage", usage),
        ("latency_s", pa.float64()),
        ("item_images", images),
        ("canvas_images", images),
        ("output_images", images),
        ("trace", pa.string()),
    ]
    return {
        "records": pa.schema(records),
        "messages": pa.schema([*flags, ("messages", pa.list_(message)), ("images", images), ("tools", pa.string())]),
        "llava": pa.schema(
            [
                *flags,
                ("system", pa.string()),
                ("image", images),
                ("conversations", pa.list_(pa.struct([("from", pa.string()), ("value", pa.string())]))),
            ]
        ),
    }


IMAGE_COLUMNS = {
    "records": ("item_images", "canvas_images", "output_images"),
    "messages": ("images",),
    "llava": ("image",),
}
JSON_COLUMNS = {"records": ("trace",), "messages": ("tools",), "llava": ()}
"""Columns too varied for one Arrow type, stored as JSON text (`json.loads` them back)."""

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


def _arrow_row(row: dict[str, Any], view: str, catalog: ImageCatalog) -> dict[str, Any]:
    out = dict(row)
    for column in IMAGE_COLUMNS[view]:
        out[column] = [catalog.embedded(name) for name in row.get(column) or []]
    for column in JSON_COLUMNS[view]:
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


def write_parquet(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: str, path: Path) -> int:
    """Write the rows as one parquet file with images embedded and `datasets` features; return the row count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _schemas()[view]
    info = {"info": {"features": hf_features(schema, IMAGE_COLUMNS[view])}}
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


def require_datasets() -> None:
    """Return when the `datasets` library can be imported; raise ImportError saying what to install otherwise."""
    try:
        import datasets  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"--format hf needs the datasets library: {HF_INSTALL}") from exc


def write_hf(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: str, folder: Path, work: Path) -> int:
    """Save the rows with `datasets` (a DatasetDict with one `train` split) in `folder`; return the row count.

    `load_from_disk(folder)` and `load_dataset(folder)` both read the result. `work` is a scratch folder
    (the parquet the dataset is built from, and its cache) that the caller removes.
    """
    import datasets

    shard = work / "rows.parquet"
    count = write_parquet(rows, catalog, view, shard)
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        dataset = datasets.Dataset.from_parquet(str(shard), cache_dir=str(work / "cache"))
        datasets.DatasetDict({HF_SPLIT: dataset}).save_to_disk(str(folder))
    finally:
        if bars:
            datasets.enable_progress_bars()
    return count
