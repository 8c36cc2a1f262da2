"""GePBench: the native directory (`figures/{level}_{id:08d}.jpg`, `vqa-{level}/{aspect}.jsonl`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcot.benchmarks.loaders._answers import LETTERS
from mcot.benchmarks.loaders._images import DEFAULT_MAX_PIXELS, check_image
from mcot.benchmarks.loaders._paths import read_inside
from mcot.benchmarks.loaders._text import NOT_UTF8, json_record, numbered_lines
from mcot.benchmarks.loaders._types import LoadedItem, LoaderError, Skip, SkipItem, Tally

from mcot.core.item import Item

BENCHMARK = "gepbench"
ASPECT_NAMES = {"relation": "relationship"}
_KNOWN = {"image_id", "question_id", "question", "choices", "answer"}


def dataset_root(src: Path) -> Path | None:
    """Return the folder holding `figures/` and `vqa-*/` (src itself or src/dataset), or None."""
    for candidate in (src, src / "dataset"):
        if (candidate / "figures").is_dir() and any(p.is_dir() for p in candidate.glob("vqa-*")):
            return candidate
    return None


def detect(path: Path) -> bool:
    """Return whether `path` is a GePBench release folder (`figures/` and `vqa-*/`, itself or in `dataset/`)."""
    return path.is_dir() and dataset_root(path) is not None


def load(src: Path, tally: Tally, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> Iterator[LoadedItem | Skip]:
    """Yield one GePBench item per question (answer as its letter, category the aspect, meta.level) and skips."""
    root = dataset_root(src)
    if root is None:
        raise LoaderError(f"{src}: not a GePBench directory (expected figures/ and vqa-easy|hard/ inside)")
    checked: dict[str, tuple[str, str, bytes | None] | SkipItem] = {}
    for folder in sorted(p for p in root.glob("vqa-*") if p.is_dir()):
        level = folder.name.removeprefix("vqa-")
        for path in sorted(folder.glob("*.jsonl")):
            aspect = ASPECT_NAMES.get(path.stem, path.stem)
            for number, line in numbered_lines(path):
                if line is not None and not line.strip():
                    continue
                tally.records += 1
                locator = f"{folder.name}/{path.name}:{number}"
                try:
                    if line is None:
                        raise SkipItem(NOT_UTF8.kind, NOT_UTF8.reason)
                    yield _item(line, level, aspect, path.stem, root, checked, max_pixels, locator)
                except SkipItem as skip:
                    yield Skip(locator, skip.kind, skip.reason)


def _item(
    line: str,
    level: str,
    aspect: str,
    stem: str,
    root: Path,
    checked: dict[str, tuple[str, str, bytes | None] | SkipItem],
    max_pixels: int,
    locator: str,
) -> LoadedItem:
    record = json_record(line)
    for key in _KNOWN:
        if key not in record:
            raise SkipItem("missing field", f"no {key} field")
    image_id, question_id = record["image_id"], record["question_id"]
    if not _is_int(image_id) or not _is_int(question_id):
        raise SkipItem(
            "wrong field type", f"image_id and question_id must be integers, got {image_id!r}, {question_id!r}"
        )
    question, choices, answer = record["question"], record["choices"], record["answer"]
    if not isinstance(question, str):
        raise SkipItem("wrong field type", f"question must be text, got {type(question).__name__}")
    if not isinstance(choices, list) or len(choices) < 2 or not all(_is_scalar(c) for c in choices):
        raise SkipItem("wrong field type", f"choices must be a list of at least 2 texts or numbers, got {choices!r}")
    hits = [k for k, choice in enumerate(choices) if choice == answer and type(choice) is type(answer)]
    if not hits and _is_scalar(answer):
        hits = [k for k, choice in enumerate(choices) if str(choice) == str(answer)]
    if len(hits) != 1:
        raise SkipItem("answer not in choices", f"answer {answer!r} is not exactly one of the choices {choices!r}")
    item_id = f"{level}-{stem}-{image_id:08d}-{question_id}"
    rel = _figure(root, level, image_id, checked, max_pixels)
    meta: dict[str, Any] = {"level": level, "aspect": aspect, "image_id": image_id, "question_id": question_id}
    if not all(isinstance(c, str) for c in choices):
        meta["choice_values"] = choices
        meta["answer_value"] = answer
    for key, value in record.items():
        if key not in _KNOWN:
            meta[key] = value
    item = Item(
        id=item_id,
        benchmark=BENCHMARK,
        category=aspect,
        question=question,
        images=[rel[0]],
        choices=[str(c) for c in choices],
        answer=LETTERS[hits[0]],
        answer_type="choice",
        meta=meta,
    )
    return LoadedItem(item, {rel[0]: rel[1]})


def _figure(
    root: Path, level: str, image_id: int, checked: dict[str, tuple[str, str, bytes | None] | SkipItem], max_pixels: int
) -> tuple[str, bytes]:
    """Return (relative path, bytes) of a figure, decoding each figure once per load."""
    name = f"{level}_{image_id:08d}"
    known = checked.get(name)
    if isinstance(known, SkipItem):
        raise SkipItem(known.kind, known.reason)
    if known is not None:
        rel, relative, stored = known
        return rel, stored if stored is not None else read_inside(root, relative)
    try:
        matches = sorted((root / "figures").glob(f"{name}.*"))
        if not matches:
            raise SkipItem("missing image", f"figure figures/{name}.jpg not found under {root}")
        relative = f"figures/{matches[0].name}"
        data = read_inside(root, relative)
        image = check_image(data, max_pixels=max_pixels)
    except SkipItem as skip:
        checked[name] = skip
        raise
    rel = f"images/gepbench/{name}{image.suffix}"
    checked[name] = (rel, relative, None if image.data is data else image.data)
    return rel, image.data


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)
