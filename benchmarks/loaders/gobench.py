"""GOBench: `data_total.json` (understanding items, or one generation item per scenario) and human scores."""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcot.benchmarks.loaders._images import DEFAULT_MAX_PIXELS, check_image
from mcot.benchmarks.loaders._paths import read_inside
from mcot.benchmarks.loaders._peek import peek
from mcot.benchmarks.loaders._templates import render
from mcot.benchmarks.loaders._types import LoadedItem, LoaderError, Skip, SkipItem, Tally

from mcot.core.inputs import NotRegularFile, check_regular
from mcot.core.item import Item

BENCHMARK = "gobench"
DATA_FILE = "data_total.json"
TEXT_FIELDS = (
    "index",
    "category",
    "image",
    "prompt",
    "Questions_reality",
    "Question_aesthetics",
    "Question_Instruction_consistency",
)
SCORE_PATTERNS = {
    "authenticity": re.compile(r"Reality Assessment Score:\s*([\d.]+)", re.IGNORECASE),
    "aesthetics": re.compile(r"Aesthetics Rating:\s*([\d.]+)", re.IGNORECASE),
    "fidelity": re.compile(r"Instruction Consistency Rating:\s*([\d.]+)", re.IGNORECASE),
}
_NUMBERING = re.compile(r"^\s*\d+\s*[\.\)、:]\s*")
_SAFE_ID = re.compile(r"[^\w.\-]+")


def data_file(src: Path) -> Path:
    """Return the scenario file of a GOBench source: src itself or src/data_total.json."""
    path = src / DATA_FILE if src.is_dir() else src
    if not path.is_file():
        raise LoaderError(f"{src}: no {DATA_FILE} found for gobench")
    return path


def detect(path: Path) -> bool:
    """Return whether `path` is GOBench's `data_total.json` (or a folder holding it)."""
    if path.is_dir():
        return (path / DATA_FILE).is_file()
    return path.suffix.lower() == ".json" and (path.name == DATA_FILE or '"Questions_reality"' in peek(path))


