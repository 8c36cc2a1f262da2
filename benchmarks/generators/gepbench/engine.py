"""The GePBench engine end to end: description, rendering, questions, pixel validation, items (and native files)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from mcot.benchmarks.generators.gepbench.llava import LlavaRecords, figure_records
from mcot.benchmarks.generators.gepbench.noise import NOISE_MODELS
from mcot.benchmarks.generators.gepbench.placement import Figure, place_figure
from mcot.benchmarks.generators.gepbench.questions import ASPECTS, LetterBalancer, Question, make_questions
from mcot.benchmarks.generators.gepbench.render import Style, choose_style, encode_jpeg, render
from mcot.benchmarks.generators.gepbench.validator import PixelValidator, Verdict

from mcot.core.item import IMAGES_DIR, Item, ItemsWriter

LEVELS: tuple[str, ...] = ("easy", "hard")
LEVEL_IDS = {"easy": 0, "hard": 1}
NATIVE_FILES = {aspect: ("relation" if aspect == "relationship" else aspect) for aspect in ASPECTS}
SUMMARY_FILE = "generation.json"
BALANCE_BLOCK = 64
"""Figures whose answer letters are balanced together. A block of a level is made from (seed, level, its indices)
alone, so that the same seed gives the same bytes whether one process makes every block or many workers do."""


@dataclass
class FigureResult:
    """One generated figure: its description, style, image bytes and the questions kept, with verdicts."""

    level: str
    index: int
    figure: Figure
    style: Style
    image: bytes
    kept: list[tuple[Question, Verdict]]
    dropped: list[tuple[Question, Verdict]]
    description: dict[str, Any] = field(default_factory=dict)
    wording: str = "public"


@dataclass
class GenerationStats:
    """Counts over a generation run: figures, questions kept and dropped, validator agreement, letters."""

    figures: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)  # by "level/aspect"
    dropped: Counter[str] = field(default_factory=Counter)
    checked: int = 0
    agreed: int = 0
    unchecked: int = 0
    letters: Counter[str] = field(default_factory=Counter)

    def add(self, result: FigureResult) -> None:
        """Count one figure's questions."""
        self.figures[result.level] += 1
        for question, verdict in result.kept:
            self.kept[f"{result.level}/{question.aspect}"] += 1
            self.letters[question.letter] += 1
            if verdict.agree is None:
                self.unchecked += 1
            else:
                self.checked += 1
                self.agreed += 1
        for question, _ in result.dropped:
            self.dropped[f"{result.level}/{question.aspect}"] += 1
            self.checked += 1

    def merge(self, other: GenerationStats) -> None:
        """Add another run's (a block's) counts to these."""
        self.figures.update(other.figures)
        self.kept.update(other.kept)
        self.dropped.update(other.dropped)
        self.checked += other.checked
        self.agreed += other.agreed
        self.unchecked += other.unchecked
        self.letters.update(other.letters)

    def as_dict(self) -> dict[str, Any]:
        """Return the counts as a JSON-ready dict (what `mcot gen report` reads)."""
        return {
            "figures": dict(sorted(self.figures.items())),
            "questions": sum(self.kept.values()),
            "kept": dict(sorted(self.kept.items())),
            "dropped": dict(sorted(self.dropped.items())),
            "validator": {
                "checked": self.checked,
                "agreed": self.agreed,
                "contradicted": self.checked - self.agreed,
                "unchecked": self.unchecked,
                "agreement": round(self.agreed / self.checked, 4) if self.checked else None,
            },
            "letters": {k: self.letters.get(k, 0) for k in "ABCD"},
        }


