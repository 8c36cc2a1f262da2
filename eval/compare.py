"""Any two arms on the same items: paired accuracy differences, intervals, McNemar, power, flips, cost.

Every paired item counts: a run error, an unjudged item or a judge error is wrong, as in the report's tables.
`mcot compare RUN` compares the two arms of a run, or text against each other arm when it has more;
`--a ARM --b ARM` picks the pair (of one run, or arm A of RUN and arm B of RUN_B); several runs on the same
items (`compare_many`) compare each run's arms with its text arm.

Each difference has a 95 % interval: a paired percentile bootstrap, or — from fewer than SMALL_DISCORDANCE
discordant pairs, where a bootstrap can be zero-width — the exact conditional interval (`exact_paired_interval`,
marked "exact"); an exact McNemar p. Where items share a cluster (the scores' `cluster`: GePBench's figure) pairs
are not independent: the p is the cluster-level sign-flip test and the interval a cluster bootstrap or the
clustered t interval (`clustered_difference`); Holm's correction over the totals of everything compared at once (one row
per benchmark, or Overall with one benchmark); and the smallest difference detectable at 80 % power for its n
and discordance (Connor's formula).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcot.eval.cluster_notes import cluster_counts, cluster_line
from mcot.eval.efficiency import EFFICIENCY_NOTE, paired_efficiency
from mcot.eval.errors import EvalError
from mcot.eval.stats import (
    SMALL_DISCORDANCE,
    Interval,
    cluster_groups,
    cluster_paired_bootstrap,
    cluster_sign_flip_p,
    clustered_paired_interval,
    detectable_difference,
    effective_n,
    exact_paired_interval,
    holm,
    is_clustered,
    mcnemar_exact,
    never_zero_width,
    paired_bootstrap,
)
from mcot.eval.tables import Table, num, pct

from mcot.core.rundir import Manifest, Result, Score, open_run, order_arms, read_scores


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a label (its arm), its scores and results by item id."""

    label: str
    scores: dict[str, Score]
    results: dict[str, Result]


@dataclass(frozen=True)
class GroupComparison:
    """The paired comparison of one group of items (a category, or all of them)."""

    group: str
    n: int
    accuracy_a: float
    accuracy_b: float
    difference: float
    low: float
    high: float
    p_value: float
    wrong_to_right: list[str]
    right_to_wrong: list[str]
    interval_method: str = "bootstrap"
    """How [low, high] was found: "bootstrap" (paired percentile) or "exact" (few discordant pairs)."""
    detectable: float | None = None
    """The smallest difference a McNemar test on these n pairs detects with 80 % power (None: no pair differs)."""
    total: bool = False
    """True for a benchmark's (or the Overall) row: the rows Holm's correction is over."""
    p_holm: float | None = None
    clusters: int | None = None
    """How many clusters the items form (None: every item is its own cluster)."""
    p_method: str = "McNemar"
    """The test of `p_value`: "McNemar" (items), or "sign-flip" (per-cluster sums, when items share clusters)."""

    @property
    def discordant(self) -> int:
        """Return the pairs that differ between the arms."""
        return len(self.wrong_to_right) + len(self.right_to_wrong)


