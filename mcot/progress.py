"""What a run shows while it works: a progress bar on a terminal, a plain line every N seconds elsewhere.

Both show the same figures (`RunMonitor.figures`): pairs done and failed, in flight, pairs per minute, ETA,
tokens and cost so far, and the concurrency now. Off a terminal (nohup, SLURM, CI) a line goes to stderr every
`--log-every` seconds. When no pair has finished for a minute while some are in flight, the run says which
pairs are waiting, for how long, and the last thing it heard about each (a provider's overload answer, a
failed call); `--log-every 0` turns the periodic line off, never the stall report.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from mcot.spending import usd

if TYPE_CHECKING:
    from mcot.agents.retry import Failure
    from mcot.pacing import AdaptiveConcurrency
    from mcot.rundir.results import Result
    from mcot.spending import CostBudget

STALL_S = 60.0
STALL_LISTED = 5
BAR_REFRESH_S = 0.5

CURRENT_PAIR: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("mcot_pair", default=None)
"""The (item id, arm) a task is solving, so that a model call's outcome can be put down to its pair."""


@dataclass
class PairActivity:
    """One pair in flight: when it started, where it runs, and the last thing heard about it."""

    started: float
    where: str = ""
    last: str | None = None
    last_at: float | None = None


@dataclass
class RunMonitor:
    """The live figures of one `mcot run` session."""

    total: int
    done_before: int
    pending: int
    concurrency: AdaptiveConcurrency
    budget: CostBudget
    input_tokens: int = 0
    output_tokens: int = 0
    finished: int = 0
    failed: int = 0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    started_at: float = 0.0
    last_finish: float = 0.0
    active: dict[tuple[str, str], PairActivity] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.started_at = self.last_finish = self.clock()

    def add_earlier(self, records: Iterable[Result]) -> None:
        """Count the tokens of earlier sessions' ledger lines, read as they come (the cost is the budget's)."""
        for record in records:
            self._add_tokens(record)

    def start(self, key: tuple[str, str], where: str = "") -> None:
        """Note that a pair has started."""
        self.active[key] = PairActivity(self.clock(), where)

    def finish(self, key: tuple[str, str], record: Result | None) -> None:
        """Note that a pair has ended (record None: cancelled, nothing written)."""
        self.active.pop(key, None)
        if record is None:
            return
        self.finished += 1
        self.last_finish = self.clock()
        if not record.ok:
            self.failed += 1
        self._add_tokens(record)
        self.budget.add(record)

    def call_event(self, failure: Failure | None) -> None:
        """Note a model call's outcome against the pair of the calling task, if known."""
        key = CURRENT_PAIR.get()
        activity = self.active.get(key) if key is not None else None
        if activity is None:
            return
        activity.last = "a model answer" if failure is None else f"{failure.reason} (will retry)"
        activity.last_at = self.clock()

    def _add_tokens(self, record: Result) -> None:
        self.input_tokens += record.usage.input_tokens or 0
        self.output_tokens += record.usage.output_tokens or 0

    def figures(self) -> dict[str, Any]:
        """Return the figures both displays show."""
        elapsed = max(self.clock() - self.started_at, 1e-9)
        per_min = self.finished / elapsed * 60.0
        remaining = self.pending - self.finished
        eta = remaining / per_min * 60.0 if per_min > 0 else None
        return {
            "done": self.done_before + self.finished,
            "total": self.total,
            "failed": self.failed,
            "in_flight": len(self.active),
            "per_min": per_min,
            "eta_s": eta,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.budget.spent_usd,
            "concurrency": self.concurrency.describe(),
        }

    def line(self) -> str:
        """Return the figures as one line."""
        f = self.figures()
        eta = "-" if f["eta_s"] is None else _duration(f["eta_s"])
        cost = usd(f["cost_usd"]) + (f" of {usd(self.budget.max_usd)}" if self.budget.max_usd is not None else "")
        return (
            f"{f['done']}/{f['total']} done ({f['failed']} failed), {f['in_flight']} in flight, "
            f"{f['per_min']:.1f} pairs/min, ETA {eta}, tokens {_count(f['input_tokens'])} in / "
            f"{_count(f['output_tokens'])} out, {cost}, concurrency {f['concurrency']}"
        )

    def stall_report(self) -> list[str] | None:
        """Return what the waiting pairs are waiting on when none finished for STALL_S seconds, else None."""
        now = self.clock()
        if not self.active or now - self.last_finish < STALL_S:
            return None
        lines = [f"no pair finished for {now - self.last_finish:.0f} s; {len(self.active)} waiting:"]
        oldest = sorted(self.active.items(), key=lambda entry: entry[1].started)[:STALL_LISTED]
        for (item_id, arm), activity in oldest:
            where = f" in {activity.where}" if activity.where else ""
            if activity.last is None:
                heard = "no model answer yet"
            else:
                heard = f"last heard {now - (activity.last_at or now):.0f} s ago: {activity.last}"
            lines.append(f"  {item_id} ({arm}){where}: running {now - activity.started:.0f} s, {heard}")
        if len(self.active) > STALL_LISTED:
            lines.append(f"  … and {len(self.active) - STALL_LISTED} more")
        return lines


