"""The report's figures: sized for the page they are shown on, one colour per arm in every figure, none for nothing.

Every figure is FIGURE_WIDTH_IN × FIGURE_DPI = 800 px wide and report.html shows it at that width (`width`
attribute), so a label of FONT_MIN_PT (10 pt) is 10 × 100 / 72 ≈ 13.9 px on the page. Accuracy is drawn per
benchmark as horizontal bars (category names read left of their bars, wrapped when long; each bar's value printed
right of the axes, "—" when the arm has no item of the category), at most MAX_CATEGORIES categories a chart;
more make several charts, never one wide one. A generated image is rated by a judge, never right or wrong, so
generated images (failed ones too) are in no accuracy chart: the report says so in a line. An arm has the same colour in
every figure (`arm_colors`). A quantity that is all zero or unknown (the cost of an offline run), or the same
for every pair, gets no chart but a line saying so. matplotlib (Agg) is imported only here, when figures are drawn.
"""

from __future__ import annotations

import hashlib
import io
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.eval.advice import is_generated
from mcot.eval.stats import share_interval
from mcot.eval.tables import tally

from mcot.core.rundir import Run, Score, order_arms, write_bytes_atomic
from mcot.core.rundir.layout import safe_stem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURES_DIR = "figures"
FIGURE_WIDTH_IN = 8.0
FIGURE_DPI = 100
DISPLAY_WIDTH_PX = round(FIGURE_WIDTH_IN * FIGURE_DPI)
"""The width report.html shows every figure at: its pixel width, so nothing is scaled down."""
FONT_MIN_PT = 10
FONT_SIZES = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": FONT_MIN_PT,
    "ytick.labelsize": FONT_MIN_PT,
    "legend.fontsize": FONT_MIN_PT,
    "legend.title_fontsize": FONT_MIN_PT,
    "figure.titlesize": 12,
}
MAX_CATEGORIES = 12
LABEL_WRAP = 22
TITLE_WRAP = 70
MAX_INTEGER_BARS = 40

ARM_COLORS = {
    "text": "#0072B2",
    "canvas": "#E69F00",
    "tools": "#009E73",
    "procedural": "#CC79A7",
    "procedural-broken": "#D55E00",
    "diffusers": "#56B4E9",
    "openai-image": "#8C564B",
}
"""The fixed colours of the arms mcot names (Okabe–Ito, safe for colour-blind readers)."""
OTHER_COLORS = ("#CC79A7", "#D55E00", "#56B4E9", "#8C564B", "#7F7F7F", "#BCBD22", "#9467BD", "#17BECF", "#000000")
"""Colours for other arms (custom `--tools` arms, other generators), chosen by a stable hash of the name."""


def arm_colors(arms: Iterable[str]) -> dict[str, str]:
    """Return {arm: hex colour}: the fixed colour of a known arm, else one picked by a stable hash of its name.

    Within one call two arms never share a colour while OTHER_COLORS has a free one, so every figure of a
    report (drawn with one map) shows an arm in the same colour, and a run's arms keep their colours across runs.
    """
    ordered = order_arms(arms)
    colors = {arm: ARM_COLORS[arm] for arm in ordered if arm in ARM_COLORS}
    for arm in ordered:
        if arm in colors:
            continue
        start = int(hashlib.sha256(arm.encode("utf-8")).hexdigest(), 16) % len(OTHER_COLORS)
        taken = set(colors.values())
        for step in range(len(OTHER_COLORS)):
            candidate = OTHER_COLORS[(start + step) % len(OTHER_COLORS)]
            if candidate not in taken:
                break
        else:
            candidate = OTHER_COLORS[start]
        colors[arm] = candidate
    return colors


@dataclass(frozen=True)
class FigureFile:
    """A figure written under RUN/figures: its title, run-relative path and pixel size (shown at that size)."""

    title: str
    path: str
    width: int
    height: int


@dataclass
class Figures:
    """What `write_figures` made, and one line for each quantity it drew no chart for (and why)."""

    made: list[FigureFile] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)


