"""Progress figures, the plain line and the stall report."""

from mcot.agents.retry import Failure

from mcot.pacing import AdaptiveConcurrency
from mcot.progress import CURRENT_PAIR, RunMonitor
from mcot.rundir import Result, ResultUsage
from mcot.spending import CostBudget


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def monitor(clock: Clock, max_usd: float | None = None) -> RunMonitor:
    return RunMonitor(100, 10, 90, AdaptiveConcurrency(16), CostBudget(max_usd), clock=clock)


def test_the_line_shows_done_failed_rate_eta_tokens_cost_and_concurrency() -> None:
    clock = Clock()
    m = monitor(clock, max_usd=5.0)
    for n in range(30):
        m.start((f"i{n}", "text"))
    clock.now = 60.0
    usage = ResultUsage(input_tokens=1500, output_tokens=100, cost_usd=0.01)
    for n in range(30):
        m.finish((f"i{n}", "text"), Result(id=f"i{n}", mode="text", status="ok" if n % 10 else "error", usage=usage))
    line = m.line()
    assert line.startswith("40/100 done (3 failed), 0 in flight, 30.0 pairs/min, ETA 2m00s")
    assert "tokens 45.0k in / 3.0k out" in line
    assert "$0.3000 of $5.00" in line
    assert line.endswith("concurrency 16")


def test_a_stall_names_the_waiting_pairs_and_what_was_last_heard() -> None:
    clock = Clock()
    m = monitor(clock)
    m.start(("item-1", "canvas"))
    m.start(("item-2", "text"))
    clock.now = 20.0
    token = CURRENT_PAIR.set(("item-1", "canvas"))
    m.call_event(Failure(True, "HTTP 429: rate limited", 429))
    CURRENT_PAIR.reset(token)
    assert m.stall_report() is None
    clock.now = 75.0
    report = m.stall_report()
    assert report is not None
    assert report[0] == "no pair finished for 75 s; 2 waiting:"
    assert report[1] == "  item-1 (canvas): running 75 s, last heard 55 s ago: HTTP 429: rate limited (will retry)"
    assert report[2] == "  item-2 (text): running 75 s, no model answer yet"