def load(
    src: Path,
    tally: Tally,
    *,
    generation: bool = False,
    scores: Path | None = None,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> Iterator[LoadedItem | Skip]:
    """Yield GOBench understanding items (image + 5 authenticity + 2 rating questions) or, with
    `generation`, one generation item per scenario; records that cannot be used become skips."""
    path = data_file(src)
    root = path.parent
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LoaderError(f"{path}: not valid JSON ({exc}); nothing could be read") from exc
    except RecursionError:
        raise LoaderError(f"{path}: the JSON nests too deeply to read; nothing could be read") from None
    if not isinstance(records, list):
        raise LoaderError(f"{path}: expected a JSON list of records, got a {type(records).__name__}")
    human: dict[int, HumanRow] = {}
    if scores is not None:
        human, score_skips = read_scores(Path(scores), records)
        yield from score_skips
    if generation:
        yield from _generation_items(records, human, tally)
        return
    for position, record in enumerate(records):
        tally.records += 1
        locator = _locator(record, position)
        try:
            yield _understanding_item(record, position, root, human.get(position), max_pixels)
        except SkipItem as skip:
            yield Skip(locator, skip.kind, skip.reason)


def _locator(record: Any, position: int) -> str:
    if isinstance(record, dict) and isinstance(record.get("index"), str):
        return record["index"]
    return f"{DATA_FILE}[{position}]"


def _fields(record: Any) -> dict[str, str]:
    if not isinstance(record, dict):
        raise SkipItem("malformed record", f"record is a JSON {type(record).__name__}, not an object")
    for key in TEXT_FIELDS:
        if key not in record:
            raise SkipItem("missing field", f"no {key} field")
        if not isinstance(record[key], str):
            raise SkipItem("wrong field type", f"{key} must be text, got {type(record[key]).__name__}")
    return record


HumanRow = tuple[str, dict[str, float], str]
"""A row of VLMEvalKit's GOBench TSV: its answer (the human scores as text), the scores read, its question."""


def scenario_of(index: str) -> str:
    """Return the scenario key of a record index (`direct_light_images_1.2` → `direct_light_images_1`)."""
    return re.sub(r"\.\d+$", "", index)


def reality_questions(text: str) -> list[str]:
    """Return the numbered authenticity questions of `Questions_reality` as a list without their numbers."""
    return [_NUMBERING.sub("", line).strip() for line in text.splitlines() if line.strip()]


def _understanding_item(record: Any, position: int, root: Path, human: HumanRow | None, max_pixels: int) -> LoadedItem:
    fields = _fields(record)
    data = read_inside(root, fields["image"])
    image = check_image(data, max_pixels=max_pixels)
    item_id = _SAFE_ID.sub("_", fields["index"])
    rel = f"images/gobench/{item_id}{image.suffix}"
    tsv_question = human[2] if human else ""
    if tsv_question.strip():
        # VLMEvalKit's build_prompt sends SYS + '\n' + the TSV's question: the question as the TSV holds it
        question, source = tsv_question, "tsv"
    else:
        question, source = (
            render(
                "gobench_understanding",
                prompt=fields["prompt"],
                reality_questions=fields["Questions_reality"],
                aesthetics_question=fields["Question_aesthetics"],
                consistency_question=fields["Question_Instruction_consistency"],
            ),
            "mcot",
        )
    meta: dict[str, Any] = {
        "task": "understanding",
        "question_source": source,
        "scenario": scenario_of(fields["index"]),
        "position": position,
        "questions_reality": reality_questions(fields["Questions_reality"]),
        "human_scores": human[1] if human else None,
        "record": dict(record),
    }
    item = Item(
        id=item_id,
        benchmark=BENCHMARK,
        category=fields["category"],
        question=question,
        images=[rel],
        choices=None,
        answer=human[0] if human else "",
        answer_type="rating",
        meta=meta,
    )
    return LoadedItem(item, {rel: image.data})


def _generation_items(records: list[Any], human: dict[int, HumanRow], tally: Tally) -> Iterator[LoadedItem | Skip]:
    """Yield one generation item per scenario, in order of first appearance; the prompt is the question."""
    scenarios: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for position, record in enumerate(records):
        tally.records += 1
        try:
            fields = _fields(record)
        except SkipItem as skip:
            yield Skip(_locator(record, position), skip.kind, skip.reason)
            continue
        scenarios.setdefault(scenario_of(fields["index"]), []).append((position, fields))
    for key, members in scenarios.items():
        first = members[0][1]
        prompts = {fields["prompt"] for _, fields in members}
        meta: dict[str, Any] = {
            "task": "generation",
            "scenario": key,
            "title": first.get("title"),
            "questions_reality": reality_questions(first["Questions_reality"]),
            "Questions_reality": first["Questions_reality"],
            "Question_aesthetics": first["Question_aesthetics"],
            "Question_Instruction_consistency": first["Question_Instruction_consistency"],
            "records": [fields["index"] for _, fields in members],
            "source_images": [fields["image"] for _, fields in members],
        }
        if len(prompts) > 1:
            meta["prompt_variants"] = sorted(prompts)
        scored = {fields["index"]: human[pos][1] for pos, fields in members if pos in human}
        if scored:
            meta["human_scores"] = scored
        extra = {k: v for k, v in first.items() if k not in TEXT_FIELDS and k != "title"}
        if extra:
            meta["extra"] = extra
        item = Item(
            id=_SAFE_ID.sub("_", key),
            benchmark=BENCHMARK,
            category=first["category"],
            question=first["prompt"],
            images=[],
            choices=None,
            answer="",
            answer_type="image",
            meta=meta,
        )
        yield LoadedItem(item, {})


def parse_scores(answer: str) -> dict[str, float] | None:
    """Return {authenticity, aesthetics, fidelity} from a VLMEvalKit GOBench answer, or None if incomplete."""
    found = {}
    for key, pattern in SCORE_PATTERNS.items():
        match = pattern.search(answer)
        if match is None:
            return None
        try:
            found[key] = float(match.group(1))
        except ValueError:
            return None
    return found


def read_scores(path: Path, records: list[Any]) -> tuple[dict[int, HumanRow], list[Skip]]:
    """Return (answer, human scores, question) by record position from the VLMEvalKit GOBench TSV, plus skips.

    Rows are joined on `index` equal to the record's index; when no row index names a record, an integer
    `index` is taken as the record's 0-based position, checked against the prompt when the row's question
    holds text.
    """
    if not path.exists():
        raise LoaderError(f"{path}: human-score file not found")
    try:
        check_regular(path, what="human-score file")  # a FIFO or a device: named, never opened
    except NotRegularFile as exc:
        raise LoaderError(str(exc)) from None
    csv.field_size_limit(sys.maxsize)
    by_index = {r["index"]: k for k, r in enumerate(records) if isinstance(r, dict) and isinstance(r.get("index"), str)}
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if not rows or "index" not in rows[0] or "answer" not in rows[0]:
        raise LoaderError(f"{path}: a GOBench score TSV needs the columns index and answer")
    named = any(str(row["index"]).strip() in by_index for row in rows)
    found: dict[int, HumanRow] = {}
    skips: list[Skip] = []
    for number, row in enumerate(rows):
        where = f"{path.name}:row {number}"
        key = str(row.get("index") or "").strip()
        answer = row.get("answer") or ""
        position = by_index.get(key) if named else (int(key) if key.isdigit() else None)
        if position is None or not 0 <= position < len(records):
            skips.append(Skip(where, "score row unmatched", f"score row index {key!r} names no record"))
            continue
        record = records[position]
        question = row.get("question") or ""
        prompt = record.get("prompt") if isinstance(record, dict) else None
        if not named and question.strip() and isinstance(prompt, str) and prompt.strip() not in question:
            skips.append(
                Skip(where, "score row unmatched", f"score row {key} does not hold record {position}'s prompt")
            )
            continue
        parsed = parse_scores(answer)
        if parsed is None:
            skips.append(Skip(where, "bad score row", f"answer {answer[:60]!r} lacks one of the three scores"))
            continue
        found[position] = (answer.strip(), parsed, question)
    return found, skips
