"""Writers of mcot's export formats: a jsonl folder, one parquet file, a Hugging Face `datasets` folder.

Each writer is `write(rows, catalog, view, target, run) -> count`, and streams: it takes the rows one at a time and
writes lines or Arrow record batches as they come. The rows are a view's (JSON-ready dicts naming
images by export name), the images they name, the view's declaration (its Arrow schema, image and JSON
columns), a staging path that mcot/export/output.py moves into place, and the run (for a dataset card). parquet
and hf embed image bytes as Hugging Face image structs (`{"bytes", "path"}`, `path` being the export name) and
carry the `datasets` features in the schema. Formats are declared in `mcot.builtin` (`mcot.declare_export_format`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.core.rundir import json_line
from mcot.export.images import ImageCatalog
from mcot.export.records import model_spec

if TYPE_CHECKING:
    from mcot.core.declare import ExportView
    from mcot.core.rundir import Run

RECORDS_FILE = "records.jsonl"
HF_SPLIT = "train"
BATCH = 256
"""Rows per Arrow record batch at most."""
BATCH_BYTES = 16 << 20
"""Embedded image bytes per record batch at most (a batch is flushed once it holds this much)."""
SHARD_BYTES = 500 << 20
"""An hf shard's size at most before the next is started (`save_to_disk`'s default)."""


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


def _arrow_row(row: dict[str, Any], view: ExportView, catalog: ImageCatalog) -> tuple[dict[str, Any], int]:
    """Return a row as its Arrow record (images embedded, JSON columns as text) and its embedded image bytes."""
    out = dict(row)
    size = 0
    for column in view.image_columns:
        out[column] = [catalog.embedded(name) for name in row.get(column) or []]
        size += sum(len(image["bytes"]) for image in out[column])
    for column in view.json_columns:
        out[column] = json.dumps(row.get(column), ensure_ascii=False)
    return out, size


def record_batches(
    rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, schema: Any
) -> Iterator[Any]:
    """Yield the rows as Arrow record batches of at most BATCH rows and about BATCH_BYTES of images each."""
    import pyarrow as pa

    batch: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        record, images = _arrow_row(row, view, catalog)
        batch.append(record)
        size += images
        if len(batch) >= BATCH or size >= BATCH_BYTES:
            yield pa.RecordBatch.from_pylist(batch, schema=schema)
            batch, size = [], 0
    if batch:
        yield pa.RecordBatch.from_pylist(batch, schema=schema)


def hf_schema(view: ExportView) -> Any:
    """Return the view's Arrow schema carrying its `datasets` features (the `huggingface` metadata)."""
    schema = view.arrow_schema()
    info = {"info": {"features": hf_features(schema, view.image_columns)}}
    return schema.with_metadata({b"huggingface": json.dumps(info).encode("utf-8")})


def write_parquet(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, path: Path, run: Run) -> int:
    """Write the rows as one parquet file with images embedded and `datasets` features, a record batch at a time;
    return the row count."""
    import pyarrow.parquet as pq

    schema = hf_schema(view)
    count = 0
    with pq.ParquetWriter(path, schema) as writer:
        for batch in record_batches(rows, catalog, view, schema):
            writer.write_batch(batch)
            count += batch.num_rows
        if count == 0:
            writer.write_table(schema.empty_table())
    return count


# --- hf ----------------------------------------------------------------------------------------------------------


def write_hf(rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, folder: Path, run: Run) -> int:
    """Write the rows as a `datasets` DatasetDict folder (one `train` split) and a dataset card; return the row count.

    The layout is `save_to_disk`'s (dataset_dict.json; train/ with Arrow stream shards of at most SHARD_BYTES,
    dataset_info.json and state.json), written a record batch at a time: `load_from_disk(folder)` and
    `load_dataset(folder)` both read it, and the memory used does not grow with the number of rows.
    """
    count = write_hf_split(rows, catalog, view, folder, HF_SPLIT)
    write_hf_dict(folder, [run], view.name, {HF_SPLIT: count})
    return count


