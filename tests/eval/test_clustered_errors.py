"""Clustered errors: items that share a cluster (GePBench's questions on one figure) are not independent, so every
interval and test of the reports is over clusters; checked against closed forms computed by hand, against
inspect_ai's own metrics on the same numbers, and against the item-level figures main wrote before clustering."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from handmade import MakeRun, ok
from mcot.eval.compare import Side, compare_runs, compare_sides
from mcot.eval.headline import OVERALL, arm_figure
from mcot.eval.report import build_report, headline_rows
from mcot.eval.scoring import score_run
from mcot.eval.stats import (
    cluster_groups,
    cluster_paired_bootstrap,
    cluster_sign_flip_p,
    clustered_mean_interval,
    clustered_paired_interval,
    clustered_stderr,
    clustered_variance,
    clustered_wilson,
    design_effect,
    effective_n,
    paired_bootstrap,
    resample_clusters,
    sign_flip_p,
    t_quantile,
)

import mcot.builtin  # noqa: F401  (the built-in benchmarks' cluster keys)
from mcot.core.item import Item
from mcot.core.rundir import Score, open_run, read_scores
from mcot.study.report import study_rows, study_tables

FIGURES = Path(__file__).parent.parent / "data" / "clusters" / "item_level_figures.json"

# the hand table: 6 items in 3 clusters
VALUES = [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]
CLUSTERS = ["a", "a", "a", "b", "b", "c"]
T2 = 0.95 / math.sqrt(2 * 0.975 * 0.025)  # Student's t with 2 df has a closed form: (2q − 1) / √(2q(1 − q))


def test_the_clustered_standard_error_by_hand() -> None:
    # mean 1/2; per-cluster sums of deviations: a 1/2 + 1/2 − 1/2 = 1/2, b −1, c 1/2; Σ² = 3/2
    # CR1: G/(G − 1) · Σ² / n² = 3/2 · 3/2 / 36 = 1/16
    assert clustered_variance(VALUES, CLUSTERS) == pytest.approx(1 / 16)
    assert clustered_stderr(VALUES, CLUSTERS) == pytest.approx(0.25)
    # every item alone: s²/n with s² = Σ(x − x̄)²/(n − 1) = 1.5/5 → 0.05, the ordinary standard error
    alone = [str(i) for i in range(6)]
    assert clustered_variance(VALUES, alone) == pytest.approx(0.05)
    assert design_effect(VALUES, CLUSTERS) == pytest.approx(1.25)
    assert effective_n(VALUES, CLUSTERS) == pytest.approx(4.8)
    assert math.isnan(clustered_variance(VALUES, ["one"] * 6))  # one cluster: nothing to compare it with
    assert effective_n(VALUES, ["one"] * 6) == 1.0 and design_effect(VALUES, ["one"] * 6) == 1.0


def test_the_clustered_intervals_by_hand() -> None:
    assert t_quantile(0.975, 2) == pytest.approx(T2, rel=1e-9)
    interval = clustered_mean_interval(VALUES, CLUSTERS)
    assert (interval.low, interval.high) == pytest.approx((0.5 - T2 * 0.25, 0.5 + T2 * 0.25))
    # Wilson with the Korn–Graubard effective size p(1 − p)/v = (1/4)/(1/16) = 4 and t with G − 1 = 2 df
    wilson = clustered_wilson(VALUES, CLUSTERS)
    half = T2 * math.sqrt(0.25 / 4 + T2 * T2 / 64) / (1 + T2 * T2 / 4)
    assert (wilson.low, wilson.high) == pytest.approx((max(0.0, 0.5 - half), min(1.0, 0.5 + half)))
    # a paired difference: d = [1, 1, 1, 0, 0, 0, −1, 0] in 4 clusters of 2, mean 1/4; per-cluster sums of
    # deviations 3/2, 1/2, −1/2, −3/2 → Σ² = 5; CR1 variance 4/3 · 5 / 64 = 5/48
    a = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    b = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    pairs = ["p", "p", "q", "q", "r", "r", "s", "s"]
    paired = clustered_paired_interval(a, b, pairs)
    t3 = 3.182446305284263  # Student's t, 3 df, 0.975 (every table)
    assert t_quantile(0.975, 3) == pytest.approx(t3, rel=1e-9)
    assert paired.estimate == pytest.approx(0.25)
    assert paired.low == pytest.approx(0.25 - t3 * math.sqrt(5 / 48))
    assert paired.high == 1.0  # 0.25 + 1.03 is clipped to the largest difference of two scores in [0, 1]


def test_the_cluster_sign_flip_test_by_hand() -> None:
    differences = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, -1.0, 0.0]
    pairs = ["p", "p", "q", "q", "r", "r", "s", "s"]
    # per-cluster sums 2, 1, 0, −1: of the 8 sign assignments of (2, 1, −1), 6 reach |sum| ≥ 2
    assert cluster_sign_flip_p(differences, pairs) == pytest.approx(6 / 8)
    # item by item: (1, 1, 1, −1), |sum| ≥ 2 unless two of four flip: 1 − 6/16
    assert sign_flip_p(differences) == pytest.approx(10 / 16)
    assert cluster_sign_flip_p(differences, [str(i) for i in range(8)]) == sign_flip_p(differences)


def test_the_cluster_bootstrap_resamples_whole_clusters() -> None:
    groups = cluster_groups(["x", "x", "x", "y", "z", "z"])
    assert groups == [[0, 1, 2], [3], [4, 5]]
    rng = np.random.default_rng(5)
    for _ in range(50):
        picks = list(resample_clusters(groups, rng))
        chunks, at = [], 0
        while at < len(picks):  # the resample is whole clusters one after another
            group = next(g for g in groups if g[0] == picks[at])
            assert picks[at : at + len(group)] == group
            chunks.append(group)
            at += len(group)
        assert len(chunks) == 3
    # every item alone: the item bootstrap's own draws, and the same paired interval
    alone = [[i] for i in range(7)]
    assert list(resample_clusters(alone, np.random.default_rng(2))) == list(
        np.random.default_rng(2).integers(0, 7, size=7)
    )
    a, b = [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    ids = [f"i{i}" for i in range(7)]
    assert cluster_paired_bootstrap(a, b, ids, n_boot=500) == paired_bootstrap(a, b, n_boot=500)
    # two clusters, one all +1 and one all 0: a resample's mean is 0, 1/2 or 1, never the item bootstrap's 1/4
    whole = cluster_paired_bootstrap([0.0] * 4, [1.0, 1.0, 0.0, 0.0], ["u", "u", "v", "v"], n_boot=2000)
    assert (whole.low, whole.high) == (0.0, 1.0)


def _inspect_scores(values: list[float], clusters: list[str]) -> list[Any]:
    scorer = pytest.importorskip("inspect_ai.scorer")
    return [
        scorer.SampleScore(score=scorer.Score(value=value), sample_id=i, sample_metadata={"figure": cluster})
        for i, (value, cluster) in enumerate(zip(values, clusters, strict=True))
    ]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_same_numbers_as_inspect_ai(seed: int) -> None:
    scorer = pytest.importorskip("inspect_ai.scorer")
    rng = random.Random(seed)
    clusters = [f"f{i // rng.randint(1, 8)}" for i in range(rng.randint(30, 90))]
    values = [float(rng.random() < 0.2 + 0.6 * (hash(c) % 7) / 7) for c in clusters]
    samples = _inspect_scores(values, clusters)
    assert clustered_stderr(values, clusters) == pytest.approx(scorer.stderr(cluster="figure")(samples), rel=1e-12)
    theirs = scorer.ci(cluster="figure")(samples)
    ours = clustered_mean_interval(values, clusters)
    assert (ours.low, ours.high) == pytest.approx((theirs["lower"], theirs["upper"]), rel=1e-9)
    theirs = scorer.ci_wilson(cluster="figure")(samples)
    ours = clustered_wilson(values, clusters)
    assert (ours.low, ours.high) == pytest.approx((theirs["lower"], theirs["upper"]), rel=1e-9)
    # every item alone: inspect_ai's plain standard error
    alone = [str(i) for i in range(len(values))]
    assert clustered_stderr(values, alone) == pytest.approx(scorer.stderr()(_inspect_scores(values, alone)), rel=1e-12)


def test_t_quantiles_match_scipy() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 4, 9, 39, 239, 5000):
        for q in (0.6, 0.9, 0.975, 0.995):
            assert t_quantile(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-8)
    assert t_quantile(0.025, 7) == pytest.approx(-t_quantile(0.975, 7))


def _gepbench_run(make_run: MakeRun) -> Path:
    """40 figures × 6 questions (one per aspect): text is right on every question of 16 figures, canvas of 24."""
    aspects = ("existence", "counting", "size", "location", "reference", "relationship")
    items, results = [], []
    for figure in range(40):
        level = "easy" if figure % 2 == 0 else "hard"
        for q, aspect in enumerate(aspects):
            item_id = f"{level}-{figure}-{q}"
            items.append(
                Item(
                    id=item_id,
                    benchmark="gepbench",
                    category=aspect,
                    question="Which option?",
                    choices=["one", "two", "three", "four"],
                    answer="B",
                    answer_type="choice",
                    meta={"level": level, "image_id": figure},
                )
            )
            results.append(ok(item_id, "text", "B" if figure % 5 < 2 else "C"))
            results.append(ok(item_id, "canvas", "B" if figure % 5 < 3 else "C"))
    return make_run("gepbench-run", items, ["text", "canvas"], results)


def test_a_run_whose_questions_share_figures_gets_wider_intervals_and_the_report_names_the_key(
    make_run: MakeRun,
) -> None:
    run = _gepbench_run(make_run)
    scores = score_run(run, report=False).scores
    assert {s.cluster for s in scores if s.id.startswith("easy-0-")} == {'["gepbench", "easy", 0]'}
    line = json.loads((run / "scores.jsonl").read_text().splitlines()[0])
    assert line["cluster"] == '["gepbench", "easy", 0]'
    alone = [s.model_copy(update={"cluster": None}) for s in scores]

    def width(found: Any) -> float:
        return float(found.high - found.low)

    # the headline (GePBench Avg, a composite): a cluster bootstrap over 40 figures against a bootstrap over 240 items
    [clustered_text, clustered_canvas] = [r for r in headline_rows(scores) if r.benchmark == "gepbench"]
    [item_text, item_canvas] = [r for r in headline_rows(alone) if r.benchmark == "gepbench"]
    assert clustered_text.figure.method == "cluster bootstrap" and item_text.figure.method == "bootstrap"
    assert clustered_text.figure.value == item_text.figure.value == pytest.approx(0.4)
    assert clustered_text.figure.clusters == 40 and item_text.figure.clusters is None
    assert width(clustered_text.figure) > 2 * width(item_text.figure)
    assert clustered_canvas.difference is not None and item_canvas.difference is not None
    assert clustered_canvas.difference.value == pytest.approx(0.2)
    assert width(clustered_canvas.difference) > width(item_canvas.difference)
    # 8 figures flipped whole: a sign flip over 8 clusters all one way, not 48 independent pairs
    assert clustered_canvas.difference.p_value == pytest.approx(2 / 2**8)
    assert item_canvas.difference.p_value < 1e-4
    # a proportion: the clustered Wilson interval is inspect_ai's ci_wilson over the figures, wider than Wilson's
    text = [s for s in scores if s.mode == "text"]
    clustered, plain = arm_figure(OVERALL, "text", text), arm_figure(OVERALL, "text", alone[0::2])
    assert clustered.method == "clustered Wilson" and plain.method == "Wilson"
    assert width(clustered) > 2 * width(plain)
    # mcot compare: the paired accuracy difference over figures (the rows say how)
    [comparison] = compare_runs(run, n_boot=1000)
    overall = comparison.groups[-1]
    assert overall.p_method == "sign-flip" and overall.p_value == pytest.approx(2 / 2**8)
    assert overall.interval_method == "clustered" and overall.clusters == 40  # 8 differing figures: the t interval
    markdown = comparison.markdown()
    assert "clusters: the figure (meta.level + meta.image_id), 40 clusters of 240 items" in markdown
    assert "cluster-level sign-flip test" in markdown and "p (McNemar; sign-flip where clustered)" in markdown
    report, page = build_report(open_run(run), read_scores(run), figures=False)
    assert "clusters: the figure (meta.level + meta.image_id), 40 clusters of 240 items" in report
    assert "clusters: the figure (meta.level + meta.image_id), 40 clusters of 240 items" in page
    assert "p (McNemar; sign-flip where clustered)" in report and "[+7.0, +33.0] clustered" in report
    details = study_tables(study_rows({"local-0": run}))[-1]
    assert "clusters: the figure (meta.level + meta.image_id), 40 clusters of 240 items" in details.notes


def _item_level_table() -> list[Score]:
    """RBench-V and GePBench scores with no cluster (every item its own): the table main's figures were made on."""
    rng = random.Random(11)
    scores = []
    aspects = ("existence", "counting", "size", "location", "reference", "relationship")
    for arm, p in (("text", 0.35), ("canvas", 0.55)):
        for i in range(48):
            scores.append(
                Score(id=f"r{i}", mode=arm, benchmark="rbench-v", category=("math", "physics")[i % 2],
                      score=None, correct=rng.random() < p, method="rule")
            )  # fmt: skip
        for i in range(60):
            right = rng.random() < p
            scores.append(
                Score(id=f"g{i}", mode=arm, benchmark="gepbench", category=aspects[i % 6], score=float(right),
                      correct=right, method="rule", details={"level": "easy" if i % 12 < 6 else "hard"})
            )  # fmt: skip
    return scores


