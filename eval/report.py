"""Reports: RUN/report.md and RUN/report.html with the tables and figures of a scored run.

A report starts with the answer: the offline caveat when the offline policy is among the models, then the
headline (each benchmark's own headline metrics per arm with n, interval and errors, and each arm's difference
from text: `headline_table`), then the tool use of each arm with tools (mcot.eval.tool_use). The details follow:
each benchmark's own tables (its protocol module's `tables`, looked up in the registry), the trace verifiers'
crosstab, the comparisons of text with each other arm. With people's ratings
(`mcot score --human`), the section "Judge and people" (mcot.eval.people) and the benchmark tables of the
people's verdicts follow.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mcot.eval.advice import advice
from mcot.eval.caveats import run_caveats
from mcot.eval.cluster_notes import cluster_line
from mcot.eval.code_use import code_use, code_use_tables
from mcot.eval.compare import (
    P_COLUMN,
    P_COLUMN_CLUSTERED,
    Comparison,
    apply_holm,
    arm_pairs,
    compare_sides,
    detectable_cell,
    side,
)
from mcot.eval.cost import cost_table
from mcot.eval.errors import EvalError
from mcot.eval.figures import Figures, write_figures
from mcot.eval.headline import ArmFigure, Difference, arm_figure, difference
from mcot.eval.probes import run_probe_tables
from mcot.eval.protocol_names import OFFICIAL, ROBUST
from mcot.eval.registry import scoring_spec
from mcot.eval.samples import read_sample_scores, samples_table
from mcot.eval.stats import SMALL_DISCORDANCE, holm
from mcot.eval.tables import Table, by_mode, name_protocol, outside_text, pct, plain_text
from mcot.eval.tool_use import tool_use, tool_use_tables
from mcot.eval.trace_table import trace_crosstab

from mcot.core.rundir import Run, Score, write_text_atomic

if TYPE_CHECKING:
    from mcot.eval.people import PeopleSection

EXCERPT_CHARS = 80
DIFFERENCES_TITLE = "Where the protocols differ"
PEOPLE_TITLE = "Judge and people"
HEADLINE_TITLE = "Headline — each benchmark's own metric per arm, and each arm against text"
BASE_ARM = "text"


@dataclass(frozen=True)
class HeadlineRow:
    """One benchmark × metric × arm of the headline: the arm's figure and its difference from text (if any)."""

    benchmark: str
    figure: ArmFigure
    difference: Difference | None
    p_holm: float | None = None


def headline_rows(scores: Sequence[Score], *, seed: int = 0) -> list[HeadlineRow]:
    """Return every benchmark's headline metrics per arm, with each other arm's difference from text.

    Holm's correction is over every difference with a p-value in the returned rows (one family).
    """
    grouped: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        grouped[score.benchmark].append(score)
    rows: list[HeadlineRow] = []
    for benchmark in sorted(grouped):
        arms = by_mode(grouped[benchmark])
        for metric in scoring_spec(benchmark).headline:
            for arm, group in arms.items():
                if not metric.of(group):
                    continue
                found = None
                if arm != BASE_ARM and BASE_ARM in arms:
                    found = difference(metric, BASE_ARM, arms[BASE_ARM], arm, group, seed=seed)
                rows.append(HeadlineRow(benchmark, arm_figure(metric, arm, group, seed=seed), found))
    return with_holm(rows)


def with_holm(rows: Sequence[HeadlineRow]) -> list[HeadlineRow]:
    """Return the rows with Holm's p set over every difference that has a p-value (one family)."""
    tested = [i for i, row in enumerate(rows) if row.difference is not None and row.difference.p_value is not None]
    adjusted = holm([rows[i].difference.p_value for i in tested])  # type: ignore[union-attr, misc]
    out = list(rows)
    for i, p in zip(tested, adjusted, strict=True):
        out[i] = replace(rows[i], p_holm=p)
    return out


def interval_text(low: float | None, high: float | None, *, signed: bool = False) -> str:
    """Return an interval in percent ("[12.0, 30.5]"; signed: "[-3.0, +8.5]"), "—" when undefined."""
    if low is None or high is None:
        return "—"
    if signed:
        return f"[{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"[{pct(low)}, {pct(high)}]"


def difference_cells(found: Difference | None, p_holm: float | None) -> list[str]:
    """Return the cells of a difference: Δ (pp), its interval (marked exact), p, Holm p, detectable (pp)."""
    if found is None or found.value is None:
        return ["—"] * 5
    interval = interval_text(found.low, found.high, signed=True)
    if found.method in ("exact", "clustered"):
        interval += f" {found.method}"
    return [
        f"{100 * found.value:+.1f}",
        interval,
        "—" if found.p_value is None else f"{found.p_value:.3g}",
        "—" if p_holm is None else f"{p_holm:.3g}",
        detectable_cell(found.detectable),
    ]


