"""What to do about the scores that are not decided answers: advice that matches the cause.

A run error is fixed by running again (the command that made the run: `mcot run` or `mcot imagine`), not by a
judge; an unjudged item by a judge; a judge error by scoring again. `advice` says which, with the causes counted.
A generated image is rated by a judge, never right or wrong: one without a rating is called unrated, not wrong.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from mcot.rundir import Score

CAUSE_WIDTH = 100
MISSING_STATUS = "missing"
# Parts of a reason that differ from item to item (durations, tries, request ids): taken out so causes group.
_VARYING = re.compile(r"\b(?:after|in) \d+(?:\.\d+)? ?(?:s|tries|attempts)\b|\bid=\S+")


def short_cause(reason: str, width: int = CAUSE_WIDTH) -> str:
    """Return the first line of a failure reason without its varying parts, cut to `width` with " …"."""
    line = " ".join((reason.strip().splitlines() or ["unknown cause"])[0].split())
    line = _VARYING.sub("…", line) or "unknown cause"
    return line if len(line) <= width else line[:width].rstrip() + " …"


def causes(scores: Sequence[Score]) -> Counter[str]:
    """Return the failure causes of the scores' run errors (method "error"), counted."""
    return Counter(short_cause(str(s.details.get("reason") or s.details.get("status") or "")) for s in scores)


def _counted(counter: Counter[str], limit: int = 3) -> str:
    shown = [f"{count} × {cause}" for cause, count in counter.most_common(limit)]
    rest = sum(counter.values()) - sum(count for _, count in counter.most_common(limit))
    return "; ".join(shown) + (f"; {rest} more" if rest else "")


def is_generated(details: Mapping[str, Any]) -> bool:
    """Return True when a score's details are those of a generated image: rated by a judge, never right or wrong."""
    return details.get("task") == "generation" or bool(details.get("generator"))


_NAMED_JUDGE = re.compile(r"--judge ([\w.:/-]+[\w/])")


def named_judge(scores: Sequence[Score]) -> str:
    """Return the judge the unjudged scores' protocols name (RBench-V's "pass --judge openai:gpt-4o"), when they all
    name the same one; else "SPEC"."""
    named = {
        match.group(1) for s in scores for match in [_NAMED_JUDGE.search(str(s.details.get("unjudged", "")))] if match
    }
    return named.pop() if len(named) == 1 else "SPEC"


def advice(scores: Sequence[Score], run: str = "RUN", command: str = "mcot run") -> list[str]:
    """Return one line per kind of undecided score (run errors, budget stops, unjudged, judge errors), or [].

    `command` made the run (`mcot run`, `mcot imagine`): a failed pair is retried by re-running it. A generated
    image is rated, not right or wrong, so one that failed, was not rated or met a judge error is called unrated,
    never wrong.
    """
    generated = [s for s in scores if is_generated(s.details)]
    answered = [s for s in scores if not is_generated(s.details)]
    lines: list[str] = []
    failed_all = [s for s in scores if s.method == "error"]
    if scores and len(failed_all) == len(scores):
        if generated and not answered:
            lines.append(f"no image of the run was generated: all {len(scores)} are unrated")
        else:
            lines.append(f"no (item, arm) pair of the run succeeded: all {len(scores)} count as wrong")
    lines += _answered_advice(answered, run, command)
    lines += _generated_advice(generated, run, command)
    return lines


def _answered_advice(scores: Sequence[Score], run: str, command: str) -> list[str]:
    failed = [s for s in scores if s.method == "error" and s.details.get("status") != "budget"]
    budget = [s for s in scores if s.method == "error" and s.details.get("status") == "budget"]
    unjudged = [s for s in scores if s.method == "none"]
    judge_errors = [s for s in scores if s.method == "judge_error"]
    lines: list[str] = []
    if failed:
        lines.append(
            f"{len(failed)} (item, arm) pair(s) failed in the run and count as wrong ({_counted(causes(failed))}): "
            f"re-run the same `{command}` command to retry them (finished pairs are kept)"
        )
    if budget:
        lines.append(
            f"{len(budget)} (item, arm) pair(s) stopped on a budget and count as wrong ({_counted(causes(budget))}): "
            "a resume does not redo them; a larger budget takes a new run (another --out)"
        )
    if unjudged:
        lines.append(
            f"{len(unjudged)} (item, arm) pair(s) unjudged (rules could not decide) and counted as wrong: "
            f"`mcot score {run} --judge {named_judge(unjudged)}` decides them"
        )
    if judge_errors:
        lines.append(
            f"{len(judge_errors)} judge error(s) (failed or unparsable judge replies) counted as wrong: "
            f"re-run `mcot score {run} --judge SPEC` (cached replies are reused; only these are asked again)"
        )
    return lines


def _generated_advice(scores: Sequence[Score], run: str, command: str) -> list[str]:
    failed = [s for s in scores if s.method == "error"]
    unrated = [s for s in scores if s.method == "none"]
    judge_errors = [s for s in scores if s.method == "judge_error"]
    lines: list[str] = []
    if failed:
        lines.append(
            f"{len(failed)} image(s) were not generated and are unrated ({_counted(causes(failed))}): "
            f"re-run the same `{command}` command to retry them (finished images are kept)"
        )
    if unrated:
        reasons = Counter(short_cause(str(s.details.get("unjudged") or "no rating")) for s in unrated)
        lines.append(
            f"{len(unrated)} generated image(s) not rated ({_counted(reasons)}), not counted as wrong (a generated "
            f"image is rated, never right or wrong): `mcot score {run} --judge SPEC` rates them"
        )
    if judge_errors:
        lines.append(
            f"{len(judge_errors)} judge error(s) on generated images (failed or unparsable replies), left unrated: "
            f"re-run `mcot score {run} --judge SPEC` (cached replies are reused; only these are asked again)"
        )
    return lines
