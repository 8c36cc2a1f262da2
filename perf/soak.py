"""Fault soak: `mcot run` and `mcot score --judge` against a local server that fails 30 % of the requests.

Generated items (`mcot gen games`, or `gen gepbench`) are solved in two arms (text, canvas) by `mcot run` in a
subprocess, concurrency 16, against `mcot.testing.fake_provider.FakeProvider` in a thread of this process with
`Faults(rate=0.3)`: 429 with and without Retry-After, 500/502/503/529, an answer that never comes (held
`--hang-s` seconds, then the connection is closed), a connection reset mid-body, truncated and unparsable JSON,
an empty answer, a tool call to an unknown tool, tool arguments that are not JSON, a body cut short of its
promised length. The model is `SoakAgent` (deterministic: a tool round or two in the canvas arm, then a boxed
answer; some numbers in words, so that rules cannot read them and the judge is asked). Then `mcot score --judge`
against a second faulty server playing the judge (`JudgeAgent`). Both wire formats: `openai-compatible:` and
`anthropic:` (ANTHROPIC_API_KEY=dummy, the server as base URL), run and judge alike.

Each command is run twice (`--passes`): the second pass retries the pairs (and judge calls) that failed, and
should ask nothing of what the first finished. `--source gepbench` items are all letter answers: rules settle
them and the judge is never asked. A `hang` ends as a closed connection after `--hang-s`: `mcot run` has no
option for the backends' per-request time-out (180 s), so a hang longer than that would stall the soak for
minutes; tests/agents/test_fake_provider_faults.py sees the client time-out itself.
Checked on the ledger (RUN/results.jsonl, the last line of a pair is its state): lost — a pair of RUN/items.jsonl
with no line at all (must be 0); duplicated — a pair with two final lines (ok or budget; must be 0); stray — a
line for a pair the run does not have. Retries are the retry notes in the traces of the pairs each pass wrote;
the server's own counts (faults injected by kind, valid answers, answers that repeated one given before) are
printed too.

Last line: ``done= failed= lost= duplicated= retries= wall_s=`` (summed over the wire formats; failed after the
last pass; wall_s of all `mcot run` and `mcot score` passes).

Run: python perf/soak.py [--items 300] [--rate 0.3] [--concurrency 16] [--wire openai-compatible,anthropic]
                         [--source games|gepbench] [--passes 2] [--hang-s 2] [--seed 0] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.failures import summarize_failures
from mcot.rundir import Result, read_jsonl
from mcot.testing.fake_provider import FakeProvider, Faults, JudgeAgent, SoakAgent

WIRES = ("openai-compatible", "anthropic")
FINAL_ANSWER = "The answer is \\boxed{"
"""What every final answer of `SoakAgent` holds."""
FINAL_STATUSES = ("ok", "budget")
"""Statuses a resume keeps (mcot.runner.DONE_STATUSES): a pair with two such lines was solved twice."""


@dataclass
class Audit:
    """The state of a run's ledger: pairs done, failed (latest line not ok), lost, duplicated, stray lines."""

    pairs: int = 0
    done: int = 0
    failed: int = 0
    lost: int = 0
    duplicated: int = 0
    stray: int = 0
    unanswered_ok: int = 0
    """Pairs ok whose prediction is not the model's final answer (empty, or an earlier turn's text)."""
    causes: list[str] = field(default_factory=list)


@dataclass
class Pass:
    """One `mcot run` or `mcot score` command: exit code, wall time, the tail of its error output."""

    code: int
    wall_s: float
    stderr: str


def mcot(args: list[str], env: dict[str, str], timeout_s: float) -> Pass:
    """Run `python -m mcot ARGS` to the end; return its exit code, wall time and stderr tail."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mcot", *args], env=env, capture_output=True, text=True, timeout=timeout_s
    )
    return Pass(proc.returncode, time.perf_counter() - started, (proc.stderr or proc.stdout)[-2000:])


def child_env(wire: str) -> dict[str, str]:
    """Return the environment of a child mcot: dummy keys, plain progress lines, no SDK base URL of the user's."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "MCOT_JUDGE_CACHE")
    }
    env["CI"] = "1"
    env["OPENAI_API_KEY" if wire == "openai-compatible" else "ANTHROPIC_API_KEY"] = "dummy"
    return env


