"""Protocols are read from the registry: a `declare_protocol` (a plugin's) is selectable by `--protocol NAME`, and
scores with the protocol module's attribute of that name (the official protocol where a module has none)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from handmade import MakeRun, ok
from mcot.benchmarks.item import Item
from mcot.eval.protocols import generic
from mcot.eval.registry import scoring_spec
from mcot.eval.scoring import score_run
from typer.testing import CliRunner

import mcot
from mcot.cli import app
from mcot.registry import BENCHMARKS, PROTOCOLS
from mcot.rundir import read_scores


async def _strict(scorer: Any, item: Any, text: str, result: Any, score: Any) -> None:
    score.correct, score.score, score.method = text.strip() == item.answer, None, "rule"
    score.score = 1.0 if score.correct else 0.0


async def _lenient(scorer: Any, item: Any, text: str, result: Any, score: Any) -> None:
    score.correct, score.score, score.method = item.answer in text, None, "rule"
    score.score = 1.0 if score.correct else 0.0
    score.details["protocol"] = "lenient"


TINY = SimpleNamespace(official=_strict, robust=None, tables=generic.tables, lenient=_lenient)


@pytest.fixture
def declared() -> Iterator[None]:
    mcot.declare_protocol("lenient", description="a substring is enough")
    mcot.declare_benchmark("tiny", description="a test benchmark", protocols=TINY)
    yield
    PROTOCOLS.unregister("lenient")
    BENCHMARKS.unregister("tiny")


ITEMS = [
    Item(id="a", benchmark="tiny", category="c", question="?", answer="7", answer_type="text"),
    Item(id="b", benchmark="games", category="maze", question="?", answer="B", answer_type="choice",
         choices=["x", "y"]),
]  # fmt: skip


@pytest.mark.usefixtures("declared")
def test_a_declared_protocol_is_the_modules_attribute_of_its_name() -> None:
    assert scoring_spec("tiny").protocol_for("lenient") is _lenient
    assert scoring_spec("tiny").protocol_for("official") is _strict
    games = scoring_spec("games")
    assert games.protocol_for("lenient") is games.protocol  # no such attribute: the official protocol


@pytest.mark.usefixtures("declared")
def test_score_protocol_NAME_scores_with_a_declared_protocol(make_run: MakeRun) -> None:
    run: Path = make_run("run", ITEMS, ["text"], [ok("a", "text", "it is 7."), ok("b", "text", "\\boxed{B}")])
    summary = score_run(run, figures=False, protocol="lenient")
    assert summary.protocol == "lenient"
    scores = {s.id: s for s in read_scores(run)}
    assert scores["a"].correct is True and scores["a"].details["protocol"] == "lenient"
    assert scores["b"].correct is True
    score_run(run, figures=False)
    assert {s.id: s.correct for s in read_scores(run)} == {"a": False, "b": True}
    result = CliRunner().invoke(app, ["score", str(run), "--protocol", "lenient"])
    assert result.exit_code == 0, result.output
    assert {s.id: s.correct for s in read_scores(run)} == {"a": True, "b": True}


@pytest.mark.usefixtures("declared")
def test_an_unknown_protocol_names_the_declared_ones(make_run: MakeRun) -> None:
    run: Path = make_run("run", ITEMS, ["text"], [ok("a", "text", "7")])
    result = CliRunner().invoke(app, ["score", str(run), "--protocol", "strict"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "mcot: unknown scoring protocol 'strict'; choose one of official, robust, lenient, both"
    ]
