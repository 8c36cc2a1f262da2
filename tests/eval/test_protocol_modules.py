"""Each benchmark's scoring is one protocol module with fixed names, and its declaration names that module."""

from __future__ import annotations

import inspect
import pickle
from importlib import import_module

import pytest
from mcot.eval.registry import MODULE_NAMES, Deferred, ScoringSpec, scoring_spec
from mcot.eval.rundir import Score
from mcot.eval.tables import Table
from mcot.eval.verify import verify_diagram_trace, verify_games_trace

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
    assert module.__all__ == list(MODULE_NAMES) == ["official", "robust", "tables", "verifier"]
    assert inspect.iscoroutinefunction(module.official)
    assert (module.robust is None) == (name in ONE_PROTOCOL)
    if module.robust is not None:
        assert inspect.iscoroutinefunction(module.robust) and module.robust is not module.official
    assert module.verifier is VERIFIERS.get(name)
    assert all(isinstance(table, Table) for table in module.tables([]))


@pytest.mark.parametrize(("benchmark", "name"), DECLARED.items())
def test_each_builtin_declaration_is_its_protocol_module(benchmark: str, name: str) -> None:
    module = import_module(f"mcot.eval.protocols.{name}")
    spec = scoring_spec(benchmark)
    assert (spec.protocol, spec.robust, spec.tables, spec.verifier) == (
        module.official,
        module.robust,
        module.tables,
        module.verifier,
    )
    assert spec.protocol_for("robust") is (module.robust or module.official)


def test_from_module_defers_every_name_and_pickles() -> None:
    spec = ScoringSpec.from_module("mcot.eval.protocols.games")
    assert spec.protocol == Deferred("mcot.eval.protocols.games", "official")
    assert spec.verifier == Deferred("mcot.eval.protocols.games", "verifier", optional=True)
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_an_absent_optional_name_is_none_and_an_absent_required_one_is_an_error() -> None:
    assert Deferred("mcot.eval.tables", "robust", optional=True).resolve() is None
    with pytest.raises(AttributeError, match="official"):
        Deferred("mcot.eval.tables", "official").resolve()


def test_the_tables_of_a_one_item_run_carry_the_benchmark_labels() -> None:
    score = Score("q1", "text", "rbench-v", "math", 1.0, True, "rule")
    [table] = scoring_spec("rbench-v").tables([score])
    assert table.columns[:4] == ["Mode", "Overall", "w/o Math", "Math"]
    assert table.rows[0][:4] == ["text", "100.0", "—", "100.0"]
