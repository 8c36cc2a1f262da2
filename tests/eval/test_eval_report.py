"""The report for reading: figures sized for the page, one colour per arm, no chart of nothing, tokens and cost per
arm, and a trace-verifier table that lists every task with a verifier."""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from handmade import MakeRun, ok
from matplotlib.colors import to_hex, to_rgb
from matplotlib.figure import Figure
from matplotlib.text import Text
from mcot.eval.figures import (
    ARM_COLORS,
    DISPLAY_WIDTH_PX,
    FONT_MIN_PT,
    MAX_CATEGORIES,
    OTHER_COLORS,
    accuracy_charts,
    arm_colors,
    distribution_chart,
    result_values,
)
from mcot.eval.report import benchmark_tables
from mcot.eval.scoring import score_run
from mcot.eval.trace_table import TRACE_TITLE
from mcot.eval.verify import VERIFIERS
from PIL import Image

from mcot.core.item import Item
from mcot.core.rundir import open_run, read_scores

LONG = "a-category-name-far-too-long-for-one-line-of-a-chart"
TOY_CATEGORIES = [f"part {k:02d}" for k in range(MAX_CATEGORIES + 3)] + [LONG]


def _toy(i: int, category: str) -> Item:
    return Item(
        id=f"toy-{i}",
        benchmark="toybench",
        category=category,
        question="Which?",
        choices=["yes", "no"],
        answer="A",
        answer_type="choice",
    )


def _game(i: int, category: str) -> Item:
    return Item(
        id=f"{category}-{i}",
        benchmark="games",
        category=category,
        question="Which?",
        choices=["one", "two"],
        answer="A",
        answer_type="choice",
        meta={},
    )


def _toy_run(make_run: MakeRun, *, cost: float | None = None) -> Path:
    """16 toy categories (one with a long name) in three arms; every arm right on some items, steps 1 to 3."""
    items = [_toy(i, category) for i, category in enumerate(TOY_CATEGORIES)]
    results = []
    for (k, item), arm in itertools.product(enumerate(items), ("text", "canvas", "tools")):
        row = ok(item.id, arm, "Answer: A" if (k + len(arm)) % 2 else "Answer: B")
        row["steps"] = 1 + (k + len(arm)) % 3
        row["usage"] = {**row["usage"], "cost_usd": cost}
        results.append(row)
    return make_run("toy", items, ["text", "canvas", "tools"], results)


def _figures(html: str) -> list[tuple[str, int, int]]:
    return [(src, int(w), int(h)) for src, w, h in re.findall(r"<img src='([^']+)' width='(\d+)' height='(\d+)'", html)]


def test_figures_fit_the_page_with_labels_of_at_least_10_px(make_run: MakeRun) -> None:
    run = _toy_run(make_run)
    score_run(run)
    shown = _figures((run / "report.html").read_text())
    names = [src for src, _, _ in shown]
    assert names == ["figures/accuracy-toybench-1.png", "figures/accuracy-toybench-2.png", "figures/steps.png"]
    for src, width, height in shown:
        with Image.open(run / src) as png:
            png_width, png_height = png.size
            dpi = png.info["dpi"][0]
        assert (png_width, png_height) == (width, height) and width == DISPLAY_WIDTH_PX == 800
        label_px = FONT_MIN_PT * dpi / 72 * width / png_width
        assert label_px >= 10, (src, label_px)
        assert round(label_px, 1) == 13.9
    markdown = (run / "report.md").read_text()
    assert "![toybench: accuracy per category by arm (1 of 2)](figures/accuracy-toybench-1.png)" in markdown