def wrap_label(text: str, width: int = LABEL_WRAP) -> str:
    """Return `text` broken into lines of at most `width` characters (long words and ids split too)."""
    return "\n".join(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=True)) or text


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def accuracy_groups(scores: Sequence[Score]) -> dict[str, dict[str, dict[str, list[Score]]]]:
    """Return {benchmark: {category: {arm: scores}}} of the scores an accuracy chart shows (not generated images)."""
    groups: dict[str, dict[str, dict[str, list[Score]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for score in scores:
        if is_generated(score.details):
            # a generated image is rated, not right or wrong, and so is one that failed to be generated (it is
            # unrated): neither has a place in an accuracy chart
            continue
        groups[score.benchmark][score.category][score.mode].append(score)
    return groups


def accuracy_charts(scores: Sequence[Score], colors: Mapping[str, str]) -> list[tuple[str, str, Figure]]:
    """Return (file stem, title, figure) of the accuracy charts: per benchmark, at most MAX_CATEGORIES a chart."""
    plt = _pyplot()
    charts: list[tuple[str, str, Figure]] = []
    for benchmark, categories in sorted(accuracy_groups(scores).items()):
        arms = order_arms(arm for per_arm in categories.values() for arm in per_arm)
        names = sorted(categories)
        chunks = [names[k : k + MAX_CATEGORIES] for k in range(0, len(names), MAX_CATEGORIES)]
        for part, chunk in enumerate(chunks, start=1):
            title = f"{benchmark}: accuracy per category by arm"
            if len(chunks) > 1:
                title += f" ({part} of {len(chunks)})"
            stem = _slug(f"accuracy-{benchmark}" + (f"-{part}" if len(chunks) > 1 else ""))
            with plt.rc_context(FONT_SIZES):
                figure = _accuracy_chart(plt, chunk, categories, arms, colors, title)
            charts.append((stem, title, figure))
    return charts


def _accuracy_chart(
    plt: Any,
    names: Sequence[str],
    categories: Mapping[str, Mapping[str, list[Score]]],
    arms: Sequence[str],
    colors: Mapping[str, str],
    title: str,
) -> Figure:
    height = 1.0 + 0.45 * max(1, (len(arms) + 3) // 4) + len(names) * (0.24 * len(arms) + 0.22)
    figure, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, height), dpi=FIGURE_DPI, layout="constrained")
    bar = 0.8 / len(arms)
    for k, arm in enumerate(arms):
        values, lows, highs = [], [], []
        for name in names:
            chosen = categories[name].get(arm, [])
            t = tally(chosen)
            rights = [float(s.method not in ("error", "judge_error") and s.correct is True) for s in chosen]
            interval = share_interval(rights, [s.unit for s in chosen])  # clustered where questions share a figure
            value = 0.0 if t.n == 0 else 100 * interval.estimate
            values.append(value)
            lows.append(0.0 if t.n == 0 else max(0.0, value - 100 * interval.low))
            highs.append(0.0 if t.n == 0 else max(0.0, 100 * interval.high - value))
        ys = [i - 0.4 + bar * (k + 0.5) for i in range(len(names))]
        for y, value, name in zip(ys, values, names, strict=True):
            shown = "—" if not categories[name].get(arm) else f"{value:.1f}"
            ax.text(101.5, y, shown, va="center", ha="left", fontsize=FONT_MIN_PT, color="#333333", clip_on=False)
        ax.barh(
            ys,
            values,
            height=bar,
            xerr=[lows, highs],
            color=colors[arm],
            label=arm,
            error_kw={"ecolor": "#333333", "elinewidth": 1, "capsize": 3},
        )
    counts = [max((len(group) for group in categories[name].values()), default=0) for name in names]
    ax.set_yticks(range(len(names)), [f"{wrap_label(name)}\n(n={n})" for name, n in zip(names, counts, strict=True)])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("accuracy (%) = correct / n, with 95 % Wilson intervals")
    ax.grid(axis="x", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.set_title(textwrap.fill(title, TITLE_WRAP))
    figure.legend(loc="outside lower center", ncols=min(4, len(arms)), frameon=False, title="arm")
    return figure


def result_values(run: Run, key: str) -> dict[str, list[float]]:
    """Return {arm: values} of `steps` or `cost` (usage.cost_usd) over the run's results, unknown values left out."""
    values: dict[str, list[float]] = defaultdict(list)
    for (_, mode), row in run.results.items():
        value = row.steps if key == "steps" else row.usage.cost_usd
        if value is not None:
            values[mode].append(float(value))
    return {arm: values[arm] for arm in order_arms(values)}


def nothing_to_draw(values: Mapping[str, Sequence[float]], noun: str) -> str | None:
    """Return why a distribution needs no chart (no known value, all zero, one value for every pair), or None."""
    pooled = {value for data in values.values() for value in data}
    if not pooled:
        return f"no pair has a known {noun}"
    if pooled == {0.0}:
        return f"every pair's {noun} is 0 or unknown"
    if len(pooled) == 1:
        return f"every pair's {noun} is {_number(next(iter(pooled)))} (where known)"
    return None


def distribution_chart(values: Mapping[str, Sequence[float]], label: str, colors: Mapping[str, str]) -> Figure:
    """Return the per-arm distribution of `values` side by side (bars never overlap, so each keeps its arm's colour)."""
    plt = _pyplot()
    pooled = [value for data in values.values() for value in data]
    arms = list(values)
    with plt.rc_context(FONT_SIZES):
        figure, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 3.8), dpi=FIGURE_DPI, layout="constrained")
        integers = all(value.is_integer() for value in pooled)
        low, high = min(pooled), max(pooled)
        if integers and high - low <= MAX_INTEGER_BARS:
            xs = list(range(int(low), int(high) + 1))
            bar = 0.8 / len(arms)
            for k, arm in enumerate(arms):
                counts = [sum(1 for value in values[arm] if value == x) for x in xs]
                ax.bar(
                    [x - 0.4 + bar * (k + 0.5) for x in xs], counts, bar, color=colors[arm], label=_legend(arm, values)
                )
            ax.set_xticks(xs if len(xs) <= 20 else xs[:: max(1, len(xs) // 20)])
        else:
            import numpy as np

            edges = np.histogram_bin_edges(pooled, bins=min(30, max(5, len(set(pooled)))))
            ax.hist(
                [values[arm] for arm in arms],
                bins=edges,
                color=[colors[arm] for arm in arms],
                label=[_legend(arm, values) for arm in arms],
            )
        ax.set_xlabel(label)
        ax.set_ylabel("pairs (item, arm)")
        ax.grid(axis="y", color="#dddddd", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.set_title(f"Distribution of {label} by arm")
        ax.legend(title="arm")
    return figure


def _legend(arm: str, values: Mapping[str, Sequence[float]]) -> str:
    return f"{arm} (n={len(values[arm])})"


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:.4g}"


def _slug(text: str) -> str:
    return safe_stem(text)  # any benchmark name: distinct, and short enough for a file name


def _save(figure: Figure, out: Path, stem: str, title: str) -> FigureFile:
    """Write `figure` as out/<stem>.png atomically and close it; return what report.html needs to show it."""
    plt = _pyplot()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI)
    plt.close(figure)
    data = buffer.getvalue()
    write_bytes_atomic(out / f"{stem}.png", data)
    width, height = _png_size(data)
    return FigureFile(title, f"{FIGURES_DIR}/{stem}.png", width, height)


def _png_size(data: bytes) -> tuple[int, int]:
    """Return (width, height) from a PNG's IHDR chunk."""
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


DISTRIBUTIONS = (("steps", "step count", "steps per pair"), ("cost", "cost", "cost per pair ($)"))
"""(key, noun, axis label) of the per-pair quantities drawn as distributions."""


def write_figures(run: Run, scores: Sequence[Score]) -> Figures:
    """Write the report's figures under RUN/figures (stale PNGs there removed); return them and the charts left out.

    Accuracy per category by arm (one chart per benchmark, or several), then the distributions of steps and cost
    per pair by arm; every arm in the colour `arm_colors` gives it.
    """
    out = run.root / FIGURES_DIR
    colors = arm_colors([score.mode for score in scores] + [mode for _, mode in run.results])
    result = Figures()
    for stem, title, figure in accuracy_charts(scores, colors):
        result.made.append(_save(figure, out, stem, title))
    generated = sum(1 for score in scores if is_generated(score.details))
    if generated:
        result.omitted.append(
            f"no accuracy chart of the {generated} generated image(s): they are rated by a judge, not right or "
            "wrong (the generation tables hold their ratings)"
        )
    for key, noun, label in DISTRIBUTIONS:
        values = result_values(run, key)
        reason = nothing_to_draw(values, noun)
        if reason is not None:
            result.omitted.append(f"no {key} chart: {reason}")
            continue
        result.made.append(_save(distribution_chart(values, label, colors), out, key, f"Distribution of {label}"))
    keep = {Path(made.path).name for made in result.made}
    if out.is_dir():
        for stale in out.glob("*.png"):
            if stale.name not in keep:
                stale.unlink(missing_ok=True)
    return result


@dataclass(frozen=True)
class StudyPoint:
    """One bar of the study figure: a model's value of a benchmark's headline metric in one arm, with its interval."""

    panel: str
    model: str
    arm: str
    value: float | None
    low: float | None
    high: float | None


def study_figure(points: Sequence[StudyPoint], out: Path, stem: str = "study") -> FigureFile | None:
    """Write one figure of a study under `out`: a panel per benchmark metric, a group of bars per model, a bar per
    arm (its colour as in every report) with its 95 % interval; return it, None when there is nothing to draw."""
    drawn = [point for point in points if point.value is not None]
    if not drawn:
        return None
    plt = _pyplot()
    panels = list(dict.fromkeys(point.panel for point in drawn))
    models = list(dict.fromkeys(point.model for point in drawn))
    arms = order_arms({point.arm for point in drawn})
    colors = arm_colors(arms)
    with plt.rc_context(FONT_SIZES):
        figure, axes = plt.subplots(
            len(panels), 1, figsize=(FIGURE_WIDTH_IN, 1.2 + 0.5 * len(models) * len(arms) * len(panels)), squeeze=False
        )
        for axis, panel in zip(axes[:, 0], panels, strict=True):
            width = 0.8 / len(arms)
            for offset, arm in enumerate(arms):
                for row, model in enumerate(models):
                    found = [p for p in drawn if p.panel == panel and p.model == model and p.arm == arm]
                    if not found or found[0].value is None:
                        continue
                    point = found[0]
                    y = row + offset * width - 0.4 + width / 2
                    value = 100 * float(point.value or 0.0)
                    error = None
                    if point.low is not None and point.high is not None:
                        # Wilson's bound at 0/n is ~1e-17, not 0: an interval that does not hold the value draws
                        # no bar beyond it (matplotlib refuses a negative error)
                        error = [[max(0.0, value - 100 * point.low)], [max(0.0, 100 * point.high - value)]]
                    axis.barh(y, value, height=width * 0.9, color=colors[arm], xerr=error, capsize=3,
                              label=arm if row == 0 else None)  # fmt: skip
            axis.set_yticks(range(len(models)), [wrap_label(model) for model in models])
            axis.invert_yaxis()
            axis.set_xlim(0, 100)
            axis.set_title(wrap_label(panel, TITLE_WRAP))
            axis.set_xlabel("percent (95 % interval)")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        if handles:
            axes[0, 0].legend(handles, labels, loc="lower right")
        figure.tight_layout()
    return _save(figure, out, stem, "Study: each benchmark's headline metric per model and arm")