def _clustered(row: HeadlineRow) -> bool:
    """Return whether the row's items share clusters (its figures and tests are over clusters)."""
    return row.figure.clusters is not None or (row.difference is not None and row.difference.clusters is not None)


def headline_clusters(rows: Sequence[HeadlineRow]) -> dict[str, tuple[int, int]]:
    """Return {benchmark: (clusters, items)} of the rows: the counts of each benchmark's widest metric."""
    widest: dict[str, ArmFigure] = {}
    for row in rows:
        if row.benchmark not in widest or row.figure.n > widest[row.benchmark].n:
            widest[row.benchmark] = row.figure
    return {name: (figure.clusters or figure.n, figure.n) for name, figure in sorted(widest.items())}


def headline_notes(rows: Sequence[HeadlineRow]) -> list[str]:
    """Return the notes under a headline table: what n, the intervals, Holm and detectable mean, and which cluster
    key each benchmark's intervals and tests used."""
    notes = [
        "every (item, arm) the metric is over is in n: run errors (errors), unjudged items and judge errors "
        "(undecided) count as not right",
        "95% CI: Wilson for a proportion, seeded percentile bootstrap over items for a composite metric "
        "(GePBench Avg, GOBench SPS; Wilson bounds of its value with fewer than 30 items or all alike); Δ = arm − text on the items both have, paired: exact McNemar p (a "
        "composite: the paired sign-flip test on the items' scores), Holm's correction over every p in this table",
        "detectable: the smallest difference detectable at 80 % power for its n and share of discordant pairs "
        "(α = 0.05): a smaller Δ, significant or not, is beyond what these items can show",
    ]
    small = sorted(
        {
            f"{row.benchmark} {row.figure.metric} {row.figure.arm}"
            for row in rows
            if row.difference is not None and row.difference.method == "exact" and row.difference.clusters is None
        }
    )
    if small:
        notes.append(
            f"exact: fewer than {SMALL_DISCORDANCE} discordant pairs ({'; '.join(small)}): the interval is the exact "
            "conditional one, not a bootstrap (which can be zero-width on so few pairs)"
        )
    clustered = sorted({f"{row.benchmark} {row.figure.metric} {row.figure.arm}" for row in rows if _clustered(row)})
    if clustered:
        notes.append(
            f"items share clusters ({'; '.join(clustered)}): these rows are computed over clusters, not items — the "
            "clustered Wilson interval (Korn–Graubard effective n, t with G − 1 degrees of freedom), a cluster "
            "bootstrap, the cluster-level sign-flip test instead of McNemar (which assumes independent pairs), the "
            f"clustered t interval (marked clustered) from fewer than {SMALL_DISCORDANCE} clusters that differ (with "
            "none: ±u, u the exact bound of 0 differing clusters, marked exact), and n over the design effect for the "
            "detectable difference"
        )
    line = cluster_line(headline_clusters(rows))
    if line is not None:
        notes.append(line)
    return notes


def headline_table(scores: Sequence[Score], *, seed: int = 0) -> Table | None:
    """Return the headline table of the scores (None without scores)."""
    rows = headline_rows(scores, seed=seed)
    if not rows:
        return None
    table = Table(
        HEADLINE_TITLE,
        [
            "Benchmark",
            "Metric",
            "Arm",
            "value",
            "95% CI",
            "n",
            "errors",
            "undecided",
            "Δ vs text (pp)",
            "Δ 95% CI (pp)",
            P_COLUMN if not any(_clustered(row) for row in rows) else P_COLUMN_CLUSTERED,
            "Holm p",
            "detectable (pp)",
        ],
    )
    for row in rows:
        figure = row.figure
        table.rows.append(
            [
                row.benchmark,
                figure.metric,
                figure.arm,
                pct(figure.value),
                interval_text(figure.low, figure.high),
                str(figure.n),
                str(figure.errors),
                str(figure.undecided),
                *difference_cells(row.difference, row.p_holm),
            ]
        )
    table.notes = headline_notes(rows)
    return table


def benchmark_tables(scores: Sequence[Score], protocol: str | None = None) -> list[Table]:
    """Return every table that applies to the scores: each benchmark's registered tables, then the trace crosstab.

    With `protocol` ("official" or "robust", the protocol that made the scores) every title names it.
    """
    grouped: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        grouped[score.benchmark].append(score)
    tables: list[Table] = []
    bounds: list[tuple[list[Table], str]] = []
    for benchmark in sorted(grouped):
        spec = scoring_spec(benchmark)
        own = spec.tables(grouped[benchmark])
        tables += own
        if needs_a_judge(grouped[benchmark]):
            bounds.append((own, lower_bound_suffix(spec.judge, protocol)))
    crosstab = trace_crosstab(scores)
    if crosstab is not None:
        tables.append(crosstab)
    named = name_protocol(tables, protocol)
    for own, suffix in bounds:
        for table in own:
            table.title += suffix
    return named


