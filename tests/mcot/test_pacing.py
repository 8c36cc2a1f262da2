"""Adaptive concurrency: halve on overload answers (once a second), one more after a round of successes."""

from mcot.agents.retry import Failure

from mcot.pacing import AdaptiveConcurrency

OVERLOAD = Failure(True, "HTTP 429: slow down", 429)
SERVER_ERROR = Failure(True, "HTTP 500: oops", 500)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_overload_halves_the_limit_and_successes_raise_it_back_one_by_one() -> None:
    clock = Clock()
    aimd = AdaptiveConcurrency(16, clock=clock)
    aimd.on_call(OVERLOAD)
    assert aimd.limit == 8
    aimd.on_call(OVERLOAD)  # the same burst: requests sent together answer together
    assert aimd.limit == 8
    clock.now += 1.5
    aimd.on_call(OVERLOAD)
    assert aimd.limit == 4
    assert (aimd.overloads, aimd.decreases) == (3, 2)
    for _ in range(4):
        aimd.on_call(None)
    assert aimd.limit == 5
    for _ in range(5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15):
        aimd.on_call(None)
    assert aimd.limit == 16
    for _ in range(100):
        aimd.on_call(None)
    assert aimd.limit == 16  # never past the ceiling


def test_other_failures_do_not_change_the_limit_and_the_floor_is_one() -> None:
    clock = Clock()
    aimd = AdaptiveConcurrency(2, clock=clock)
    aimd.on_call(SERVER_ERROR)
    assert aimd.limit == 2
    for _ in range(5):
        aimd.on_call(OVERLOAD)
        clock.now += 2
    assert aimd.limit == 1
    assert aimd.describe() == "1/2 (lowered after 5 overload answers)"
    assert AdaptiveConcurrency(8).describe() == "8"
