"""RBench-V: the Hugging Face layout (parquet or save_to_disk arrow files) and the VLMEvalKit TSV."""

from __future__ import annotations

import ast
import csv
import hashlib
import re
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from mcot.benchmarks.loaders._answers import answer_letter, infer_answer_type, parse_options
from mcot.benchmarks.loaders._images import DEFAULT_MAX_PIXELS, check_image, decode_base64
from mcot.benchmarks.loaders._paths import read_inside
from mcot.benchmarks.loaders._peek import peek
from mcot.benchmarks.loaders._types import LoadedItem, LoaderError, Skip, SkipItem, Tally

from mcot.core.item import Item

if TYPE_CHECKING:
    import pyarrow as pa

BENCHMARK = "rbench-v"
CATEGORY_FIELDS = ("catagory", "category", "subject")
_KNOWN = {"catagory", "category", "subject", "question", "image", "answer"}
_BATCH_ROWS = 32
_SAFE_ID = re.compile(r"[^\w.\-]+")


def source_files(src: Path) -> list[Path]:
    """Return the data files of an RBench-V source: the file itself, or the parquet/arrow/TSV files under it."""
    if src.is_file():
        return [src]
    files = sorted(p for p in src.rglob("*.parquet") if p.is_file())
    files += sorted(p for p in src.rglob("*.arrow") if p.is_file() and not p.name.startswith("cache-"))
    if not files:
        files = sorted(p for p in src.rglob("*.tsv") if p.is_file())
    return files


def detect(path: Path) -> bool:
    """Return whether `path` holds RBench-V: parquet or arrow files, or VLMEvalKit's TSV (itself or in a folder)."""
    if path.is_dir():
        if any(path.rglob("*.parquet")) or any(p for p in path.rglob("*.arrow") if not p.name.startswith("cache-")):
            return True
        return any(detect(tsv) for tsv in sorted(path.glob("*.tsv")))
    suffix = path.suffix.lower()
    if suffix in {".parquet", ".arrow"}:
        return True
    if suffix != ".tsv":
        return False
    columns = set(peek(path).split("\n", 1)[0].strip("\r").split("\t"))
    return {"question", "answer"} <= columns and bool(columns & {"subject", "catagory", "category"})


def load(src: Path, tally: Tally, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> Iterator[LoadedItem | Skip]:
    """Yield RBench-V items (ids `<category>-<index within category>`) and skips from parquet, arrow or TSV.

    A row whose question, answer and image bytes equal an earlier row's (`content_key`) is the same item read
    twice (a snapshot with both the full split and per-category files): it is a "duplicate item" skip.
    """
    files = source_files(src)
    if not files:
        raise LoaderError(f"{src}: no .parquet, .arrow or .tsv files found for rbench-v")
    root = src if src.is_dir() else src.parent
    counters: Counter[str] = Counter()
    seen: dict[str, tuple[str, str]] = {}
    for path in files:
        rows = _tsv_rows(path) if path.suffix.lower() == ".tsv" else _arrow_rows(path)
        for locator, row in rows:
            if isinstance(row, Skip):
                yield row
                continue
            tally.records += 1
            try:
                category = _category(row)
                try:
                    raw_images = _raw_images(row, root)
                    key = content_key(_text(row, "question"), _text(row, "answer"), raw_images)
                except SkipItem:
                    counters[category] += 1  # a broken row keeps its index, so later ids do not shift
                    raise
                if key in seen:
                    first_id, first_locator = seen[key]
                    yield Skip(
                        locator,
                        "duplicate item",
                        f"same question, answer and image as {first_id} ({first_locator}): "
                        "the snapshot holds this item twice (e.g. the full split and a per-category file)",
                    )
                    continue
                index = counters[category]
                counters[category] += 1
                loaded = _item(row, category, index, path, locator, max_pixels, raw_images)
                seen[key] = (loaded.item.id, locator)
                yield loaded
            except SkipItem as skip:
                yield Skip(locator, skip.kind, skip.reason)


def content_key(question: str, answer: str, images: list[bytes]) -> str:
    """Return the content hash that identifies an RBench-V item: sha256 of question, trimmed answer, image hashes.

    A snapshot folder may hold the full split and per-category files with the same rows; two rows with the same
    key are one item (the first wins, the other is reported as a duplicate).
    """
    digest = hashlib.sha256()
    for part in (question, answer.strip(), *(hashlib.sha256(image).hexdigest() for image in images)):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def _raw_images(row: dict[str, Any], root: Path) -> list[bytes]:
    """Return the image bytes of a row (TSV base64 or an image cell), without checking them."""
    if row.get("_tsv"):
        return _tsv_images(row.get("image") or "")
    return [b for b in [_image_bytes(row.get("image"), root)] if b]


def _label(path: Path, row: int) -> str:
    return f"{path.name}:row {row}"


def _arrow_rows(path: Path) -> Iterator[tuple[str, dict[str, Any] | Skip]]:
    """Yield (locator, row) from a parquet or arrow file, streaming by record batch; a broken file is one skip."""
    import pyarrow as pa

    n = 0
    try:
        batches = _batches(path)
        for batch in batches:
            for row in batch.to_pylist():
                yield _label(path, n), row
                n += 1
    except (pa.ArrowException, OSError, ValueError, OverflowError, MemoryError) as exc:
        # damaged bytes: a broken footer, a string column that is not UTF-8, a length past the file
        where = f"{path.name}" if n == 0 else f"{path.name}:row {n} onward"
        yield where, Skip(where, "unreadable file", f"cannot read {path.name} past row {n}: {_one_line(exc)}")


def _batches(path: Path) -> Iterator[pa.RecordBatch]:
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    if path.suffix.lower() == ".parquet":
        yield from pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20).iter_batches(batch_size=_BATCH_ROWS)
        return
    with pa.memory_map(str(path)) as source:
        try:
            reader: Any = ipc.open_stream(source)
        except pa.ArrowInvalid:
            source.seek(0)
            reader = ipc.open_file(source)
            for k in range(reader.num_record_batches):
                yield reader.get_batch(k)
            return
        yield from reader


