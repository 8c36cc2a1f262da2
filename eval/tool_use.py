"""Did the tools help? What each arm's traces say about its tool use, beside its accuracy.

Per arm that offers tools: the share of pairs with at least one tool call, calls per pair (median, 90th
percentile), calls per tool, the share of calls that failed, the share of verified drawings the verifier judged
valid, and accuracy split by whether the model used the canvas (at least one canvas operation it issued itself,
a tool step with `drawn_by: "model"`). An arm whose pairs almost never call a tool is flagged: its accuracy says
little about drawing. Everything is counted from RUN/traces, one trace per (item, arm) result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from mcot.eval.headline import is_correct
from mcot.eval.tables import Table, num, pct

from mcot.core.rundir import Run, Score, order_arms

NEAR_ZERO_SHARE = 0.10
"""An arm whose pairs call a tool less often than this is flagged."""
TOOL_USE_TITLE = "Tool use"


@dataclass
class ArmToolUse:
    """The tool use of one arm, counted from its traces (one entry of `calls` per pair)."""

    arm: str
    calls: list[int] = field(default_factory=list)
    by_tool: Counter[str] = field(default_factory=Counter)
    failed: int = 0
    valid_drawings: int = 0
    judged_drawings: int = 0
    canvas: list[bool] = field(default_factory=list)
    """Per scored pair: whether the model used the canvas."""
    right: list[bool] = field(default_factory=list)
    """Per scored pair: whether it was right (same order as `canvas`)."""

    @property
    def pairs(self) -> int:
        """Return the pairs of the arm with a result."""
        return len(self.calls)

    @property
    def with_call(self) -> int:
        """Return the pairs with at least one tool call."""
        return sum(1 for count in self.calls if count > 0)

    def accuracy(self, used: bool) -> tuple[float | None, int]:
        """Return (accuracy, n) of the scored pairs that did (`used`) or did not use the canvas."""
        picked = [right for right, canvas in zip(self.right, self.canvas, strict=True) if canvas == used]
        return (sum(picked) / len(picked) if picked else None), len(picked)

    def flag(self) -> str | None:
        """Return the warning for an arm whose tool use is near zero, or None."""
        if self.pairs and self.with_call / self.pairs < NEAR_ZERO_SHARE:
            return (
                f"the {self.arm} arm called a tool in {self.with_call} of {self.pairs} pairs: its accuracy says "
                "little about drawing"
            )
        return None


def tool_use(run: Run, scores: Sequence[Score]) -> list[ArmToolUse]:
    """Return the tool use of every arm of the run that offers tools (or whose tools the manifest does not list)."""
    scored = {(score.id, score.mode): score for score in scores}
    arms: dict[str, ArmToolUse] = {}
    for (item_id, mode), _ in sorted(run.results.items()):
        if run.arm_tools(mode) == ():
            continue
        use = arms.setdefault(mode, ArmToolUse(mode))
        steps = run.trace(item_id, mode) or []
        tools = [step for step in steps if step.get("kind") == "tool"]
        use.calls.append(len(tools))
        use.by_tool.update(str(step.get("tool")) for step in tools)
        use.failed += sum(1 for step in tools if step.get("error"))
        score = scored.get((item_id, mode))
        if score is None:
            continue
        use.canvas.append(any(step.get("drawn_by") == "model" for step in tools))
        use.right.append(is_correct(score))
        verdict = (score.details.get("trace") or {}).get("verdict") if isinstance(score.details, dict) else None
        if verdict in ("valid", "invalid"):
            use.judged_drawings += 1
            use.valid_drawings += verdict == "valid"
    return [arms[arm] for arm in order_arms(arms)]


def tool_use_tables(uses: Sequence[ArmToolUse]) -> list[Table]:
    """Return the tool-use table (one row per arm, flags as notes) and the calls-per-tool table; [] without arms."""
    if not uses:
        return []
    table = Table(
        TOOL_USE_TITLE,
        [
            "Arm",
            "pairs",
            "with a tool call",
            "calls/pair median",
            "calls/pair p90",
            "calls",
            "failed calls",
            "valid drawings",
            "acc. used canvas",
            "acc. no canvas",
        ],
    )
    for use in uses:
        total = sum(use.calls)
        used, used_n = use.accuracy(True)
        unused, unused_n = use.accuracy(False)
        table.rows.append(
            [
                use.arm,
                str(use.pairs),
                f"{pct(use.with_call / use.pairs if use.pairs else None)} % ({use.with_call})",
                num(float(np.median(use.calls)) if use.calls else None, 1),
                num(float(np.percentile(use.calls, 90)) if use.calls else None, 1),
                str(total),
                f"{pct(use.failed / total if total else None)} % ({use.failed})",
                f"{pct(use.valid_drawings / use.judged_drawings if use.judged_drawings else None)} % "
                f"({use.valid_drawings}/{use.judged_drawings})",
                f"{pct(used)} (n {used_n})",
                f"{pct(unused)} (n {unused_n})",
            ]
        )
    table.notes.append(
        "counted from RUN/traces: a tool call is a tool step; failed: the step records an error; valid drawings: "
        "of the traces a verifier judged valid or invalid; used canvas: the model issued at least one canvas "
        "operation itself (accuracy over the scored pairs, every pair in n)"
    )
    table.notes += [flag for use in uses if (flag := use.flag())]
    per_tool = Table("Tool use — calls per tool", ["Arm", "Tool", "calls", "share of the arm's calls"])
    for use in uses:
        total = sum(use.by_tool.values())
        for tool, count in use.by_tool.most_common():
            per_tool.rows.append([use.arm, tool, str(count), f"{pct(count / total)} %"])
    return [table, per_tool] if per_tool.rows else [table]