def generate(source: str, n_items: int, seed: int, out: Path) -> None:
    """Write at least `n_items` generated items to `out` (games: 6 tasks; gepbench: about 13 questions a figure)."""
    if source == "games":
        args = ["gen", "games", "--n", str(math.ceil(n_items / 6)), "--seed", str(seed), "--out", str(out)]
    else:
        args = ["gen", "gepbench", "--n", str(max(1, math.ceil(n_items / 12))), "--seed", str(seed), "--out", str(out)]
    result = mcot(args, dict(os.environ), 600)
    if result.code != 0:
        raise SystemExit(f"generating items failed: {result.stderr}")


def pair_lines(run: Path) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """Return the run's (item, arm) pairs (RUN/items.jsonl × the manifest's arms) and its ledger lines."""
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    arms = [str(arm["name"]) for arm in manifest["arms"]]
    ids = [str(row["id"]) for row in read_jsonl(run / "items.jsonl")]
    return [(item, arm) for item in ids for arm in arms], read_jsonl(run / "results.jsonl")


def audit(run: Path) -> Audit:
    """Return what the ledger holds: every pair's latest line counted as done or failed, and what is wrong."""
    pairs, lines = pair_lines(run)
    by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {pair: [] for pair in pairs}
    result = Audit(pairs=len(pairs))
    for line in lines:
        key = (str(line.get("id")), str(line.get("mode")))
        if key in by_pair:
            by_pair[key].append(line)
        else:
            result.stray += 1
    latest: list[dict[str, Any] | None] = []
    for records in by_pair.values():
        latest.append(records[-1] if records else None)
        result.lost += not records
        result.duplicated += sum(1 for r in records if r.get("status") in FINAL_STATUSES) > 1
        if records and records[-1].get("status") == "ok":
            result.done += 1
            result.unanswered_ok += FINAL_ANSWER not in str(records[-1].get("prediction") or "")
    failures = summarize_failures([Result.from_line(r) for r in latest if r is not None])
    result.failed = failures.failed
    result.causes = failures.lines(limit=8)
    return result


def retries_in(run: Path, lines: list[dict[str, Any]]) -> int:
    """Return the retry notes in the traces of these ledger lines (model steps' `retries`)."""
    total = 0
    for line in lines:
        trace = line.get("trace")
        if not trace or not (run / trace).is_file():
            continue
        for step in read_jsonl(run / trace):
            if step.get("kind") == "model":
                total += len(step.get("retries") or [])
    return total


def pacing(run: Path) -> str:
    """Return ", concurrency ended at K after N overload answers" from the manifest's last session, if recorded."""
    sessions = json.loads((run / "manifest.json").read_text(encoding="utf-8")).get("sessions") or [{}]
    last = sessions[-1]
    if "concurrency_final" not in last:
        return ""
    return (
        f", concurrency ended at {last['concurrency_final']} after {last.get('overload_answers', 0)} overload answers"
    )