def _tsv_rows(path: Path) -> Iterator[tuple[str, dict[str, Any] | Skip]]:
    """Yield (locator, row) from a VLMEvalKit TSV; a row with missing columns is a skip."""
    csv.field_size_limit(sys.maxsize)
    images_by_index: dict[str, str] = {}
    with path.open("rb") as handle:
        lines = _Utf8Lines(handle)
        reader = csv.reader(lines, delimiter="\t")
        try:
            header = next(reader)
        except (StopIteration, csv.Error) as exc:
            raise LoaderError(f"{path}: no TSV header line ({exc})") from exc
        missing = {"question", "answer"} - set(header)
        if missing:
            raise LoaderError(f"{path}: TSV lacks the column(s) {', '.join(sorted(missing))}")
        n = 0
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                where = _label(path, n)
                yield where, Skip(where, "malformed record", f"TSV row cannot be parsed: {_one_line(exc)}")
                return
            where = _label(path, n)
            n += 1
            if lines.undecodable:
                lines.undecodable = False
                yield where, Skip(where, "malformed record", "TSV row is not UTF-8 text")
                continue
            if len(fields) != len(header):
                yield (
                    where,
                    Skip(where, "malformed record", f"TSV row has {len(fields)} fields, the header has {len(header)}"),
                )
                continue
            row: dict[str, Any] = dict(zip(header, fields, strict=True))
            image = row.get("image", "")
            if image and len(image) < 16 and image.strip().isdigit() and image.strip() in images_by_index:
                row["image"] = images_by_index[image.strip()]
            elif image and "index" in row:
                images_by_index[str(row["index"]).strip()] = image
            row["_tsv"] = True
            yield where, row


class _Utf8Lines:
    """The lines of a binary file as text; a line that is not UTF-8 is read with replacement characters and
    flagged (`undecodable`), so that its row becomes a skip instead of stopping the whole file."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.undecodable = False

    def __iter__(self) -> Iterator[str]:
        for raw in self.handle:
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError:
                self.undecodable = True
                yield raw.decode("utf-8", errors="replace")


def _category(row: Mapping[str, Any]) -> str:
    for name in CATEGORY_FIELDS:
        value = row.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise SkipItem("wrong field type", f"{name} must be a non-empty string, got {value!r}")
        return value.strip().lower()
    raise SkipItem("missing field", "no category field (catagory, category or subject)")


def _text(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    if value is None:
        raise SkipItem("missing field", f"no {name} field")
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise SkipItem("wrong field type", f"{name} must be text, got {type(value).__name__}")
    return str(value)


def _image_bytes(value: Any, root: Path) -> bytes | None:
    """Return the image bytes of an image cell (struct {bytes, path}, raw bytes, base64 text), None if empty."""
    if value is None:
        return None
    if isinstance(value, dict):
        data = value.get("bytes")
        if data:
            if not isinstance(data, bytes):
                raise SkipItem("wrong field type", f"image.bytes must be binary, got {type(data).__name__}")
            return data
        path = value.get("path")
        if path:
            return read_inside(root, path)
        return None
    if isinstance(value, bytes):
        return value or None
    if isinstance(value, str):
        return None if not value.strip() else decode_base64(value)
    raise SkipItem(
        "wrong field type", f"image must be an image struct, bytes or base64 text, got {type(value).__name__}"
    )


def _tsv_images(value: str) -> list[bytes]:
    text = value.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            parts = ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise SkipItem("invalid base64", "image field looks like a list but cannot be parsed") from exc
        return [decode_base64(str(part)) for part in parts]
    return [decode_base64(text)]


def _item(
    row: dict[str, Any], category: str, index: int, path: Path, locator: str, max_pixels: int, raw_images: list[bytes]
) -> LoadedItem:
    item_id = f"{_SAFE_ID.sub('_', category)}-{index:04d}"
    question = _text(row, "question")
    answer = _text(row, "answer").strip()
    row.pop("_tsv", None)
    images: dict[str, bytes] = {}
    image_meta = []
    for k, data in enumerate(raw_images):
        checked = check_image(data, max_pixels=max_pixels)
        suffix = "" if len(raw_images) == 1 else f"-{k}"
        rel = f"images/rbench-v/{item_id}{suffix}{checked.suffix}"
        images[rel] = checked.data
        image_meta.append({"width": checked.width, "height": checked.height, "mode": checked.mode})
    meta: dict[str, Any] = {"source": path.name, "locator": locator}
    if image_meta:
        meta["image"] = image_meta[0] if len(image_meta) == 1 else image_meta
    for key, value in row.items():
        if key not in _KNOWN:
            meta[key] = _jsonable(value)
    choices = parse_options(question)
    letter = answer_letter(answer, choices) if choices else None
    if choices and letter is not None:
        if letter != answer:
            meta["answer_raw"] = answer
        answer_type, answer = "choice", letter
    else:
        if choices:
            meta["parsed_options"] = choices
        choices = None
        answer_type = infer_answer_type(answer)
    item = Item(
        id=item_id,
        benchmark=BENCHMARK,
        category=category,
        question=question,
        images=list(images),
        choices=choices,
        answer=answer,
        answer_type=answer_type,  # type: ignore[arg-type]
        meta=meta,
    )
    return LoadedItem(item, images)


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
