"""The exact `solve` tool: equations and expressions with sympy, answered in exact and decimal form.

No model-written text is ever run as Python: `parse` builds sympy objects from a checked syntax tree (sympy's
own `parse_expr`/`sympify` end in `eval` and are not used). The sympy work runs in a worker process
(mcot.tools.worker) that is killed when it overruns its time limit, so nothing keeps running after a time-out.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from typing import Annotated, Any

from mcot.tools.args import Args
from mcot.tools.errors import ToolError
from mcot.tools.registry import Context, Output, tool
from mcot.tools.worker import run_job
from pydantic import Field, model_validator

SECONDS = 4.0
"""Longest time sympy may work on one call."""

_ALLOWED = re.compile(r"^[0-9A-Za-z_+\-*/^().,= ]*$")
_ATTRIBUTE = re.compile(r"[A-Za-z_)]\s*\.|\.\s*[A-Za-z_(]")
_NAMES = (
    "sqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "log",
    "pi",
    "E",
    "I",
    "Abs",
    "floor",
    "ceiling",
    "gcd",
    "lcm",
    "root",
    "cot",
    "sec",
    "csc",
    "Integer",
    "Float",
    "Rational",
    "Symbol",
    "Function",
    "Min",
    "Max",
    "Add",
    "Mul",
    "Pow",
)
_MAX_FACTORIAL = 5000
_MAX_BITS = 100_000


@cache
def _sympy() -> dict[str, Any]:
    """Import sympy (slow, so only when `solve` first runs) and return the names a math string may use."""
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        standard_transformations,
    )

    names: dict[str, Any] = {name: getattr(sympy, name) for name in _NAMES}
    names.update({"ln": sympy.log, "abs": sympy.Abs, "e": sympy.E})
    names.update({"factorial": _guarded(sympy.factorial), "binomial": _guarded(sympy.binomial)})
    names["__transforms__"] = (*standard_transformations, implicit_multiplication_application, convert_xor)
    return names


def _guarded(fn: Any) -> Any:
    import sympy

    def call(*args: Any) -> Any:
        for a in args:
            if isinstance(a, sympy.Basic) and a.is_number and abs(complex(sympy.N(a, 15))) > _MAX_FACTORIAL:
                raise ToolError(f"{fn.__name__} of a number above {_MAX_FACTORIAL} is too large to compute exactly")
        return fn(*args)

    return call


Text = Annotated[str, Field(min_length=1, max_length=300)]


class SolveArgs(Args):
    equations: list[Text] | None = Field(
        None,
        min_length=1,
        max_length=10,
        description="equations like 'x^2 - 2 = 0' or '2x + y = 7' (an expression without '=' means '= 0')",
    )
    expression: Text | None = Field(None, description="an expression to simplify and evaluate, e.g. 'sqrt(8)/2'")
    variables: list[Annotated[str, Field(min_length=1, max_length=20)]] | None = Field(
        None, max_length=10, description="the unknowns to solve for (default: every symbol)"
    )
    digits: int = Field(12, ge=1, le=50, description="significant digits of the decimal forms")

    @model_validator(mode="after")
    def _one(self) -> SolveArgs:
        if (self.equations is None) == (self.expression is None):
            raise ValueError("give exactly one of equations (a list of strings) or expression (a string)")
        return self


def parse(text: str) -> Any:
    """Return the sympy form of a math string ('=' makes an equation); ToolError on anything not plain math.

    Nothing is evaluated as Python: sympy's tokenizer rewrites the text (implicit multiplication, ^ as power),
    Python's `ast` module parses the rewrite, and `_build` turns the syntax tree into sympy objects, accepting
    only numbers, symbols, + - * / ** and calls of the functions in `_NAMES`. Attribute access, lambdas,
    subscripts, keyword arguments and any other name are refused.
    """
    import sympy

    if not _ALLOWED.match(text) or "__" in text or _ATTRIBUTE.search(text):
        raise ToolError(
            f"{text!r} contains characters that are not plain math; use numbers, letters, + - * / ^ ( ) "
            "and function names like sqrt, sin, log"
        )
    sides = text.split("=")
    if len(sides) > 2:
        raise ToolError(f"{text!r} has more than one '='; write one equation per string")
    try:
        trees = [_syntax(s) for s in sides]
        with sympy.evaluate(False):
            raw = [_build(tree) for tree in trees]
        for p in raw:
            _check_size(p)
        parsed = [_build(tree) for tree in trees]
    except ToolError:
        raise
    except Exception as exc:
        raise ToolError(f"could not read {text!r} as math ({type(exc).__name__}); write e.g. 'x^2 - 2 = 0'") from None
    if not all(isinstance(p, sympy.Expr) for p in parsed):
        raise ToolError(f"{text!r} is not a numeric expression or equation")
    if len(parsed) == 1:
        return parsed[0]
    eq = sympy.Eq(parsed[0], parsed[1])
    if isinstance(eq, sympy.logic.boolalg.BooleanAtom):
        raise ToolError(f"the equation {text!r} is always {str(bool(eq)).lower()}, so there is nothing to solve")
    return eq


def _syntax(text: str) -> ast.expr:
    """Return the Python syntax tree of sympy's rewrite of `text` (parsed, never run)."""
    from sympy.parsing.sympy_parser import stringify_expr

    names = dict(_sympy())
    transforms = names.pop("__transforms__")
    code = stringify_expr(text, {}, names, transforms)
    return ast.parse(code.strip(), mode="eval").body


