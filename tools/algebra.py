"""The exact `solve` tool: equations and expressions with sympy, answered in exact and decimal form."""

from __future__ import annotations

import re
import threading
from functools import cache
from typing import Annotated, Any

from pydantic import Field, model_validator

from tools.args import Args
from tools.errors import ToolError, ToolTimeout
from tools.registry import Context, Output, tool

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
    """Return the sympy form of a math string ('=' makes an equation); ToolError on anything not plain math."""
    import sympy

    # sympy's parser ends in eval(): no dunders, and no attribute access (a dot only inside a number)
    if not _ALLOWED.match(text) or "__" in text or _ATTRIBUTE.search(text):
        raise ToolError(
            f"{text!r} contains characters that are not plain math; use numbers, letters, + - * / ^ ( ) "
            "and function names like sqrt, sin, log"
        )
    sides = text.split("=")
    if len(sides) > 2:
        raise ToolError(f"{text!r} has more than one '='; write one equation per string")
    try:
        raw = [_read(s, evaluate=False) for s in sides]
        for p in raw:
            _check_size(p)
        parsed = [_read(s, evaluate=True) for s in sides]
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


def _read(text: str, evaluate: bool) -> Any:
    from sympy.parsing.sympy_parser import parse_expr

    names = dict(_sympy())
    transforms = names.pop("__transforms__")
    return parse_expr(text, local_dict={}, global_dict=names, transformations=transforms, evaluate=evaluate)


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


def _bounded(fn: Any) -> Any:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except Exception as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(SECONDS)
    if worker.is_alive():
        raise ToolTimeout(f"sympy did not finish within {SECONDS:g} s; simplify the problem or give numbers")
    if isinstance(box.get("error"), ToolError):
        raise box["error"]
    if "error" in box:
        raise ToolError(f"sympy could not do it: {type(box['error']).__name__}: {str(box['error'])[:200]}")
    return box["value"]


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


@tool("math", example={"equations": ["x^2 - 2 = 0"]})
def solve(args: SolveArgs, ctx: Context) -> Output:
    """Solve equations exactly (sympy) or simplify and evaluate an expression.

    Returns data.solutions ([{unknown: {exact, decimal}}]) for equations, or data.exact and data.decimal for an
    expression.
    """
    _sympy()  # import outside the time limit
    res = _bounded(lambda: solve_exact(args))
    if "solutions" in res:
        if not res["solutions"]:
            return Output("no solution", res)
        parts = ["; ".join(f"{k} = {v['exact']} ≈ {v['decimal']}" for k, v in sol.items()) for sol in res["solutions"]]
        return Output(f"{res['count']} solution(s): " + " | ".join(parts), res)
    return Output(f"{res['exact']} ≈ {res['decimal']}", res)