def write_hf_split(
    rows: Iterable[dict[str, Any]], catalog: ImageCatalog, view: ExportView, folder: Path, split: str
) -> int:
    """Write the rows as the split `split` of a DatasetDict folder (FOLDER/SPLIT: Arrow stream shards of at most
    SHARD_BYTES, dataset_info.json, state.json), a record batch at a time; return the row count."""
    import pyarrow as pa

    target = folder / split
    target.mkdir()
    schema = hf_schema(view)
    shards: list[Path] = []
    count, size, total = 0, 0, 0
    writer: Any = None
    sink: Any = None
    try:
        for batch in record_batches(rows, catalog, view, schema):
            if writer is None or size >= SHARD_BYTES:
                if writer is not None:
                    writer.close()
                    sink.close()
                shards.append(target / f"shard-{len(shards):05d}.arrow")
                sink = pa.OSFile(str(shards[-1]), "wb")
                writer = pa.ipc.new_stream(sink, schema)
                size = 0
            writer.write_batch(batch)
            count += batch.num_rows
            size += batch.nbytes
            total += batch.nbytes
        if writer is None:
            shards.append(target / "shard-00000.arrow")
            sink = pa.OSFile(str(shards[-1]), "wb")
            writer = pa.ipc.new_stream(sink, schema)
    finally:
        if writer is not None:
            writer.close()
            sink.close()
    names = [f"data-{k:05d}-of-{len(shards):05d}.arrow" for k in range(len(shards))]
    for shard, name in zip(shards, names, strict=True):
        shard.rename(target / name)
    _write_split_metadata(target, schema, view, names, total, split)
    return count


def write_hf_dict(folder: Path, runs: Sequence[Run], view: str, counts: Mapping[str, int]) -> None:
    """Write what a DatasetDict folder holds beside its splits' folders: dataset_dict.json naming the splits, and
    a dataset card (README.md) whose configuration maps each split to its arrow files."""
    (folder / "dataset_dict.json").write_text(json.dumps({"splits": list(counts)}), encoding="utf-8")
    (folder / "README.md").write_text(dataset_card(runs, view, counts), encoding="utf-8")


def _write_split_metadata(
    target: Path, schema: Any, view: ExportView, shards: list[str], size: int, split: str
) -> None:
    """Write what `save_to_disk` writes beside a split's shards: dataset_info.json and state.json."""
    import secrets

    from datasets import DatasetInfo, Features

    features = Features.from_dict(hf_features(schema, view.image_columns))
    info = DatasetInfo(features=features, dataset_size=size)
    with (target / "dataset_info.json").open("wb") as handle:
        info._dump_info(handle, pretty_print=True)
    state: dict[str, Any] = {
        "_data_files": [{"filename": name} for name in shards],
        "_fingerprint": secrets.token_hex(8),
        "_format_columns": None,
        "_format_kwargs": {},
        "_format_type": None,
        "_output_all_columns": False,
        "_split": split,
    }
    (target / "state.json").write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")


def dataset_card(runs: Sequence[Run], view: str, counts: Mapping[str, int]) -> str:
    """Return the README.md of an hf export: its `datasets` configuration (a data_files entry per split) and what
    the records are."""

    files = "".join(f"  - split: {split}\n    path: {split}/data-*.arrow\n" for split in counts)
    models = ", ".join(f"`{model_spec(run)}`" for run in runs)
    arms = ", ".join(dict.fromkeys(arm for run in runs for arm in run.arms))
    names = ", ".join(run.root.name for run in runs)
    held = ", ".join(f"{split} {count}" for split, count in counts.items())
    return (
        f"---\nconfigs:\n- config_name: default\n  data_files:\n{files}---\n\n"
        f"# mcot traces of {names}\n\n"
        f"Model {models}, arms {arms}, {sum(counts.values())} records (one per item and arm, `{view}` view; "
        f"splits: {held}), written by `mcot export --format hf`. Read it with `datasets.load_from_disk(PATH)` or "
        f"`datasets.load_dataset(PATH)` (both give a DatasetDict with the splits {', '.join(counts)}). Records whose "
        "`status` is not `ok` are failed, budget-stopped or missing traces; `correct` is null where unscored.\n"
    )
