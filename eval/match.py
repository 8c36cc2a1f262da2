"""Matching an extracted answer against the ground truth by rules, before any judge.

`match_answer` returns a `Match`: `equal` is True or False when a rule settles it, None when only a judge
can (the caller then records method "judge" or "none"). `rule` names the rule that decided.
"""

from __future__ import annotations

import ast
import cmath
import functools
import math
import operator
import re
from dataclasses import dataclass, field
from typing import Any

from mcot.eval.extract import strip_latex_text, yes_no_value

DEFAULT_REL_TOL = 1e-2

# unit -> (family, factor to the family's SI unit)
_UNITS: dict[str, tuple[str, float]] = {
    "m": ("length", 1.0),
    "cm": ("length", 1e-2),
    "mm": ("length", 1e-3),
    "km": ("length", 1e3),
    "μm": ("length", 1e-6),
    "um": ("length", 1e-6),
    "nm": ("length", 1e-9),
    "s": ("time", 1.0),
    "ms": ("time", 1e-3),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
    "kg": ("mass", 1.0),
    "g": ("mass", 1e-3),
    "mg": ("mass", 1e-6),
    "m/s": ("speed", 1.0),
    "cm/s": ("speed", 1e-2),
    "km/h": ("speed", 1 / 3.6),
    "m/s^2": ("acceleration", 1.0),
    "m/s²": ("acceleration", 1.0),
    "°": ("angle", math.pi / 180),
    "deg": ("angle", math.pi / 180),
    "degree": ("angle", math.pi / 180),
    "degrees": ("angle", math.pi / 180),
    "rad": ("angle", 1.0),
    "n": ("force", 1.0),
    "kn": ("force", 1e3),
    "j": ("energy", 1.0),
    "kj": ("energy", 1e3),
    "w": ("power", 1.0),
    "kw": ("power", 1e3),
    "v": ("voltage", 1.0),
    "mv": ("voltage", 1e-3),
    "kv": ("voltage", 1e3),
    "a": ("current", 1.0),
    "ma": ("current", 1e-3),
    "ω": ("resistance", 1.0),
    "ohm": ("resistance", 1.0),
    "ohms": ("resistance", 1.0),
    "kω": ("resistance", 1e3),
    "hz": ("frequency", 1.0),
    "khz": ("frequency", 1e3),
    "pa": ("pressure", 1.0),
    "kpa": ("pressure", 1e3),
    "%": ("ratio", 1e-2),
    "px": ("pixels", 1.0),
    "pixels": ("pixels", 1.0),
    "cells": ("cells", 1.0),
    "steps": ("steps", 1.0),
}


@dataclass(frozen=True)
class Match:
    """The verdict of the rules: equal True/False, or None when undecided; the rule that decided; details."""

    equal: bool | None
    rule: str
    details: dict[str, Any] = field(default_factory=dict)


def normalize_text(value: str) -> str:
    """Return `value` lower-cased with LaTeX wrappers, `\\,` spacing, degree signs, `$` and extra spaces removed."""
    value = strip_latex_text(value)
    value = value.replace("\\,", " ").replace("\\;", " ").replace("\\!", "").replace("\\ ", " ")
    value = value.replace("$", "").replace("\\left", "").replace("\\right", "")
    value = value.replace("^\\circ", "°").replace("^{\\circ}", "°").replace("\\circ", "°").replace("\\degree", "°")
    value = value.replace("°", "")
    value = re.sub(r"\s+", " ", value).strip().lower()
    return value.rstrip(".。").strip()


def _latex_to_sympy(text: str) -> str:
    """Rewrite the LaTeX of a plain number or expression into sympy syntax."""
    text = text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", text)
        text = re.sub(r"\\sqrt\s*\[([^{}\]]*)\]\s*\{([^{}]*)\}", r"((\2)**(1/(\1)))", text)
        text = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", text)
        text = re.sub(r"\\sqrt\s*(\d+)", r"sqrt(\1)", text)
    text = text.replace("\\pi", " pi ").replace("π", " pi ")
    text = text.replace("\\times", "*").replace("\\cdot", "*").replace("×", "*").replace("·", "*")
    text = text.replace("√", "sqrt")
    text = re.sub(r"(\d)\s*[eE]\s*([+-]?\d+)", r"\1*10**(\2)", text)
    text = text.replace("^", "**").replace("{", "(").replace("}", ")")
    text = text.replace("\\", " ")
    text = re.sub(r"(\d|\))\s*(?=[a-z(])", r"\1*", text)
    text = re.sub(r"\b(pi)\s*(?=[\d(a-z])", r"\1*", text)
    return text


