"""The study report: DIR/study.md and DIR/study.html — the answer first, the rest below.

The answer: one table per benchmark metric with a row per model (each arm's headline metric with its 95 %
interval and n, mcot.eval.report.headline_rows, the same numbers as each run's headline; each other arm's paired
difference from text with its interval, exact McNemar p and Holm's p over every difference of the study), then
each arm's effect pooled over the models beside each model's own (mcot.study.pooled). Then the flags (tools whose
calls mostly failed, tools called that the arm did not offer, arms that hardly called a tool), one section per
benchmark (`benchmark_tables`: accuracy per category for each model and arm, model against model in each arm,
the cost table), the details table (errors, undecided pairs, the difference detectable at 80 % power), each
model's tool use and the figure. The offline caveat leads when a model is the offline policy.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mcot.core.item import read_items
from mcot.core.rundir import Run, Score, open_run, order_arms, read_scores, write_text_atomic
from mcot.eval.caveats import is_offline, run_caveats
from mcot.eval.code_use import code_use, code_use_tables
from mcot.eval.cost import study_cost_tables
from mcot.eval.figures import FIGURES_DIR, FigureFile, StudyPoint, study_figure
from mcot.eval.probes import study_probe_tables
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
from mcot.eval.samples import pooled_sample_effects, read_sample_scores, samples_table
from mcot.eval.stats import SMALL_DISCORDANCE
from mcot.eval.tables import COUNT_COLUMNS, Table, by_mode, markdown_text, pct, tally
from mcot.eval.tool_use import tool_use, tool_use_tables
from mcot.sampling import coverage
from mcot.study.config import StudyConfig
from mcot.study.flags import study_flags
from mcot.study.pooled import pooled_effects, pooled_tables
from mcot.study.versus import ModelDifference, model_differences, versus_tables

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
            f'same items with its paired 95% interval ("exact": fewer than {SMALL_DISCORDANCE} discordant pairs; "clustered": items '
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


@dataclass(frozen=True)
class StudyRun:
    """One model's run of the study: its folder, the opened run and its scores."""

    name: str
    path: Path
    run: Run
    scores: list[Score]


@dataclass(frozen=True)
class StudyData:
    """What every section of the study report reads: the study, each model's run, and the model-vs-model family."""

    config: StudyConfig
    runs: dict[str, StudyRun]
    seed: int
    differences: list[ModelDifference]

    @property
    def scores(self) -> dict[str, list[Score]]:
        """Return each model's scores, models in the study's order."""
        return {name: entry.scores for name, entry in self.runs.items()}

    def benchmarks(self) -> list[str]:
        """Return the benchmarks some model was scored on, in name order."""
        return sorted({score.benchmark for entry in self.runs.values() for score in entry.scores})


@dataclass
class Section:
    """A titled part of the report: its tables, and lines (flags) written as a list before them."""

    title: str
    tables: list[Table] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def study_data(config: StudyConfig, runs: Mapping[str, Path]) -> StudyData:
    """Return the study's runs opened and scored once, with every model-vs-model difference (Holm over all)."""
    seed = int(config.settings.get("seed") or 0)
    opened = {name: StudyRun(name, path, open_run(path), read_scores(path)) for name, path in runs.items()}
    differences = model_differences({name: entry.scores for name, entry in opened.items()}, seed=seed)
    return StudyData(config, opened, seed, differences)


def benchmark_tables(study: StudyData, benchmark: str) -> list[Table]:
    """Return one benchmark's section below the answer, in its order: accuracy per category for each model and
    arm, model against model in each arm (one line per further section; the cost table is the study's own
    section, a row per benchmark, model and arm)."""
    return [
        per_category_table(study, benchmark),
        *versus_tables(study.differences, benchmark),
    ]


def per_category_table(study: StudyData, benchmark: str) -> Table:
    """Return the benchmark's accuracy per category, a row per model and arm (every (item, arm) in n)."""
    chosen = {name: [s for s in entry.scores if s.benchmark == benchmark] for name, entry in study.runs.items()}
    categories = sorted({score.category for scores in chosen.values() for score in scores})
    table = Table(f"{benchmark} — accuracy per category", ["Model", "Arm", "all", *categories, *COUNT_COLUMNS])
    for model, scores in chosen.items():
        for arm, group in by_mode(scores).items():
            overall = tally(group)
            table.rows.append(
                [model, arm, pct(overall.accuracy)]
                + [pct(tally(s for s in group if s.category == category).accuracy) for category in categories]
                + overall.counts()
            )
    table.notes.append(
        "accuracy = correct / n per category (the benchmark's headline metric is in the answer above): run errors, "
        "unjudged items and judge errors count as wrong"
    )
    return table


