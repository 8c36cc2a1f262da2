"""mcot.eval's modules import one way: no module imports another that (directly or not) imports it.

The graph is read from the source: every `import` and `from … import` anywhere in a module (top level or inside
a function: a deferred import still runs), except under `if TYPE_CHECKING:` (never run). Importing a submodule
also runs its packages' `__init__`, so an import of `mcot.eval.protocols.gobench` is an edge to
`mcot.eval.protocols` too (unless the importer lives inside that package, whose `__init__` ran first).
"""

from __future__ import annotations

import ast
from pathlib import Path

import mcot.eval

ROOT = Path(mcot.eval.__file__).parent
PACKAGE = "mcot.eval"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


MODULES = {_module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def _parents(name: str) -> list[str]:
    """Return the packages above module `name` within mcot.eval, nearest first (mcot.eval itself last)."""
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(len(parts) - 1, 1, -1)]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Return the import statements of a module that run (everything outside `if TYPE_CHECKING:` blocks)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def imports_of(module: str) -> set[str]:
    """Return the mcot.eval modules that importing `module` runs, its own packages excepted."""
    own_packages = {module, *_parents(module)}
    targets: set[str] = set()
    for node in _run_time_imports(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{module}: relative import (mcot imports by absolute names)"
            base = node.module or ""
            named = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
            targets.update(named or [base])
        else:
            targets.update(alias.name for alias in node.names)
    edges: set[str] = set()
    for target in targets:
        if target in MODULES:
            edges.add(target)
            edges.update(_parents(target))
    return {target for target in edges if target in MODULES and target not in own_packages}


GRAPH = {module: imports_of(module) for module in MODULES}


def test_the_graph_covers_every_eval_module_and_sees_deferred_imports() -> None:
    assert {"mcot.eval.tables", "mcot.eval.registry", "mcot.eval.protocols.gobench"} <= set(GRAPH)
    # the registry's fallback is a deferred import inside a function: it counts
    assert "mcot.eval.protocols.generic" in GRAPH["mcot.eval.registry"]
    assert "mcot.eval.protocols" in GRAPH["mcot.eval.registry"]


def test_no_import_cycle_among_the_eval_modules() -> None:
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for target in sorted(GRAPH[module]):
            visit(target, (*path, module))
        done.add(module)

    for module in sorted(GRAPH):
        visit(module, ())


def _reaches(module: str) -> set[str]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        for target in GRAPH[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_table_primitives_and_formulas_dispatch_nothing() -> None:
    for ground in ("mcot.eval.tables", "mcot.eval.proximity", "mcot.eval.calibration", "mcot.eval.protocol_names"):
        reached = _reaches(ground)
        assert "mcot.eval.registry" not in reached, ground
        assert not any(name.startswith("mcot.eval.protocols") for name in reached), (ground, sorted(reached))


def test_no_protocol_module_and_no_scorer_imports_the_registry() -> None:
    protocols = [name for name in GRAPH if name.startswith("mcot.eval.protocols")]
    assert len(protocols) >= 8
    for module in protocols:
        assert "mcot.eval.registry" not in GRAPH[module], module
