"""The probe figures (mcot.eval.probes) against hand counts, and the probes table in the run and study reports."""

from __future__ import annotations

from pathlib import Path

from handmade import MakeRun, ok
from mcot.eval.probes import TITLE, probe_figures, probe_tables, study_probe_tables
from mcot.eval.scoring import score_run

from mcot.core.item import Item
from mcot.core.rundir.probes import PROBES, Probe


def line(item_id: str, kind: str, original: bool, probed: bool, changed: bool, **extra: object) -> Probe:
    """A probe line of arm canvas on GePBench: correct unprobed / under the probe, and whether the answer changed."""
    return Probe(id=item_id, arm="canvas", kind=kind, benchmark="gepbench", category="counting",
                 original_correct=original, correct=probed, changed=changed, **extra)  # fmt: skip


LINES = [
    # blank: 6 lines, one without a drawing, one error; of 5 counted, 3 right unprobed, 2 of them flip, 1 gets right
    line("a", "blank", True, False, True),
    line("b", "blank", True, False, True),
    line("c", "blank", True, True, False),
    line("d", "blank", False, True, True),
    line("e", "blank", False, False, False, status="no_drawing"),
    line("f", "blank", True, None, None, status="error", error="HTTP 500"),  # type: ignore[arg-type]
    # shuffle: 2 lines, one changes without changing correctness
    line("a", "shuffle", True, True, True),
    line("b", "shuffle", True, False, True),
]


def test_the_figures_are_the_hand_counts() -> None:
    blank, shuffle = probe_figures("m", LINES)
    assert (blank.kind, blank.n, blank.no_drawing, blank.errors) == ("blank", 5, 1, 1)
    assert (blank.changed, blank.correct_unprobed, blank.correct, blank.flipped) == (3, 3, 2, 2)
    assert blank.changed_share == 3 / 5 and blank.accuracy_unprobed == 3 / 5 and blank.accuracy == 2 / 5
    assert blank.dependence == 2 / 3
    assert (shuffle.n, shuffle.changed, shuffle.flipped, shuffle.dependence) == (2, 2, 1, 0.5)
    [table] = probe_tables({"m": LINES})
    rows = {row[3]: dict(zip(table.columns, row, strict=True)) for row in table.rows}
    assert rows["blank"]["Changed (%)"] == "60.0" and rows["blank"]["Drawing dependence (%)"] == "66.7"
    assert rows["blank"]["Unprobed (%)"] == "60.0" and rows["blank"]["Probed (%)"] == "40.0"
    assert rows["shuffle"]["Drawing dependence (%)"] == "—"  # the figure is blank's only
    # b = 2 flipped (a, b), c = 1 gained (d): exact McNemar 2 * (C(3,0) + C(3,1)) / 2^3 = 1.0; Wilson of 2 in 3
    assert (blank.flipped, blank.gained, blank.mcnemar_p) == (2, 1, 1.0)
    assert rows["blank"]["McNemar p"] == "1.000" and rows["blank"]["95 % interval"] == "20.8–93.9"


def test_no_probes_no_table() -> None:
    assert probe_tables({"m": []}) == []


def _probed_run(make_run: MakeRun) -> Path:
    items = [Item(id=i, benchmark="gepbench", category="counting", question="How many?", choices=["1", "2"],
                  answer="A", answer_type="choice") for i in "ab"]  # fmt: skip
    run = make_run("probed", items, ["canvas"], [ok("a", "canvas", "\\boxed{A}"), ok("b", "canvas", "\\boxed{A}")])
    (run / PROBES).write_text("".join(p.to_line() + "\n" for p in LINES[:2]))
    return run


def test_the_run_report_and_the_study_report_show_the_probes(make_run: MakeRun) -> None:
    run = _probed_run(make_run)
    score_run(run, figures=False)
    markdown = (run / "report.md").read_text()
    assert (
        f"### {TITLE}" in markdown
        and "| offline | canvas | gepbench | blank | 2 | 0 | 0 | 100.0 | 0.0 | 0.500 |" in markdown
    )
    assert TITLE in (run / "report.html").read_text()
    [table] = study_probe_tables({"model-a": run, "model-b": run})
    assert [row[0] for row in table.rows] == ["model-a", "model-b"]