def make_figure(
    level: str,
    index: int,
    seed: int,
    balancer: LetterBalancer,
    validate: bool = True,
    effects: bool = False,
    wording: str = "public",
    noise: str = "paper",
) -> FigureResult:
    """Return one figure with its questions; the same arguments and balancer state give the same bytes.

    `wording` is the question style ("public": the released benchmark's phrasing; "mcot"); `noise` the hard
    figures' pixel noise (noise.NOISE_MODELS: "paper", "release" or "none"); `effects` adds the optional faint
    texture and occluding white strokes on hard figures (off, like the public engine).
    """
    rng = np.random.default_rng([seed, LEVEL_IDS[level], index])
    figure = place_figure(level, rng)
    style = choose_style(figure, rng, effects, NOISE_MODELS[noise])
    raster = render(figure, style, rng)
    image = encode_jpeg(raster)
    questions = make_questions(figure, rng, balancer, wording)
    kept: list[tuple[Question, Verdict]] = []
    dropped: list[tuple[Question, Verdict]] = []
    validator = PixelValidator(raster, figure, style.widths) if validate else None
    for question in questions:
        verdict = validator.verdict(question) if validator is not None else Verdict(None)
        if verdict.agree is False:
            balancer.release(question.balance_key, question.answer)
            dropped.append((question, verdict))
        else:
            kept.append((question, verdict))
    return FigureResult(level, index, figure, style, image, kept, dropped, figure.native(), wording)


