"""The one place where each benchmark is declared: its prompt and answer form, scoring, tables, verifier, loader.

A declaration joins parts of several rooms (agents' task prompt, eval's protocol, tables and verifier, the
loaders' native format), so it lives here, in the only package that may import them all. `declare` registers
each part in its room; nothing else in mcot switches on a benchmark's name. Adding a benchmark is one
`Benchmark(...)` here (or in your own code: `declare(Benchmark(...))` before `mcot` runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcot.eval.registry import Deferred, ScoringSpec, register_scoring
from mcot.eval.registry import unregister_scoring as _unregister_scoring

# `mcot run` declares every benchmark but scores none: the protocols, tables and verifiers (numpy, every
# protocol module) are named here and imported when something scores (mcot.eval.registry.scoring_spec)


def _metrics(name: str) -> Any:
    return Deferred("mcot.eval.metrics", name)


def _protocols(name: str) -> Any:
    return Deferred("mcot.eval.protocols", name)


def _verify(name: str) -> Any:
    return Deferred("mcot.eval.verify", name)


@dataclass(frozen=True)
class Benchmark:
    """A benchmark as mcot knows it: how items are asked, answered, scored, tabled, verified and loaded."""

    name: str
    description: str
    scoring: ScoringSpec
    loader: str | None = None
    """The `mcot convert` / `mcot run --format` name of its native files (mcot.benchmarks.loaders), if any."""


_DECLARED: dict[str, Benchmark] = {}


def declare(benchmark: Benchmark) -> None:
    """Register a benchmark's parts in agents (task prompt, answer form) and eval (protocol, tables, verifier)."""
    register_scoring(benchmark.name, benchmark.scoring)
    _DECLARED[benchmark.name] = benchmark


def undeclare(name: str) -> None:
    """Remove a declared benchmark from every registry (tests declare toy benchmarks and take them back)."""
    _DECLARED.pop(name, None)
    _unregister_scoring(name)


def declared() -> dict[str, Benchmark]:
    """Return the declared benchmarks by name."""
    return dict(_DECLARED)


def builtin_benchmarks() -> tuple[Benchmark, ...]:
    """Return the declarations of the benchmarks mcot ships with."""
    return (
        Benchmark(
            "rbench-v",
            "RBench-V: 803 visual-reasoning items that need drawing (math, physics, counting, game)",
            ScoringSpec(
                _protocols("rbench_v_official"), _metrics("rbench_v_tables"), robust=_protocols("rbench_v_robust")
            ),
            loader="rbench-v",
        ),
        Benchmark(
            "gepbench",
            "GePBench: geometric perception, 6 aspects × easy/hard, multiple choice",
            ScoringSpec(
                _protocols("gepbench_official"), _metrics("gepbench_tables"), None, _protocols("gepbench_robust")
            ),
            loader="gepbench",
        ),
        Benchmark(
            "gobench",
            "GOBench: geometric optics; understanding (rate generated images) and generation",
            ScoringSpec(_protocols("gobench_official"), _metrics("gobench_tables"), None, _protocols("gobench_robust")),
            loader="gobench",
        ),
        Benchmark(
            "omniphys",
            "OmniPhys: physics problems scored on result and process, and diagram editing",
            ScoringSpec(_protocols("omniphys_official"), _metrics("omniphys_tables"), _verify("verify_diagram_trace")),
            loader="omniphys",
        ),
        Benchmark(
            "games",
            "mcot's generated RBench-V-style games with exact solution geometry "
            "(maze, bounce, dart, ray, dots, triangles)",
            ScoringSpec(_protocols("games_protocol"), _metrics("games_tables"), _verify("verify_games_trace")),
        ),
    )


def declare_builtin() -> None:
    """Declare the built-in benchmarks that are not declared yet (cheap to call again)."""
    for benchmark in builtin_benchmarks():
        if benchmark.name not in _DECLARED:
            declare(benchmark)
