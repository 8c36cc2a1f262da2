"""Reports: RUN/report.md and RUN/report.html with the tables and figures of a scored run."""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.advice import advice
from eval.compare import Comparison, arm_pairs, compare_sides, side
from eval.errors import EvalError
from eval.metrics import Table, benchmark_tables, by_mode, name_protocol, tally
from eval.registry import OFFICIAL, ROBUST
from eval.rundir import Run, Score, write_text_atomic
from eval.stats import wilson_interval

FIGURES_DIR = "figures"
EXCERPT_CHARS = 80
DIFFERENCES_TITLE = "Where the protocols differ"


def method_table(scores: Sequence[Score]) -> Table:
    """Return how many scores each method decided, per arm."""
    methods = ("rule", "judge", "judge_error", "none", "error")
    table = Table("How scores were decided", ["Mode", *methods, "total"])
    for mode, group in by_mode(scores).items():
        counts = Counter(score.method for score in group)
        table.rows.append([mode, *(str(counts.get(m, 0)) for m in methods), str(len(group))])
    table.notes.append(
        "rule: settled by extraction and matching; judge: by the judge model; judge_error: the judge failed or "
        "replied unparsably; none: unjudged, rules could not decide and no judge was given; error: the run failed "
        "on the pair, stopped on a budget, or has no result for it. judge_error, none and error count as wrong"
    )
    return table


def _cell(text: str) -> str:
    """Return `text` on one line, safe inside a markdown table cell."""
    return " ".join(text.split()).replace("|", "¦")


def excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str:
    """Return the first `limit` characters of a response on one line ("…" when cut; "—" when empty)."""
    flat = _cell(text or "")
    if not flat:
        return "—"
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def outcome(score: Score) -> str:
    """Return a score's outcome in words: right, wrong, unjudged, judge error or run error."""
    if score.method == "error":
        return "run error"
    if score.method == "judge_error":
        return "judge error"
    if score.correct is None:
        return "unjudged"
    return "right" if score.correct else "wrong"


def reading(score: Score) -> str:
    """Return how a protocol read a response: the extracted answer and the outcome ("`12` → wrong")."""
    extracted = "not extracted" if score.extracted is None else f"`{_cell(str(score.extracted))}`"
    return f"{extracted} → {outcome(score)}"


def differing_pairs(official: Sequence[Score], robust: Sequence[Score]) -> list[tuple[Score, Score]]:
    """Return the (official, robust) scores of each (id, arm) whose outcome or extracted answer differs."""
    by_key = {(score.id, score.mode): score for score in robust}
    pairs = []
    for first in official:
        second = by_key.get((first.id, first.mode))
        if second is None:
            continue
        if outcome(first) != outcome(second) or first.extracted != second.extracted:
            pairs.append((first, second))
    return pairs


def differences_table(run: Run, official: Sequence[Score], robust: Sequence[Score]) -> Table:
    """Return the table of the pairs the official and robust protocols read differently, with counts per benchmark."""
    pairs = differing_pairs(official, robust)
    table = Table(
        DIFFERENCES_TITLE,
        ["Benchmark", "Id", "Arm", "Response (excerpt)", "Official reading", "Robust reading"],
    )
    for first, second in pairs:
        prediction = (run.results.get((first.id, first.mode)) or {}).get("prediction")
        table.rows.append([first.benchmark, first.id, first.mode, excerpt(prediction), reading(first), reading(second)])
    totals = Counter(score.benchmark for score in official)
    differ = Counter(first.benchmark for first, _ in pairs)
    table.notes.append(
        "pairs whose outcome or extracted answer differs between the protocols: "
        + "; ".join(f"{name}: {differ.get(name, 0)} of {totals[name]}" for name in sorted(totals))
    )
    table.notes.append(
        "reading = the extracted answer → the outcome; unjudged, judge errors and run errors count as wrong in both"
    )
    return table