def soak_wire(args: argparse.Namespace, wire: str, items: Path, work: Path) -> dict[str, Any]:
    """Run, re-run and score one wire format under faults; print what happened; return the figures."""
    faults = Faults(rate=args.rate, seed=args.seed, hang_s=args.hang_s)
    model = FakeProvider(default=SoakAgent(), faults=faults, stable_ids=True, keep_requests=False)
    judge_faults = Faults(rate=args.rate, seed=args.seed + 1, hang_s=args.hang_s)
    judge = FakeProvider(default=JudgeAgent(), faults=judge_faults, keep_requests=False)
    run = work / f"run-{wire}"
    env = child_env(wire)
    figures: dict[str, Any] = {"wall_s": 0.0, "retries": 0}
    print(
        f"== {wire}: {args.items} items × 2 arms (text, canvas), faults {args.rate:.0%}, concurrency {args.concurrency}"
    )
    with model, judge:
        base = model.openai_url if wire == "openai-compatible" else model.anthropic_url
        command = [
            "run", "--data", str(items), "--model", f"{wire}:soak-model", "--out", str(run), "--mode", "text,canvas",
            "--concurrency", str(args.concurrency), "--base-url", base, "--limit", str(args.items),
        ]  # fmt: skip
        state = Audit()
        for number in range(1, args.passes + 1):  # the second pass retries what failed, and pays nothing more
            before = len(read_jsonl(run / "results.jsonl"))
            asked = model.counts.requests
            result = mcot(command, env, args.timeout_s)
            figures["wall_s"] += result.wall_s
            if not (run / "manifest.json").is_file():
                raise SystemExit(f"mcot run wrote no run directory (exit {result.code}): {result.stderr}")
            _, lines = pair_lines(run)
            retries = retries_in(run, lines[before:])
            figures["retries"] += retries
            state = audit(run)
            print(
                f"  run pass {number}: exit {result.code}, {len(lines) - before} pairs solved in {result.wall_s:.1f} s "
                f"({model.counts.requests - asked} requests, {retries} retries{pacing(run)}); now {state.done} done, "
                f"{state.failed} failed, {state.lost} lost, {state.duplicated} duplicated, {state.stray} stray"
            )
            for cause in state.causes:
                print(f"    failed: {cause}")
            if result.code not in (0, 3):
                print(f"    mcot run exit {result.code}: {result.stderr.strip()[-600:]}")
        if state.unanswered_ok:
            print(
                f"  note: {state.unanswered_ok} pairs are ok without the model's final answer: an empty answer was "
                "taken as final (the prediction is empty or an earlier turn's text)"
            )
        counts = model.counts.summary()
        print(
            f"  model server: {counts['requests']} requests, {counts['faults']} faults injected, "
            f"{counts['valid_answers']} valid answers, {counts['repaid']} repeated an answer given before "
            "(a pair re-run after a failure pays its earlier turns again: the soak runs without --cache)"
        )
        print(f"    injected: {counts['injected']}")
        judge_base = judge.openai_url if wire == "openai-compatible" else judge.anthropic_url
        score = ["score", str(run), "--judge", f"{wire}:soak-judge", "--base-url", judge_base]
        for number in range(1, args.passes + 1):  # the second pass asks only what failed (the judge cache)
            asked = judge.counts.requests
            result = mcot(score, env, args.timeout_s)
            figures["wall_s"] += result.wall_s
            methods = Counter(str(row.get("method")) for row in read_jsonl(run / "scores.jsonl"))
            print(
                f"  score pass {number}: exit {result.code} in {result.wall_s:.1f} s "
                f"({judge.counts.requests - asked} judge requests); methods {dict(sorted(methods.items()))}"
            )
            if result.code != 0:
                print(f"    mcot score exit {result.code}: {result.stderr.strip()[-600:]}")
        counts = judge.counts.summary()
        print(
            f"  judge server: {counts['requests']} requests, {counts['faults']} faults injected, "
            f"{counts['valid_answers']} valid answers; injected {counts['injected']}"
        )
        figures["judge_errors"] = methods.get("judge_error", 0)
    figures.update(done=state.done, failed=state.failed, lost=state.lost, duplicated=state.duplicated)
    print(
        f"  {wire}: done={state.done} failed={state.failed} lost={state.lost} duplicated={state.duplicated} "
        f"retries={figures['retries']} wall_s={figures['wall_s']:.1f}"
    )
    return figures


def main() -> None:
    """Parse the options, soak each wire format, print the figures and the summed last line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=300, help="items (pairs are twice as many)")
    parser.add_argument("--rate", type=float, default=0.3, help="share of requests that get a fault")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--wire", default=",".join(WIRES), help="comma-separated: openai-compatible,anthropic")
    parser.add_argument("--source", choices=("games", "gepbench"), default="games")
    parser.add_argument("--passes", type=int, default=2, help="`mcot run` (and score) passes: the same command again")
    parser.add_argument("--hang-s", type=float, default=2.0, help="how long a `hang` fault holds the connection")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout-s", type=float, default=1800.0, help="limit per mcot command")
    parser.add_argument("--keep", type=Path, default=None, help="work here (kept) instead of a temporary folder")
    args = parser.parse_args()
    wires = [w.strip() for w in args.wire.split(",") if w.strip()]
    unknown = [w for w in wires if w not in WIRES]
    if unknown:
        parser.error(f"unknown wire format {unknown}; choose from {', '.join(WIRES)}")
    with tempfile.TemporaryDirectory(prefix="mcot-soak-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        items = work / "items"
        if not (items / "items.jsonl").is_file():
            generate(args.source, args.items, args.seed, items)
        totals: Counter[str] = Counter()
        wall = 0.0
        for wire in wires:
            figures = soak_wire(args, wire, items, work)
            wall += figures.pop("wall_s")
            totals.update({key: int(value) for key, value in figures.items()})
    print(f"judge_errors={totals['judge_errors']} wires={','.join(wires)}")
    print(
        f"done={totals['done']} failed={totals['failed']} lost={totals['lost']} duplicated={totals['duplicated']} "
        f"retries={totals['retries']} wall_s={wall:.1f}"
    )


if __name__ == "__main__":
    main()