@dataclass
class Comparison:
    """Everything `mcot compare` reports: per group results, excluded counts, cost and steps per side."""

    a: str
    b: str
    groups: list[GroupComparison] = field(default_factory=list)
    excluded: int = 0
    undecided: dict[str, dict[str, int]] = field(default_factory=dict)
    usage: dict[str, dict[str, float | None]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    label: str | None = None
    """Whose arms these are (a run's model) when several runs are compared."""
    clusters: str | None = None
    """The note naming each benchmark's cluster key and counts over the paired items."""

    def tables(self) -> list[Table]:
        """Return the comparison, flips and cost tables."""
        who = f" — {self.label}" if self.label else ""
        main = Table(
            f"{self.b} vs {self.a} on the same items{who}",
            [
                "Group",
                "n",
                f"{self.a} acc",
                f"{self.b} acc",
                "diff (pp)",
                "95% CI (pp)",
                P_COLUMN if all(g.clusters is None for g in self.groups) else P_COLUMN_CLUSTERED,
                "Holm p",
                "detectable (pp)",
                "wrong→right",
                "right→wrong",
            ],
        )
        for g in self.groups:
            main.rows.append(
                [
                    g.group,
                    str(g.n),
                    pct(g.accuracy_a),
                    pct(g.accuracy_b),
                    f"{100 * g.difference:+.1f}",
                    interval_cell(g),
                    f"{g.p_value:.3g}",
                    "—" if g.p_holm is None else f"{g.p_holm:.3g}",
                    detectable_cell(g.detectable),
                    str(len(g.wrong_to_right)),
                    str(len(g.right_to_wrong)),
                ]
            )
        main.notes.append(
            f"diff = {self.b} − {self.a}; 95% percentile bootstrap over items (seeded), exact two-sided McNemar test"
        )
        main.notes += method_notes(self.groups)
        if self.clusters:
            main.notes.append(self.clusters)
        main.notes.append(
            "n counts every item scored in both arms: run errors, unjudged items and judge errors count as wrong"
        )
        for label, counts in self.undecided.items():
            shown = ", ".join(f"{count} {kind}" for kind, count in counts.items() if count)
            if shown:
                main.notes.append(f"{label}: {shown} among the paired items (counted wrong)")
        if self.excluded:
            main.notes.append(
                f"{self.excluded} item(s) left out: scored in one arm only (re-run `mcot score` to score every pair)"
            )
        main.notes += self.warnings
        flips = Table("Flips (item ids)", ["Group", "wrong→right", "right→wrong"])
        for g in self.groups:
            if not g.total and g.group != "Overall":
                flips.rows.append([g.group, _ids(g.wrong_to_right), _ids(g.right_to_wrong)])
        usage = Table(
            "Cost and steps per arm (paired items)",
            [
                "Mode",
                "mean steps",
                "median steps",
                "tokens",
                "mean cost ($)",
                "total cost ($)",
                "cost known",
                "correct / $",
                "correct / 1k tokens",
            ],
        )
        for label, stats in self.usage.items():
            usage.rows.append(
                [
                    label,
                    num(stats["mean_steps"], 1),
                    num(stats["median_steps"], 1),
                    tokens_cell(stats),
                    num(stats["mean_cost"], 4),
                    num(stats["total_cost"], 4),
                    f"{int(stats['cost_known'] or 0)}/{int(stats['n'] or 0)}",
                    num(stats.get("correct_per_usd"), 1),
                    num(stats.get("correct_per_1k_tokens"), 3),
                ]
            )
        usage.notes.append(EFFICIENCY_NOTE)
        return [main, flips, usage]

    def markdown(self) -> str:
        """Return the comparison as markdown."""
        return "\n".join(table.markdown() for table in self.tables())


def tokens_cell(stats: dict[str, float | None]) -> str:
    """Return a side's total tokens, with "(k/n known)" when some paired result does not record them."""
    total, known, n = stats.get("tokens"), int(stats.get("tokens_known") or 0), int(stats.get("n") or 0)
    if total is None:
        return "—"
    return f"{total:,.0f}" if known == n else f"{total:,.0f} ({known}/{n} known)"
P_COLUMN = "McNemar p"
P_COLUMN_CLUSTERED = "p (McNemar; sign-flip where clustered)"
"""The p column's title where some rows' items share clusters: those rows' p is the cluster-level sign-flip test."""


def interval_cell(g: GroupComparison) -> str:
    """Return a difference's 95 % interval in points, marked "exact" when it comes from few discordant pairs and
    "clustered" when it is the clustered t interval."""
    cell = f"[{100 * g.low:+.1f}, {100 * g.high:+.1f}]"
    return f"{cell} {g.interval_method}" if g.interval_method in ("exact", "clustered") else cell


def detectable_cell(value: float | None) -> str:
    """Return the smallest detectable difference in points ("—" when no pair differs)."""
    return "—" if value is None else f"±{100 * value:.1f}"


def method_notes(groups: Sequence[GroupComparison]) -> list[str]:
    """Return the notes saying how the intervals, Holm p and detectable differences of `groups` were found."""
    notes = [
        "Holm p: Holm's correction over the totals compared together (each benchmark's row, or Overall); "
        "category rows show the raw p only",
        "detectable: the smallest difference a McNemar test on these n pairs, with this share of discordant "
        "pairs, detects at 80 % power (α = 0.05, Connor 1987); a difference smaller than it is not evidence of "
        "no effect",
    ]
    small = [g.group for g in groups if g.interval_method == "exact" and g.clusters is None]
    if small:
        notes.append(
            f"exact: fewer than {SMALL_DISCORDANCE} discordant pairs ({', '.join(small)}): the interval is the "
            "exact conditional one (Clopper–Pearson on how the discordant pairs split), not a bootstrap, which "
            "can be zero-width there"
        )
    clustered = [g.group for g in groups if g.clusters is not None]
    if clustered:
        notes.append(clustered_note(clustered))
    return notes


def clustered_note(groups: Sequence[str]) -> str:
    """Return the note on rows whose items share clusters: what their interval, p and power are computed from."""
    return (
        f"items share clusters ({', '.join(groups)}): McNemar and the exact interval assume independent pairs, so "
        "these rows use the cluster-level sign-flip test (per-cluster sums of the differences) for p, a cluster "
        f"bootstrap (whole clusters resampled) for the interval, the clustered t interval (marked clustered) from "
        f"fewer than {SMALL_DISCORDANCE} clusters with a discordant pair (with none: ±u, u the exact bound of 0 "
        "differing clusters, marked exact), and n over the design effect for the detectable difference"
    )


def paired_difference(
    ids: Sequence[str],
    xs: Sequence[float],
    ys: Sequence[float],
    *,
    n_boot: int = 10_000,
    seed: int = 0,
    clusters: Sequence[str] | None = None,
) -> GroupComparison:
    """Return the paired comparison of 0/1 outcomes xs (arm A) and ys (arm B) on `ids`, titled by the caller.

    The interval is exact from fewer than SMALL_DISCORDANCE discordant pairs, a paired bootstrap otherwise, with
    the exact McNemar p. `clusters` (one per item; None: each item alone) where items share clusters: see
    `clustered_difference`.
    """
    up = [i for i, x, y in zip(ids, xs, ys, strict=True) if x == 0 and y == 1]
    down = [i for i, x, y in zip(ids, xs, ys, strict=True) if x == 1 and y == 0]
    n = len(ids)
    discordant = len(up) + len(down)
    if clusters is not None and is_clustered(clusters):
        return clustered_difference(ids, xs, ys, clusters, up, down, n_boot=n_boot, seed=seed)
    if discordant < SMALL_DISCORDANCE:
        interval = exact_paired_interval(len(up), len(down), n)
        method = "exact"
    else:
        interval = paired_bootstrap(xs, ys, n_boot=n_boot, seed=seed)
        low, high, replaced = never_zero_width(
            (interval.low, interval.high), exact_paired_interval(len(up), len(down), n)
        )
        interval = Interval(interval.estimate, low, high, interval.level)
        method = "exact" if replaced else "bootstrap"
    return GroupComparison(
        "",
        n,
        sum(xs) / n,
        sum(ys) / n,
        (len(up) - len(down)) / n,
        interval.low,
        interval.high,
        mcnemar_exact(len(up), len(down)),
        up,
        down,
        interval_method=method,
        detectable=detectable_difference(n, discordant / n),
    )


def clustered_difference(
    ids: Sequence[str],
    xs: Sequence[float],
    ys: Sequence[float],
    clusters: Sequence[str],
    up: list[str],
    down: list[str],
    *,
    n_boot: int = 10_000,
    seed: int = 0,
) -> GroupComparison:
    """Return the paired comparison of items that share clusters (McNemar and the exact interval assume
    independent pairs): p from the cluster-level sign-flip test on per-cluster sums of the differences; the
    interval a cluster bootstrap, or the clustered t interval from fewer than SMALL_DISCORDANCE clusters holding a
    discordant pair (±u, u the Clopper–Pearson bound of 0 in G, when no pair differs); power on n / design effect.
    """
    n = len(ids)
    diffs = [y - x for x, y in zip(xs, ys, strict=True)]
    groups = cluster_groups(clusters)
    differing = sum(1 for group in groups if any(diffs[i] != 0 for i in group))
    clustered = clustered_paired_interval(xs, ys, clusters)
    if not up and not down:
        interval, method = exact_paired_interval(0, 0, len(groups)), "exact"
    elif differing < SMALL_DISCORDANCE:
        interval, method = clustered, "clustered"
    else:
        boot = cluster_paired_bootstrap(xs, ys, clusters, n_boot=n_boot, seed=seed)
        low, high, replaced = never_zero_width((boot.low, boot.high), clustered)
        interval, method = Interval(boot.estimate, low, high), "clustered" if replaced else "cluster bootstrap"
    return GroupComparison(
        "",
        n,
        sum(xs) / n,
        sum(ys) / n,
        (len(up) - len(down)) / n,
        interval.low,
        interval.high,
        cluster_sign_flip_p(diffs, clusters),
        up,
        down,
        interval_method=method,
        detectable=detectable_difference(effective_n(diffs, clusters), (len(up) + len(down)) / n),
        clusters=len(groups),
        p_method="sign-flip",
    )


def apply_holm(comparisons: Sequence[Comparison]) -> None:
    """Set `p_holm` on the total rows of every comparison: Holm's correction over all of them at once."""
    rows = [g for comparison in comparisons for g in comparison.groups if g.total]
    for g, adjusted in zip(rows, holm([g.p_value for g in rows]), strict=True):
        object.__setattr__(g, "p_holm", adjusted)


def _ids(ids: Sequence[str], limit: int = 30) -> str:
    if not ids:
        return "—"
    shown = ", ".join(ids[:limit])
    return shown + (f" … (+{len(ids) - limit})" if len(ids) > limit else "")


def compare_sides(a: Side, b: Side, *, n_boot: int = 10_000, seed: int = 0) -> Comparison:
    """Return the paired comparison of two sides on the items both scored (undecided scores count as wrong)."""
    common = sorted(set(a.scores) & set(b.scores))
    comparison = Comparison(a.label, b.label, excluded=len(set(a.scores) | set(b.scores)) - len(common))
    if not common:
        raise EvalError(f"no item has a score in both {a.label} and {b.label}: nothing to compare")
    for side_ in (a, b):
        methods = [side_.scores[i].method for i in common]
        comparison.undecided[side_.label] = {
            "run error(s)": methods.count("error"),
            "unjudged": methods.count("none"),
            "judge error(s)": methods.count("judge_error"),
        }
    groups: dict[str, list[str]] = defaultdict(list)
    benchmarks: dict[str, list[str]] = defaultdict(list)
    for item_id in common:
        score = a.scores[item_id]
        groups[f"{score.benchmark}/{score.category}"].append(item_id)
        benchmarks[score.benchmark].append(item_id)
    ordered: list[tuple[str, list[str], bool]] = [(name, ids, False) for name, ids in sorted(groups.items())]
    several = len(benchmarks) > 1
    if several:  # each benchmark has its own total; Overall then pools them and is not one of the tested totals
        ordered += [(f"{name} (all)", ids, True) for name, ids in sorted(benchmarks.items())]
    ordered.append(("Overall", common, not several))
    for offset, (name, ids, total) in enumerate(ordered):
        xs = [float(bool(a.scores[i].correct)) for i in ids]
        ys = [float(bool(b.scores[i].correct)) for i in ids]
        units = [a.scores[i].unit for i in ids]
        found = paired_difference(ids, xs, ys, n_boot=n_boot, seed=seed + offset, clusters=units)
        comparison.groups.append(replace(found, group=name, total=total))
    if several:
        comparison.warnings.append(
            "Overall pools benchmarks whose metrics differ: read each benchmark's (all) row; Holm is over those"
        )
    comparison.clusters = cluster_line(cluster_counts(a.scores[i] for i in common))
    apply_holm([comparison])
    for side_ in (a, b):
        paired = [side_.results.get(i) for i in common]
        right = sum(1 for i in common if side_.scores[i].correct)  # as the table's accuracies count them
        comparison.usage[side_.label] = {**_usage(paired), **paired_efficiency(paired, right)}
    return comparison


def _usage(results: Sequence[Result | None]) -> dict[str, float | None]:
    steps = [float(r.steps) for r in results if r is not None]
    costs = [c for r in results if r is not None and (c := r.usage.cost_usd) is not None]
    return {
        "n": float(len(results)),
        "mean_steps": statistics.fmean(steps) if steps else None,
        "median_steps": statistics.median(steps) if steps else None,
        "mean_cost": statistics.fmean(costs) if costs else None,
        "total_cost": sum(costs) if costs else None,
        "cost_known": float(len(costs)),
    }


def _identity(manifest: Manifest, scores: Sequence[Score]) -> dict[str, Any]:
    judges = sorted({str(s.judge.get("spec")) for s in scores if s.judge and s.judge.get("spec")})
    return {
        "model": manifest.model_spec,
        "judge": manifest.judge_spec or (judges[0] if len(judges) == 1 else judges or None),
        "dataset": manifest.dataset.sha256,
    }


def arm_pairs(arms: Sequence[str]) -> list[tuple[str, str]]:
    """Return (text, arm) for each other arm in `arms` (order of order_arms), or [] without a text arm."""
    ordered = order_arms(arms)
    return [("text", arm) for arm in ordered if arm != "text"] if "text" in ordered else []


def _partner(arms: Sequence[str], given: str) -> str:
    """Return the default arm to compare `given` with: text, else canvas, else the first other arm."""
    others = [arm for arm in arms if arm != given]
    for preferred in ("text", "canvas"):
        if preferred in others:
            return preferred
    return others[0]


def _check_arm(run: Path, arm: str, arms: Sequence[str]) -> None:
    if arm not in arms:
        raise EvalError(f"{run} has no scored arm {arm!r}; its arms: {', '.join(arms) or 'none'}")


def choose_pairs(run: Path, arms: Sequence[str], a: str | None = None, b: str | None = None) -> list[tuple[str, str]]:
    """Return the (A, B) arm pairs to compare within one run.

    --a and --b pick the pair (one of them alone is compared with text, else canvas, else the other arm);
    without them: the two arms of a two-arm run, or text against each other arm. Raise EvalError naming the
    arms when an arm is unknown, when there are fewer than two, or when more than two and no text arm.
    """
    arms = order_arms(arms)
    if len(arms) < 2:
        raise EvalError(f"{run} has only the arm(s) {arms}; compare needs two arms or a second run")
    for arm in (a, b):
        if arm is not None:
            _check_arm(run, arm, arms)
    if a is not None and b is not None:
        if a == b:
            raise EvalError(f"--a and --b name the same arm {a!r}; choose two of: {', '.join(arms)}")
        return [(a, b)]
    if a is not None:
        return [(a, _partner(arms, a))]
    if b is not None:
        return [(_partner(arms, b), b)]
    if len(arms) == 2:
        return [(arms[0], arms[1])]
    pairs = arm_pairs(arms)
    if not pairs:
        raise EvalError(f"{run} has {len(arms)} arms ({', '.join(arms)}) and no text arm: choose two with --a and --b")
    return pairs


def compare_runs(
    run_a: Path,
    run_b: Path | None = None,
    *,
    a: str | None = None,
    b: str | None = None,
    force: bool = False,
    n_boot: int = 10_000,
    seed: int = 0,
) -> list[Comparison]:
    """Return the comparisons asked for: arm pairs of one run (see choose_pairs), or arm `a` of A vs arm `b` of B.

    With two runs, `a` defaults to text (else A's first arm) and `b` to canvas (else B's first arm other than
    `a`). Runs that differ in model, judge or dataset hash are refused (EvalError) unless `force`. Both runs'
    frozen items are checked (open_run).
    """
    first = open_run(run_a)
    scores_a = read_scores(run_a)
    arms_a = order_arms({s.mode for s in scores_a})
    if run_b is None:
        found = [
            compare_sides(side(x, scores_a, first.results), side(y, scores_a, first.results), n_boot=n_boot, seed=seed)
            for x, y in choose_pairs(Path(run_a), arms_a, a, b)
        ]
        apply_holm(found)
        return found
    second = open_run(run_b)
    scores_b = read_scores(run_b)
    arms_b = order_arms({s.mode for s in scores_b})
    identity_a, identity_b = _identity(first.manifest, scores_a), _identity(second.manifest, scores_b)
    differing = [key for key in identity_a if identity_a[key] != identity_b[key]]
    warnings: list[str] = []
    if differing:
        detail = "; ".join(f"{key}: {identity_a[key]!r} vs {identity_b[key]!r}" for key in differing)
        if not force:
            raise EvalError(f"the runs differ in more than the arm ({detail}); pass --force to compare them anyway")
        warnings.append(f"forced: the runs differ in {detail}")
    left = a if a is not None else ("text" if "text" in arms_a else (arms_a or ["?"])[0])
    _check_arm(Path(run_a), left, arms_a)
    if b is None:
        choices = [arm for arm in arms_b if arm != left] or arms_b
        right = "canvas" if "canvas" in choices else (choices or ["?"])[0]
    else:
        right = b
    _check_arm(Path(run_b), right, arms_b)
    side_a = side(left, scores_a, first.results)
    side_b = side(right, scores_b, second.results)
    if left == right:
        side_a = Side(f"{left} (A)", side_a.scores, side_a.results)
        side_b = Side(f"{right} (B)", side_b.scores, side_b.results)
    comparison = compare_sides(side_a, side_b, n_boot=n_boot, seed=seed)
    comparison.warnings += warnings
    return [comparison]


def side(arm: str, scores: Sequence[Score], results: dict[tuple[str, str], Result]) -> Side:
    """Return one arm's side of a comparison: its scores and results by item id."""
    return Side(
        arm,
        {s.id: s for s in scores if s.mode == arm},
        {item_id: row for (item_id, row_mode), row in results.items() if row_mode == arm},
    )


def compare_many(
    runs: Sequence[Path], *, arms: Sequence[str] | None = None, force: bool = False, n_boot: int = 10_000, seed: int = 0
) -> list[Comparison]:
    """Return each run's arms against its text arm, the runs on the same items, Holm over every total at once.

    `arms` picks the arms compared with text (default: every other arm each run has). Runs whose frozen items
    differ (dataset hash) are refused (EvalError) unless `force`; each comparison is labelled with its run's
    model (and folder when two runs share a model).
    """
    opened = [(Path(root), open_run(root), read_scores(root)) for root in runs]
    hashes = {str(run.manifest.dataset.sha256) for _, run, _ in opened}
    warnings = []
    if len(hashes) > 1:
        if not force:
            raise EvalError("the runs are not on the same items (their frozen items differ); pass --force to compare")
        warnings.append("forced: the runs are not on the same items")
    models = [str(run.manifest.model_spec or root.name) for root, run, _ in opened]
    comparisons: list[Comparison] = []
    for (root, run, scores), model in zip(opened, models, strict=True):
        label = f"{model} ({root.name})" if models.count(model) > 1 else model
        present = order_arms({s.mode for s in scores})
        if "text" not in present:
            raise EvalError(f"{root} has no scored text arm to compare with; its arms: {', '.join(present) or 'none'}")
        wanted = [arm for arm in (arms or present) if arm != "text"]
        for arm in wanted:
            _check_arm(root, arm, present)
            found = compare_sides(
                side("text", scores, run.results), side(arm, scores, run.results), n_boot=n_boot, seed=seed
            )
            found.label = label
            found.warnings += warnings
            comparisons.append(found)
    apply_holm(comparisons)
    return comparisons
