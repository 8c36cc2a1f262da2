"""Flags a study raises from its traces: an arm whose calls of a tool mostly fail, and calls of tools not offered.

Counted per model and arm from RUN/traces (a tool call is a tool step, failed when it records an error) and the
manifest (the tools each arm offered, `Run.arm_tools`). A tool whose calls failed more often than MOSTLY, in at
least MIN_CALLS calls, is flagged with its errors summarised (`error_reason`: "unknown argument 'factor'"), e.g.
"model M, arm canvas: 9 of 10 `zoom` calls failed (unknown argument 'factor': 9)"; an arm whose calls mostly
failed with no one tool flagged is flagged as a whole, by tool. Calls of a tool the arm did not offer (another
arm's tool, or no tool at all) are flagged apart, by tool, and left out of the failure flags.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from mcot.core.rundir import Run, order_arms
from mcot.eval.tables import outside_text

MOSTLY = 0.5
"""A tool is flagged when more than this share of its calls failed."""
MIN_CALLS = 3
"""…in at least this many calls (one failed call of one is not a pattern)."""
REASON_CHARS = 80

_NOT_AN_ARGUMENT = re.compile(r"`([^`]+)` is not an argument")
_REQUIRED = re.compile(r"`([^`]+)` is required")


def error_reason(error: str) -> str:
    """Return a short reason for a failed tool call's error text, the same for calls that failed alike."""
    unknown = _NOT_AN_ARGUMENT.findall(error)
    missing = _REQUIRED.findall(error)
    if unknown or missing:
        parts = [f"unknown argument {name!r}" for name in unknown] + [f"missing argument {name!r}" for name in missing]
        return ", ".join(parts)
    if "is not offered in this arm" in error:
        return "not offered in this arm"
    if "there is no tool named" in error or re.search(r"tool '[^']*' is unknown", error):
        return "no such tool"
    if "cannot be used" in error and "arguments" in error:
        return "arguments not one JSON object"
    first = re.split(r"(?<=[.;])\s", error.strip(), maxsplit=1)[0]
    return first if len(first) <= REASON_CHARS else first[: REASON_CHARS - 1] + "…"


@dataclass
class ToolCalls:
    """One tool's calls in one arm: how many, how many failed and why."""

    calls: int = 0
    failed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


@dataclass
class ArmCalls:
    """One arm's tool calls of one model: per offered tool, and the calls of tools it did not offer."""

    arm: str
    offered: tuple[str, ...] | None
    tools: dict[str, ToolCalls] = field(default_factory=dict)
    not_offered: Counter[str] = field(default_factory=Counter)
    pairs_not_offered: int = 0


def arm_calls(run: Run) -> list[ArmCalls]:
    """Return the tool calls of each arm of the run, counted from its traces (arms in the usual order)."""
    arms: dict[str, ArmCalls] = {}
    for item_id, mode in sorted(run.results):
        offered = run.arm_tools(mode)
        entry = arms.setdefault(mode, ArmCalls(mode, offered))
        strays = 0
        for step in run.trace(item_id, mode) or []:
            if step.get("kind") != "tool":
                continue
            name = str(step.get("tool"))
            if offered is not None and name not in offered:
                entry.not_offered[name] += 1
                strays += 1
                continue
            calls = entry.tools.setdefault(name, ToolCalls())
            calls.calls += 1
            if step.get("error"):
                calls.failed += 1
                calls.reasons[error_reason(str(step["error"]))] += 1
        entry.pairs_not_offered += strays > 0
    return [arms[arm] for arm in order_arms(arms)]


def tool_name(name: str) -> str:
    """Return a tool name a model chose as a code span: backticks and control characters dropped, at most 60."""
    cleaned = "".join(ch for ch in name if ch.isprintable() and ch != "`")[:60]
    return f"`{cleaned}`"


def _reasons(reasons: Counter[str]) -> str:
    shown = [f"{outside_text(reason.replace('`', ''))}: {count}" for reason, count in reasons.most_common(3)]
    more = len(reasons) - 3
    return "; ".join(shown) + (f"; {more} other reason(s)" if more > 0 else "")


def tool_flags(model: str, arms: list[ArmCalls]) -> list[str]:
    """Return the flags of one model's arms: tools whose calls mostly failed, then calls of tools not offered."""
    flags: list[str] = []
    for entry in arms:
        flagged = [
            (name, calls)
            for name, calls in sorted(entry.tools.items())
            if calls.calls >= MIN_CALLS and calls.failed > MOSTLY * calls.calls
        ]
        for name, calls in flagged:
            flags.append(
                f"model {model}, arm {entry.arm}: {calls.failed} of {calls.calls} {tool_name(name)} calls failed "
                f"({_reasons(calls.reasons)})"
            )
        total = sum(calls.calls for calls in entry.tools.values())
        failed = sum(calls.failed for calls in entry.tools.values())
        if not flagged and total >= MIN_CALLS and failed > MOSTLY * total:  # failures spread over the tools
            by_tool = ", ".join(
                f"{tool_name(name)} {calls.failed}/{calls.calls}"
                for name, calls in sorted(entry.tools.items(), key=lambda found: -found[1].failed)
                if calls.failed
            )
            flags.append(f"model {model}, arm {entry.arm}: {failed} of {total} tool calls failed ({by_tool})")
        if entry.not_offered:
            listed = ", ".join(f"{tool_name(name)} {count}" for name, count in entry.not_offered.most_common())
            offered = f"it offers {len(entry.offered)} tool(s)" if entry.offered else "it offers no tool"
            flags.append(
                f"model {model}, arm {entry.arm}: {sum(entry.not_offered.values())} call(s) of tools the arm did not "
                f"offer, in {entry.pairs_not_offered} pair(s) ({listed}; {offered})"
            )
    return flags


def study_flags(runs: Mapping[str, Run]) -> list[str]:
    """Return every model's tool flags, models in the study's order."""
    return [flag for model, run in runs.items() for flag in tool_flags(model, arm_calls(run))]
