"""OmniPhys: JSONL records read through a field mapping (the release's key names are not fixed)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcot.benchmarks.loaders._answers import answer_letter, infer_answer_type, letters_answer, parse_options, yes_no
from mcot.benchmarks.loaders._images import DEFAULT_MAX_PIXELS, check_image, decode_base64, is_data_uri
from mcot.benchmarks.loaders._paths import read_inside
from mcot.benchmarks.loaders._peek import peek
from mcot.benchmarks.loaders._text import json_record
from mcot.benchmarks.loaders._types import LoadedItem, LoaderError, Skip, SkipItem, Tally
from mcot.benchmarks.loaders.omniphys_mapping import FieldMapping, parse_mapping

from mcot.core.item import ITEMS_FILE, Item

BENCHMARK = "omniphys"
CHOICE_TYPES = {"single_choice", "multi_select"}
_SAFE_ID = re.compile(r"[^\w.\-]+")


def jsonl_files(src: Path) -> list[Path]:
    """Return the JSONL files of an OmniPhys source: the file itself, or the *.jsonl files in the folder."""
    if src.is_file():
        return [src]
    return sorted(p for p in src.glob("*.jsonl") if p.is_file() and p.name != "items.jsonl")


def detect(path: Path) -> bool:
    """Return whether `path` is an OmniPhys JSONL file (one JSON object a line) or a folder whose first one is."""
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        return bool(files) and detect(files[0])
    if path.suffix.lower() != ".jsonl" or path.name == ITEMS_FILE:
        return False
    first = peek(path).split("\n", 1)[0]
    try:
        record = json.loads(first)
    except json.JSONDecodeError:
        return first.lstrip().startswith("{")
    return isinstance(record, dict)


def load(
    src: Path,
    tally: Tally,
    *,
    mapping: str | Path | dict[str, Any] | FieldMapping | None = None,
    images_root: Path | None = None,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> Iterator[LoadedItem | Skip]:
    """Yield OmniPhys items (task type, stage, domain and reference solution in meta) and skips."""
    fields = parse_mapping(mapping)
    files = jsonl_files(src)
    if not files:
        raise LoaderError(f"{src}: no .jsonl files found for omniphys")
    for path in files:
        root = Path(images_root) if images_root is not None else path.parent
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                tally.records += 1
                locator = f"{path.name}:{number}"
                try:
                    record = _record(line)
                    locator = _record_id(record, fields, path, number, len(files) > 1)
                    yield _item(record, locator, fields, root, f"{path.name}:{number}", max_pixels)
                except SkipItem as skip:
                    yield Skip(locator, skip.kind, skip.reason)


def _record(line: str) -> dict[str, Any]:
    return json_record(line)


def _record_id(record: dict[str, Any], fields: FieldMapping, path: Path, number: int, several: bool) -> str:
    value = record.get(fields.key("id"))
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
        return _SAFE_ID.sub("_", str(value).strip())
    stem = f"{_SAFE_ID.sub('_', path.stem)}-" if several else ""
    return f"{stem}line-{number}"


def _text(record: dict[str, Any], fields: FieldMapping, name: str, *, required: bool) -> str | None:
    key = fields.key(name)
    value = record.get(key)
    if value is None:
        if required:
            raise SkipItem("missing field", f"no {name} field (looked for key {key!r}; set it in the mapping)")
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise SkipItem("wrong field type", f"{name} ({key!r}) must be text, got {type(value).__name__}")
    return str(value)


def _task_type(record: dict[str, Any], fields: FieldMapping) -> tuple[str, bool]:
    raw = _text(record, fields, "type", required=False)
    if raw is None:
        if record.get(fields.key("output_image")):
            return "diagram_editing", True
        if record.get(fields.key("choices")):
            return "single_choice", True
        return "open_ended", True
    task = fields.task_type(raw)
    if task is None:
        raise SkipItem("unknown task type", f"task type {raw!r} is not known; map it with type.{raw}=<task type>")
    return task, False


def _choices(record: dict[str, Any], fields: FieldMapping, question: str) -> list[str] | None:
    value = record.get(fields.key("choices"))
    if value is None:
        return parse_options(question)
    if isinstance(value, str):
        return parse_options(value)
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: str(k).strip().upper())
        return [str(value[k]) for k in keys]
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return [re.sub(r"^\s*[\(（]?[A-H][\)）\.．、:：]\s*", "", str(v)) for v in value]
    raise SkipItem("wrong field type", f"choices must be a list, an object or text, got {type(value).__name__}")


def _image(value: Any, root: Path, max_pixels: int) -> tuple[bytes, str]:
    if not isinstance(value, str):
        raise SkipItem(
            "wrong field type", f"an image must be a relative path or a data URI, got {type(value).__name__}"
        )
    data = decode_base64(value) if is_data_uri(value) else read_inside(root, value)
    checked = check_image(data, max_pixels=max_pixels)
    return checked.data, checked.suffix


def _item(
    record: dict[str, Any], item_id: str, fields: FieldMapping, root: Path, line: str, max_pixels: int
) -> LoadedItem:
    question = _text(record, fields, "question", required=True) or ""
    task, inferred = _task_type(record, fields)
    meta: dict[str, Any] = {"task_type": task, "line": line}
    if inferred:
        meta["task_type_inferred"] = True
    for name in ("stage", "domain", "solution"):
        value = record.get(fields.key(name))
        if value is not None:
            meta[name] = value
    raw_images = record.get(fields.key("images"))
    sources = [] if raw_images in (None, "") else raw_images if isinstance(raw_images, list) else [raw_images]
    images: dict[str, bytes] = {}
    for k, value in enumerate(sources):
        data, suffix = _image(value, root, max_pixels)
        images[f"images/omniphys/{item_id}-{k}{suffix}"] = data
    shown = list(images)
    value = record.get(fields.key("answer"))
    if isinstance(value, dict) or (isinstance(value, bool) and task != "true_false"):
        raise SkipItem("wrong field type", f"answer must be text, a number or a list, got {type(value).__name__}")
    if value is None and task not in {"open_ended", "diagram_editing"}:
        raise SkipItem("missing field", f"{task} item has no answer (looked for key {fields.key('answer')!r})")
    choices = _choices(record, fields, question) if task in CHOICE_TYPES else None
    if task == "diagram_editing":
        if not shown:
            raise SkipItem("missing image", "diagram-editing item has no input image")
        reference = record.get(fields.key("output_image"))
        if reference is None:
            raise SkipItem("missing field", "diagram-editing item has no reference output image (map `output_image`)")
        data, suffix = _image(reference, root, max_pixels)
        answer, answer_type = f"images/omniphys/{item_id}-reference{suffix}", "image"
        images[answer] = data
        meta["reference_image"] = answer
        if value is not None:
            meta["answer_text"] = value
    else:
        answer, answer_type = _answer(task, value, choices, meta)
    used = {fields.key(name) for name in ("id", "question", "answer", "type", "choices", "images", "output_image")}
    used |= {fields.key(name) for name in ("stage", "domain", "solution")}
    meta.update({key: extra for key, extra in record.items() if key not in used and key not in meta})
    domain = meta.get("domain")
    category = domain.strip().lower() if isinstance(domain, str) and domain.strip() else task
    item = Item(
        id=item_id,
        benchmark=BENCHMARK,
        category=category,
        question=question,
        images=shown,
        choices=choices,
        answer=answer,
        answer_type=answer_type,  # type: ignore[arg-type]
        meta=meta,
    )
    return LoadedItem(item, images)


def _answer(task: str, value: Any, choices: list[str] | None, meta: dict[str, Any]) -> tuple[str, str]:
    """Return (answer, answer type) of a non-diagram item; fill-in slots go to meta["slots"]."""
    if task in CHOICE_TYPES:
        if not choices or len(choices) < 2:
            raise SkipItem(
                "missing field", f"{task} item has no options (map `choices` or put A. … B. … in the question)"
            )
        if task == "single_choice":
            answer = answer_letter(str(value), choices) if isinstance(value, str | int) else None
        else:
            answer = letters_answer(value, len(choices))
        if answer is None:
            raise SkipItem("bad answer", f"answer {value!r} is not an option letter of {len(choices)} options")
        return answer, "choice"
    if task == "true_false":
        answer = yes_no(value)
        if answer is None:
            raise SkipItem("bad answer", f"true/false answer {value!r} is not true/false, 对/错 or √/×")
        return answer, "yesno"
    if isinstance(value, list):
        meta["slots"] = [str(v) for v in value]
        answer = "; ".join(meta["slots"])
        return answer, infer_answer_type(answer) if len(value) == 1 else "text"
    answer = "" if value is None else str(value)
    return answer, infer_answer_type(answer) if answer else "text"