_NUMBER_SYNTAX = re.compile(r"^[\d\s.+\-*/()a-z]*$")


@functools.lru_cache(maxsize=8192)
def parse_number(text: str) -> float | None:
    """Return the numeric value of a plain number or closed-form expression (fractions, roots, π, 1e-3), or None."""
    cleaned = normalize_text(text).replace(",", "") if not re.search(r"\d,\d{1,2}(?!\d)", text) else None
    if cleaned is None:
        return None
    if re.fullmatch(r"[+-]?\d+(?:\.\d*)?(?:e[+-]?\d+)?", cleaned):
        value = float(cleaned)
        return value if math.isfinite(value) else None
    if len(cleaned) > 80:
        return None
    expression = _latex_to_sympy(cleaned)
    if not _NUMBER_SYNTAX.match(expression):
        return None
    names = set(re.findall(r"[a-z]+", expression))
    if names - {"pi", "sqrt"}:
        return None
    if expression.count("**") > 1 or re.search(r"\*\*\s*\(?\s*[+-]?\d{3,}", expression):
        return None  # towers and huge exponents are not answers; evaluating them could take forever
    number = arithmetic_value(expression)
    if number is None or abs(number.imag) > 1e-12 or not math.isfinite(number.real):
        return None
    return float(number.real)


_OPERATIONS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def arithmetic_value(expression: str) -> complex | None:
    """Return the value of an arithmetic expression (numbers, + - * / **, pi, sqrt), or None when it is not one.

    The expression is parsed with Python's `ast` and evaluated node by node; nothing in it is run as code (a
    model's answer is untrusted text, and sympy's `sympify` ends in `eval`).
    """
    try:
        return complex(_arithmetic(ast.parse(expression.strip(), mode="eval").body))
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError, RecursionError):
        return None