def answer_pooled(study: StudyData, bounds: Mapping[str, str]) -> dict[tuple[str, str], Table]:
    """Return the pooled-effect table of each (benchmark, metric), over the study's models but the offline policy
    (a scripted tool user, not a model: it is pooled only when every model is), titled as a lower bound where the
    benchmark's headline is one."""
    specs = {model.name: model.spec for model in study.config.models}
    pooled = [name for name in study.runs if not is_offline(specs.get(name))] or list(study.runs)
    effects = pooled_effects({name: study.runs[name].scores for name in pooled}, seed=study.seed)
    tables = pooled_tables(effects, pooled)
    for (benchmark, _), table in tables.items():
        table.title += bounds.get(benchmark, "")
    left_out = [name for name in study.runs if name not in pooled]
    for table in list(tables.values())[:1]:
        if left_out:
            table.notes.append(
                f"left out of the pooled effects: {', '.join(left_out)} (the offline policy, not a model)"
            )
    return tables


def build_study_report(config: StudyConfig, runs: Mapping[str, Path], out: Path) -> tuple[str, str]:
    """Return (markdown, html) of the study report, writing its figure under DIR/figures."""
    study = study_data(config, runs)
    rows = study_rows(runs, seed=study.seed)
    bounds = lower_bounds(runs)
    *headline, details = study_tables(rows, bounds)
    pooled = answer_pooled(study, bounds)
    panels = dict.fromkeys((entry.row.benchmark, entry.row.figure.metric) for entry in rows)
    answer = Section(
        "The answer",
        [table for panel, own in zip(panels, headline, strict=True) for table in (own, pooled.get(panel)) if table],
    )
    uses = {model: tool_use(entry.run, entry.scores) for model, entry in study.runs.items()}
    flags = Section(
        "Flags",
        lines=[
            *study_flags({name: entry.run for name, entry in study.runs.items()}),
            *(f"model {model}: {flag}" for model, arms in uses.items() for arm in arms if (flag := arm.flag())),
        ],
    )
    per_benchmark = [
        Section(f"{benchmark} — by category and model", benchmark_tables(study, benchmark))
        for benchmark in study.benchmarks()
    ]
    use: list[Table] = []
    for model, entry in study.runs.items():
        for table in [*tool_use_tables(uses[model]), *code_use_tables(code_use(entry.run))]:
            table.title = f"{table.title} — {model}"
            use.append(table)
    cost = study_cost_tables(runs)
    probes = study_probe_tables(runs)
    repeated = study_sample_tables(runs)
    figure, figure_note = _figure(rows, out)
    specs = [model.spec for model in config.models if model.name in runs]
    caveat = run_caveats(specs, [entry.run.manifest for entry in study.runs.values()])
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
        details.notes.append(figure_note)
    sections = [
        answer,
        *([flags] if flags.lines else []),
        *per_benchmark,
        *([Section("Repeated samples", repeated)] if repeated else []),
        *([Section("Faithfulness probes", probes)] if probes else []),
        *([Section("Cost and efficiency", cost)] if cost else []),
        Section("Details", [details]),
        *([Section("Tool use", use)] if use else []),
    ]
    return _markdown(caveat, header, sections, figure), _html(caveat, header, sections, figure)


def study_sample_tables(runs: Mapping[str, Path]) -> list[Table]:
    """Return the repeated-samples tables of a study with `samples` ≥ 2: the arms' effects pooled across models on
    per-item means, then each model's own table (none when no run has repeated samples)."""
    per_model = {name: read_sample_scores(run) for name, run in runs.items()}
    tables = []
    pooled = pooled_sample_effects(per_model)
    if pooled is not None:
        tables.append(pooled)
    for name, scores in per_model.items():
        table = samples_table(scores)
        if table is not None:
            table.title = f"{table.title} — {name}"
            tables.append(table)
    return tables


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
    caveat: str | None, header: list[tuple[str, str]], sections: list[Section], figure: FigureFile | None
) -> str:
    md = ["# mcot study", ""]
    if caveat:
        md += [f"> **{caveat}**", ""]
    md += [f"- **{key}**: {value}" for key, value in header] + [""]
    for section in sections:
        md += [f"## {section.title}", ""]
        if section.lines:
            md += [f"- {markdown_text(line)}" for line in section.lines] + [""]
        md += [table.markdown() for table in section.tables]
    if figure is not None:
        md += ["## Figure", "", f"![{figure.title}]({figure.path})", ""]
    return "\n".join(md)


def _html(caveat: str | None, header: list[tuple[str, str]], sections: list[Section], figure: FigureFile | None) -> str:
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>mcot study</title><style>{STYLE}</style>"
        "</head><body><h1>mcot study</h1>"
    ]
    if caveat:
        parts.append(f"<p class='caveat'><b>{inline_html(caveat)}</b></p>")
    parts.append("<ul>")
    parts += [f"<li><b>{html.escape(key)}</b>: {html.escape(value)}</li>" for key, value in header]
    parts.append("</ul>")
    for section in sections:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.lines:
            parts.append("<ul class='flags'>" + "".join(f"<li>{inline_html(line)}</li>" for line in section.lines))
            parts.append("</ul>")
        for table in section.tables:
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