def test_every_label_is_at_least_10_pt_and_long_names_are_wrapped(make_run: MakeRun) -> None:
    run = _toy_run(make_run)
    score_run(run, figures=False)
    scores = read_scores(run)
    colors = arm_colors(s.mode for s in scores)
    charts = accuracy_charts(scores, colors)
    assert [title for _, title, _ in charts] == [
        "toybench: accuracy per category by arm (1 of 2)",
        "toybench: accuracy per category by arm (2 of 2)",
    ]
    figures = [figure for _, _, figure in charts]
    figures.append(distribution_chart(result_values(open_run(run), "steps"), "steps per pair", colors))
    for figure in figures:
        texts = [t for t in figure.findobj(Text) if t.get_text().strip() and t.get_visible()]
        assert texts and min(t.get_fontsize() for t in texts) >= FONT_MIN_PT
        assert figure.get_size_inches()[0] * figure.dpi == DISPLAY_WIDTH_PX
    ticks = [t.get_text() for t in charts[0][2].axes[0].get_yticklabels()]
    long_label = next(t for t in ticks if t.startswith("a-category"))
    assert max(len(line) for line in long_label.splitlines()) <= 22 and long_label.endswith("(n=1)")
    assert len(ticks) == MAX_CATEGORIES
    plt.close("all")


def _legend_colors(figure: Figure) -> dict[str, str]:
    legend = figure.legends[0] if figure.legends else figure.axes[0].get_legend()
    return {
        text.get_text().split(" (")[0]: to_hex(handle.get_facecolor())
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)
    }


def test_an_arm_has_one_colour_in_every_figure(make_run: MakeRun) -> None:
    run = _toy_run(make_run)
    score_run(run)
    scores = read_scores(run)
    colors = arm_colors(s.mode for s in scores)
    assert colors == {"text": ARM_COLORS["text"], "canvas": ARM_COLORS["canvas"], "tools": ARM_COLORS["tools"]}
    accuracy = accuracy_charts(scores, colors)[0][2]
    steps = distribution_chart(result_values(open_run(run), "steps"), "steps per pair", colors)
    expected = {arm: color.lower() for arm, color in colors.items()}
    assert _legend_colors(accuracy) == expected == _legend_colors(steps)
    plt.close("all")
    # and in the PNGs the report wrote: every arm's exact colour fills bars in both figures
    for name in ("accuracy-toybench-1.png", "steps.png"):
        with Image.open(run / "figures" / name) as png:
            counts = {rgb: n for n, rgb in png.convert("RGB").getcolors(1 << 20)}
        for arm, color in colors.items():
            rgb = tuple(round(255 * c) for c in to_rgb(color))
            assert counts.get(rgb, 0) > 100, (name, arm)


def test_custom_and_generator_arms_get_fixed_distinct_colours() -> None:
    first = arm_colors(["tools", "text", "mine", "theirs", "procedural", "procedural-broken"])
    assert first["procedural"] == ARM_COLORS["procedural"] and first["text"] == ARM_COLORS["text"]
    assert len(set(first.values())) == len(first)
    assert arm_colors(["theirs", "mine", "procedural", "procedural-broken", "text", "tools"]) == first
    assert {first["mine"], first["theirs"]} <= set(OTHER_COLORS)
    many = arm_colors([f"arm{k}" for k in range(len(OTHER_COLORS))])
    assert len(set(many.values())) == len(OTHER_COLORS)


@pytest.mark.parametrize(
    ("cost", "why"), [(None, "no pair has a known cost"), (0.0, "every pair's cost is 0 or unknown")]
)
def test_no_cost_chart_when_every_cost_is_zero_or_unknown(make_run: MakeRun, cost: float | None, why: str) -> None:
    run = _toy_run(make_run, cost=cost)
    score_run(run)
    assert not (run / "figures" / "cost.png").exists()
    assert "figures/cost.png" not in (run / "report.html").read_text()
    assert f"_no cost chart: {why}_" in (run / "report.md").read_text()
    assert f"<p class='note'>no cost chart: {html.escape(why)}</p>" in (run / "report.html").read_text()


