"""Cost and efficiency per arm: what each (item, arm) pair used, and what an arm's right answers cost.

Per pair (one line of RUN/results.jsonl): input and output tokens and the cost (`usage`), the model turns
(`steps`), the wall time (`latency_s`), and from the pair's trace the tool calls (its tool steps, failed calls
included) and the images. Two image figures, because a conversation re-sends its images with every request:

- **images sent**: the images that entered the model's context, each counted once, when it first did: the
  item's images (in an arm with tools the first one as the canvas's first observation, the others beside it),
  then each canvas observation and each image a tool showed (a zoom, a code cell) in an arm that sees the canvas
  (a blind arm shows only the first observation; the trace still keeps every image);
- **image inputs**: the image blocks of all the requests together, which is what a provider reads and bills:
  each answered request (a model step without an error; a call that failed is not billed, and retries are not
  counted) carries the item's other images and the latest `max_canvas_images` canvas images (the run's
  setting, 3 by default; older canvas images are replaced by a note), so an image shown at turn 1 of a
  four-turn solve is counted three times.

Per group (arm, model, benchmark): the total and the median of each figure over the pairs where it is known,
how many pairs know it, and the efficiency: correct answers per dollar (correct / total cost) and per 1,000
tokens (correct / (tokens / 1000)). Failed and budget-stopped pairs are in every total and in the denominator
(their calls were paid) and count as not correct; a figure that some pair does not know (a price not in
agents/prices.json, a trace that is missing) makes the efficiency unknown ("—"), never a ratio over the pairs
that know it. A cost is the backend's: tokens at agents/prices.json's price, turns served by the response
cache free (their tokens still count).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot.eval.efficiency import correct_per_1k_tokens, correct_per_usd
from mcot.eval.headline import is_correct
from mcot.eval.tables import Table, num

from mcot.core.rundir import Result, Run, Score, TraceStore, open_run, order_arms, read_scores

DEFAULT_CANVAS_IMAGES = 3
"""The canvas images a request keeps when the manifest does not say (agents.budget.Budget's default)."""
COST_TITLE = "Cost and efficiency per arm"
STUDY_COST_TITLE = "Cost and efficiency per benchmark, model and arm"
FIGURES = ("input_tokens", "output_tokens", "images_sent", "image_inputs", "tool_calls", "model_turns", "wall_s")


@dataclass(frozen=True)
class PairCost:
    """What one (item, arm) pair used; None where the run does not record it (no trace, no price)."""

    id: str
    arm: str
    benchmark: str | None
    ok: bool
    correct: bool
    """Whether its score is right (no score, a run error, an unjudged item: not right)."""
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    images_sent: int | None
    image_inputs: int | None
    tool_calls: int | None
    model_turns: int
    wall_s: float | None
    empty: bool = False
    cut: bool = False

    @property
    def tokens(self) -> int | None:
        """Return input plus output tokens, or None when either is unknown."""
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class Figure:
    """One figure over a group of pairs: its total and median over the pairs that know it, and how many do."""

    total: float | None
    median: float | None
    known: int
    pairs: int

    @property
    def complete(self) -> bool:
        """Return whether every pair of the group knows the figure."""
        return self.known == self.pairs


@dataclass(frozen=True)
class CostSummary:
    """The cost and efficiency of a group of pairs (an arm of a run, a model's arm on a benchmark)."""

    pairs: int
    failed: int
    correct: int
    figures: dict[str, Figure]
    """FIGURES, "tokens" and "cost_usd", each a Figure."""
    empty: int = 0
    cut: int = 0
    correct_per_usd: float | None = None
    """Correct answers per dollar (mcot.eval.efficiency: None when some pair's cost is unknown or it is 0)."""
    correct_per_1k_tokens: float | None = None
    """Correct answers per 1,000 tokens (None when some pair's tokens are unknown or none were used)."""


def _answered(step: Mapping[str, Any]) -> bool:
    """Return whether a trace step is a model turn the provider answered (a failed call is recorded with `error`)."""
    return step.get("kind") == "model" and not step.get("error")


def images_of(
    steps: Sequence[Mapping[str, Any]], item_images: int, *, tools: bool, sees_canvas: bool, keep: int
) -> tuple[int, int]:
    """Return (images sent, image inputs) of one pair from its trace steps (see the module's docstring).

    `item_images`: how many images the item has; `tools`: whether the arm offers tools (a canvas is opened);
    `sees_canvas`: whether it is shown the canvas after the first observation; `keep`: canvas images per request.
    """
    if not tools:
        turns = sum(1 for step in steps if _answered(step))
        return item_images, item_images * turns
    others = max(item_images - 1, 0)  # the first image is the canvas: its first observation is a canvas image
    canvas, inputs, observed = 0, 0, False
    for step in steps:
        kind = step.get("kind")
        if kind == "observation" and step.get("image"):
            if not observed or sees_canvas:
                canvas += 1
            observed = True
        elif kind == "tool" and sees_canvas:
            shown = step.get("images")
            canvas += len(shown) if isinstance(shown, list) else (1 if step.get("image") else 0)
        elif _answered(step):
            inputs += others + min(keep, canvas)
    return others + canvas, inputs


def pair_cost(
    result: Result,
    steps: Sequence[Mapping[str, Any]] | None,
    *,
    item_images: int | None,
    tools: bool,
    sees_canvas: bool = True,
    keep: int = DEFAULT_CANVAS_IMAGES,
    score: Score | None = None,
) -> PairCost:
    """Return what one result used: its usage and turns, and from its trace (`steps`) its tool calls and images.

    No trace: tool calls and images unknown (None); `item_images` None (the item is not in the run, or the arm is
    an image generator's): images unknown.
    """
    usage = result.usage
    images: tuple[int | None, int | None] = (None, None)
    if steps is not None and item_images is not None:
        images = images_of(steps, item_images, tools=tools, sees_canvas=sees_canvas, keep=keep)
    return PairCost(
        id=result.id,
        arm=result.mode,
        benchmark=result.benchmark or (score.benchmark if score is not None else None),
        ok=result.ok,
        correct=score is not None and is_correct(score),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
        images_sent=images[0],
        image_inputs=images[1],
        tool_calls=None if steps is None else sum(1 for step in steps if step.get("kind") == "tool"),
        model_turns=result.steps,
        wall_s=result.latency_s,
        empty=result.empty,
        cut=result.cut_chars > 0,
    )


def _sees_canvas(run: Run, arm: str) -> bool:
    for entry in run.manifest.arms:
        if entry.name == arm:
            return bool((entry.model_extra or {}).get("sees_canvas", True))
    return True


def _generates(run: Run, arm: str) -> bool:
    """Return whether the arm is an image generator's (`mcot imagine`): no chat, so no images sent to a model."""
    return any(entry.name == arm and entry.generator is not None for entry in run.manifest.arms)


def _canvas_images(run: Run) -> int:
    value = run.manifest.config.get("max_canvas_images")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else DEFAULT_CANVAS_IMAGES


def _pair_key(record: Result | Score) -> tuple[str, str, Any]:
    """Return (item id, arm, sample) of a result or score line; sample None where the line has none."""
    return record.id, record.mode, getattr(record, "sample", None)


def run_pair_costs(run: Run, scores: Iterable[Score] = ()) -> list[PairCost]:
    """Return every result of the run as a PairCost (each line one pair, a repeated sample its own), scored by
    `scores` where they have the pair; the trace is the one the result line names."""
    scored = {_pair_key(score): score for score in scores}
    keep = _canvas_images(run)
    traces = TraceStore(run.root)
    out: list[PairCost] = []
    for result in sorted(run.results.values(), key=lambda row: (row.id, row.mode, str(_pair_key(row)[2]))):
        item = None if _generates(run, result.mode) else run.items.get(result.id)
        out.append(
            pair_cost(
                result,
                traces.read(result.trace_path(), (result.id, result.mode)),
                item_images=len(item.images) if item is not None else None,
                tools=run.arm_tools(result.mode) != (),
                sees_canvas=_sees_canvas(run, result.mode),
                keep=keep,
                score=scored.get(_pair_key(result)),
            )
        )
    return out


def figure(values: Sequence[float | int | None]) -> Figure:
    """Return the total and median of the known values (None when none is known) and how many are known."""
    known = [float(v) for v in values if v is not None]
    if not known:
        return Figure(None, None, 0, len(values))
    return Figure(sum(known), statistics.median(known), len(known), len(values))


def summarize(pairs: Sequence[PairCost]) -> CostSummary:
    """Return the cost and efficiency of a group of pairs (every pair counted, failed ones included)."""
    figures = {name: figure([getattr(pair, name) for pair in pairs]) for name in FIGURES}
    figures["tokens"] = figure([pair.tokens for pair in pairs])
    figures["cost_usd"] = figure([pair.cost_usd for pair in pairs])
    correct = sum(1 for pair in pairs if pair.correct)
    return CostSummary(
        pairs=len(pairs),
        failed=sum(1 for pair in pairs if not pair.ok),
        correct=correct,
        figures=figures,
        empty=sum(1 for pair in pairs if pair.empty),
        cut=sum(1 for pair in pairs if pair.cut),
        correct_per_usd=correct_per_usd(correct, [pair.cost_usd for pair in pairs]),
        correct_per_1k_tokens=correct_per_1k_tokens(correct, [pair.tokens for pair in pairs]),
    )


def by_arm(pairs: Iterable[PairCost], arms: Sequence[str] = ()) -> dict[str, list[PairCost]]:
    """Return the pairs grouped by arm, `arms` first in their order, the others after them in order_arms' order."""
    grouped: dict[str, list[PairCost]] = {}
    for pair in pairs:
        grouped.setdefault(pair.arm, []).append(pair)
    ordered = [arm for arm in arms if arm in grouped] + [arm for arm in order_arms(grouped) if arm not in arms]
    return {arm: grouped[arm] for arm in ordered}


def money(value: float) -> str:
    """Return dollars with the decimals their size needs: 2 from $1, 4 from $0.01, else 6 (a cheap pair's cost)."""
    digits = 2 if value >= 1 else 4 if value >= 0.01 or value == 0 else 6
    return f"{value:,.{digits}f}"


def figure_cell(found: Figure, digits: int = 0, *, dollars: bool = False) -> str:
    """Return "total · median" ("—" when no pair knows it), with "(k/n known)" when some pair does not.

    `digits`: the decimals shown; `dollars`: each value as `money` writes it.
    """
    if found.total is None or found.median is None:
        return "—"

    def shown(value: float) -> str:
        return money(value) if dollars else f"{value:,.{digits}f}"

    cell = f"{shown(found.total)} · {shown(found.median)}"
    return cell if found.complete else f"{cell} ({found.known}/{found.pairs} known)"


COLUMNS = [
    "pairs",
    "failed",
    "correct",
    "input tokens",
    "output tokens",
    "images sent",
    "image inputs",
    "tool calls",
    "model turns",
    "wall (s)",
    "cost ($)",
    "correct / $",
    "correct / 1k tokens",
]


def summary_cells(summary: CostSummary) -> list[str]:
    """Return the cells of COLUMNS for one group."""
    f = summary.figures
    return [
        str(summary.pairs),
        str(summary.failed),
        str(summary.correct),
        figure_cell(f["input_tokens"]),
        figure_cell(f["output_tokens"]),
        figure_cell(f["images_sent"]),
        figure_cell(f["image_inputs"]),
        figure_cell(f["tool_calls"]),
        figure_cell(f["model_turns"]),
        figure_cell(f["wall_s"], 1),
        figure_cell(f["cost_usd"], dollars=True),
        num(summary.correct_per_usd, 1),
        num(summary.correct_per_1k_tokens, 3),
    ]


def cost_notes() -> list[str]:
    """Return the notes under a cost table: what the cells, the image figures and the efficiency mean."""
    return [
        "each cell: total · median per pair, over every result (failed and budget-stopped pairs included: their "
        "calls were paid; they count as not correct); (k/n known): only k pairs record the figure",
        "images sent: images that entered the model's context, each once (the item's, then each canvas or tool "
        "image shown); image inputs: image blocks summed over all requests (each request re-sends the item's "
        "images and the latest canvas images), what a provider reads",
        "correct / $ = correct answers / total cost; correct / 1k tokens = correct / (input + output tokens / "
        "1000); — when some pair's cost or tokens are unknown (a price not in agents/prices.json) or the total is 0 "
        "(the offline policy and scripted models cost nothing)",
        "cost: the paid turns at agents/prices.json's price (turns the response cache served cost 0, their tokens "
        "count); wall: each pair's own time (pairs run concurrently, so the total exceeds the run's duration)",
    ]


def cost_table(run: Run, scores: Sequence[Score], arms: Sequence[str] = ()) -> Table | None:
    """Return the run's cost and efficiency table, a row per arm (None without results); `arms` orders the rows.

    Empty and cut answers are counted beside the figures (results flagged `empty`, results with `cut_chars`).
    """
    if not run.results:
        return None
    model = run.manifest.model.spec if run.manifest.model is not None else None
    table = Table(COST_TITLE + (f" — {model}" if model else ""), ["Arm", *COLUMNS, "empty answers", "cut answers"])
    for arm, pairs in by_arm(run_pair_costs(run, scores), arms).items():
        summary = summarize(pairs)
        table.rows.append([arm, *summary_cells(summary), str(summary.empty), str(summary.cut)])
    table.notes += cost_notes()
    table.notes.append(
        "empty answers: the model's final turn was a well-formed empty answer (a stop reason such as `length`, "
        "no text, no tool call), asked again once and then kept as its answer and scored as the protocol scores "
        "an empty text; cut answers: a turn's text was longer than the answer limit (its beginning and end kept)"
    )
    return table


ALL_BENCHMARKS = "all"
"""The benchmark cell of a study row that pools a model's arm over every benchmark (when there are several)."""


def study_cost_tables(runs: Mapping[str, Path]) -> list[Table]:
    """Return the study's cost table: a row per benchmark, model and arm, and with several benchmarks a row per
    model and arm over all of them ([] when no run has results)."""
    table = Table(STUDY_COST_TITLE, ["Benchmark", "Model", "Arm", *COLUMNS])
    pooled: list[list[str]] = []
    for model, root in runs.items():
        run = open_run(root)
        pairs = run_pair_costs(run, read_scores(root))
        for benchmark in sorted({pair.benchmark or "?" for pair in pairs}):
            mine = [pair for pair in pairs if (pair.benchmark or "?") == benchmark]
            for arm, group in by_arm(mine, run.arms).items():
                table.rows.append([benchmark, model, arm, *summary_cells(summarize(group))])
        pooled += [
            [ALL_BENCHMARKS, model, arm, *summary_cells(summarize(group))]
            for arm, group in by_arm(pairs, run.arms).items()
        ]
    if not table.rows:
        return []
    table.rows.sort(key=lambda row: row[0])  # stable: each benchmark's models in the study's order
    if len({row[0] for row in table.rows}) > 1:
        table.rows += pooled
    table.notes += cost_notes()
    return [table]