def test_the_default_key_gives_the_old_figures_exactly() -> None:
    """The expected numbers were written by main's code before clustering (commit 6bc055b) on the same table."""
    scores = _item_level_table()
    expected = json.loads(FIGURES.read_text())
    found = []
    for row in headline_rows(scores):
        f, d = row.figure, row.difference
        found.append(
            [row.benchmark, f.metric, f.arm, f.value, f.low, f.high, f.method,
             None if d is None else [d.value, d.low, d.high, d.method, d.p_value, d.detectable], row.p_holm]
        )  # fmt: skip
    assert found == expected["headline"]
    a = Side("text", {s.id: s for s in scores if s.mode == "text"}, {})
    b = Side("canvas", {s.id: s for s in scores if s.mode == "canvas"}, {})
    groups = compare_sides(a, b, n_boot=2000).groups
    assert [
        [g.group, g.difference, g.low, g.high, g.p_value, g.interval_method, g.detectable, g.p_holm] for g in groups
    ] == expected["compare"]
    assert all(g.p_method == "McNemar" and g.clusters is None for g in groups)


def test_an_item_keyed_line_is_written_as_before_and_an_old_line_reads_as_its_own_cluster(make_run: MakeRun) -> None:
    items = [
        Item(id=f"q{i}", benchmark="rbench-v", category="math", question="?", answer="4", answer_type="number")
        for i in range(3)
    ]
    run = make_run("run", items, ["text"], [ok(f"q{i}", "text", "\\boxed{4}") for i in range(3)])
    score_run(run, report=False)
    lines = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert all("cluster" not in line for line in lines)
    old = Score.from_line({k: v for k, v in lines[0].items() if k != "schema_version"})
    assert old.cluster is None and old.unit == "q0"
    report, _ = build_report(open_run(run), read_scores(run), figures=False)
    assert "clusters: the item (3 items, each its own cluster)" in report
