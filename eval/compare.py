"""Text vs canvas on the same items: paired accuracy differences, bootstrap intervals, McNemar, flips, cost."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.errors import EvalError
from eval.metrics import Table, num, pct
from eval.rundir import Score, open_run, read_scores
from eval.stats import mcnemar_exact, paired_bootstrap


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a label (its mode), its scores and results by item id."""

    label: str
    scores: dict[str, Score]
    results: dict[str, dict[str, Any]]


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


@dataclass
class Comparison:
    """Everything `mcot compare` reports: per group results, excluded counts, cost and steps per side."""

    a: str
    b: str
    groups: list[GroupComparison] = field(default_factory=list)
    excluded: int = 0
    usage: dict[str, dict[str, float | None]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def tables(self) -> list[Table]:
        """Return the comparison, flips and cost tables."""
        main = Table(
            f"{self.b} vs {self.a} on the same items",
            [
                "Group",
                "n",
                f"{self.a} acc",
                f"{self.b} acc",
                "diff (pp)",
                "95% CI (pp)",
                "McNemar p",
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
                    f"[{100 * g.low:+.1f}, {100 * g.high:+.1f}]",
                    f"{g.p_value:.3g}",
                    str(len(g.wrong_to_right)),
                    str(len(g.right_to_wrong)),
                ]
            )
        main.notes.append(
            f"diff = {self.b} − {self.a}; 95% percentile bootstrap over items (seeded), exact two-sided McNemar test"
        )
        if self.excluded:
            main.notes.append(
                f"{self.excluded} item(s) left out: not decided in both (unjudged, judge error or missing)"
            )
        main.notes += self.warnings
        flips = Table("Flips (item ids)", ["Group", "wrong→right", "right→wrong"])
        for g in self.groups:
            if g.group != "Overall":
                flips.rows.append([g.group, _ids(g.wrong_to_right), _ids(g.right_to_wrong)])
        usage = Table(
            "Cost and steps per mode (paired items)",
            ["Mode", "mean steps", "median steps", "mean cost ($)", "total cost ($)", "cost known"],
        )
        for label, stats in self.usage.items():
            usage.rows.append(
                [
                    label,
                    num(stats["mean_steps"], 1),
                    num(stats["median_steps"], 1),
                    num(stats["mean_cost"], 4),
                    num(stats["total_cost"], 4),
                    f"{int(stats['cost_known'] or 0)}/{int(stats['n'] or 0)}",
                ]
            )
        return [main, flips, usage]

    def markdown(self) -> str:
        """Return the comparison as markdown."""
        return "\n".join(table.markdown() for table in self.tables())


def _ids(ids: Sequence[str], limit: int = 30) -> str:
    if not ids:
        return "—"
    shown = ", ".join(ids[:limit])
    return shown + (f" … (+{len(ids) - limit})" if len(ids) > limit else "")


def compare_sides(a: Side, b: Side, *, n_boot: int = 10_000, seed: int = 0) -> Comparison:
    """Return the paired comparison of two sides on the items both decided."""
    common = sorted(set(a.scores) & set(b.scores))
    decided = [i for i in common if a.scores[i].correct is not None and b.scores[i].correct is not None]
    comparison = Comparison(a.label, b.label, excluded=len(set(a.scores) | set(b.scores)) - len(decided))
    if not decided:
        raise EvalError(f"no item has a decided score in both {a.label} and {b.label}: nothing to compare")
    groups: dict[str, list[str]] = defaultdict(list)
    for item_id in decided:
        score = a.scores[item_id]
        groups[f"{score.benchmark}/{score.category}"].append(item_id)
    ordered = [*sorted(groups.items()), ("Overall", decided)]
    for offset, (name, ids) in enumerate(ordered):
        xs = [float(bool(a.scores[i].correct)) for i in ids]
        ys = [float(bool(b.scores[i].correct)) for i in ids]
        interval = paired_bootstrap(xs, ys, n_boot=n_boot, seed=seed + offset)
        up = [i for i, x, y in zip(ids, xs, ys, strict=True) if x == 0 and y == 1]
        down = [i for i, x, y in zip(ids, xs, ys, strict=True) if x == 1 and y == 0]
        comparison.groups.append(
            GroupComparison(
                name,
                len(ids),
                sum(xs) / len(ids),
                sum(ys) / len(ids),
                interval.estimate,
                interval.low,
                interval.high,
                mcnemar_exact(len(up), len(down)),
                up,
                down,
            )
        )
    for side in (a, b):
        comparison.usage[side.label] = _usage([side.results.get(i, {}) for i in decided])
    return comparison


def _usage(results: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    steps = [float(r["steps"]) for r in results if isinstance(r.get("steps"), int | float)]
    costs = [float(c) for r in results if isinstance(c := (r.get("usage") or {}).get("cost_usd"), int | float)]
    return {
        "n": float(len(results)),
        "mean_steps": statistics.fmean(steps) if steps else None,
        "median_steps": statistics.median(steps) if steps else None,
        "mean_cost": statistics.fmean(costs) if costs else None,
        "total_cost": sum(costs) if costs else None,
        "cost_known": float(len(costs)),
    }


def _identity(manifest: dict[str, Any], scores: Sequence[Score]) -> dict[str, Any]:
    judges = sorted({str(s.judge.get("spec")) for s in scores if s.judge and s.judge.get("spec")})
    return {
        "model": (manifest.get("model") or {}).get("spec"),
        "judge": ((manifest.get("judge") or {}).get("spec")) or (judges[0] if len(judges) == 1 else judges or None),
        "dataset": (manifest.get("dataset") or {}).get("sha256"),
    }


def compare_runs(
    run_a: Path, run_b: Path | None = None, *, force: bool = False, n_boot: int = 10_000, seed: int = 0
) -> Comparison:
    """Return text vs canvas for one run with both modes, or run A's mode vs run B's mode.

    Runs that differ in model, judge or dataset hash are refused (EvalError) unless `force`.
    """
    first = open_run(run_a)
    scores_a = read_scores(run_a)
    if run_b is None:
        modes = sorted({s.mode for s in scores_a}, key=lambda m: ({"text": 0, "canvas": 1}.get(m, 2), m))
        if len(modes) < 2:
            raise EvalError(f"{run_a} has only the mode(s) {modes}; compare needs two modes or a second run")
        left, right = modes[0], modes[1]
        return compare_sides(
            _side(left, scores_a, first.results), _side(right, scores_a, first.results), n_boot=n_boot, seed=seed
        )
    second = open_run(run_b)
    scores_b = read_scores(run_b)
    identity_a, identity_b = _identity(first.manifest, scores_a), _identity(second.manifest, scores_b)
    differing = [key for key in identity_a if identity_a[key] != identity_b[key]]
    warnings: list[str] = []
    if differing:
        detail = "; ".join(f"{key}: {identity_a[key]!r} vs {identity_b[key]!r}" for key in differing)
        if not force:
            raise EvalError(f"the runs differ in more than the mode ({detail}); pass --force to compare them anyway")
        warnings.append(f"forced: the runs differ in {detail}")
    modes_a = {s.mode for s in scores_a}
    modes_b = {s.mode for s in scores_b}
    left = "text" if "text" in modes_a else sorted(modes_a)[0]
    right_choices = sorted(modes_b - {left}) or sorted(modes_b)
    right = "canvas" if "canvas" in right_choices else right_choices[0]
    side_a = _side(left, scores_a, first.results)
    side_b = _side(right, scores_b, second.results)
    if left == right:
        side_a = Side(f"{left} (A)", side_a.scores, side_a.results)
        side_b = Side(f"{right} (B)", side_b.scores, side_b.results)
    comparison = compare_sides(side_a, side_b, n_boot=n_boot, seed=seed)
    comparison.warnings += warnings
    return comparison


def _side(mode: str, scores: Sequence[Score], results: dict[tuple[str, str], dict[str, Any]]) -> Side:
    return Side(
        mode,
        {s.id: s for s in scores if s.mode == mode},
        {item_id: row for (item_id, row_mode), row in results.items() if row_mode == mode},
    )