_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_LITERAL_CALLS = ("Symbol", "Function", "Integer", "Float", "Rational")
_SYMBOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _build(node: ast.expr) -> Any:
    """Return the sympy object a syntax tree of plain math stands for; ToolError on any other construct."""
    import sympy

    names = _sympy()
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        left, right = _build(node.left), _build(node.right)
        if isinstance(node.op, ast.Add):
            return sympy.Add(left, right)
        if isinstance(node.op, ast.Sub):
            return sympy.Add(left, sympy.Mul(sympy.Integer(-1), right))
        if isinstance(node.op, ast.Mult):
            return sympy.Mul(left, right)
        if isinstance(node.op, ast.Div):
            return sympy.Mul(left, sympy.Pow(right, sympy.Integer(-1)))
        return sympy.Pow(left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _build(node.operand)
        return sympy.Mul(sympy.Integer(-1), operand) if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Name) and node.id in names and not node.id.startswith("_"):
        return names[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return sympy.Integer(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        name = node.func.id
        if name in _LITERAL_CALLS and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            value = node.args[0].value
            if name in ("Symbol", "Function") and isinstance(value, str) and _SYMBOL_NAME.match(value):
                return sympy.Symbol(value) if name == "Symbol" else sympy.Function(value)
            if name in ("Integer", "Float") and isinstance(value, str | int) and not isinstance(value, bool):
                return sympy.Integer(value) if name == "Integer" else sympy.Float(value)
        if name in names and name not in ("Symbol", "Function") and not name.startswith("_"):
            return names[name](*(_build(arg) for arg in node.args))
    raise ToolError(
        f"{ast.unparse(node)[:80]!r} is not plain math; use numbers, letters, + - * / ^ ( ) and function names "
        "like sqrt, sin, log"
    )


def _check_size(expr: Any) -> None:
    """Raise ToolError when evaluating expr would build gigantic numbers (towers of powers)."""
    import sympy

    if not isinstance(expr, sympy.Basic):
        return
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow) and node.base.is_number and node.exp.is_number:
            try:
                base = abs(complex(sympy.N(node.base, 15)))
                power = abs(complex(sympy.N(node.exp, 15)))
            except (TypeError, ValueError, OverflowError):
                raise ToolError("a power in the expression is too large to compute exactly") from None
            if base > 1 and power * max(1.0, float(sympy.log(base, 2))) > _MAX_BITS:
                raise ToolError("a power in the expression is too large to compute exactly; use smaller numbers")


def _decimal(value: Any, digits: int) -> float | str | None:
    import sympy

    try:
        n = sympy.N(value, digits)
    except Exception:
        return None
    if n.is_real and n.is_number:
        return float(format(float(sympy.N(value, 30)), f".{digits}g"))
    return str(n) if n.is_number else None


def solve_exact(args: SolveArgs) -> dict[str, Any]:
    """Return {"solutions": [{var: {"exact", "decimal"}}]} for equations, or {"exact", "decimal"} for an expression."""
    import sympy

    if args.expression is not None:
        expr = parse(args.expression)
        if isinstance(expr, sympy.Equality):
            raise ToolError("an expression has no '='; pass equations to solve for unknowns")
        simple = sympy.simplify(expr)
        return {
            "exact": str(simple),
            "decimal": _decimal(simple, args.digits),
            "symbols": sorted(str(s) for s in simple.free_symbols),
        }
    assert args.equations is not None
    eqs = [parse(e) for e in args.equations]
    symbols = sorted(set().union(*(e.free_symbols for e in eqs)), key=str)
    if args.variables:
        wanted = {str(s): s for s in symbols}
        missing = [v for v in args.variables if v not in wanted]
        if missing:
            raise ToolError(f"{', '.join(missing)} do(es) not occur in the equations; they use {sorted(wanted)}")
        symbols = [wanted[v] for v in args.variables]
    if not symbols:
        raise ToolError("the equations contain no unknowns; use expression to evaluate a number")
    found = sympy.solve(eqs, symbols, dict=True)
    solutions = [
        {str(k): {"exact": str(v), "decimal": _decimal(v, args.digits)} for k, v in sol.items()} for sol in found[:20]
    ]
    return {"solutions": solutions, "count": len(found), "unknowns": [str(s) for s in symbols]}


def solve_job(payload: dict[str, Any]) -> dict[str, Any]:
    """Return `solve_exact` of the JSON arguments (what the worker process runs for the `solve` tool)."""
    return solve_exact(SolveArgs.model_validate(payload))


def warm() -> None:
    """Import sympy and exercise the parser once (a worker does this before its first time-limited job)."""
    parse("x^2 - 2 = 0")


@tool("math", example={"equations": ["x^2 - 2 = 0"]})
def solve(args: SolveArgs, ctx: Context) -> Output:
    """Solve equations exactly (sympy) or simplify and evaluate an expression.

    Returns data.solutions ([{unknown: {exact, decimal}}]) for equations, or data.exact and data.decimal for an
    expression.
    """
    res = run_job("solve", args.model_dump(), SECONDS)
    if "solutions" in res:
        if not res["solutions"]:
            return Output("no solution", res)
        parts = ["; ".join(f"{k} = {v['exact']} ≈ {v['decimal']}" for k, v in sol.items()) for sol in res["solutions"]]
        return Output(f"{res['count']} solution(s): " + " | ".join(parts), res)
    return Output(f"{res['exact']} ≈ {res['decimal']}", res)
