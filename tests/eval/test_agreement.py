"""Judge–people agreement: κ, weighted κ, α, PLCC/SRCC and SPS against values computed by hand; ratings files read
and refused; `score_run(human=...)` adds "Judge and people" and the people's verdicts as scores.human.jsonl."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from handmade import MakeRun, ok
from mcot.eval.agreement import cohen_kappa, krippendorff_alpha, mean_sps, raw_agreement
from mcot.eval.people import HUMAN_SCORES, pair_ratings, people_section
from mcot.eval.ratings import RatingsError, read_raters, read_ratings
from mcot.eval.scoring import score_run
from mcot.eval.tables import correlation_cell, plain_text

from mcot.core.item import Item
from mcot.core.rundir import Score, open_run, read_jsonl, read_scores

# ------------------------------------------------------------------------------------------ the figures by hand


def test_raw_agreement_and_unweighted_kappa() -> None:
    # 4 of 6 agree (po = 2/3); both raters say yes half the time (pe = 1/2): κ = (2/3 − 1/2) / (1/2) = 1/3
    a = ["yes", "yes", "no", "no", "yes", "no"]
    b = ["yes", "no", "no", "no", "yes", "yes"]
    assert raw_agreement(a, b) == pytest.approx(2 / 3)
    assert cohen_kappa(a, b) == pytest.approx(1 / 3)


def test_quadratic_weighted_kappa() -> None:
    # categories 1, 2, 3 (span 2): weights 0.25 one step apart, 1 two apart; Σw·o = 0.5/4 = 0.125,
    # marginals (1/4, 1/4, 1/2) on both sides: Σw·e = 2·(1/64) + 2·(1/8) + 2·(1/32) = 11/32; κw = 1 − (1/8)/(11/32) = 7/11
    a = [1.0, 2.0, 3.0, 3.0]
    b = [1.0, 3.0, 3.0, 2.0]
    assert cohen_kappa(a, b, weights="quadratic") == pytest.approx(7 / 11)
    assert cohen_kappa(a, b) == pytest.approx((0.5 - 0.375) / (1 - 0.375))  # unweighted: po 1/2, pe 3/8


def test_kappa_is_undefined_for_constant_raters() -> None:
    assert math.isnan(cohen_kappa(["yes", "yes"], ["yes", "yes"]))
    assert math.isnan(cohen_kappa([], []))


def test_krippendorff_alpha_nominal_ignores_units_rated_once() -> None:
    # coincidences o_aa 2, o_ab = o_ba 1, o_bb 4; n_a 3, n_b 5, n 8: D_o = 2/8, D_e = 30/56; α = 1 − 7/15 = 8/15
    units = [["a", "a"], ["a", "b"], ["b", "b"], ["b", "b"], ["a"]]
    assert krippendorff_alpha(units) == pytest.approx(8 / 15)


def test_krippendorff_alpha_interval() -> None:
    # values 1, 2 | 3, 3: D_o = (1 + 1) / 4, D_e = 22 / 12; α = 1 − 3/11 = 8/11
    assert krippendorff_alpha([[1.0, 2.0], [3.0, 3.0]], metric="interval") == pytest.approx(8 / 11)


def test_krippendorff_alpha_with_three_raters_equals_perfect_agreement_as_one() -> None:
    assert krippendorff_alpha([["x", "x", "x"], ["y", "y", "y"]]) == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([["x", "x"], ["x"]]))


def test_plcc_and_srcc_cell() -> None:
    # x 1..4, y 1, 2, 3, 10: Pearson = 14 / sqrt(5 · 50) = 0.885…; ranks agree: Spearman 1
    assert correlation_cell([(1, 1), (2, 2), (3, 3), (4, 10)]) == "0.89 / 1.00"
    assert correlation_cell([(1, 1), (2, 2)]) == "—"


def test_mean_sps_is_gobench_formula() -> None:
    # max(0, 1 − |m − h| / 0.5): 1, 0.6, 0 → mean 1.6 / 3
    assert mean_sps([3.0, 4.0, 2.0], [3.0, 3.8, 4.0]) == pytest.approx(1.6 / 3)


def test_figures_agree_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    xs, ys = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.0]
    plcc, srcc = correlation_cell(list(zip(xs, ys, strict=True))).split(" / ")
    assert float(plcc) == pytest.approx(stats.pearsonr(xs, ys)[0], abs=0.005)
    assert float(srcc) == pytest.approx(stats.spearmanr(xs, ys)[0], abs=0.005)


# ------------------------------------------------------------------------------------------ ratings files


def _ratings_file(path: Path, rater: str, ratings: list[tuple[str, str, str, object]], run: str = "run") -> Path:
    entries = [{"id": i, "mode": m, "dimension": d, "value": v, "t": "2026-12-01T00:00:00Z"} for i, m, d, v in ratings]
    path.write_text(json.dumps({"run": run, "rater": rater, "ratings": entries}), encoding="utf-8")
    return path


def test_read_ratings_keeps_the_last_value_per_key(tmp_path: Path) -> None:
    path = _ratings_file(
        tmp_path / "r.json", "ana", [("q1", "text", "answer", "right"), ("q1", "text", "answer", "wrong")]
    )
    ratings = read_ratings(path)
    assert ratings.rater == "ana" and ratings.count == 2
    assert ratings.values == {("q1", "text", "answer"): "wrong"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a JSON ratings file"),
        ('{"rater": "ana"}', "not a ratings file"),
        ('{"rater": "", "ratings": []}', "names no rater"),
        ('{"rater": "ana", "ratings": [{"id": "q", "mode": "text", "dimension": "taste", "value": 1}]}', "unknown"),
        ('{"rater": "ana", "ratings": [{"id": "q", "mode": "text", "dimension": "aesthetics", "value": 7}]}', "1, 2"),
        ('{"rater": "ana", "ratings": [{"id": "q", "mode": "text", "dimension": "diagram", "value": true}]}', "0.5"),
    ],
)
def test_bad_ratings_files_are_refused_in_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RatingsError, match=message) as caught:
        read_ratings(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_files_of_one_rater_merge_and_the_judge_name_is_refused(tmp_path: Path) -> None:
    first = _ratings_file(tmp_path / "a.json", "ana", [("q1", "text", "answer", "right")])
    second = _ratings_file(tmp_path / "b.json", "ana", [("q2", "text", "answer", "wrong")])
    (merged,) = read_raters([first, second])
    assert merged.values == {("q1", "text", "answer"): "right", ("q2", "text", "answer"): "wrong"}
    assert merged.files == (first, second)
    with pytest.raises(RatingsError, match="judge"):
        read_raters([_ratings_file(tmp_path / "j.json", "judge", [])])


# ------------------------------------------------------------------------------------------ a scored run


def _choice(i: int) -> Item:
    return Item(
        id=f"q{i}",
        benchmark="toybench",
        category="c",
        question="Which?",
        choices=["yes", "no"],
        answer="A",
        answer_type="choice",
    )


def test_score_with_people_adds_the_section_and_a_named_variant(make_run: MakeRun, tmp_path: Path) -> None:
    items = [_choice(i) for i in range(4)]
    # the rules: q0 right, q1 wrong, q2 right, q3 wrong
    results = [ok(f"q{i}", "text", "A" if i % 2 == 0 else "B") for i in range(4)]
    run = make_run("run", items, ["text"], results)
    ana = _ratings_file(
        tmp_path / "ana.json",
        "ana",
        [("q0", "text", "answer", "right"), ("q1", "text", "answer", "right"), ("q2", "text", "answer", "right")],
    )
    bo = _ratings_file(
        tmp_path / "bo.json",
        "bo",
        [("q0", "text", "answer", "right"), ("q1", "text", "answer", "right"), ("zz", "text", "answer", "wrong")],
    )
    summary = score_run(run, figures=False, human=[ana, bo])
    protocol = {s.id: s.correct for s in read_scores(run)}
    assert protocol == {"q0": True, "q1": False, "q2": True, "q3": False}
    people = {s["id"]: (s["correct"], s["method"]) for s in read_jsonl(run / HUMAN_SCORES)}
    assert people == {"q0": (True, "human"), "q1": (True, "human"), "q2": (True, "human"), "q3": (False, "rule")}
    assert summary.people is not None and summary.people.verdicts.changed == 1
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "## Judge and people" in report
    assert "with the people's verdicts" in report
    agreement = next(t for t in summary.people.tables if t.title.endswith("agreement"))
    rows = {plain_text(row[1]): row for row in agreement.rows}
    # judge–ana on q0, q1, q2: 2 of 3 agree; judge–bo on q0, q1: 1 of 2; ana–bo on q0, q1: both
    assert rows["judge – ana"][2:4] == ["3", "66.7"]
    assert rows["judge – bo"][2:4] == ["2", "50.0"]
    assert rows["ana – bo"][2:4] == ["2", "100.0"]
    raters = summary.people.tables[0]
    assert [plain_text(row[0]) for row in raters.rows] == ["ana", "bo"] and raters.rows[1][4] == "1"
    differ = next(t for t in summary.people.tables if t.title.endswith("differ most"))
    assert [plain_text(cell) for cell in differ.rows[0][:2]] == ["q1", "text"] and differ.rows[0][
        -1
    ] == "[open](index.html#id=q1&mode=text)"
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "<a href='index.html#id=q1&amp;mode=text'>open</a>" in html
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["scoring"]["human"]["raters"] == ["ana", "bo"]
    score_run(run, figures=False)
    assert not (run / HUMAN_SCORES).exists()


def test_a_bad_ratings_file_writes_nothing(make_run: MakeRun, tmp_path: Path) -> None:
    run = make_run("run", [_choice(0)], ["text"], [ok("q0", "text", "A")])
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    with pytest.raises(RatingsError):
        score_run(run, figures=False, human=[bad])
    assert not (run / "scores.jsonl").exists()


def _generated(i: int) -> Item:
    return Item(
        id=f"g{i}",
        benchmark="gobench",
        category="generation",
        question="Draw a glass of water in sunlight.",
        answer="",
        answer_type="image",
    )


def _judged(i: int, judge: dict[str, float], answers: list[str]) -> Score:
    return Score(
        id=f"g{i}",
        mode="text",
        benchmark="gobench",
        category="generation",
        score=judge["authenticity"],
        correct=None,
        method="judge",
        details={"judge_scores": judge, "answers": answers, "questions": ["a?", "b?"]},
    )


def test_generation_ratings_give_kappa_alpha_and_sps_by_hand(make_run: MakeRun, tmp_path: Path) -> None:
    items = [_generated(i) for i in range(3)]
    run = open_run(make_run("gen", items, ["text"], [ok(f"g{i}", "text", "") for i in range(3)]))
    scores = [
        _judged(0, {"authenticity": 2.0, "aesthetics": 3.0, "fidelity": 4.0}, ["Yes", "Yes"]),
        _judged(1, {"authenticity": 1.0, "aesthetics": 4.0, "fidelity": 2.0}, ["Yes", "No"]),
        _judged(2, {"authenticity": 0.0, "aesthetics": 2.0, "fidelity": 5.0}, ["No", "No"]),
    ]
    ana = [
        ("g0", "text", "authenticity_1", "yes"),
        ("g0", "text", "authenticity_2", "yes"),
        ("g1", "text", "authenticity_1", "no"),
        ("g1", "text", "authenticity_2", "no"),
        ("g2", "text", "authenticity_1", "no"),
        ("g2", "text", "authenticity_2", "unsure"),
        ("g0", "text", "aesthetics", 3),
        ("g1", "text", "aesthetics", 3),
        ("g2", "text", "aesthetics", 4),
    ]
    bo = [("g0", "text", "aesthetics", 3), ("g1", "text", "aesthetics", 5), ("g2", "text", "aesthetics", 2)]
    raters = read_raters(
        [_ratings_file(tmp_path / "ana.json", "ana", ana), _ratings_file(tmp_path / "bo.json", "bo", bo)]
    )
    pairing = pair_ratings(run, scores, raters)
    assert pairing.people["ana"]["authenticity"] == {("g0", "text"): 2.0, ("g1", "text"): 0.0, ("g2", "text"): 0.5}
    section = people_section(run, scores, raters)
    agreement = {(row[0], plain_text(row[1])): row for row in section.tables[1].rows}
    # answers judge–ana: (Y,Y) (Y,Y) (Y,N) (N,N) (N,N) (N,unsure): po 4/6; marginals judge Y 3 N 3, ana Y 2 N 3 U 1:
    # pe = (3·2 + 3·3) / 36 = 15/36; κ = (24/36 − 15/36) / (21/36) = 3/7
    answers = agreement[("authenticity answers", "judge – ana")]
    assert answers[2:5] == ["6", "66.7", f"{3 / 7:.2f}"]
    per_dimension = {row[0]: row for row in section.tables[2].rows}
    # aesthetics: people's mean 3, 4, 3 against the judge's 3, 4, 2: SPS 1, 1, 0 → 0.67; α (interval) ana–bo:
    # values 3,3 | 3,5 | 4,2: coincidences from D_o = (0 + 4·2 + 4·2) / 6 = 16/6; D_e from all six values
    values = [3.0, 3.0, 3.0, 5.0, 4.0, 2.0]
    d_e = sum((x - y) ** 2 for x in values for y in values) / (6 * 5)
    assert per_dimension["aesthetics"][4] == f"{1 - (16 / 6) / d_e:.2f}"
    assert per_dimension["aesthetics"][5] == "0.67"
    # authenticity sums: judge 2, 1, 0 against ana's 2, 0, 0.5: SPS 1, 0, 0 → 0.33
    assert per_dimension["authenticity"][5] == "0.33"
    confusion = next(t for t in section.tables if "authenticity answers (judge" in t.title)
    assert confusion.columns == ["Judge \\ people", "Yes", "No", "Cannot be determined", "total"]
    assert confusion.rows == [
        ["Yes", "2", "1", "0", "3"],
        ["No", "0", "2", "1", "3"],
        ["Cannot be determined", "0", "0", "0", "0"],
    ]


def test_mcot_score_human_prints_the_section_and_refuses_a_bad_file_in_one_line(
    make_run: MakeRun, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from mcot.cli import app

    run = make_run("run", [_choice(0), _choice(1)], ["text"], [ok("q0", "text", "A"), ok("q1", "text", "B")])
    ana = _ratings_file(tmp_path / "ana.json", "ana", [("q1", "text", "answer", "right")])
    result = CliRunner().invoke(app, ["score", str(run), "--human", str(ana)])
    assert result.exit_code == 0, result.output
    assert "## Judge and people" in result.output and "scores.human.jsonl (the people's verdicts)" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"rater": "bo", "ratings": [{"id": "q0", "mode": "text", "dimension": "answer", "value": 1}]}')
    refused = CliRunner().invoke(app, ["score", str(run), "--human", str(bad)])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert 'answer is one of "right", "wrong", not 1' in refused.output
