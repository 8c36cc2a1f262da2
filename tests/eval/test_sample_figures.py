"""Repeated-sample figures against closed forms: pass@k, majority vote, stability and the per-item paired difference."""

from __future__ import annotations

import math

import pytest
from mcot.eval.samples import majority_right, pass_at_k, sample_differences, sample_figures, samples_table

from mcot.core.rundir import Score


def _score(item_id: str, arm: str, right: bool, answer: str | None, cluster: str | None = None) -> Score:
    return Score(id=item_id, mode=arm, benchmark="gepbench", category="counting", correct=right,
                 score=float(right), method="rule", extracted=answer, cluster=cluster)  # fmt: skip


@pytest.mark.parametrize(("n", "c", "k"), [(5, 0, 1), (5, 2, 1), (5, 2, 3), (5, 4, 2), (10, 3, 10), (4, 4, 4)])
def test_pass_at_k_is_the_closed_form(n: int, c: int, k: int):
    expected = 1.0 - math.comb(n - c, k) / math.comb(n, k) if n - c >= k else 1.0
    assert pass_at_k(n, c, k) == pytest.approx(expected)
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)


def test_pass_at_k_refuses_impossible_counts():
    with pytest.raises(ValueError, match="pass@k needs"):
        pass_at_k(3, 4, 1)


def test_majority_takes_the_most_common_answer_and_the_first_on_a_tie():
    assert majority_right([False, True, True], ["B", "A", "A"])
    assert not majority_right([True, False, False], ["A", "B", "B"])
    assert majority_right([True, False], ["A", "B"])  # a tie: the answer given first
    assert not majority_right([False, False], [None, " "])  # nobody voted: wrong
    assert majority_right([False, True, False], [None, "A", None])


def test_figures_and_difference_by_hand():
    # three samples of two arms on four items; q1 and q2 share a cluster (one figure)
    text = {"q1": [1, 0, 0], "q2": [1, 1, 1], "q3": [0, 0, 0], "q4": [1, 1, 0]}
    canvas = {"q1": [1, 1, 1], "q2": [1, 1, 0], "q3": [1, 0, 0], "q4": [1, 1, 1]}
    clusters = {"q1": "f1", "q2": "f1", "q3": "f2", "q4": "f3"}
    scores = {
        k: [_score(i, arm, bool(r[k - 1]), "A" if r[k - 1] else "B", clusters[i])
            for arm, table in (("text", text), ("canvas", canvas)) for i, r in table.items()]
        for k in (1, 2, 3)
    }
    rows = {row.arm: row for row in sample_figures(scores)}
    assert rows["text"].mean == pytest.approx((1 / 3 + 1 + 0 + 2 / 3) / 4)
    assert rows["text"].pass_at_k == pytest.approx(3 / 4)
    assert rows["text"].majority == pytest.approx(2 / 4)  # q2, q4
    assert (rows["text"].always_right, rows["text"].always_wrong, rows["text"].mixed) == (0.25, 0.25, 0.5)
    assert rows["canvas"].clusters == 3
    [diff] = sample_differences(scores)
    diffs = [2 / 3, -1 / 3, 1 / 3, 1 / 3]
    assert (diff.arm, diff.base, diff.n) == ("canvas", "text", 4)
    assert diff.value == pytest.approx(sum(diffs) / 4)
    # the clustered t interval: CR1 over the three clusters, t with 2 degrees of freedom
    mean = sum(diffs) / 4
    sums = [diffs[0] + diffs[1] - 2 * mean, diffs[2] - mean, diffs[3] - mean]
    se = math.sqrt(3 / 2 * sum(s * s for s in sums) / 16)
    assert diff.high - diff.value == pytest.approx(4.302652729911275 * se, rel=1e-6)
    table = samples_table(scores)
    assert table is not None and table.title == "Repeated samples (3 per item and arm)"
    assert any("canvas − text (per-item means, n=4): +25.0" in note for note in table.notes)


def test_one_sample_makes_no_table():
    assert samples_table({1: [_score("q1", "text", True, "A")]}) is None
