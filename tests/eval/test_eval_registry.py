"""A benchmark plugs its protocol, tables and verifier into eval by name; nothing in eval switches on names."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import pytest
from handmade import MakeRun, ok
from mcot.benchmarks.item import Item
from mcot.eval.protocols import Scorer, generic
from mcot.eval.registry import scoring_spec
from mcot.eval.scoring import score_run
from mcot.eval.tables import Table, tally
from mcot.eval.verify import TraceVerdict

from mcot import declare_benchmark
from mcot.registry import BENCHMARKS
from mcot.rundir import Result, Score


async def parity_protocol(scorer: Scorer, item: Item, text: str, result: Result) -> Score:
    """A toy protocol: right when the answer's parity (odd/even) is in the response."""
    score = scorer.score_for(item, result)
    scorer.settle(score, item.answer in text.lower(), match="parity")
    return score


def parity_tables(scores: Sequence[Score]) -> list[Table]:
    table = Table("Parity — its own table", ["Arm", "right", "n"])
    for arm in sorted({s.mode for s in scores}):
        t = tally(s for s in scores if s.mode == arm)
        table.rows.append([arm, str(t.correct), str(t.n)])
    return [table]


def drew_something(item: Item, steps: Sequence[dict[str, Any]] | None) -> TraceVerdict | None:
    return TraceVerdict("valid" if steps else "absent", None, item.category)


@pytest.fixture()
def parity() -> Iterator[None]:
    protocols = SimpleNamespace(official=parity_protocol, tables=parity_tables, verifier=drew_something)
    declare_benchmark("parity", description="odd or even", protocols=protocols)
    yield
    BENCHMARKS.unregister("parity")


def test_an_unregistered_benchmark_gets_the_generic_scoring() -> None:
    spec = scoring_spec("never-declared")
    assert (spec.protocol, spec.tables, spec.verifier, spec.robust) == (generic.official, generic.tables, None, None)
    score = Score(
        id="x", mode="text", benchmark="never-declared", category="cat", score=1.0, correct=True, method="rule"
    )
    assert generic.tables([score])[0].title == "never-declared"


def test_a_toy_benchmark_is_scored_tabled_and_verified_through_its_registration(
    parity: None, make_run: MakeRun
) -> None:
    items = [
        Item(
            id=f"p{i}",
            benchmark="parity",
            category="numbers",
            question="Odd or even?",
            answer=answer,
            answer_type="text",
        )
        for i, answer in enumerate(["odd", "even", "odd"])
    ]
    results = [ok("p0", "text", "It is ODD."), ok("p1", "text", "odd"), ok("p2", "canvas", "odd")]
    steps = [{"step": 1, "kind": "tool", "tool": "draw_line", "ops": []}]
    run = make_run("run", items, ["text", "canvas"], results, {("p2", "canvas"): steps})
    summary = score_run(run, figures=False)
    by_key = {(s.id, s.mode): s for s in summary.scores}
    assert by_key[("p0", "text")].details["match"] == "parity" and by_key[("p0", "text")].correct is True
    assert by_key[("p1", "text")].correct is False
    assert by_key[("p2", "canvas")].details["trace"]["verdict"] == "valid"
    assert "trace" not in by_key[("p0", "text")].details  # the text arm has no tools: no trace to verify
    report = (run / "report.md").read_text()
    assert "### Parity — its own table" in report
    assert "| text | 1 | 3 |" in report and "| canvas | 1 | 3 |" in report
