"""`mcot gen gepbench` and `mcot gen report`: GePBench-style items, and the balance/validator report of a directory."""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from pathlib import Path

from mcot.benchmarks.generators.gepbench.engine import LEVELS, SUMMARY_FILE, write
from mcot.benchmarks.generators.gepbench.llava import CAPTIONS_FILE, INSTRUCTIONS_FILE
from mcot.benchmarks.generators.gepbench.noise import NOISE_MODELS
from mcot.benchmarks.generators.gepbench.questions import ASPECTS, WORDINGS
from mcot.command_options import GenReportOptions, GepbenchOptions
from mcot.core.errors import UsageError
from mcot.core.item import ItemError, ItemsWriter, iter_items
from mcot.core.options import validated
from mcot.executors.blocks import block_mapper, check_workers

LEVEL_CHOICES = (*LEVELS, "both")
FORMATS: tuple[str, ...] = ("items", "native", "llava")
"""What `--format` adds to the items directory: nothing, the public GePBench layout, or LLaVA training records."""


@validated(GepbenchOptions)
def gen_gepbench(
    out: Path,
    n: int,
    seed: int,
    level: str = "both",
    native: bool = False,
    effects: bool = False,
    style: str = "public",
    noise: str = "paper",
    format: str = "items",
    workers: int | None = None,
    executor: str = "local",
    ray_address: str | None = None,
) -> int:
    """Generate N figures (up to three questions per aspect for each) into the items directory `out`; return 0.

    `format` is what the directory holds beside the items: "items" nothing more, "native" the public GePBench
    layout (what `native` also asks for), "llava" LLaVA training records (a caption per figure and the
    multiple-choice instructions). `style` words the questions as the released benchmark does ("public") or
    with mcot's hierarchy ("mcot"); `noise` is the hard figures' pixel noise ("paper", "release" or "none");
    `effects` adds the optional hard-level faint texture and occluding white strokes (off by default).
    `workers` worker processes (executor "local") or Ray tasks at a time (executor "ray": the cluster at
    RAY_ADDRESS, else a local instance) make the figures in blocks; the bytes are the same for any count."""
    if format not in FORMATS:
        raise UsageError(f"unknown --format {format!r}; choose {', '.join(FORMATS)}")
    if native and format == "llava":
        raise UsageError("--native is --format native; give one --format")
    native = native or format == "native"
    if level not in LEVEL_CHOICES:
        raise UsageError(f"unknown --level {level!r}; choose easy, hard or both")
    if style not in WORDINGS:
        raise UsageError(f"unknown --style {style!r}; choose {' or '.join(WORDINGS)}")
    if noise not in NOISE_MODELS:
        raise UsageError(f"unknown --noise {noise!r}; choose {', '.join(NOISE_MODELS)}")
    check_workers(workers, executor, ray_address)
    try:
        writer = ItemsWriter(Path(out), command="mcot gen gepbench")
    except ItemError as exc:  # an OSError (a full disk, a read-only folder) is said by the CLI, exit 1 or 2
        raise UsageError(f"cannot write --out {out}: {exc}") from exc
    start = time.perf_counter()
    try:
        with block_mapper(workers, executor, ray_address) as mapper:
            llava = format == "llava"
            stats = write(
                writer, n, seed, level, native, effects, wording=style, noise=noise, llava=llava, mapper=mapper
            )
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    summary = stats.as_dict()
    v = summary["validator"]
    print(
        f"wrote {summary['questions']} questions on {n} figures ({level}, {style} style, seed {seed}) to {out} "
        f"in {time.perf_counter() - start:.1f} s; validator agreed on {v['agreed']}/{v['checked']} checked, "
        f"dropped {v['contradicted']}; letters {summary['letters']}"
    )
    if format == "llava":
        print(
            f"LLaVA records: {n} captions in {CAPTIONS_FILE}, {summary['questions']} multiple-choice instructions in "
            f"{INSTRUCTIONS_FILE} (image paths relative to {out})"
        )
    return 0


@validated(GenReportOptions)
def gen_report(data: Path) -> int:
    """Print the answer-letter balance and the validator agreement of a generated items directory; return 0."""
    try:
        items = [item for item in iter_items(Path(data)) if item.answer_type == "choice"]
    except ItemError as exc:
        raise UsageError(str(exc)) from exc
    if not items:
        raise UsageError(f"{data} holds no multiple-choice items to report on")
    letters: dict[str, Counter[str]] = defaultdict(Counter)
    agree: Counter[str] = Counter()
    for item in items:
        level = str(item.meta.get("level", "-"))
        for key in ("all", item.category, f"{level}/{item.category}"):
            letters[key][item.answer] += 1
        verdict = (item.meta.get("validator") or {}).get("agree")
        agree["unchecked" if verdict is None else ("agreed" if verdict else "contradicted")] += 1
    order = ["all", *[a for a in ASPECTS if a in letters], *sorted(k for k in letters if "/" in k)]
    print(f"{'group':<24}{'n':>7}" + "".join(f"{c:>8}" for c in "ABCD") + f"{'max dev':>9}")
    for key in order:
        counts = letters[key]
        total = sum(counts.values())
        shares = [counts.get(c, 0) / total for c in "ABCD"]
        dev = max(abs(s - 0.25) for s in shares)
        print(f"{key:<24}{total:>7}" + "".join(f"{100 * s:>7.1f}%" for s in shares) + f"{100 * dev:>8.1f}%")
    summary_path = Path(data) / SUMMARY_FILE
    dropped = None
    if summary_path.is_file():
        dropped = json.loads(summary_path.read_text(encoding="utf-8")).get("validator", {}).get("contradicted")
    checked = agree["agreed"] + (dropped or 0)
    line = (
        f"validator: {agree['agreed']} kept questions agree with the pixels, {agree['unchecked']} have no pixel check"
    )
    if dropped is not None:
        share = f" ({100 * agree['agreed'] / checked:.2f} % agreement)" if checked else ""
        line += f"; {dropped} contradicted questions were dropped at generation{share}"
    if agree["contradicted"]:
        line += f"; {agree['contradicted']} kept questions are marked contradicted"
    print(line)
    return 0
