"""The import contract: mcot's floors, read from the source of every module (in-function imports counted).

Ground (`mcot.core`) imports no room and nothing above it; the rooms import the ground and the rooms below them;
the roof (every other `mcot.*` module: runner, commands, CLI, study, export, env, …) composes them and nothing
below imports it. No module takes part in an import cycle. An import sits at the top of its module unless it is
on the `mcot --help` path (what `--help` must not load) or its target loads a heavy library when imported.
Only the registry's `Ref` turns a "module:attribute" string into an object.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
ROOMS = ("canvas", "tools", "benchmarks", "agents", "eval")
# the rooms each room may import besides itself and the ground floor (DESIGN.md "The rooms and the one-way flow")
ROOM_ARROWS: dict[str, frozenset[str]] = {
    "canvas": frozenset(),
    "tools": frozenset({"canvas"}),
    "benchmarks": frozenset(),
    "agents": frozenset({"benchmarks", "canvas", "tools"}),
    "eval": frozenset({"benchmarks", "canvas"}),
}
# libraries whose import costs start-up time (or is an optional extra): a module that loads one of them at import
# may be imported inside the function that needs it
DEFERRED = frozenset(
    {
        "anthropic", "cairocffi", "cairosvg", "datasets", "diffusers", "fastapi", "inspect_ai", "ipykernel",
        "jupyter_client", "langgraph", "matplotlib", "mcp", "networkx", "numpy", "openai", "openenv", "playwright",
        "pyarrow", "pymunk", "ray", "scipy", "shapely", "sympy", "tensordict", "torch", "transformers", "trl",
        "uvicorn", "verl",
    }
)  # fmt: skip
# `Ref` is the one string resolver; the code sandbox's prelude runs inside the sandboxed kernel, not in mcot, and
# imports the preloaded libraries there on first use
RESOLVERS = frozenset({"mcot.core.ref", "mcot.tools.code._prelude"})


@dataclass(frozen=True)
class Import:
    """One import statement's target module (the longest mcot module its name starts with)."""

    target: str
    line: int
    in_function: bool


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, package in [("mcot", "mcot"), *((room, f"mcot.{room}") for room in ROOMS)]:
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _known(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _statements(tree: ast.AST, in_function: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for other in child.orelse:
                yield from _statements(ast.Module(body=[other], type_ignores=[]), in_function)
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, in_function
        nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _statements(child, nested)


@cache
def imports_of(module: str) -> tuple[Import, ...]:
    """Return the mcot modules `module` imports, each with its line and whether a function body holds it."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: list[Import] = []
    for node, in_function in _statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        for name in names:
            target = _known(name)
            if target is not None and target.startswith("mcot") and target != module:
                found.append(Import(target, node.lineno, in_function))
    return tuple(found)


def floor_of(module: str) -> str:
    """Return "ground", a room's name, "root" (the `mcot` package itself) or "roof"."""
    parts = module.split(".")
    if module == "mcot":
        return "root"
    if parts[1] == "core":
        return "ground"
    return parts[1] if parts[1] in ROOMS else "roof"


def _parents(module: str) -> Iterator[str]:
    while "." in module:
        module = module.rpartition(".")[0]
        yield module


def _edges(module: str, in_functions: bool = True) -> set[str]:
    """Return every module importing `module` loads, its packages' `__init__` included."""
    edges: set[str] = set()
    for imported in imports_of(module):
        if imported.in_function and not in_functions:
            continue
        edges.add(imported.target)
        edges.update(parent for parent in _parents(imported.target) if not module.startswith(parent + "."))
    edges.discard(module)
    return edges


@cache
def loaded_at_import(module: str) -> frozenset[str]:
    """Return the mcot modules importing `module` loads (top-level imports, followed)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        current = todo.pop()
        if current not in seen and current in MODULES:
            seen.add(current)
            todo.extend(_edges(current, in_functions=False))
    return frozenset(seen)


def _third_party_at_top(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def loads_deferred(module: str) -> bool:
    """Return whether importing `module` loads a library of DEFERRED."""
    return any(_third_party_at_top(loaded) & DEFERRED for loaded in loaded_at_import(module))


def test_the_ground_floor_imports_no_room_and_nothing_above_it() -> None:
    wrong = [
        f"{module} → {imported.target} (line {imported.line})"
        for module in MODULES
        if floor_of(module) == "ground"
        for imported in imports_of(module)
        if floor_of(imported.target) not in ("ground", "root")
    ]
    assert not wrong, wrong


def test_rooms_import_only_the_ground_and_the_rooms_below_them() -> None:
    wrong = []
    for module in MODULES:
        room = floor_of(module)
        if room not in ROOM_ARROWS:
            continue
        for imported in imports_of(module):
            floor = floor_of(imported.target)
            if floor not in ("ground", "root", room, *ROOM_ARROWS[room]):
                wrong.append(f"{module} → {imported.target} (line {imported.line})")
    assert not wrong, wrong


def test_no_module_is_part_of_an_import_cycle() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        # Tarjan's strongly connected components, iterative over the edges of one module at a time
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(_edges(module)):
            if target not in MODULES:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in MODULES:
        if module not in index:
            visit(module)
    assert not cycles, cycles


def test_imports_sit_at_the_top_unless_help_or_a_heavy_library_needs_them_later() -> None:
    help_path = loaded_at_import("mcot.cli")
    inside = [
        f"{module}:{imported.line} → {imported.target}"
        for module in MODULES
        if module not in help_path
        for imported in imports_of(module)
        if imported.in_function and not loads_deferred(imported.target)
    ]
    assert not inside, inside


def test_only_the_registry_resolves_strings_to_objects() -> None:
    resolvers = []
    for module, path in MODULES.items():
        if module in RESOLVERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in ("import_module", "__import__"):
                    resolvers.append(f"{module}:{node.lineno}")
    assert not resolvers, resolvers


def test_the_contract_sees_every_floor() -> None:
    floors = {floor_of(module) for module in MODULES}
    assert floors == {"root", "ground", "roof", *ROOMS}
    assert "mcot.core.registry" in MODULES and "mcot.cli" in MODULES and "mcot.canvas" in MODULES
    assert any(imported.in_function for imported in imports_of("mcot.cli"))
