"""The one place where each benchmark is declared: its prompt and answer form, scoring, tables, verifier, loader.

A declaration joins parts of several rooms (agents' task prompt, eval's protocol, tables and verifier, the
loaders' native format), so it lives here, in the only package that may import them all. `declare` registers
each part in its room; nothing else in mcot switches on a benchmark's name. Adding a benchmark is one
`Benchmark(...)` here (or in your own code: `declare(Benchmark(...))` before `mcot` runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcot.agents.prompts import TaskFormat, answer_line, bare, boxed, load_prompt, register_task_format
from mcot.agents.prompts import unregister_task_format as _unregister_task
from mcot.eval.registry import ScoringSpec, register_scoring
from mcot.eval.registry import unregister_scoring as _unregister_scoring

# `mcot run` declares every benchmark but scores none: each benchmark's protocol module (its fixed names
# official, robust, tables, verifier) is named here and imported when something scores (scoring_spec)


def _scoring(module: str) -> ScoringSpec:
    return ScoringSpec.from_module(f"mcot.eval.protocols.{module}")


@dataclass(frozen=True)
class Benchmark:
    """A benchmark as mcot knows it: how items are asked, answered, scored, tabled, verified and loaded."""

    name: str
    description: str
    task: TaskFormat
    scoring: ScoringSpec
    loader: str | None = None
    """The `mcot convert` / `mcot run --format` name of its native files (mcot.benchmarks.loaders), if any."""


_DECLARED: dict[str, Benchmark] = {}


def declare(benchmark: Benchmark) -> None:
    """Register a benchmark's parts in agents (task prompt, answer form) and eval (protocol, tables, verifier)."""
    register_task_format(benchmark.name, benchmark.task)
    register_scoring(benchmark.name, benchmark.scoring)
    _DECLARED[benchmark.name] = benchmark


def undeclare(name: str) -> None:
    """Remove a declared benchmark from every registry (tests declare toy benchmarks and take them back)."""
    _DECLARED.pop(name, None)
    _unregister_task(name)
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
            TaskFormat(load_prompt("task.rbench-v.txt"), boxed),
            _scoring("rbench_v"),
            loader="rbench-v",
        ),
        Benchmark(
            "gepbench",
            "GePBench: geometric perception, 6 aspects × easy/hard, multiple choice",
            TaskFormat(load_prompt("task.gepbench.txt"), bare),
            _scoring("gepbench"),
            loader="gepbench",
        ),
        Benchmark(
            "gobench",
            "GOBench: geometric optics; understanding (rate generated images) and generation",
            TaskFormat(load_prompt("task.gobench.txt"), bare),
            _scoring("gobench"),
            loader="gobench",
        ),
        Benchmark(
            "omniphys",
            "OmniPhys: physics problems scored on result and process, and diagram editing",
            TaskFormat(load_prompt("task.omniphys.txt"), answer_line),
            _scoring("omniphys"),
            loader="omniphys",
        ),
        Benchmark(
            "games",
            "mcot's generated RBench-V-style games with exact solution geometry "
            "(maze, bounce, dart, ray, dots, triangles)",
            TaskFormat(load_prompt("task.default.txt"), boxed),
            _scoring("games"),
        ),
    )


def declare_builtin() -> None:
    """Declare the built-in benchmarks that are not declared yet (cheap to call again)."""
    for benchmark in builtin_benchmarks():
        if benchmark.name not in _DECLARED:
            declare(benchmark)