def needs_a_judge(scores: Sequence[Score]) -> bool:
    """Return whether scores were computed without the judge their protocol needs: some are unjudged for want of
    a judge (`details.unjudged` asks for `--judge`) and no judge was asked for any of them."""
    waiting = any(s.method == "none" and "--judge" in str(s.details.get("unjudged", "")) for s in scores)
    return waiting and not any(s.judge for s in scores)


def lower_bound_suffix(judge: str | None, protocol: str | None) -> str:
    """Return what a table title adds when its numbers are a lower bound: which `--judge` gives the real number."""
    number = f"the {protocol} number" if protocol else "the number"
    return f", rules only: lower bound; `--judge {judge or 'SPEC'}` gives {number}"


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
    return outside_text(flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…")


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
    if score.extracted is None:
        return f"not extracted → {outcome(score)}"
    text = _cell(str(score.extracted))
    # a code span shows its text as it is, unless the text holds a backtick: then it is escaped instead
    return f"{outside_text(text) if '`' in text else f'`{text}`'} → {outcome(score)}"


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
        result = run.results.get((first.id, first.mode))
        prediction = result.prediction if result is not None else None
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
    apply_holm(comparisons)
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
    generator, model = run.manifest.generator_spec, run.manifest.model_spec or "?"
    solver = ("generator", str(generator)) if generator else ("model", str(model))
    dataset = run.manifest.dataset
    judges = sorted({str(s.judge.get("spec")) for s in scores if s.judge})
    rows = [
        solver,
        ("arms", ", ".join(_arm_label(run, arm) for arm in by_mode(scores)) or "—"),
        (
            "dataset",
            f"{dataset.path or '?'} (frozen copy RUN/items.jsonl, sha256 {str(dataset.sha256 or '?')[:12]}, "
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
    compared: list[Table] = []
    for comparison in run_comparisons(run, scores):
        compared += comparison.tables()
    return [
        *name_protocol([method_table(scores)], protocol),
        *benchmark_tables(scores, protocol),  # names the protocol itself, and says when a table is a lower bound
        *name_protocol(compared, protocol),
    ]


def build_report(
    run: Run,
    scores: Sequence[Score],
    *,
    figures: bool = True,
    protocol: str | None = OFFICIAL,
    robust: Sequence[Score] | None = None,
    people: PeopleSection | None = None,
) -> tuple[str, str]:
    """Return (markdown, html) of the report of a scored run, writing its figures under RUN/figures.

    `protocol` names the protocol of `scores` in every table title; `robust` (scores of the same pairs under the
    robust protocol, from `--protocol both`) adds the robust tables and the table of pairs read differently.
    `people` (from `mcot score --human`) adds the section "Judge and people" after them.
    Cost and efficiency per arm (mcot.eval.cost: protocol-free, a section of its own) follow the tables; the
    figures close the report.
    """
    headline = headline_table(scores)
    lead = name_protocol([headline], protocol) if headline is not None else []
    repeated = samples_table({**read_sample_scores(run.root), 1: list(scores)})
    if repeated is not None:  # with --samples K the headline is sample 1's; the repeats' figures follow it
        lead += name_protocol([repeated], protocol)
    lead += tool_use_tables(tool_use(run, scores))
    lead += code_use_tables(code_use(run))
    tables = protocol_tables(run, scores, protocol) + run_probe_tables(run)
    if robust is not None:
        tables += protocol_tables(run, robust, ROBUST)
        tables.append(differences_table(run, scores, robust))
    drawn = write_figures(run, scores) if figures and scores else Figures()
    header = _header(run, scores, protocol, robust is not None)
    todo = advice(scores, str(run.root), command=str(run.manifest.command or "mcot run"))
    caveat = run_caveat(run)
    md = ["# mcot report", ""]
    if caveat:
        md += [f"> **{caveat}**", ""]
    md += [f"- **{key}**: {value}" for key, value in header] + [""]
    if todo:
        md += ["## What to do", ""] + [f"- {line}" for line in todo] + [""]
    if lead:
        md += ["## The answer", ""] + [table.markdown() for table in lead] + ["## Details", ""]
    md += [table.markdown() for table in tables]
    shared = people_tables(people, protocol) if people is not None else []
    if people is not None:
        md += [f"## {PEOPLE_TITLE}\n", *(table.markdown() for table in shared)]
    usage = cost_table(run, scores, list(by_mode(scores)))
    if usage is not None:
        md.append("## " + usage.markdown().removeprefix("### "))
    if drawn.made or drawn.omitted:
        md.append("## Figures\n")
        md += [f"![{made.title}]({made.path})\n" for made in drawn.made]
        md += [f"_{line}_\n" for line in drawn.omitted]
    markdown = "\n".join(md)
    return markdown, _html(
        header, todo, tables, drawn, usage, lead=lead, caveat=caveat, people=shared if people is not None else None
    )


def people_tables(people: PeopleSection, protocol: str | None) -> list[Table]:
    """Return the "Judge and people" tables, then the benchmark tables of the people's verdicts (titles naming them)."""
    from mcot.eval.people import verdicts_note

    verdicts = people.verdicts
    if not verdicts.rated:
        return list(people.tables)
    rated = [score for score in verdicts.scores if score.benchmark in verdicts.benchmarks]
    variant = benchmark_tables(rated)
    for table in variant:
        table.title = f"{table.title} — {protocol or OFFICIAL} protocol with the people's verdicts"
        table.notes.insert(0, verdicts_note(verdicts))
    return [*people.tables, *variant]


def run_caveat(run: Run) -> str | None:
    """Return the run's caveats (unsafe code, the offline policy) on one line, else None."""
    return run_caveats([run.manifest.model_spec], [run.manifest])


def inline_html(text: str) -> str:
    """Return `text` escaped for HTML, with `code` spans as <code>."""
    escaped = html.escape(plain_text(text))
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em auto;padding:0 1em;max-width:1200px;line-height:1.4}"
    ".wide{overflow-x:auto}table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
    "td:first-child,th:first-child{text-align:left}th{background:#eee}.note{color:#555;font-size:.9em}"
    "figure{margin:1em 0}img{max-width:100%;height:auto}.caveat{border-left:4px solid #c60;padding:.3em .8em}"
)


_VIEWER_LINK = re.compile(r"\[([^\]]+)\]\((index\.html#[^\s()]*)\)")
"""A cell that is a markdown link into the viewer page (the "Judge and people" section's), made a link in HTML."""


def _html_cell(cell: str, links: bool) -> str:
    cell = plain_text(cell)
    found = _VIEWER_LINK.fullmatch(cell) if links else None
    if found is None:
        return html.escape(cell)
    return f"<a href='{html.escape(found.group(2))}'>{html.escape(found.group(1))}</a>"


def html_table(table: Table, level: int = 3, links: bool = False) -> list[str]:
    """Return the HTML parts of a table: its title at heading `level`, the table, its notes (viewer links as links)."""
    parts = [f"<h{level}>{html.escape(table.title)}</h{level}><div class='wide'><table><tr>"]
    parts += [f"<th>{html.escape(column)}</th>" for column in table.columns]
    parts.append("</tr>")
    for row in table.rows:
        parts.append("<tr>" + "".join(f"<td>{_html_cell(cell, links)}</td>" for cell in row) + "</tr>")
    parts.append("</table></div>")
    parts += [f"<p class='note'>{inline_html(note)}</p>" for note in table.notes]
    return parts


def _html(
    header: list[tuple[str, str]],
    todo: list[str],
    tables: list[Table],
    drawn: Figures,
    usage: Table | None = None,
    *,
    lead: Sequence[Table] = (),
    caveat: str | None = None,
    people: list[Table] | None = None,
) -> str:
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>mcot report</title><style>{STYLE}</style>"
        "</head><body><h1>mcot report</h1>"
    ]
    if caveat:
        parts.append(f"<p class='caveat'><b>{inline_html(caveat)}</b></p>")
    parts.append("<ul>")
    parts += [f"<li><b>{html.escape(key)}</b>: {html.escape(value)}</li>" for key, value in header]
    parts.append("</ul>")
    if todo:
        parts.append("<h2>What to do</h2><ul>")
        parts += [f"<li>{inline_html(line)}</li>" for line in todo]
        parts.append("</ul>")
    if lead:
        parts.append("<h2>The answer</h2>")
        for table in lead:
            parts += html_table(table)
        parts.append("<h2>Details</h2>")
    for table in tables:
        parts += html_table(table)
    if people is not None:
        parts.append(f"<h2>{PEOPLE_TITLE}</h2>")
        for table in people:
            parts += html_table(table, links=True)
    if usage is not None:
        parts += html_table(usage, level=2)
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
    people: PeopleSection | None = None,
) -> dict[str, Any]:
    """Write RUN/report.md and RUN/report.html (see `build_report`); return their paths."""
    markdown, page = build_report(run, scores, figures=figures, protocol=protocol, robust=robust, people=people)
    md_path = write_text_atomic(run.root / "report.md", markdown)
    html_path = write_text_atomic(run.root / "report.html", page)
    return {"markdown": md_path, "html": html_path}
