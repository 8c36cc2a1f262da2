"""Reports: RUN/report.md and RUN/report.html with the tables and figures of a scored run.

The tables of a run are each benchmark's own (its protocol module's `tables`, looked up in the registry), then
the trace verifiers' crosstab, then the comparisons of text with each other arm.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from mcot.eval.advice import advice
from mcot.eval.compare import Comparison, arm_pairs, compare_sides, side
from mcot.eval.errors import EvalError
from mcot.eval.figures import Figures, write_figures
from mcot.eval.protocol_names import OFFICIAL, ROBUST
from mcot.eval.registry import scoring_spec
from mcot.eval.rundir import Run, Score, order_arms, write_text_atomic
from mcot.eval.tables import Table, by_mode, name_protocol, num
from mcot.eval.trace_table import trace_crosstab

EXCERPT_CHARS = 80
DIFFERENCES_TITLE = "Where the protocols differ"


def benchmark_tables(scores: Sequence[Score], protocol: str | None = None) -> list[Table]:
    """Return every table that applies to the scores: each benchmark's registered tables, then the trace crosstab.

    With `protocol` ("official" or "robust", the protocol that made the scores) every title names it.
    """
    grouped: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        grouped[score.benchmark].append(score)
    tables: list[Table] = []
    for benchmark in sorted(grouped):
        tables += scoring_spec(benchmark).tables(grouped[benchmark])
    crosstab = trace_crosstab(scores)
    if crosstab is not None:
        tables.append(crosstab)
    return name_protocol(tables, protocol)


def method_table(scores: Sequence[Score]) -> Table:
    """Return how many scores each method decided, per arm."""
    methods = ("rule", "judge", "judge_error", "none", "error")
    table = Table("How scores were decided", ["Mode", *methods, "total"])
    for mode, group in by_mode(scores).items():
        counts: Counter[str] = Counter(score.method for score in group)
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


def _count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def usage_table(run: Run, arms: Sequence[str] = ()) -> Table:
    """Return input tokens, output tokens and cost per arm, totalled over the run's results, with how many are known.

    Every result of an arm counts (failed and budget-stopped pairs included: they were paid for); a total is over
    the pairs where the value is known, and "—" when no pair of the arm has it. `arms` orders the rows (others
    after them).
    """
    rows: dict[str, list[dict[str, Any]]] = {}
    for (_, mode), row in run.results.items():
        rows.setdefault(mode, []).append(row)
    ordered = [arm for arm in arms if arm in rows] + [arm for arm in order_arms(rows) if arm not in arms]
    table = Table(
        "Tokens and cost per arm",
        ["Arm", "pairs", "input tokens", "output tokens", "tokens known", "cost ($)", "cost known", "mean cost ($)"],
    )
    for arm in ordered:
        usages = [row.get("usage") or {} for row in rows[arm]]
        tokens = [u for u in usages if _is_number(u.get("input_tokens")) and _is_number(u.get("output_tokens"))]
        costs = [float(u["cost_usd"]) for u in usages if _is_number(u.get("cost_usd"))]
        table.rows.append(
            [
                arm,
                str(len(usages)),
                _count(sum(int(u["input_tokens"]) for u in tokens) if tokens else None),
                _count(sum(int(u["output_tokens"]) for u in tokens) if tokens else None),
                f"{len(tokens)}/{len(usages)}",
                num(sum(costs), 4) if costs else "—",
                f"{len(costs)}/{len(usages)}",
                num(sum(costs) / len(costs), 4) if costs else "—",
            ]
        )
    table.notes.append(
        "totals over every result of the arm (failed and budget-stopped pairs included: their calls were made); "
        "known: pairs whose usage records the value. A cost is unknown where the model's price is not in "
        "agents/prices.json and the provider did not report one; the offline policy uses no tokens and costs 0"
    )
    return table


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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
    Tokens and cost per arm (protocol-free, a section of its own) follow the tables; the figures close the report.
    """
    tables = protocol_tables(run, scores, protocol)
    if robust is not None:
        tables += protocol_tables(run, robust, ROBUST)
        tables.append(differences_table(run, scores, robust))
    drawn = write_figures(run, scores) if figures and scores else Figures()
    header = _header(run, scores, protocol, robust is not None)
    todo = advice(scores, str(run.root), command=str(run.manifest.get("command") or "mcot run"))
    md = ["# mcot report", ""] + [f"- **{key}**: {value}" for key, value in header] + [""]
    if todo:
        md += ["## What to do", ""] + [f"- {line}" for line in todo] + [""]
    md += [table.markdown() for table in tables]
    usage = usage_table(run, list(by_mode(scores))) if run.results else None
    if usage is not None:
        md.append("## " + usage.markdown().removeprefix("### "))
    if drawn.made or drawn.omitted:
        md.append("## Figures\n")
        md += [f"![{made.title}]({made.path})\n" for made in drawn.made]
        md += [f"_{line}_\n" for line in drawn.omitted]
    markdown = "\n".join(md)
    return markdown, _html(header, todo, tables, drawn, usage)


def _inline(text: str) -> str:
    escaped = html.escape(text)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em auto;padding:0 1em;max-width:1200px;line-height:1.4}"
    ".wide{overflow-x:auto}table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
    "td:first-child,th:first-child{text-align:left}th{background:#eee}.note{color:#555;font-size:.9em}"
    "figure{margin:1em 0}img{max-width:100%;height:auto}"
)


def _html_table(table: Table, level: int = 3) -> list[str]:
    parts = [f"<h{level}>{html.escape(table.title)}</h{level}><div class='wide'><table><tr>"]
    parts += [f"<th>{html.escape(column)}</th>" for column in table.columns]
    parts.append("</tr>")
    for row in table.rows:
        parts.append("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>")
    parts.append("</table></div>")
    parts += [f"<p class='note'>{_inline(note)}</p>" for note in table.notes]
    return parts


def _html(
    header: list[tuple[str, str]], todo: list[str], tables: list[Table], drawn: Figures, usage: Table | None = None
) -> str:
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>mcot report</title><style>{STYLE}</style>"
        "</head><body><h1>mcot report</h1><ul>"
    ]
    parts += [f"<li><b>{html.escape(key)}</b>: {html.escape(value)}</li>" for key, value in header]
    parts.append("</ul>")
    if todo:
        parts.append("<h2>What to do</h2><ul>")
        parts += [f"<li>{_inline(line)}</li>" for line in todo]
        parts.append("</ul>")
    for table in tables:
        parts += _html_table(table)
    if usage is not None:
        parts += _html_table(usage, level=2)
    if drawn.made or drawn.omitted:
        parts.append("<h2>Figures</h2>")
        parts += [
            f"<figure><img src='{html.escape(made.path)}' width='{made.width}' height='{made.height}' "
            f"alt='{html.escape(made.title)}' loading='lazy'></figure>"
            for made in drawn.made
        ]
        parts += [f"<p class='note'>{html.escape(line)}</p>" for line in drawn.omitted]
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