def run_comparisons(run: Run, scores: Sequence[Score], seed: int = 0) -> list[Comparison]:
    """Return text against each other arm the scores have (none without a text arm, or when nothing pairs)."""
    comparisons = []
    for a, b in arm_pairs([score.mode for score in scores]):
        try:
            comparisons.append(compare_sides(side(a, scores, run.results), side(b, scores, run.results), seed=seed))
        except EvalError:
            continue
    return comparisons


def _figures(run: Run, scores: Sequence[Score], out: Path) -> list[tuple[str, str]]:
    """Write the figures into `out` and return (title, path relative to the run) pairs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    made: list[tuple[str, str]] = []
    groups: dict[str, dict[str, list[Score]]] = defaultdict(lambda: defaultdict(list))
    for score in scores:
        if "generator" in score.details:
            continue  # a generated image is rated, not right or wrong: it has no place in an accuracy chart
        groups[f"{score.benchmark}/{score.category}"][score.mode].append(score)
    modes = list(by_mode(scores))
    names = sorted(groups)
    if names and modes:
        fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(names) * max(1, len(modes))), 4.0))
        width = 0.8 / len(modes)
        for offset, mode in enumerate(modes):
            heights, lows, highs = [], [], []
            for name in names:
                t = tally(groups[name].get(mode, []))
                interval = wilson_interval(t.correct, t.n)
                value = 0.0 if t.n == 0 else 100 * interval.estimate
                heights.append(value)
                lows.append(0.0 if t.n == 0 else max(0.0, value - 100 * interval.low))
                highs.append(0.0 if t.n == 0 else max(0.0, 100 * interval.high - value))
            xs = [i + offset * width - 0.4 + width / 2 for i in range(len(names))]
            ax.bar(xs, heights, width, yerr=[lows, highs], capsize=3, label=mode)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right")
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(0, 105)
        ax.set_title("Accuracy per category by arm (correct / n, 95% Wilson intervals)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "accuracy.png", dpi=100)
        plt.close(fig)
        made.append(("Accuracy per category by mode", f"{FIGURES_DIR}/accuracy.png"))
    for key, label, filename in (("steps", "steps per item", "steps.png"), ("cost", "cost per item ($)", "cost.png")):
        values: dict[str, list[float]] = defaultdict(list)
        for (_, mode), row in run.results.items():
            value = row.get("steps") if key == "steps" else (row.get("usage") or {}).get("cost_usd")
            if isinstance(value, int | float):
                values[mode].append(float(value))
        if not values:
            continue
        fig, ax = plt.subplots(figsize=(6.0, 3.5))
        for mode, data in sorted(values.items()):
            ax.hist(data, bins=min(30, max(5, len(set(data)))), alpha=0.6, label=f"{mode} (n={len(data)})")
        ax.set_xlabel(label)
        ax.set_ylabel("items")
        ax.set_title(f"Distribution of {label}")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / filename, dpi=100)
        plt.close(fig)
        made.append((f"Distribution of {label}", f"{FIGURES_DIR}/{filename}"))
    return made


def _protocol_line(protocol: str | None, both: bool) -> str:
    if both:
        return "both: official (scores.jsonl, tables first) and robust (scores.robust.jsonl)"
    if protocol == ROBUST:
        return "robust (mcot's own extraction and matching)"
    return "official (each benchmark's published protocol)"


def _header(
    run: Run, scores: Sequence[Score], protocol: str | None = None, both: bool = False
) -> list[tuple[str, str]]:
    manifest = run.manifest
    generator = (manifest.get("generator") or {}).get("spec")
    model = (manifest.get("model") or {}).get("spec", "?")
    solver = ("generator", str(generator)) if generator else ("model", str(model))
    dataset = manifest.get("dataset") or {}
    judges = sorted({str(s.judge.get("spec")) for s in scores if s.judge})
    rows = [
        solver,
        ("arms", ", ".join(_arm_label(run, arm) for arm in by_mode(scores)) or "—"),
        (
            "dataset",
            f"{dataset.get('path', '?')} (frozen copy RUN/items.jsonl, sha256 {str(dataset.get('sha256', '?'))[:12]}, "
            f"{len(run.items)} items)",
        ),
        ("judge", ", ".join(judges) if judges else "none (rules only)"),
        ("scoring", _protocol_line(protocol, both)),
        ("scored", f"{len(scores)} (item, arm) pairs"),
    ]
    if run.source_changed:
        rows.append(("note", run.source_changed))
    return rows


def _arm_label(run: Run, arm: str) -> str:
    tools = run.arm_tools(arm)
    if tools is None:
        return arm
    return f"{arm} (no tools)" if not tools else f"{arm} ({len(tools)} tools)"


def protocol_tables(run: Run, scores: Sequence[Score], protocol: str | None) -> list[Table]:
    """Return the tables of scores made under one protocol (methods, benchmarks, arm comparisons), titles naming it."""
    tables = [method_table(scores), *benchmark_tables(scores)]
    for comparison in run_comparisons(run, scores):
        tables += comparison.tables()
    return name_protocol(tables, protocol)


def build_report(
    run: Run,
    scores: Sequence[Score],
    *,
    figures: bool = True,
    protocol: str | None = OFFICIAL,
    robust: Sequence[Score] | None = None,
) -> tuple[str, str]:
    """Return (markdown, html) of the report of a scored run, writing its figures under RUN/figures.

    `protocol` names the protocol of `scores` in every table title; `robust` (scores of the same pairs under the
    robust protocol, from `--protocol both`) adds the robust tables and the table of pairs read differently.
    """
    tables = protocol_tables(run, scores, protocol)
    if robust is not None:
        tables += protocol_tables(run, robust, ROBUST)
        tables.append(differences_table(run, scores, robust))
    made = _figures(run, scores, run.root / FIGURES_DIR) if figures and scores else []
    header = _header(run, scores, protocol, robust is not None)
    todo = advice(scores, str(run.root))
    md = ["# mcot report", ""] + [f"- **{key}**: {value}" for key, value in header] + [""]
    if todo:
        md += ["## What to do", ""] + [f"- {line}" for line in todo] + [""]
    md += [table.markdown() for table in tables]
    if made:
        md.append("## Figures\n")
        md += [f"![{title}]({path})\n" for title, path in made]
    markdown = "\n".join(md)
    return markdown, _html(header, todo, tables, made)


def _inline(text: str) -> str:
    escaped = html.escape(text)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def _html(header: list[tuple[str, str]], todo: list[str], tables: list[Table], made: list[tuple[str, str]]) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>mcot report</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}th{background:#eee}.note{color:#555;font-size:.9em}"
        "img{max-width:100%}</style></head><body><h1>mcot report</h1><ul>"
    ]
    parts += [f"<li><b>{html.escape(key)}</b>: {html.escape(value)}</li>" for key, value in header]
    parts.append("</ul>")
    if todo:
        parts.append("<h2>What to do</h2><ul>")
        parts += [f"<li>{_inline(line)}</li>" for line in todo]
        parts.append("</ul>")
    for table in tables:
        parts.append(f"<h3>{html.escape(table.title)}</h3><table><tr>")
        parts += [f"<th>{html.escape(column)}</th>" for column in table.columns]
        parts.append("</tr>")
        for row in table.rows:
            parts.append("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>")
        parts.append("</table>")
        parts += [f"<p class='note'>{_inline(note)}</p>" for note in table.notes]
    if made:
        parts.append("<h2>Figures</h2>")
        parts += [
            f"<figure><img src='{html.escape(path)}' alt='{html.escape(title)}'><figcaption>{html.escape(title)}</figcaption></figure>"
            for title, path in made
        ]
    parts.append("</body></html>\n")
    return "".join(parts)


def write_report(
    run: Run,
    scores: Sequence[Score],
    *,
    figures: bool = True,
    protocol: str | None = OFFICIAL,
    robust: Sequence[Score] | None = None,
) -> dict[str, Any]:
    """Write RUN/report.md and RUN/report.html (see `build_report`); return their paths."""
    markdown, page = build_report(run, scores, figures=figures, protocol=protocol, robust=robust)
    md_path = write_text_atomic(run.root / "report.md", markdown)
    html_path = write_text_atomic(run.root / "report.html", page)
    return {"markdown": md_path, "html": html_path}
