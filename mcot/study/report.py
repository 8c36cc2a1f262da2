"""The study report: DIR/study.md and DIR/study.html — one table per benchmark metric with a row per model.

Each arm's cell is the benchmark's headline metric with its 95 % interval and n (mcot.eval.report.headline_rows,
the same numbers as each run's headline); each other arm's cell is its paired difference from text with its
interval, exact McNemar p and Holm's p, corrected over every difference of the study. A details table adds the
errors, the undecided pairs and the smallest difference detectable at 80 % power; each model's tool use
follows, and one figure shows the headline values. The offline caveat leads when a model is the offline policy.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcot.core.item import read_items
from mcot.core.rundir import Score, open_run, order_arms, read_manifest, read_scores, write_text_atomic
from mcot.eval.caveats import run_caveats
from mcot.eval.code_use import code_use, code_use_tables
from mcot.eval.figures import FIGURES_DIR, FigureFile, StudyPoint, study_figure
from mcot.eval.registry import scoring_spec
from mcot.eval.report import (
    BASE_ARM,
    STYLE,
    HeadlineRow,
    difference_cells,
    headline_notes,
    headline_rows,
    html_table,
    inline_html,
    interval_text,
    lower_bound_suffix,
    needs_a_judge,
    with_holm,
)
from mcot.eval.tables import Table, pct
from mcot.eval.tool_use import tool_use, tool_use_tables
from mcot.sampling import coverage
from mcot.study.config import StudyConfig

STUDY_MD = "study.md"
STUDY_HTML = "study.html"


@dataclass(frozen=True)
class StudyRow:
    """One headline row of one model."""

    model: str
    row: HeadlineRow


def study_rows(runs: Mapping[str, Path], *, seed: int = 0) -> list[StudyRow]:
    """Return every model's headline rows, Holm's p recomputed over every difference of the study at once."""
    rows = [StudyRow(model, row) for model, run in runs.items() for row in headline_rows(read_scores(run), seed=seed)]
    adjusted = with_holm([entry.row for entry in rows])
    return [StudyRow(entry.model, row) for entry, row in zip(rows, adjusted, strict=True)]


def arm_cell(row: HeadlineRow) -> str:
    """Return an arm's cell: value [interval] and n."""
    figure = row.figure
    return f"{pct(figure.value)} {interval_text(figure.low, figure.high)} n {figure.n}"


def difference_cell(row: HeadlineRow) -> str:
    """Return a difference's cell: Δ [interval] (exact), p, Holm's p and the difference detectable at 80 % power."""
    delta, interval, p, holm_p, detectable = difference_cells(row.difference, row.p_holm)
    if delta == "—":
        return "—"
    return f"{delta} {interval}, p {p} (Holm {holm_p}), detectable {detectable}"


def lower_bounds(runs: Mapping[str, Path]) -> dict[str, str]:
    """Return {benchmark: title suffix} for the benchmarks some run scored without the judge their protocol needs."""
    found: dict[str, str] = {}
    for run in runs.values():
        grouped: dict[str, list[Score]] = {}
        for score in read_scores(run):
            grouped.setdefault(score.benchmark, []).append(score)
        for benchmark, scores in grouped.items():
            if needs_a_judge(scores):
                found[benchmark] = lower_bound_suffix(scoring_spec(benchmark).judge, None)
    return found


