"""Crash and resume: SIGKILL `mcot run` at seeded random moments, re-run the same command, and count the damage.

Generated items (`mcot gen games`) are solved in two arms (text, canvas) by `mcot run` in a subprocess against
`mcot.testing.fake_provider.FakeProvider` in a thread of this process, with faults (`Faults(rate=0.3)`) and a model
(`SoakAgent`) whose answer depends only on the conversation, except that a request answered validly before may
be answered differently (`--drift`): a real model asked twice need not say the same thing, so only a response
cache can make a resumed run score like an uninterrupted one.

1. A reference: the same command, uninterrupted, against a server of its own; scored with a judge
   (`mcot score --judge`, `JudgeAgent` on another faulty server); exported.
2. The crashed run: `mcot run` is killed with SIGKILL `--kills` times, each at a seeded random moment (after a
   random number of the pairs still to do were written to the ledger, plus a random delay; a draw of zero
   pairs kills it while it starts), and the same command is run again each time, then to the end.
3. `mcot score --judge` is killed once at work (after a random number of its judge requests, plus a random
   delay) and run again; `mcot export` likewise (once its staging folder exists, plus a random delay).

With the response cache (`--cache DIR`, used when `mcot run --help` offers it, unless `--no-cache`), every
request is hashed on the server (sha256 of its bytes) and a valid answer (a 200 the SDK accepts) given twice to
the same request counts as paid twice, except when the first was given less than `--grace-s` before a kill (the
killed process may not have stored it). Without the cache, the turns of the pairs in flight at a kill are paid
again by design: they are reported as `repaid_in_flight`, and only a repeat for a pair the ledger already had
as finished counts in `repaid`. The same for the judge around the kill during `mcot score` (its own cache).

Checked at the end: every (item, arm) of RUN/items.jsonl is in the ledger exactly once with a final status
(lost: none; duplicated: more than one), the export has one record per pair (and what a killed export left
beside --out), and the scores equal the reference's pair by pair (score, correct, method, extracted answer).
An answer the server sent in the last moments before a SIGKILL can be neither stored nor kept by any client:
re-asked, the drifting model may answer otherwise, so differing pairs are split into those that re-asked such
a cut-off answer (`scores_differ_after_a_cut_answer`) and the others (`scores_differ_otherwise`, must be 0).

Last line: ``kills= pairs= lost= duplicated= repaid= scores_equal=`` (kills: all that landed, the ones during
score and export included).

Run: python perf/crash_resume.py [--items 60] [--kills 10] [--seed 0] [--rate 0.3] [--concurrency 8]
                                 [--wire openai-compatible|anthropic] [--drift 0.5] [--no-cache] [--workers N]
                                 [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from soak import FINAL_STATUSES, child_env, generate, pair_lines  # the sibling script (python puts perf/ on the path)

from mcot.core.rundir import read_jsonl
from mcot.testing.fake_provider import FakeProvider, Faults, JudgeAgent, Paid, SoakAgent

"""Statuses a resume keeps (mcot.runner.DONE_STATUSES): a pair with two such lines was solved twice."""
REFERENCE = re.compile(r"Reference ([0-9a-f]{16})\.")
"""How `SoakAgent` names the conversation in its final answer: the ledger's predictions map pairs to it."""


@dataclass
class Kill:
    """One SIGKILL that landed: when (epoch seconds), in which command, and the pairs finished by then."""

    t: float
    command: str
    finished: set[str] = field(default_factory=set)
    """Conversations (SoakAgent's reference) whose pair had a final ledger line when the killed process died."""


@dataclass
class Landed:
    """What a command started with a kill planned did: killed (True) or finished first, and its exit code."""

    killed: bool
    code: int
    wall_s: float