def test_the_cost_chart_is_drawn_when_costs_differ_and_a_rescore_drops_stale_figures(make_run: MakeRun) -> None:
    run = _toy_run(make_run, cost=0.002)
    rows = (run / "results.jsonl").read_text().replace('"cost_usd": 0.002', '"cost_usd": 0.004', 7)
    (run / "results.jsonl").write_text(rows)
    (run / "figures").mkdir()
    (run / "figures" / "accuracy.png").write_bytes(b"left by an older mcot")
    score_run(run)
    assert sorted(p.name for p in (run / "figures").iterdir()) == [
        "accuracy-toybench-1.png",
        "accuracy-toybench-2.png",
        "cost.png",
        "steps.png",
    ]
    assert "no cost chart" not in (run / "report.md").read_text()


def test_tokens_and_cost_per_arm(make_run: MakeRun) -> None:
    items = [_toy(i, "part 00") for i in range(3)]
    usage = [
        {"input_tokens": 100, "output_tokens": 20, "cost_usd": 0.01},
        {"input_tokens": 2000, "output_tokens": 30, "cost_usd": None},
        {},
    ]
    results = [{**ok(item.id, "canvas", "Answer: A"), "usage": u} for item, u in zip(items, usage, strict=True)]
    results += [ok(item.id, "text", "Answer: B") for item in items]  # 10 in, 5 out, cost unknown
    results[3] = {**results[3], "prediction": "", "empty": True}  # a well-formed empty answer (finish_reason length)
    results[4] = {**results[4], "cut_chars": 12}
    run = make_run("tokens", items, ["text", "canvas"], results)
    score_run(run)
    markdown = (run / "report.md").read_text()
    section = markdown[markdown.index("## Cost and efficiency per arm") :]
    assert (
        "| Arm | pairs | failed | correct | input tokens | output tokens | images sent | image inputs | tool calls "
        "| model turns | wall (s) | cost ($) | correct / $ | correct / 1k tokens | empty answers | cut answers |"
        in section
    )
    # no traces in this hand-made run: images and tool calls are unknown; a total over the pairs that know it
    assert "| text | 3 | 0 | 0 | 30 · 10 | 15 · 5 | — | — | — | 3 · 1 | 0.3 · 0.1 | — | — | 0.000 | 1 | 1 |" in section
    assert (
        "| canvas | 3 | 0 | 3 | 2,100 · 1,050 (2/3 known) | 50 · 25 (2/3 known) | — | — | — | 3 · 1 | 0.3 · 0.1 "
        "| 0.0100 · 0.0100 (1/3 known) | — | — | 0 | 0 |" in section
    )
    assert "empty answers: the model's final turn was a well-formed empty answer" in section
    assert "<h2>Cost and efficiency per arm — offline</h2>" in (run / "report.html").read_text()


def test_the_trace_table_lists_every_task_with_a_verifier_and_names_those_without(make_run: MakeRun) -> None:
    items = [_game(0, "maze"), _game(1, "triangles"), _toy(2, "part 00")]
    results = [ok(item.id, arm, "Answer: A") for item in items for arm in ("text", "canvas")]
    drawn = [{"step": 1, "kind": "tool", "tool": "draw_line", "drawn_by": "model", "ops": []}]
    run = make_run("verified", items, ["text", "canvas"], results, {("maze-0", "canvas"): drawn})
    scores = score_run(run, figures=False).scores
    [table] = [t for t in benchmark_tables(scores) if t.title == TRACE_TITLE]
    rows = {(row[0], row[1]): dict(zip(table.columns, row, strict=True)) for row in table.rows}
    assert list(rows) == [("canvas", task) for task in VERIFIERS]  # maze, ray, bounce, dart, dots: no text arm
    assert rows[("canvas", "maze")]["verified"] == "1" and rows[("canvas", "maze")]["right & absent"] == "1"
    assert all(rows[("canvas", task)]["verified"] == "0" for task in VERIFIERS if task != "maze")
    assert "no trace verifier, answers only: games: triangles; toybench (no verifier)" in table.notes
