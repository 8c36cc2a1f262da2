"""No model-written text is ever run as code: no eval/exec/compile path in the packages, and the `solve` tool
refuses what sympy's own parser would evaluate (it builds sympy objects from a checked syntax tree instead)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcot.canvas import Canvas
from mcot.tools import call
from mcot.tools.algebra import SolveArgs, parse, solve_exact
from mcot.tools.errors import ToolError

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agents", "benchmarks", "canvas", "eval", "mcot", "tools")

RUNS_CODE = {"eval", "exec", "compile", "__import__", "breakpoint"}
"""Builtins that run (or import) code given as text."""

EVALUATES_TEXT = {"sympify", "parse_expr", "lambdify", "eval_expr", "S", "simplify_logic", "parse_latex"}
"""sympy entry points that end in Python's eval when given a string (S(...) is sympify)."""

UNSAFE_LOADS = {("pickle", "loads"), ("pickle", "load"), ("marshal", "loads"), ("yaml", "load"), ("dill", "loads")}
"""Deserialisers that can run code hidden in the data."""

TRUSTED_PICKLE = {"mcot/executors/wire.py", "mcot/executors/block_worker.py"}
"""Frames between the driver and the worker processes it started itself (never data from a model or a dataset)."""


def _calls(tree: ast.AST) -> list[tuple[ast.Call, str, str | None]]:
    """Return (call, called name, module name for `module.name(...)` or None) for every call in the tree."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name):
            found.append((node, node.func.id, None))
        elif isinstance(node.func, ast.Attribute):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else None
            found.append((node, node.func.attr, owner))
    return found


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_no_package_calls_eval_exec_compile_or_a_text_evaluating_sympy_function() -> None:
    offences = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(ROOT)
        for node, name, owner in _calls(tree):
            if owner is None and name in RUNS_CODE:
                offences.append(f"{where}:{node.lineno}: {name}(...)")
            if name in EVALUATES_TEXT and owner in (None, "sympy", "sp", "sympy_parser"):
                offences.append(f"{where}:{node.lineno}: {name}(...)")
            if (owner, name) in UNSAFE_LOADS and where.as_posix() not in TRUSTED_PICKLE:
                offences.append(f"{where}:{node.lineno}: {owner}.{name}(...)")
            if name in ("system", "popen") and owner == "os":
                offences.append(f"{where}:{node.lineno}: os.{name}(...)")
            if any(k.arg == "shell" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                   for k in node.keywords):  # fmt: skip
                offences.append(f"{where}:{node.lineno}: a call with shell=True")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "sympy" in node.module:
                imported = {alias.name for alias in node.names} & EVALUATES_TEXT
                offences += [f"{where}:{node.lineno}: imports {name}" for name in sorted(imported)]
    assert offences == [], "\n".join(offences)


def test_the_scan_would_see_an_eval() -> None:
    tree = ast.parse("import sympy\nx = sympy.sympify(text)\ny = eval(text)\nz = obj.compile()\n")
    names = [(name, owner) for _, name, owner in _calls(tree)]
    assert ("sympify", "sympy") in names and ("eval", None) in names and ("compile", "obj") in names


REFUSED = [
    "__import__('os').system('true')",
    "lambda: 1",
    "x.__class__",
    "(1).real",
    "x.evalf(2)",
    "exp(1).func",
    "Symbol('x')",  # quotes are not math
    "a[0]",
    "[x for x in y]",
    "f(x=1)",
    "x if y else z",
    "x < y",
    "open('/etc/passwd')",
    "getattr(x, 'y')",
    "Lambda(x, x)",
    "Integer(1).__add__",
    "x;y",
    "x\ny",
    "sin.__globals__",
    "E.__class__.__mro__",
    "__builtins__",
]


@pytest.mark.parametrize("text", REFUSED)
def test_solve_refuses_what_sympy_would_evaluate(text: str) -> None:
    result = call("solve", {"expression": text}, Canvas(size=(8, 8)))
    assert not result.ok and "solve:" in result.text, result.text
    with pytest.raises(ToolError):
        parse(text)


def test_no_text_of_the_call_reaches_eval_or_exec(monkeypatch: pytest.MonkeyPatch) -> None:
    # parse and solve in this process while eval, exec and sympy's text parser watch for the call's own names:
    # sympy may generate code of its own (polynomial helpers), but nothing the model wrote may be run
    import sympy.parsing.sympy_parser as sympy_parser

    seen: list[str] = []

    def watching(original: Callable[..., Any]) -> Callable[..., Any]:
        def run(source: object, *args: object, **kwargs: object) -> Any:
            text = source.decode(errors="replace") if isinstance(source, bytes) else str(source)
            if "q_zk" in text or "w_vj" in text:
                seen.append(text[:120])
            return original(source, *args, **kwargs)

        return run

    monkeypatch.setattr(builtins, "eval", watching(builtins.eval))
    monkeypatch.setattr(builtins, "exec", watching(builtins.exec))
    monkeypatch.setattr(sympy_parser, "eval_expr", watching(sympy_parser.eval_expr))
    monkeypatch.setattr(sympy_parser, "parse_expr", watching(sympy_parser.parse_expr))
    exact = solve_exact(SolveArgs(equations=["q_zk^2 - 2 = 0"]))
    assert sorted(sol["q_zk"]["exact"] for sol in exact["solutions"]) == ["-sqrt(2)", "sqrt(2)"]
    system = solve_exact(SolveArgs(equations=["2q_zk + w_vj = 7", "q_zk - w_vj = -1"]))
    assert system["solutions"] == [{"q_zk": {"exact": "2", "decimal": 2.0}, "w_vj": {"exact": "3", "decimal": 3.0}}]
    value = solve_exact(SolveArgs(expression="sqrt(8)/2 + sin(pi/6) + 2q_zk(1+q_zk) - 2q_zk^2 - 2q_zk"))
    assert value["exact"] == "1/2 + sqrt(2)"
    assert solve_exact(SolveArgs(expression="Rational(1,3) + ln(e) + abs(-2) + 15 + 0 w_vj"))["exact"] == "55/3"
    assert seen == []


def test_the_watch_would_see_sympys_own_parser() -> None:
    import sympy

    seen: list[str] = []
    original = builtins.eval
    try:
        builtins.eval = lambda source, *a, **k: (seen.append(str(source)), original(source, *a, **k))[1]
        sympy.sympify("q_zk + 1")
    finally:
        builtins.eval = original
    assert any("q_zk" in text for text in seen)