def mcot(args: list[str], env: dict[str, str], timeout_s: float = 1800.0) -> tuple[int, float, str]:
    """Run `python -m mcot ARGS` to the end; return its exit code, wall time and output tail."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mcot", *args], env=env, capture_output=True, text=True, timeout=timeout_s
    )
    return proc.returncode, time.perf_counter() - started, (proc.stderr + proc.stdout)[-1500:]


def ledger_lines(run: Path) -> int:
    """Return how many complete lines the ledger holds now."""
    path = run / "results.jsonl"
    return path.read_bytes().count(b"\n") if path.is_file() else 0


def kill_at(args: list[str], env: dict[str, str], *, delay_s: float, ready: Callable[[], bool] | None = None) -> Landed:
    """Start `mcot ARGS`; once `ready()` is true (at once when None), wait `delay_s` and SIGKILL its process group.

    Return whether the kill landed (the process was still running) and its exit code.
    """
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcot", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the kill reaches any worker it starts
    )
    while ready is not None and proc.poll() is None and not ready():
        time.sleep(0.005)
    deadline = time.perf_counter() + delay_s
    while proc.poll() is None and time.perf_counter() < deadline:
        time.sleep(0.005)
    killed = proc.poll() is None
    if killed:
        os.killpg(proc.pid, signal.SIGKILL)
    code = proc.wait()
    return Landed(killed, code, time.perf_counter() - started)


def ledger_grown(run: Path, lines: int) -> Callable[[], bool]:
    """Return a test that is true once the ledger of `run` holds `lines` more lines than now."""
    target = ledger_lines(run) + lines
    return lambda: ledger_lines(run) >= target


def kill_once(
    args: list[str], env: dict[str, str], output: Path, delays: Callable[[], float], ready: Callable[[], bool]
) -> Kill | None:
    """SIGKILL `mcot ARGS` once at work (after `ready()`, plus a delay drawn by `delays`) before it wrote `output`.

    A command that finished, or wrote `output`, before the kill is run again with shorter delays (an export
    folder it completed is removed first). Return the kill, or None when none landed in 8 tries.
    """
    for attempt in range(8):
        started = time.time()
        landed = kill_at(args, env, delay_s=delays() * 0.5**attempt, ready=ready)
        finished_first = output.exists() and output.stat().st_mtime >= started
        if landed.killed and not finished_first:
            return Kill(time.time(), args[0])
        if output.is_dir():
            shutil.rmtree(output)
    return None


def conversations_finished(run: Path) -> dict[str, tuple[str, str]]:
    """Return {SoakAgent conversation: (item, arm)} for the pairs with a final line in the ledger."""
    found: dict[str, tuple[str, str]] = {}
    for line in read_jsonl(run / "results.jsonl"):
        if line.get("status") in FINAL_STATUSES:
            match = REFERENCE.search(str(line.get("prediction") or ""))
            if match:
                found[match.group(1)] = (str(line["id"]), str(line["mode"]))
    return found


def ledger_audit(run: Path) -> dict[str, int]:
    """Return pairs, lost (no final line), duplicated (more than one final line), stray and not-ok counts."""
    keys, lines = pair_lines(run)
    pairs = dict.fromkeys(keys, 0)
    latest: dict[tuple[str, str], str] = {}
    stray = 0
    for line in lines:
        key = (str(line.get("id")), str(line.get("mode")))
        if key not in pairs:
            stray += 1
            continue
        latest[key] = str(line.get("status"))
        pairs[key] += line.get("status") in FINAL_STATUSES
    return {
        "pairs": len(pairs),
        "lost": sum(1 for n in pairs.values() if n == 0),
        "duplicated": sum(1 for n in pairs.values() if n > 1),
        "stray": stray,
        "not_ok": sum(1 for key in pairs if latest.get(key) != "ok"),
    }


@dataclass
class Repeats:
    """Valid answers that repeated one given before to the same request, by why (see `repaid`)."""

    repaid: int = 0
    in_flight: int = 0
    at_kill: int = 0
    at_kill_gaps_s: list[float] = field(default_factory=list)
    at_kill_conversations: set[str] = field(default_factory=set)


def repaid(paid: list[Paid], kills: list[Kill], *, cache: bool, grace_s: float) -> Repeats:
    """Classify every valid answer that repeated one given before to the same request.

    `in_flight`: its pair was not finished at the kill between the two answers (without a cache: paid again by
    design); `at_kill`: with a cache, the first answer came less than `grace_s` before that kill (the process
    may have died before storing it: an answer still in its socket or being parsed is lost with it);
    `repaid`: anything else — a finished pair asked again, a cached answer asked again, a repeat with no kill
    in between.
    """
    found = Repeats()
    last: dict[str, float] = {}
    for answer in sorted(paid, key=lambda p: p.t):
        before = last.get(answer.key)
        last[answer.key] = answer.t
        if before is None:
            continue
        between = [kill for kill in kills if before < kill.t < answer.t]
        if not between:
            found.repaid += 1
            continue
        kill = between[0]  # the first kill after the earlier answer: the one that may have lost it
        if answer.conversation in kill.finished or (cache and kill.t - before >= grace_s):
            found.repaid += 1
        elif cache:
            found.at_kill += 1
            found.at_kill_gaps_s.append(kill.t - before)
            found.at_kill_conversations.add(answer.conversation)
        else:
            found.in_flight += 1
    return found


def judge_repaid(paid: list[Paid], kill: Kill | None, grace_s: float) -> int:
    """Return the judge answers that repeated one given before, other than within `grace_s` before the kill."""
    first: dict[str, float] = {}
    count = 0
    for answer in sorted(paid, key=lambda p: p.t):
        if answer.key in first:
            t = first[answer.key]
            count += not (kill is not None and t < kill.t < t + grace_s)
        first.setdefault(answer.key, answer.t)
    return count


def score_rows(run: Path) -> dict[tuple[str, str], tuple[Any, ...]]:
    """Return {(item, arm): (score, correct, method, extracted)} of a scored run."""
    return {
        (str(row["id"]), str(row["mode"])): (
            row.get("score"),
            row.get("correct"),
            row.get("method"),
            row.get("extracted"),
        )
        for row in read_jsonl(run / "scores.jsonl")
    }


def run_to_end(command: list[str], env: dict[str, str], passes: int) -> tuple[int, float]:
    """Run the same command until it exits 0 (at most `passes` times); return the last exit code and wall time.

    Exit with the command's output when it fails otherwise than with failed pairs (exit 3).
    """
    code, wall = 1, 0.0
    for _ in range(passes):
        code, seconds, tail = mcot(command, env)
        wall += seconds
        if code == 0:
            break
        if code != 3:
            raise SystemExit(f"mcot {command[0]} exited {code}:\n{tail.strip()}")
    return code, wall


def main() -> None:
    """Run the reference, the crashed run with its kills, score and export with a kill each; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--kills", type=int, default=10, help="kills during `mcot run`")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rate", type=float, default=0.3, help="share of requests that get a fault")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--wire", choices=("openai-compatible", "anthropic"), default="openai-compatible")
    parser.add_argument(
        "--drift", type=float, default=0.5, help="chance that a request asked again gets another answer"
    )
    parser.add_argument("--no-cache", action="store_true", help="run without --cache even where mcot offers it")
    parser.add_argument("--grace-s", type=float, default=1.0, help="an answer this close before a kill may be lost")
    parser.add_argument("--hang-s", type=float, default=2.0, help="how long a `hang` fault holds the connection")
    parser.add_argument("--workers", type=int, default=1, help="`mcot run --workers N` (worker processes)")
    parser.add_argument("--keep", type=Path, default=None, help="work here (kept) instead of a temporary folder")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    env = child_env(args.wire)
    cache = not args.no_cache
    with tempfile.TemporaryDirectory(prefix="mcot-crash-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        items = work / "items"
        if not (items / "items.jsonl").is_file():
            generate("games", args.items, args.seed, items)

        def servers() -> tuple[FakeProvider, FakeProvider]:
            faults = Faults(rate=args.rate, seed=args.seed, hang_s=args.hang_s)
            model = FakeProvider(
                default=SoakAgent(drift=args.drift), faults=faults, stable_ids=True, keep_requests=False
            )
            judge_faults = Faults(rate=args.rate, seed=args.seed + 1, hang_s=args.hang_s)
            judge = FakeProvider(default=JudgeAgent(), faults=judge_faults, keep_requests=False)
            return model.start(), judge.start()

        def base(server: FakeProvider) -> str:
            return server.openai_url if args.wire == "openai-compatible" else server.anthropic_url

        def commands(server: FakeProvider, judge: FakeProvider, name: str) -> tuple[list[str], list[str], list[str]]:
            run = work / name
            solve = [
                "run", "--data", str(items), "--model", f"{args.wire}:crash-model", "--out", str(run),
                "--mode", "text,canvas", "--concurrency", str(args.concurrency), "--base-url", base(server),
                "--limit", str(args.items),
            ]  # fmt: skip
            if cache:
                solve += ["--cache", str(work / f"{name}-cache")]
            if args.workers > 1:
                solve += ["--workers", str(args.workers)]
            score = ["score", str(run), "--judge", f"{args.wire}:crash-judge", "--base-url", base(judge)]
            export = ["export", str(run), "--format", "jsonl", "--out", str(work / f"{name}-export")]
            return solve, score, export

        print(
            f"cache={'on' if cache else 'off'} wire={args.wire} items={args.items} faults={args.rate:.0%} drift={args.drift}"
        )
        # 1. the reference, uninterrupted
        model, judge = servers()
        solve, score, export = commands(model, judge, "reference")
        code, ref_run_s = run_to_end(solve, env, 3)
        _, ref_score_s = run_to_end(score, env, 2)
        _, ref_export_s, _ = mcot(export, env)
        ref_judge_requests = judge.counts.requests
        model.stop()
        judge.stop()
        reference = score_rows(work / "reference")
        print(f"reference: run {ref_run_s:.1f} s (exit {code}), score {ref_score_s:.1f} s, export {ref_export_s:.1f} s")

        # 2. the crashed run
        model, judge = servers()
        solve, score, export = commands(model, judge, "crashed")
        run = work / "crashed"
        kills: list[Kill] = []
        pairs = 2 * args.items
        attempts = 0
        while len([k for k in kills if k.command == "run"]) < args.kills and attempts < 4 * args.kills:
            attempts += 1
            remaining = ledger_audit(run)["lost"] if (run / "manifest.json").is_file() else pairs
            if remaining <= 1:
                break
            kills_left = args.kills - sum(k.command == "run" for k in kills)
            # on average a share of what is left, so that the later kills still find work; never the last few
            # pairs (a kill planned one pair before the end was outrun by the run's end plus the delay)
            after = rng.randrange(0, max(1, 2 * remaining // (kills_left + 2)))  # 0: while it starts
            delay = rng.uniform(0.2, 1.8) if after == 0 else rng.uniform(0.0, 0.4)
            landed = kill_at(solve, env, delay_s=delay, ready=ledger_grown(run, after))
            if landed.killed:
                kills.append(Kill(time.time(), "run", set(conversations_finished(run))))
                state = ledger_audit(run)
                print(
                    f"  kill {len(kills)}: after {after} new pairs + {delay:.2f} s ({landed.wall_s:.1f} s in); "
                    f"ledger now {state['pairs'] - state['lost']} of {state['pairs']} pairs finished"
                )
            else:
                print(
                    f"  planned kill after {after} new pairs + {delay:.2f} s: the run ended first (exit {landed.code})"
                )
        code, seconds = run_to_end(solve, env, 3)
        print(f"  final pass: exit {code} in {seconds:.1f} s")

        # 3. a kill during score, a kill during export (a kill after the command wrote its output does not count)
        # score: after a random number of its judge requests; export: once its staging folder exists
        judge_target = judge.counts.requests + rng.randrange(1, max(1, ref_judge_requests) + 1)
        score_kill = kill_once(
            score,
            env,
            run / "scores.jsonl",
            lambda: rng.uniform(0.0, 0.3),
            lambda: judge.counts.requests >= judge_target,
        )
        score_code, _ = run_to_end(score, env, 2)
        export_out = work / "crashed-export"
        export_kill = kill_once(
            export,
            env,
            export_out,
            lambda: rng.uniform(0.0, 0.1),
            lambda: any(work.glob(".crashed-export.partial-*")),
        )
        kills += [kill for kill in (score_kill, export_kill) if kill is not None]
        export_code, _, export_tail = mcot(export, env)
        # what the killed export staged beside --out must be gone once the same export has run again
        leftovers = sorted(p.name for p in work.glob(".crashed-export.*"))
        records = work / "crashed-export" / "records.jsonl"
        exported = len(read_jsonl(records)) if records.is_file() else 0
        model.stop()
        judge.stop()

        state = ledger_audit(run)
        run_kills = [k for k in kills if k.command == "run"]
        money = repaid(model.counts.paid, run_kills, cache=cache, grace_s=args.grace_s)
        judge_twice = judge_repaid(judge.counts.paid, score_kill, args.grace_s)
        crashed = score_rows(run)
        differing = sorted(key for key in set(reference) | set(crashed) if reference.get(key) != crashed.get(key))
        equal = not differing and len(crashed) == state["pairs"]
        # a pair that re-asked a request whose answer a kill cut off may have been answered otherwise (drift)
        conversation = {pair: conv for conv, pair in conversations_finished(run).items()}
        at_kill = [key for key in differing if conversation.get(key) in money.at_kill_conversations]
        counts = model.counts.summary()
        print(
            f"kills: {sum(k.command == 'run' for k in kills)} during mcot run, "
            f"{sum(k.command == 'score' for k in kills)} during mcot score, {sum(k.command == 'export' for k in kills)} "
            "during mcot export"
        )
        print(
            f"ledger: {state['pairs']} pairs, {state['lost']} lost, {state['duplicated']} duplicated, "
            f"{state['stray']} stray, {state['not_ok']} not ok at the end"
        )
        print(
            f"model server: {counts['requests']} requests, {counts['faults']} faults, {counts['valid_answers']} valid "
            f"answers; repeated answers: {money.repaid} repaid, {money.in_flight} of pairs in flight at a kill "
            f"(no cache), {money.at_kill} given under {args.grace_s} s before a kill"
            + (
                f" ({', '.join(f'{gap * 1000:.0f}' for gap in sorted(money.at_kill_gaps_s))} ms)"
                if money.at_kill
                else ""
            )
        )
        print(f"judge: score exit {score_code} after the kill; {judge_twice} judge answers repaid")
        print(
            f"export: exit {export_code} after the kill{'' if export_kill else ' (no kill landed mid-export)'}, "
            f"{exported} records of {state['pairs']} pairs; left behind by the killed export after the re-run: {leftovers or 'nothing'}"
        )
        if export_code != 0:
            print(f"  {export_tail.strip()[-400:]}")
        for key in [key for key in differing if key not in at_kill][:10]:
            print(f"  score differs for {key}: reference {reference.get(key)}, crashed {crashed.get(key)}")
    print(
        f"repaid_in_flight={money.in_flight} repaid_at_kill={money.at_kill} judge_repaid={judge_twice} "
        f"scores_differ_after_a_cut_answer={len(at_kill)} scores_differ_otherwise={len(differing) - len(at_kill)} "
        f"exported={exported} cache={'on' if cache else 'off'}"
    )
    print(
        f"kills={len(kills)} pairs={state['pairs']} lost={state['lost']} duplicated={state['duplicated']} "
        f"repaid={money.repaid + judge_twice} scores_equal={equal}"
    )


if __name__ == "__main__":
    main()
