"""Each benchmark's scoring is one protocol module with fixed names, and its declaration names that module."""

from __future__ import annotations

import inspect
from importlib import import_module

import pytest
from mcot.eval.headline import Metric
from mcot.eval.registry import MODULE_NAMES, ScoringSpec, scoring_spec
from mcot.eval.tables import Table
from mcot.eval.verify import verify_diagram_trace, verify_games_trace

from mcot.rundir import Score

DECLARED = {
    "rbench-v": "rbench_v",
    "gepbench": "gepbench",
    "gobench": "gobench",
    "omniphys": "omniphys",
    "games": "games",
}
MODULES = [*DECLARED.values(), "generic"]
ONE_PROTOCOL = {"omniphys", "games", "generic"}
VERIFIERS = {"omniphys": verify_diagram_trace, "games": verify_games_trace}


@pytest.mark.parametrize("name", MODULES)
def test_a_protocol_module_holds_exactly_the_fixed_names(name: str) -> None:
    module = import_module(f"mcot.eval.protocols.{name}")
    assert sorted(module.__all__) == sorted(MODULE_NAMES)
    assert MODULE_NAMES == ("official", "robust", "tables", "verifier", "headline")
    assert module.headline and all(isinstance(metric, Metric) for metric in module.headline)
    assert inspect.iscoroutinefunction(module.official)
    assert (module.robust is None) == (name in ONE_PROTOCOL)
    if module.robust is not None:
        assert inspect.iscoroutinefunction(module.robust) and module.robust is not module.official
    assert module.verifier is VERIFIERS.get(name)
    assert all(isinstance(table, Table) for table in module.tables([]))


@pytest.mark.parametrize(("bench", "name"), DECLARED.items())
def test_each_builtin_declaration_is_its_protocol_module(bench: str, name: str) -> None:
    module = import_module(f"mcot.eval.protocols.{name}")
    spec = scoring_spec(bench)
    assert (spec.protocol, spec.robust, spec.tables, spec.verifier) == (
        module.official,
        module.robust,
        module.tables,
        module.verifier,
    )
    assert spec.protocol_for("robust") is (module.robust or module.official)


def test_from_module_reads_the_fixed_names_and_leaves_absent_ones_none() -> None:
    from mcot.eval import tables

    games = import_module("mcot.eval.protocols.games")
    spec = ScoringSpec.from_module(games)
    assert (spec.protocol, spec.verifier) == (games.official, games.verifier)
    with pytest.raises(AttributeError, match="official"):
        ScoringSpec.from_module(tables)


def test_each_builtin_benchmark_names_its_protocol_module() -> None:
    from mcot.registry import BENCHMARKS

    declared = {
        name: BENCHMARKS.get(name).protocols for name in ("rbench-v", "gepbench", "gobench", "omniphys", "games")
    }
    assert declared == {
        "rbench-v": "mcot.eval.protocols.rbench_v",
        "gepbench": "mcot.eval.protocols.gepbench",
        "gobench": "mcot.eval.protocols.gobench",
        "omniphys": "mcot.eval.protocols.omniphys",
        "games": "mcot.eval.protocols.games",
    }


def test_the_tables_of_a_one_item_run_carry_the_benchmark_labels() -> None:
    score = Score(id="q1", mode="text", benchmark="rbench-v", category="math", score=1.0, correct=True, method="rule")
    [table] = scoring_spec("rbench-v").tables([score])
    assert table.columns[:4] == ["Mode", "Overall", "w/o Math", "Math"]
    assert table.rows[0][:4] == ["text", "100.0", "—", "100.0"]