def _arithmetic(node: ast.expr) -> complex | float | int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _arithmetic(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exponent = _arithmetic(node.left), _arithmetic(node.right)
        if isinstance(base, int) and isinstance(exponent, int) and exponent < 0:
            return float(base) ** exponent  # 10**(-3) is 0.001, not an error
        return base**exponent
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATIONS:
        return _OPERATIONS[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sqrt":
        if len(node.args) == 1 and not node.keywords:
            value = _arithmetic(node.args[0])
            return cmath.sqrt(value) if isinstance(value, complex) or value < 0 else math.sqrt(value)
    raise ValueError("not arithmetic")


@dataclass(frozen=True)
class Quantity:
    """A number with an optional unit: its value in the unit given, the unit, its family and SI factor."""

    value: float
    unit: str | None
    family: str | None
    factor: float


def parse_quantity(text: str) -> Quantity | None:
    """Return the number and unit of `text` ("5 cm", "30°", "2\\sqrt{2} m/s"), or None when it is not one."""
    raw = strip_latex_text(text).strip().rstrip(".。").strip()
    raw = raw.replace("^\\circ", "°").replace("^{\\circ}", "°").replace("\\circ", "°").replace("\\%", "%")
    raw = raw.replace("\\Omega", "Ω").replace("\\mu", "μ").replace("$", "").strip()
    raw = re.sub(r"\\[,;:! ]|~", " ", raw).strip()  # LaTeX spacing between a number and its unit
    match = re.match(r"^(.*?[\d)}π])\s*([A-Za-zμΩω°%/^²]+(?:\s*/\s*[A-Za-z²^0-9]+)?)$", raw)
    if match:
        unit = match.group(2).replace(" ", "")
        key = unit if unit in _UNITS else unit.lower()
        number = parse_number(match.group(1))
        if number is not None and key in _UNITS:
            family, factor = _UNITS[key]
            return Quantity(number, unit, family, factor)
    number = parse_number(raw)
    if number is not None:
        return Quantity(number, None, None, 1.0)
    return None


def numbers_equal(a: float, b: float, rel_tol: float = DEFAULT_REL_TOL) -> bool:
    """Return True when `a` and `b` agree: exactly for two integers, else within `rel_tol` (relative)."""
    if float(a).is_integer() and float(b).is_integer():
        return a == b
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12)


def match_answer(
    extracted: str | None,
    answer: str,
    *,
    answer_type: str = "text",
    choices: list[str] | None = None,
    rel_tol: float = DEFAULT_REL_TOL,
) -> Match:
    """Return the rules' verdict on `extracted` against `answer` (see the module docstring)."""
    if extracted is None or not extracted.strip():
        return Match(None, "no-answer")
    if extracted.strip() == answer.strip():
        return Match(True, "exact")
    left, right = normalize_text(extracted), normalize_text(answer)
    if left == right:
        return Match(True, "normalized")
    letter = re.fullmatch(r"\(?([a-h])\)?", left)
    if letter and re.fullmatch(r"\(?[a-h]\)?", right):
        return Match(letter.group(1) == right.strip("()"), "letter")
    if answer_type == "choice" or (re.fullmatch(r"[a-h]", right) and choices):
        if choices and re.fullmatch(r"[a-h]", right):
            index = ord(right) - ord("a")
            if index < len(choices) and normalize_text(str(choices[index])) == left:
                return Match(True, "choice-text")
    if answer_type == "yesno":

        a, b = yes_no_value(left), yes_no_value(right)
        if a is not None and b is not None:
            return Match(a == b, "yes-no")
    got, want = parse_quantity(extracted), parse_quantity(answer)
    if got is not None and want is not None:
        details = {"extracted_value": got.value, "answer_value": want.value, "rel_tol": rel_tol}
        if got.family and want.family:
            if got.family != want.family:
                return Match(None, "unit-family-differs", {**details, "units": [got.unit, want.unit]})
            equal = numbers_equal(got.value * got.factor, want.value * want.factor, rel_tol)
            return Match(equal, "unit", {**details, "units": [got.unit, want.unit]})
        equal = numbers_equal(got.value, want.value, rel_tol)
        if not equal and "ratio" in (got.family, want.family):
            equal = numbers_equal(got.value * got.factor, want.value * want.factor, rel_tol)
        return Match(equal, "numeric", details)
    return Match(None, "undecided")


_PI = ("π", "\\pi", "pi")


def angle_radians(text: str) -> tuple[float, bool] | None:
    """Return (the angle of `text` in radians, whether it carries an angle unit), or None when it is no angle.

    `30°`, `30^\\circ`, `30 deg`, `0.52 rad` carry a unit; a bare number written with π (`\\frac{\\pi}{6}`, `π/6`)
    is read as radians without one. Any other bare number is not an angle (it is not read as degrees).
    """
    quantity = parse_quantity(text)
    if quantity is None:
        return None
    if quantity.family == "angle":
        return quantity.value * quantity.factor, True
    if quantity.unit is None and any(mark in text for mark in _PI):
        return quantity.value, False
    return None


def match_angle(extracted: str, answer: str, rel_tol: float = DEFAULT_REL_TOL) -> Match | None:
    """Return the verdict comparing two angles in radians (rule "angle"), or None when that rule does not apply.

    It applies when both sides read as angles (`angle_radians`) and at least one carries a unit, so that
    `30°` equals `\\frac{\\pi}{6}` and `\\frac{\\pi}{6} rad`, and `45°` does not equal `π/6`.
    """
    got, want = angle_radians(extracted), angle_radians(answer)
    if got is None or want is None or not (got[1] or want[1]):
        return None
    details = {"extracted_radians": got[0], "answer_radians": want[0], "rel_tol": rel_tol}
    return Match(math.isclose(got[0], want[0], rel_tol=rel_tol, abs_tol=1e-12), "angle", details)