def _duration(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def _count(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n / 1_000:.1f}k"
    return str(n)


def on_terminal(stream: TextIO) -> bool:
    """Return whether progress should be a live bar (a terminal, and not CI)."""
    import os

    return stream.isatty() and not os.environ.get("CI")


async def report(monitor: RunMonitor, *, log_every_s: float, bar: bool, stream: TextIO = sys.stderr) -> None:
    """Show the run's progress until cancelled: a live bar, or a plain line every `log_every_s` seconds."""
    if bar:
        await _bar(monitor, stream)
    else:
        await _lines(monitor, log_every_s, stream)


async def _lines(monitor: RunMonitor, log_every_s: float, stream: TextIO) -> None:
    next_line = monitor.clock() + log_every_s if log_every_s > 0 else float("inf")
    stalled_since: float | None = None
    while True:
        await asyncio.sleep(min(1.0, log_every_s) if log_every_s > 0 else 1.0)
        now = monitor.clock()
        if now >= next_line:
            print(f"[{time.strftime('%H:%M:%S')}] {monitor.line()}", file=stream, flush=True)
            next_line = now + log_every_s
        stalled_since = _maybe_stall(monitor, stalled_since, lambda text: print(text, file=stream, flush=True))


def _maybe_stall(monitor: RunMonitor, stalled_since: float | None, say: Callable[[str], None]) -> float | None:
    """Say the stall report once per stall (again after each further STALL_S); return when it was last said."""
    lines = monitor.stall_report()
    if lines is None:
        return None
    now = monitor.clock()
    if stalled_since is not None and now - stalled_since < STALL_S:
        return stalled_since
    say("\n".join(lines))
    return now


async def _bar(monitor: RunMonitor, stream: TextIO) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(file=stream)
    with Progress(
        TextColumn("solving"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[figures]}"),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("solving", total=monitor.total, completed=monitor.done_before, figures="")
        stalled_since: float | None = None
        while True:
            f = monitor.figures()
            eta = "-" if f["eta_s"] is None else _duration(f["eta_s"])
            figures = (
                f"{f['failed']} failed · {f['in_flight']} in flight · {f['per_min']:.1f}/min · ETA {eta} · "
                f"{_count(f['input_tokens'] + f['output_tokens'])} tok · {usd(f['cost_usd'])} · "
                f"concurrency {f['concurrency']}"
            )
            bar.update(task, completed=f["done"], figures=figures)
            stalled_since = _maybe_stall(monitor, stalled_since, bar.console.print)
            await asyncio.sleep(BAR_REFRESH_S)
