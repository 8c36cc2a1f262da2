"""The static trace viewer: a page that works from file://, with a compact index and the traces loaded on demand.

`write_viewer(RUN, OUT)` writes OUT (default RUN/index.html) and, beside it, OUT's `<stem>_files/` folder of trace
shards. The page embeds only the index (one short row per (item, arm), each item's id and question once) as JSON;
the full traces (steps, predictions, scores, image links) are in shards of about `SHARD_BYTES`, JavaScript files
that the page adds as `<script>` elements when a trace is selected (a page opened from file:// may load scripts
but not fetch files). Images are links into the run's blobs and the items' folder, relative to OUT, so the page,
its folder and the run move together. Shards are named by their content hash, written before the page, and the
ones the new page no longer names are removed after it.

With `rate` (`mcot view RUN --rate`) the index also holds each trace's rating form (mcot.eval.ratings: right /
wrong, a diagram grade, or a generated image's authenticity questions and 1–5 scales) and the page rates:
ratings are kept in the browser's localStorage under the run's key and saved as one JSON file (docs/viewer.md).

Every text from models and datasets reaches the page as JSON data (in the page with `<`, `>` and `&` written as
`\\u` escapes) and is put into the document as text nodes by the page's script; docs/viewer.md says what it shows.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mcot.core.rundir import (
    SCORES,
    Result,
    Run,
    Score,
    compact_json,
    iter_scores,
    latest_by_key,
    open_run,
    write_text_atomic,
)
from mcot.core.rundir.probes import pair_probes
from mcot.core.rundir.traces import sent_to_model
from mcot.eval.advice import MISSING_STATUS
from mcot.eval.ratings import rating_form

TEMPLATE = "viewer.html"
SHARD_BYTES = 256 * 1024
"""A shard is closed once it holds about this many bytes (all arms of one item always share a shard)."""
SHARD_PATTERN = re.compile(r"^t-[0-9a-f]{16}\.js$")
CORRECTNESS = ("right", "wrong", "rated", "error", "unjudged", "unscored")
"""Answer classes: right / wrong by the score; rated: decided without being right or wrong (a generated image the
judge rated, a graded score such as GOBench's SPS), labelled by its ratings; error: the run failed the pair (score
method "error"); unjudged: a score without a verdict or rating (judge failed or none); unscored: no score line."""
VERDICTS = ("valid", "invalid", "absent", "none")
"""The trace verifier's verdict on what the model drew; `none`: the item's task has no verifier (or no score)."""
CELL_FIELDS = ("source", "outcome", "duration_s", "message", "stdout", "stderr", "value", "cut", "restarted")
"""What the viewer shows of a code cell (its trace step's `data.cell`)."""
SHOWN_STEP_FIELDS = ("step", "kind", "text", "tool", "arguments", "result", "error", "tool_calls", "t", "drawn_by")
"""Trace step fields the viewer shows (with `image` as a link); svg, ops and data stay on disk."""
SHOWN_ARGUMENT_CHARS = 20_000
"""The most of one tool call's arguments the viewer shows (the beginning and the end, the middle noted): a trace
keeps up to `Budget.max_answer_chars` of them, and the viewer's data does not copy that again for each step."""


def shown_arguments(arguments: Any) -> Any:
    """Return a tool call's arguments as the viewer shows them: as they are when short, else their text capped to
    `SHOWN_ARGUMENT_CHARS` (its beginning and its end, with how many characters were left out)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    if len(text) <= SHOWN_ARGUMENT_CHARS:
        return arguments
    head = SHOWN_ARGUMENT_CHARS // 2
    cut = len(text) - SHOWN_ARGUMENT_CHARS
    note = f"\n[… {cut:,} characters of the arguments left out of the viewer (the trace file keeps more) …]\n"
    return f"{text[:head]}{note}{text[-(SHOWN_ARGUMENT_CHARS - head) :]}"


@dataclass
class StepCounts:
    """What a trace holds, counted by kind: model turns, tool calls (and failed ones), canvas images."""

    model_turns: int = 0
    tool_calls: int = 0
    failed_tool_calls: int = 0
    canvas_images: int = 0

    def as_row(self) -> list[int]:
        """Return the counts in index-row order."""
        return [self.model_turns, self.tool_calls, self.failed_tool_calls, self.canvas_images]


def step_counts(steps: Iterable[dict[str, Any]]) -> StepCounts:
    """Return the model turns, tool calls (failed ones apart) and canvas images of a trace's steps."""
    counts = StepCounts()
    for step in steps:
        kind = step.get("kind")
        if kind == "model":
            counts.model_turns += 1
        elif kind == "tool":
            counts.tool_calls += 1
            counts.failed_tool_calls += bool(step.get("error"))
        if kind != "model" and step.get("image"):
            counts.canvas_images += 1
    return counts


def correctness(result: Result | None, score: Score | None) -> str:
    """Return the answer class of a pair: right, wrong, rated, error, unjudged or unscored (CORRECTNESS)."""
    if score is None:
        return "error" if result is not None and not result.ok else "unscored"
    method = score.method
    if method == "error":
        return "error"
    if score.correct is True:
        return "right"
    if score.correct is False:
        return "wrong"
    if method in ("judge", "rule") and rating_label(score):
        return "rated"
    return "unjudged"


def rating_label(score: Score | None) -> str:
    """Return what a rated pair is labelled by: the judge's ratings ("authenticity 4 · aesthetics 3 · …") or its
    graded score ("score 0.83"); "" for a pair without a rating (and for a right or wrong one, labelled so)."""
    if score is None or score.correct is not None or score.method not in ("judge", "rule"):
        return ""
    ratings = score.details.get("judge_scores")
    if isinstance(ratings, dict) and ratings:
        return " · ".join(f"{name} {_figure(value)}" for name, value in ratings.items())
    value = score.score
    return f"score {_figure(value)}" if value is not None else ""


def _figure(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—"
    return f"{value:.2f}".rstrip("0").rstrip(".")


def tool_drew(step: dict[str, Any]) -> bool:
    """Return True when a tool step put something on the canvas (its ops or changed elements are not empty)."""
    return bool(step.get("ops") or step.get("changed"))


def trace_verdict(score: Score | None) -> dict[str, Any] | None:
    """Return the trace verifier's verdict stored in a score's details, or None when the pair has none."""
    verdict = score.details.get("trace") if score is not None else None
    return verdict if isinstance(verdict, dict) and verdict.get("verdict") in VERDICTS else None


@dataclass
class _Links:
    """Turns run-relative and item-relative paths into URLs relative to the viewer page."""

    page_dir: Path
    run_root: Path
    items_root: Path

    def _url(self, base: Path, path: str | None) -> str | None:
        if not path or not isinstance(path, str):
            return None
        target = os.path.abspath(os.path.join(base, path))
        relative = os.path.relpath(target, os.path.abspath(self.page_dir)).replace(os.sep, "/")
        return quote(posixpath.normpath(relative), safe="/")  # ':' is quoted: never a URL scheme

    def run(self, path: str | None) -> str | None:
        """Return the page-relative URL of a run-relative path (blobs/<sha>.png)."""
        return self._url(self.run_root, path)

    def item(self, path: str | None) -> str | None:
        """Return the page-relative URL of an item-relative path (images/...)."""
        return self._url(self.items_root, path)


@dataclass
class _Table:
    """A list of distinct strings, referred to by index in the index rows."""

    values: list[str] = field(default_factory=list)
    _where: dict[str, int] = field(default_factory=dict)

    def index(self, value: str) -> int:
        if value not in self._where:
            self._where[value] = len(self.values)
            self.values.append(value)
        return self._where[value]


def _shown_step(step: dict[str, Any], links: _Links) -> dict[str, Any]:
    shown = {key: step[key] for key in SHOWN_STEP_FIELDS if step.get(key) not in (None, [], {}, "")}
    if "arguments" in shown:
        shown["arguments"] = shown_arguments(shown["arguments"])
    if isinstance(shown.get("tool_calls"), list):
        shown["tool_calls"] = [
            {**call, "arguments": shown_arguments(call["arguments"])}
            if isinstance(call, dict) and "arguments" in call
            else call
            for call in shown["tool_calls"]
        ]
    if shown.get("drawn_by") == "tool" and not tool_drew(step):
        del shown["drawn_by"]  # a domain tool that only measured or detected drew nothing: "drawn by" says nothing
    image = links.run(step.get("image"))
    if image:
        shown["image"] = image
    if step.get("retries"):
        shown["retries"] = len(step["retries"])
    cell = (step.get("data") or {}).get("cell") if step.get("kind") == "tool" else None
    if isinstance(cell, dict):  # a code cell: shown as code with its outputs and every image it showed
        shown["cell"] = {key: cell[key] for key in CELL_FIELDS if cell.get(key) not in (None, "", [], False)}
        shown["images"] = [
            url for url in (links.run(path) for path in step.get("images") or [step.get("image")]) if url
        ]
        shown.pop("image", None)
        shown.pop("arguments", None)
        shown.pop("result", None)
    return shown


def _detail(
    run: Run, item_id: str, arm: str, result: Result | None, score: Score | None, links: _Links
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return the shard record of one pair and its trace steps."""
    item = run.items.get(item_id)
    result = result or Result(id=item_id, mode=arm, prediction=None, latency_s=None)
    steps = (run.trace(item_id, arm) or []) if result.trace else []
    images = result.images or ([result.image] if result.image else [])
    meta = item.meta if item is not None else {}
    reference = meta.get("reference_image") or (
        item.answer if item is not None and item.answer_type == "image" else None
    )
    metas = result.image_meta or []
    detail = {
        "choices": item.choices if item is not None else None,
        "answer": item.answer if item is not None else None,
        "answer_type": item.answer_type if item is not None else None,
        "item_images": [links.item(path) for path in (item.images if item is not None else [])],
        "reference": links.item(reference) if reference else None,
        "prediction": result.prediction,
        "error": result.error or (score.details.get("reason") if score is not None else None),
        "usage": result.usage.model_dump(exclude_unset=True) if "usage" in result.model_fields_set else None,
        "latency_s": result.latency_s,
        "generator": result.generator,
        "outputs": [links.run(path) for path in images],
        "output_source": (metas[0] or {}).get("source") if metas and isinstance(metas[0], dict) else None,
        "image_meta": metas or None,
        "extracted": score.extracted if score is not None else None,
        "score": score.score if score is not None else None,
        "method": score.method if score is not None else None,
        "judge": (score.judge or {}).get("spec") if score is not None else None,
        "verdict": trace_verdict(score),
        "probes": pair_probes(run.root, item_id, arm),  # `mcot probe`'s lines of this pair (RUN/probes.jsonl)
        "sent": sent_to_model(steps),  # the system prompt and tool schemas, as sent
        "steps": [_shown_step(step, links) for step in steps],
    }
    return {key: value for key, value in detail.items() if value not in (None, [], "")}, steps


def _pairs(run: Run, scores: dict[tuple[str, str], Score]) -> list[tuple[str, str]]:
    """Return the recorded (item id, arm) pairs, and those only scored (never run), in item then arm order."""
    order = {item_id: n for n, item_id in enumerate(run.items)}
    arms = {arm: n for n, arm in enumerate(run.arms)}
    pairs = set(run.results) | set(scores)
    return sorted(pairs, key=lambda p: (order.get(p[0], len(order)), p[0], arms.get(p[1], len(arms)), p[1]))


def rating_key(run: Run) -> str:
    """Return the key a run's ratings are kept under in the browser: its folder's name and its frozen items' hash.

    Every page opened from file:// shares one localStorage, so two runs of the same name on other items (or
    moved copies of one run) are told apart by what they were run on.
    """
    return f"{run.root.name}:{str(run.manifest.dataset.sha256 or '')[:16]}"


def viewer_data(run: Run, page_dir: Path, *, rate: bool = False) -> tuple[dict[str, Any], list[str]]:
    """Return the page's index and the texts of its shards (JavaScript files that call `mcotShard`).

    The index: `arms`, `benchmarks`, `categories`, `statuses` (string tables), `correctness` and `verdicts` (the
    fixed classes), `items` ([id, question, benchmark, category]), `traces` (one row per pair: item, arm, status,
    correctness, verdict, model turns, tool calls, failed tool calls, canvas images, output images, generation 0/1,
    shard, label: the index in `labels` of a rated pair's ratings, else -1), `shards` ([file name, first trace]).
    Shard k's script calls `mcotShard(k, [detail, ...])`. With `rate`, `rate` holds `run` (the name a ratings file
    gives), `key` (its localStorage key), `forms` (the distinct rating forms) and `form` (per trace, the index of
    its form, -1 for a pair the run failed on); a generated image's detail holds its authenticity `questions`.
    """
    scores = latest_by_key(iter_scores(run.root / SCORES))
    links = _Links(page_dir, run.root, run.items_root)
    arms, benchmarks, categories, statuses, labels = _Table(), _Table(), _Table(), _Table(), _Table()
    forms = _Table()
    form_of: list[int] = []
    for arm in run.arms:
        arms.index(arm)
    items: list[list[Any]] = []
    item_rows: dict[str, int] = {}
    traces: list[list[Any]] = []
    shards: list[list[Any]] = []
    texts: list[str] = []
    pending: list[str] = []
    pending_bytes = 0
    previous_item: str | None = None

    def close_shard() -> None:
        nonlocal pending, pending_bytes
        if pending:
            text = f"mcotShard({len(shards)},[{','.join(pending)}]);\n"
            name = f"t-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.js"
            shards.append([name, len(traces) - len(pending)])
            texts.append(text)
        pending, pending_bytes = [], 0

    for item_id, arm in _pairs(run, scores):
        if item_id != previous_item and pending_bytes >= SHARD_BYTES:
            close_shard()
        previous_item = item_id
        result, score = run.results.get((item_id, arm)), scores.get((item_id, arm))
        item = run.items.get(item_id)
        if item_id not in item_rows:
            recorded = result or score
            benchmark = (item.benchmark if item else None) or (recorded.benchmark if recorded else None) or "?"
            category = (item.category if item else None) or (recorded.category if recorded else None) or "?"
            item_rows[item_id] = len(items)
            items.append(
                [item_id, item.question if item else "", benchmarks.index(benchmark), categories.index(category)]
            )
        detail, steps = _detail(run, item_id, arm, result, score, links)
        status = result.status if result is not None else (score.details.get("status") if score is not None else None)
        status = status or MISSING_STATUS
        answer_class = correctness(result, score)
        if rate:
            details = score.details if score is not None else {}
            ratable = item is not None and answer_class != "error" and result is not None
            form = rating_form(item, details) if item is not None and ratable else None
            form_of.append(forms.index(json.dumps(form.to_json())) if form is not None else -1)
            if form is not None and form.kind == "generation" and isinstance(details.get("questions"), list):
                detail["questions"] = [str(question) for question in details["questions"]]
        verdict = trace_verdict(score)
        counts = step_counts(steps)
        traces.append(
            [
                item_rows[item_id],
                arms.index(arm),
                statuses.index(str(status)),
                CORRECTNESS.index(answer_class),
                VERDICTS.index(verdict["verdict"] if verdict else "none"),
                *counts.as_row(),
                len(detail.get("outputs", [])),
                1 if result is not None and result.generator else 0,
                len(shards),
                labels.index(label) if (label := rating_label(score)) else -1,
            ]
        )
        encoded = compact_json(detail)
        pending.append(encoded)
        pending_bytes += len(encoded)
    close_shard()
    index = {
        "title": run.root.name,
        "scored": (run.root / SCORES).is_file(),
        "arms": arms.values,
        "benchmarks": benchmarks.values,
        "categories": categories.values,
        "statuses": statuses.values,
        "labels": labels.values,
        "correctness": list(CORRECTNESS),
        "verdicts": list(VERDICTS),
        "items": items,
        "traces": traces,
        "shards": shards,
    }
    if rate:
        index["rate"] = {
            "run": run.root.name,
            "key": rating_key(run),
            "forms": [json.loads(form) for form in forms.values],
            "form": form_of,
        }
    return index, texts


def embedded_json(data: Any) -> str:
    """Return `data` as JSON safe inside an HTML <script> element: `<`, `>` and `&` written as \\u escapes.

    So no text in it can close the element (`</script>`) or open a comment state (`<!--<script>`).
    """
    text = compact_json(data)  # U+2028, U+2029 and lone surrogates as \\u escapes too
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def shard_dir(page: Path) -> Path:
    """Return the folder beside the page that holds its trace shards (`index.html` → `index_files/`)."""
    return page.parent / f"{page.stem}_files"


def _write_shards(folder: Path, names: Sequence[str], texts: Sequence[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in zip(names, texts, strict=True):
        if not (folder / name).is_file():  # content-named: an existing file already holds this text
            write_text_atomic(folder / name, text)


def _remove_stale_shards(folder: Path, keep: set[str]) -> None:
    for path in folder.iterdir():
        if SHARD_PATTERN.match(path.name) and path.name not in keep:
            path.unlink(missing_ok=True)


def render_page(index: dict[str, Any], shard_folder: str) -> str:
    """Return the viewer page's HTML for an index whose shards live in `shard_folder` (relative to the page)."""
    index = {**index, "shards": [[f"{quote(shard_folder)}/{name}", start] for name, start in index["shards"]]}
    template = resources.files("mcot").joinpath("templates", TEMPLATE).read_text(encoding="utf-8")
    values = {"TITLE": html.escape(str(index["title"])), "DATA": embedded_json(index)}
    return re.sub(r"__MCOT_(TITLE|DATA)__", lambda match: values[match.group(1)], template)


def write_viewer(run_root: Path, out: Path | None = None, *, rate: bool = False) -> Path:
    """Write the viewer page of a run (default RUN/index.html) and its shard folder; return the page's path.

    With `rate` the page has rating controls (`viewer_data`). Raise RunDirError (before writing anything) when RUN
    is not a run or its frozen items were changed.
    """
    run = open_run(Path(run_root))
    page = Path(out) if out is not None else run.root / "index.html"
    if page.is_dir():
        page = page / "index.html"
    folder = shard_dir(page)
    index, texts = viewer_data(run, page.parent, rate=rate)
    names = [name for name, _ in index["shards"]]
    _write_shards(folder, names, texts)
    write_text_atomic(page, render_page(index, folder.name))
    _remove_stale_shards(folder, set(names))
    return page