def study_tables(rows: Sequence[StudyRow], bounds: Mapping[str, str] | None = None) -> list[Table]:
    """Return one table per benchmark metric (a row per model, a column per arm and per difference) and the details;
    a benchmark in `bounds` (scored without its judge) has its title say its numbers are a lower bound."""
    panels = list(dict.fromkeys((entry.row.benchmark, entry.row.figure.metric) for entry in rows))
    tables: list[Table] = []
    for benchmark, metric in panels:
        chosen = [e for e in rows if (e.row.benchmark, e.row.figure.metric) == (benchmark, metric)]
        arms = order_arms({e.row.figure.arm for e in chosen})
        others = [arm for arm in arms if arm != BASE_ARM] if BASE_ARM in arms else []
        table = Table(
            f"{benchmark} — {metric}{(bounds or {}).get(benchmark, '')}",
            ["Model", *(f"{arm} % [95% CI]" for arm in arms), *(f"{arm} − {BASE_ARM} (pp)" for arm in others)],
        )
        for model in dict.fromkeys(e.model for e in chosen):
            by_arm = {e.row.figure.arm: e.row for e in chosen if e.model == model}
            table.rows.append(
                [
                    model,
                    *(arm_cell(by_arm[arm]) if arm in by_arm else "—" for arm in arms),
                    *(difference_cell(by_arm[arm]) if arm in by_arm else "—" for arm in others),
                ]
            )
        tables.append(table)
    details = Table(
        "Details — every model, benchmark, metric and arm",
        ["Model", "Benchmark", "Metric", "Arm", "value", "95% CI", "n", "errors", "undecided",
         "Δ vs text (pp)", "Δ 95% CI (pp)", "McNemar p", "Holm p", "detectable (pp)"],
    )  # fmt: skip
    for entry in rows:
        row, figure = entry.row, entry.row.figure
        details.rows.append(
            [
                entry.model,
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
    details.notes = headline_notes([entry.row for entry in rows])
    details.notes.append(
        f"Holm's correction is over all {sum(1 for e in rows if e.row.p_holm is not None)} differences of the study"
    )
    if tables:
        tables[0].notes.append(
            "each cell: the benchmark's own headline metric, 95% interval and n; a difference: arm − text on the "
            'same items with its paired 95% interval ("exact": fewer than 20 discordant pairs; "clustered": items '
            "share a cluster, as the details' clusters note says), exact McNemar p (the cluster-level sign-flip test "
            "where items share a cluster), Holm's p over every difference of the study, and the smallest difference "
            "detectable at 80 % power for its n and discordance (— where no pair differs). Details below"
        )
    return [*tables, details]


def study_points(rows: Sequence[StudyRow]) -> list[StudyPoint]:
    """Return the study figure's bars: every model's headline values per arm."""
    return [
        StudyPoint(
            f"{e.row.benchmark} — {e.row.figure.metric}",
            e.model,
            e.row.figure.arm,
            e.row.figure.value,
            e.row.figure.low,
            e.row.figure.high,
        )
        for e in rows
    ]


def build_study_report(config: StudyConfig, runs: Mapping[str, Path], out: Path) -> tuple[str, str]:
    """Return (markdown, html) of the study report, writing its figure under DIR/figures."""
    rows = study_rows(runs, seed=int(config.settings.get("seed") or 0))
    tables = study_tables(rows, lower_bounds(runs))
    use: list[Table] = []
    for model, run_dir in runs.items():
        opened = open_run(run_dir)
        for table in [*tool_use_tables(tool_use(opened, read_scores(run_dir))), *code_use_tables(code_use(opened))]:
            table.title = f"{table.title} — {model}"
            use.append(table)
    figure, figure_note = _figure(rows, out)
    specs = [model.spec for model in config.models if model.name in runs]
    caveat = run_caveats(specs, [read_manifest(path) for path in runs.values()])
    header = [
        ("study", str(config.source)),
        ("models", ", ".join(f"{m.name} ({m.spec})" for m in config.models if m.name in runs)),
        ("arms", ", ".join(config.arms)),
        ("data", ", ".join(str(path) for path in config.data) + (f" (first {config.limit} of each)" if config.limit else "")
         + (f" (a stratified sample of {config.sample} of each)" if config.sample else "")),
        ("coverage", study_coverage(runs)),
        ("runs", ", ".join(f"{name}: {path}" for name, path in runs.items())),
    ]  # fmt: skip
    if figure_note:
        tables[-1].notes.append(figure_note)
    return _markdown(caveat, header, tables, use, figure), _html(caveat, header, tables, use, figure)


def study_coverage(runs: Mapping[str, Path]) -> str:
    """Return which benchmarks and categories the study's items hold and how many of each (its first run's items)."""

    for run in runs.values():
        if (run / "items.jsonl").is_file():
            return coverage(read_items(run))
    return "no items"


def _figure(rows: Sequence[StudyRow], out: Path) -> tuple[FigureFile | None, str | None]:
    """Return the study figure, or None and the one line that says why it was left out; the tables never depend
    on it (a study whose runs were all paid and scored must not lose its report to a plot)."""
    try:
        return study_figure(study_points(rows), out / FIGURES_DIR), None
    except Exception as exc:  # any plotting failure (matplotlib's checks, a font, the disk) leaves only the figure out
        return None, f"the figure was left out: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _markdown(
    caveat: str | None, header: list[tuple[str, str]], tables: list[Table], use: list[Table], figure: FigureFile | None
) -> str:
    md = ["# mcot study", ""]
    if caveat:
        md += [f"> **{caveat}**", ""]
    md += [f"- **{key}**: {value}" for key, value in header] + ["", "## The answer", ""]
    md += [table.markdown() for table in tables]
    if use:
        md += ["## Tool use", ""] + [table.markdown() for table in use]
    if figure is not None:
        md += ["## Figure", "", f"![{figure.title}]({figure.path})", ""]
    return "\n".join(md)


def _html(
    caveat: str | None, header: list[tuple[str, str]], tables: list[Table], use: list[Table], figure: FigureFile | None
) -> str:
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>mcot study</title><style>{STYLE}</style>"
        "</head><body><h1>mcot study</h1>"
    ]
    if caveat:
        parts.append(f"<p class='caveat'><b>{inline_html(caveat)}</b></p>")
    parts.append("<ul>")
    parts += [f"<li><b>{html.escape(key)}</b>: {html.escape(value)}</li>" for key, value in header]
    parts.append("</ul><h2>The answer</h2>")
    for table in tables:
        parts += html_table(table)
    if use:
        parts.append("<h2>Tool use</h2>")
        for table in use:
            parts += html_table(table)
    if figure is not None:
        parts.append(
            f"<h2>Figure</h2><figure><img src='{html.escape(figure.path)}' width='{figure.width}' "
            f"height='{figure.height}' alt='{html.escape(figure.title)}'></figure>"
        )
    parts.append("</body></html>\n")
    return "".join(parts)


def write_study_report(config: StudyConfig, runs: Mapping[str, Path], out: Path) -> Path:
    """Write DIR/study.md and DIR/study.html; return the markdown's path."""
    markdown, page = build_study_report(config, runs, out)
    write_text_atomic(out / STUDY_HTML, page)
    return write_text_atomic(out / STUDY_MD, markdown)