def plan(n: int, level: str) -> list[tuple[str, int]]:
    """Return the (level, figures) split: all N for one level, or N split easy-first between both."""
    if level in LEVELS:
        return [(level, n)]
    return [("easy", (n + 1) // 2), ("hard", n // 2)]


def _item(
    result: FigureResult, question: Question, qid: int, verdict: Verdict, image_path: str, style: dict[str, Any]
) -> Item:
    meta = {
        "level": result.level,
        "image_id": result.index,
        "question_id": qid,
        "description": result.description,
        "style": style,  # the figure's drawing style, built once for all its questions
        "wording": result.wording,
        "validator": verdict.as_meta(),
    }
    # built from checked parts, so pydantic's validation is skipped (it cost ~5 % of a figure)
    return Item.model_construct(
        id=f"gepbench-{result.level}-{result.index:06d}-{question.aspect}-{qid}",
        benchmark="gepbench",
        category=question.aspect,
        question=question.text,
        images=[image_path],
        choices=question.choices,
        answer=question.letter,
        answer_type="choice",
        meta=meta,
    )


Mapper = Callable[[Callable[..., "BlockOutput"], Sequence[tuple[Any, ...]]], Iterable["BlockOutput"]]
"""An ordered map: (function, argument tuples) → the results in the same order (in this process, or on workers)."""


@dataclass(frozen=True)
class Settings:
    """What a generation run asks for, the same for every block: seed, wording, noise, effects, extra files."""

    seed: int
    effects: bool = False
    wording: str = "public"
    noise: str = "paper"
    native: bool = False
    llava: bool = False


@dataclass
class FigureOutput:
    """One figure ready to write: its image, its items, and its lines of the native and LLaVA files."""

    image_name: str
    image: bytes
    items: list[Item]
    description: dict[str, Any]
    native: list[tuple[str, str]] = field(default_factory=list)  # (aspect, JSON line)
    caption: bytes | None = None
    instructions: list[bytes] = field(default_factory=list)


@dataclass
class BlockOutput:
    """The figures of one balancing block, in index order, and their counts."""

    level: str
    start: int
    figures: list[FigureOutput]
    stats: GenerationStats


def blocks(n: int, level: str) -> list[tuple[str, int, int]]:
    """Return the (level, first index, end index) of every BALANCE_BLOCK-sized block of an N-figure run, in order."""
    return [
        (lvl, start, min(start + BALANCE_BLOCK, count))
        for lvl, count in plan(n, level)
        for start in range(0, count, BALANCE_BLOCK)
    ]


def make_block(settings: Settings, level: str, start: int, stop: int) -> BlockOutput:
    """Return figures `start` to `stop - 1` of `level`, ready to write; the same arguments give the same bytes.

    The answer letters are balanced within the block (one LetterBalancer for its figures), so a block depends on
    its arguments alone and any number of workers can make the blocks of a run."""
    stats = GenerationStats()
    balancer = LetterBalancer()
    figures: list[FigureOutput] = []
    for index in range(start, stop):
        result = make_figure(
            level,
            index,
            settings.seed,
            balancer,
            effects=settings.effects,
            wording=settings.wording,
            noise=settings.noise,
        )
        stats.add(result)
        name = f"{level}_{index:08d}.jpg"
        path = f"{IMAGES_DIR}/{name}"
        per_aspect: Counter[str] = Counter()
        style = result.style.as_meta()
        output = FigureOutput(name, result.image, [], result.description)
        written: list[tuple[str, Question]] = []
        for question, verdict in result.kept:
            qid = per_aspect[question.aspect]
            per_aspect[question.aspect] += 1
            item = _item(result, question, qid, verdict, path, style)
            output.items.append(item)
            written.append((item.id, question))
            if settings.native:
                choices, answer = question.native()
                record = {
                    "image_id": index,
                    "question_id": qid,
                    "question": question.text,
                    "choices": choices,
                    "answer": answer,
                }
                output.native.append((question.aspect, json.dumps(record)))
        if settings.llava:
            output.caption, output.instructions = figure_records(
                settings.seed, level, index, result.figure, result.style, path, written
            )
        figures.append(output)
    return BlockOutput(level, start, figures, stats)


def in_order(function: Callable[..., BlockOutput], arguments: Sequence[tuple[Any, ...]]) -> Iterator[BlockOutput]:
    """Yield `function(*args)` for each argument tuple, in this process (the default Mapper)."""
    for args in arguments:
        yield function(*args)


def generate(
    out: Path,
    n: int,
    seed: int,
    level: str = "both",
    native: bool = False,
    effects: bool = False,
    *,
    wording: str = "public",
    noise: str = "paper",
    llava: bool = False,
) -> GenerationStats:
    """Write N figures' questions as an items directory at `out` (atomically); return the run's counts."""
    with ItemsWriter(out) as writer:
        return write(writer, n, seed, level, native, effects, wording=wording, noise=noise, llava=llava)


def write(
    writer: ItemsWriter,
    n: int,
    seed: int,
    level: str = "both",
    native: bool = False,
    effects: bool = False,
    *,
    wording: str = "public",
    noise: str = "paper",
    llava: bool = False,
    mapper: Mapper = in_order,
) -> GenerationStats:
    """Add N figures' items (with `native` the public layout, with `llava` LLaVA training records) to an open
    writer; return the counts.

    `wording` is the question style, `noise` the hard figures' noise model, `effects` the optional hard-level
    texture and occluding strokes (see make_figure); `llava` adds a caption per figure and an instruction per
    question (llava.py). `mapper` makes the blocks (in_order: here, one after the other; mcot passes one that
    spreads them over worker processes or a Ray cluster): the bytes are the same whichever makes them."""
    settings = Settings(seed, effects, wording, noise, native, llava)
    stats = GenerationStats()
    records = LlavaRecords(seed, writer) if llava else None
    rules: dict[str, list[dict[str, Any]]] = {lvl: [] for lvl, _ in plan(n, level)}
    vqa: dict[str, dict[str, list[str]]] = {lvl: {aspect: [] for aspect in ASPECTS} for lvl in rules}
    work = [(settings, lvl, start, stop) for lvl, start, stop in blocks(n, level)]
    for block in mapper(make_block, work):
        stats.merge(block.stats)
        for figure in block.figures:
            writer.add_image(figure.image_name, figure.image)
            for item in figure.items:
                writer.add(item)
            for aspect, line in figure.native:
                vqa[block.level][aspect].append(line)
            if records is not None and figure.caption is not None:
                records.add_records(figure.caption, figure.instructions)
            if native:
                writer.add_file(f"figures/{figure.image_name}", figure.image)
                rules[block.level].append(figure.description)
    if native:
        for lvl in rules:
            writer.add_file(f"rules-{lvl}.json", json.dumps(rules[lvl], indent=1).encode())
            for aspect, lines in vqa[lvl].items():
                text = "".join(line + "\n" for line in lines)
                writer.add_file(f"vqa-{lvl}/{NATIVE_FILES[aspect]}.jsonl", text.encode())
    summary: dict[str, Any] = {"generator": "gepbench", "n": n, "seed": seed, "level": level, "native": native}
    summary["style"] = wording
    summary["noise"] = {"model": noise, **NOISE_MODELS[noise].as_meta()}
    if records is not None:
        records.close()
        summary["llava"] = {"captions": records.captions, "instructions": records.instructions}
    if effects:
        summary["effects"] = True
    summary.update(stats.as_dict())
    writer.add_file(SUMMARY_FILE, (json.dumps(summary, indent=1) + "\n").encode())
    return stats
